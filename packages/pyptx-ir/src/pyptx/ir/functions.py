"""Functions (``.entry`` kernels and ``.func`` device functions), blocks and labels."""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar

from .declarations import Linkage, Param, _param_list_gaps
from .node import LEADING, TRAILING, Node, Trivia, token_gaps

__all__ = ["Block", "Function", "FunctionKind", "Label"]

_T = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Label(Node):
    """A label definition ``name:``. Gaps: ``leading``, ``before_colon``, ``trailing``."""

    STATEMENT: ClassVar[bool] = True
    GAPS: ClassVar[tuple[str, ...]] = (LEADING, "before_colon", TRAILING)

    name: str
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class Block(Node):
    """A ``{ ... }`` statement block (function bodies and nested scopes).

    Gaps: ``leading`` (before ``{``), ``before_rbrace``, ``trailing``.
    """

    STATEMENT: ClassVar[bool] = True
    GAPS: ClassVar[tuple[str, ...]] = (LEADING, "before_rbrace", TRAILING)

    statements: tuple[Node, ...] = ()
    trivia: Trivia = _T

    def walk_statements(self) -> Iterator[Node]:
        """Yield every statement, descending into nested blocks, in source order."""
        for s in self.statements:
            yield s
            if isinstance(s, Block):
                yield from s.walk_statements()


class FunctionKind(enum.Enum):
    """``.entry`` (a kernel) or ``.func`` (a device function)."""

    ENTRY = "entry"
    FUNC = "func"

    @property
    def ptx(self) -> str:
        """The spelling with its dot."""
        return "." + self.value


@dataclass(frozen=True, slots=True)
class Function(Node):
    """A kernel or device function, defined (``body``) or declared (``body is None``).

    Attributes:
        kind: entry or func.
        name: the function's symbol.
        linkage: ``.visible`` / ``.extern`` / ``.weak`` in source order.
        returns: the ``.func`` return parameter list, ``None`` when absent.
        params: the parameter list, ``None`` when the source has no parentheses.
        directives: performance-tuning directives and pragmas between the signature and body.
        body: the body block, or ``None`` for a prototype ending in ``;``.

    Gaps: :func:`~pyptx.ir.token_gaps` of the linkage and kind keywords (``leading``,
    ``before_token_1``, ...); ``returns_before_lparen``, ``returns_before_comma_<i>`` and
    ``returns_before_rparen`` when there is a return list; ``before_name``; the same with
    ``params_`` for the parameter list; ``before_semicolon`` when there is no body;
    ``trailing``. Parameters, directives and the body hold their own leading gap.
    """

    STATEMENT: ClassVar[bool] = True

    kind: FunctionKind
    name: str
    params: tuple[Param, ...] | None = ()
    body: Block | None = None
    linkage: tuple[Linkage, ...] = ()
    returns: tuple[Param, ...] | None = None
    directives: tuple[Node, ...] = ()
    trivia: Trivia = _T

    def gap_names(self) -> tuple[str, ...]:
        """See :meth:`pyptx.ir.Node.gap_names`."""
        return (
            *token_gaps(len(self.linkage) + 1),
            *_param_list_gaps(self.returns, "returns_"),
            "before_name",
            *_param_list_gaps(self.params, "params_"),
            *(("before_semicolon",) if self.body is None else ()),
            TRAILING,
        )

    @property
    def is_kernel(self) -> bool:
        """Whether this is an ``.entry``."""
        return self.kind is FunctionKind.ENTRY

    @property
    def statements(self) -> tuple[Node, ...]:
        """The body's top-level statements (empty for a prototype)."""
        return self.body.statements if self.body is not None else ()
