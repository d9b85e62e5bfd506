"""Instructions the ISA table declares once for integers and floats alike.

``add``, ``sub``, ``mul``, ``mad``, ``div``, ``rem``, ``abs``, ``neg``, ``min`` and ``max``
are one spec each with integer and floating-point forms; the semantics registered for them
here pick :mod:`.integer` or :mod:`.floating` by the instruction's type.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyptx.ir import PtxType, TypeKind

from .._machine import Executor
from .._site import Site
from . import floating, integer

__all__ = ["SEMANTICS"]

_SHARED = ("add", "sub", "mul", "mad", "div", "rem", "abs", "neg", "min", "max")


def _is_float(site: Site) -> bool:
    for slot in ("type", "dtype"):
        value = site.slot(slot)
        ty = PtxType.from_name(value) if value is not None else None
        if ty is not None:
            return ty.kind is TypeKind.FLOAT
    return False


def _by_type(name: str) -> Callable[[Site], Executor]:
    int_impl = getattr(integer, name, None)
    float_impl = getattr(floating, name, None)

    def factory(site: Site) -> Executor:
        impl = float_impl if _is_float(site) else int_impl
        if impl is None:
            raise site.not_emulated(site.mnemonic)
        return impl(site)

    factory.__name__ = name
    factory.__doc__ = f"``{name}``: integer or floating-point semantics by type."
    return factory


SEMANTICS: dict[str, Any] = {name: _by_type(name) for name in _SHARED}
