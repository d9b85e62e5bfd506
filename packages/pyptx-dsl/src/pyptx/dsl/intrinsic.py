"""``@intrinsic``: named, nestable scopes of instructions, shown as PTX comments."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

from ._trace import _CURRENT, ScopeRecord

__all__ = ["intrinsic"]

F = TypeVar("F", bound=Callable[..., Any])


def intrinsic(fn: F) -> F:
    """Mark a helper as a named instruction scope.

    Inside a kernel trace, the statements the helper emits are grouped under its name: the
    first is preceded by ``// begin <name>`` and the last followed by ``// end <name>``.
    Scopes nest; the return value passes through unchanged. Outside a trace the function
    runs as is.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        trace = _CURRENT.get()
        if trace is None:
            return fn(*args, **kwargs)
        record = ScopeRecord(fn.__qualname__)
        with trace.nested() as body:
            result = fn(*args, **kwargs)
        record.body = body
        trace.append(record)
        return result

    return cast(F, wrapper)
