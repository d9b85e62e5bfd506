"""Variable and parameter declarations: ``.reg``, ``.shared``, ``.global``, ``.param``, ...

A declaration is an ordered tuple of *qualifiers* (linkage, state space, ``.align N``, ``.vN``,
``.ptr``, type, ``.attribute(...)``), kept in source order, followed by one or more
:class:`Declarator` (``.reg .b64 a, b;``, ``.reg .b32 %r<8>;``, ``x[4][8] = {...}``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import ClassVar

from .node import LEADING, TRAILING, Node, Trivia, comma_gaps, token_gaps
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
    "qualifier_tokens",
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


def qualifier_tokens(q: DeclQualifier) -> tuple[str, ...]:
    """The tokens one declaration qualifier is written as (``Align(16)`` -> ``.align``, ``16``).

    Each token has a gap before it (see :func:`~pyptx.ir.token_gaps`).

    Args:
        q: the qualifier.

    Returns:
        Its tokens, in order.

    Raises:
        TypeError: ``q`` is not a declaration qualifier.
    """
    if isinstance(q, (Linkage, StateSpace, PtxType)):
        return ("." + q.value,)
    if isinstance(q, Align):
        return (".align", str(q.value))
    if isinstance(q, VectorWidth):
        return (f".v{q.lanes}",)
    if isinstance(q, PtrQualifier):
        return (".ptr",)
    if isinstance(q, VarAttribute):
        toks = [".attribute", "(", "." + q.name]
        if q.args:
            toks.append("(")
            for i, a in enumerate(q.args):
                if i:
                    toks.append(",")
                toks.append(a)
            toks.append(")")
        toks.append(")")
        return tuple(toks)
    raise TypeError(f"not a declaration qualifier: {q!r}")


def _token_count(quals: tuple[DeclQualifier, ...]) -> int:
    n = 0
    for q in quals:
        if isinstance(q, Align):
            n += 2
        elif isinstance(q, VarAttribute):
            n += len(qualifier_tokens(q))
        else:
            n += 1
    return n


def _param_list_gaps(params: tuple[Param, ...] | None, prefix: str) -> tuple[str, ...]:
    """The gap names of an optional parenthesised parameter list (functions, prototypes).

    Args:
        params: the list, or ``None`` when it is absent (no gaps).
        prefix: the list's name prefix, ``"returns_"`` or ``"params_"``.

    Returns:
        ``before_lparen``, :func:`~pyptx.ir.comma_gaps` of the parameters and
        ``before_rparen``, each with ``prefix``.
    """
    if params is None:
        return ()
    return (
        prefix + "before_lparen",
        *comma_gaps(len(params), prefix),
        prefix + "before_rparen",
    )


@dataclass(frozen=True, slots=True)
class Declarator(Node):
    """One declared name with its array dimensions, ``<N>`` range and initializer.

    Attributes:
        name: the declared identifier (``%r``, ``smem``, ``param0``).
        dims: array dimensions; ``None`` for an unsized dimension (``[]``).
        range_count: ``N`` of ``%r<N>`` (declares ``%r0`` .. ``%r{N-1}``), else ``None``.
        initializer: the value after ``=``, if any.

    Gaps: ``leading`` (before the name); ``before_lt``, ``before_count`` and ``before_gt``
    of ``<N>``; for each dimension ``j`` (from 0) ``before_lbracket_<j>``, ``before_size_<j>``
    (when sized) and ``before_rbracket_<j>``; ``before_eq`` when initialised.
    """

    name: str
    dims: tuple[int | None, ...] = ()
    range_count: int | None = None
    initializer: Initializer | None = None
    trivia: Trivia = _T

    def gap_names(self) -> tuple[str, ...]:
        """See :meth:`pyptx.ir.Node.gap_names`."""
        ranged = self.range_count is not None
        if not self.dims and self.initializer is None:
            return _RANGED if ranged else _PLAIN
        names = list(_RANGED if ranged else _PLAIN)
        for j, dim in enumerate(self.dims):
            names.append(f"before_lbracket_{j}")
            if dim is not None:
                names.append(f"before_size_{j}")
            names.append(f"before_rbracket_{j}")
        if self.initializer is not None:
            names.append("before_eq")
        return tuple(names)

    def names(self) -> tuple[str, ...]:
        """The register names this declarator declares (expanding ``%r<N>``)."""
        if self.range_count is None:
            return (self.name,)
        return tuple(f"{self.name}{i}" for i in range(self.range_count))


_PLAIN = (LEADING,)
_RANGED = (LEADING, "before_lt", "before_count", "before_gt")


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

    Gaps: :func:`~pyptx.ir.token_gaps` of the qualifier tokens (:func:`qualifier_tokens`:
    ``leading``, ``before_token_1``, ...); :func:`~pyptx.ir.comma_gaps` of the declarators;
    ``before_semicolon``; ``trailing``. Declarators hold the gap before their name.
    """

    STATEMENT: ClassVar[bool] = True

    qualifiers: tuple[DeclQualifier, ...]
    declarators: tuple[Declarator, ...]
    trivia: Trivia = _T

    def gap_names(self) -> tuple[str, ...]:
        """See :meth:`pyptx.ir.Node.gap_names`."""
        return (
            *token_gaps(_token_count(self.qualifiers)),
            *comma_gaps(len(self.declarators)),
            "before_semicolon",
            TRAILING,
        )


@dataclass(frozen=True, slots=True)
class Param(_Qualified, Node):
    """A function or kernel parameter, e.g. ``.param .u64 .ptr .global .align 16 p``.

    Gaps: :func:`~pyptx.ir.token_gaps` of the qualifier tokens (``leading``,
    ``before_token_1``, ...); the declarator holds the gap before the name.
    """

    qualifiers: tuple[DeclQualifier, ...]
    declarator: Declarator
    trivia: Trivia = _T

    def gap_names(self) -> tuple[str, ...]:
        """See :meth:`pyptx.ir.Node.gap_names`."""
        return token_gaps(_token_count(self.qualifiers))

    @property
    def name(self) -> str:
        """The parameter name."""
        return self.declarator.name
