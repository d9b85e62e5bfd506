"""Variable and parameter declarations: ``.reg``, ``.shared``, ``.global``, ``.param``, ...

A declaration is an ordered tuple of *qualifiers* (linkage, state space, ``.align N``, ``.vN``,
``.ptr``, type, ``.attribute(...)``), kept in source order, followed by one or more
:class:`Declarator` (``.reg .b64 a, b;``, ``.reg .b32 %r<8>;``, ``x[4][8] = {...}``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import ClassVar

from .node import Node, Trivia
from .operands import BraceList, Expr
from .types import PtxType, StateSpace

__all__ = [
    "Align",
    "DeclQualifier",
    "Declarator",
    "Initializer",
    "Linkage",
    "Param",
    "PtrQualifier",
    "VarAttribute",
    "VariableDecl",
    "VectorWidth",
]

_T = field(default=None, compare=False, repr=False)


class Linkage(enum.Enum):
    """Linking directives (``.visible``, ``.extern``, ``.weak``, ``.common``)."""

    VISIBLE = "visible"
    EXTERN = "extern"
    WEAK = "weak"
    COMMON = "common"

    @property
    def ptx(self) -> str:
        """The spelling with its dot."""
        return "." + self.value


@dataclass(frozen=True, slots=True)
class Align:
    """``.align N``."""

    value: int


@dataclass(frozen=True, slots=True)
class VectorWidth:
    """``.v2``, ``.v4`` or ``.v8`` on a declaration."""

    lanes: int


@dataclass(frozen=True, slots=True)
class PtrQualifier:
    """``.ptr`` on a kernel parameter (followed in source by a space and ``.align``)."""


@dataclass(frozen=True, slots=True)
class VarAttribute:
    """``.attribute(.managed)`` or ``.attribute(.unified(0x1, 0x2))``.

    Attributes:
        name: the attribute without dot, ``"managed"`` or ``"unified"``.
        args: integer spellings of the ``.unified`` UUID halves, if any.
    """

    name: str
    args: tuple[str, ...] = ()


DeclQualifier = Linkage | StateSpace | Align | VectorWidth | PtrQualifier | PtxType | VarAttribute
"""One qualifier of a declaration, in source order."""

Initializer = Expr | BraceList
"""What follows ``=`` in a declaration."""


@dataclass(frozen=True, slots=True)
class Declarator(Node):
    """One declared name with its array dimensions, ``<N>`` range and initializer.

    Attributes:
        name: the declared identifier (``%r``, ``smem``, ``param0``).
        dims: array dimensions; ``None`` for an unsized dimension (``[]``).
        range_count: ``N`` of ``%r<N>`` (declares ``%r0`` .. ``%r{N-1}``), else ``None``.
        initializer: the value after ``=``, if any.

    Gaps: before the name; before ``<``, N and ``>``; before each ``[``, size and ``]``;
    before ``=``.
    """

    name: str
    dims: tuple[int | None, ...] = ()
    range_count: int | None = None
    initializer: Initializer | None = None
    trivia: Trivia = _T

    def names(self) -> tuple[str, ...]:
        """The register names this declarator declares (expanding ``%r<N>``)."""
        if self.range_count is None:
            return (self.name,)
        return tuple(f"{self.name}{i}" for i in range(self.range_count))


def _find(quals: tuple[DeclQualifier, ...], kind: type) -> object | None:
    for q in quals:
        if isinstance(q, kind):
            return q
    return None


class _Qualified:
    """Accessors shared by declarations and parameters."""

    __slots__ = ()
    qualifiers: tuple[DeclQualifier, ...]

    @property
    def state_space(self) -> StateSpace | None:
        """The declaration's state space, if spelled."""
        q = _find(self.qualifiers, StateSpace)
        return q if isinstance(q, StateSpace) else None

    @property
    def type(self) -> PtxType | None:
        """The element type."""
        q = _find(self.qualifiers, PtxType)
        return q if isinstance(q, PtxType) else None

    @property
    def align(self) -> int | None:
        """The ``.align`` value, if any."""
        q = _find(self.qualifiers, Align)
        return q.value if isinstance(q, Align) else None

    @property
    def vector(self) -> int | None:
        """The ``.vN`` lane count, if any."""
        q = _find(self.qualifiers, VectorWidth)
        return q.lanes if isinstance(q, VectorWidth) else None

    @property
    def linkage(self) -> tuple[Linkage, ...]:
        """The linking directives, in order."""
        return tuple(q for q in self.qualifiers if isinstance(q, Linkage))


@dataclass(frozen=True, slots=True)
class VariableDecl(_Qualified, Node):
    """A variable declaration statement, e.g. ``.shared .align 16 .b8 smem[1024];``.

    Gaps: leading; before each further qualifier token (``.align`` and its number count as
    two); before each ``,``; before ``;``; trailing. Declarators hold the gap before their name.
    """

    STATEMENT: ClassVar[bool] = True

    qualifiers: tuple[DeclQualifier, ...]
    declarators: tuple[Declarator, ...]
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class Param(_Qualified, Node):
    """A function or kernel parameter, e.g. ``.param .u64 .ptr .global .align 16 p``.

    Gaps: before the first qualifier; before each further qualifier token.
    """

    qualifiers: tuple[DeclQualifier, ...]
    declarator: Declarator
    trivia: Trivia = _T

    @property
    def name(self) -> str:
        """The parameter name."""
        return self.declarator.name
