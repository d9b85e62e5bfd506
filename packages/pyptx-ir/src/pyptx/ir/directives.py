"""Module-header, debug, linking and performance-tuning directives (PTX ISA chapter 11)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import ClassVar

from .declarations import Param, _param_list_gaps
from .node import LEADING, TRAILING, Node, Trivia, comma_gaps
from .operands import Expr, Immediate, StringLiteral
from .types import PtxType

__all__ = [
    "AddressSize",
    "Alias",
    "BranchTargets",
    "CallPrototype",
    "CallTargets",
    "File",
    "FunctionDirective",
    "FunctionDirectiveKind",
    "Loc",
    "LocAttribute",
    "LocFunctionName",
    "LocInlinedAt",
    "Pragma",
    "Section",
    "SectionData",
    "Target",
    "Version",
]

_T = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Version(Node):
    """``.version major.minor``. Gaps: ``leading``, ``before_number``, ``trailing``."""

    STATEMENT: ClassVar[bool] = True
    GAPS: ClassVar[tuple[str, ...]] = (LEADING, "before_number", TRAILING)

    major: int
    minor: int
    trivia: Trivia = _T

    @property
    def tuple(self) -> tuple[int, int]:
        """``(major, minor)``."""
        return (self.major, self.minor)


@dataclass(frozen=True, slots=True)
class Target(Node):
    """``.target sm_90a[, option...]``.

    Gaps: ``leading``; ``before_name_0``; for each further name ``i``, ``before_comma_<i>``
    and ``before_name_<i>``; ``trailing``.
    """

    STATEMENT: ClassVar[bool] = True

    targets: tuple[str, ...]
    trivia: Trivia = _T

    def gap_names(self) -> tuple[str, ...]:
        """See :meth:`pyptx.ir.Node.gap_names`."""
        names = [LEADING, "before_name_0"]
        for i, comma in enumerate(comma_gaps(len(self.targets)), 1):
            names += (comma, f"before_name_{i}")
        names.append(TRAILING)
        return tuple(names)

    @property
    def arch(self) -> str | None:
        """The first ``sm_XX`` entry, if any."""
        return next((t for t in self.targets if t.startswith("sm_")), None)


@dataclass(frozen=True, slots=True)
class AddressSize(Node):
    """``.address_size 32|64``. Gaps: ``leading``, ``before_number``, ``trailing``."""

    STATEMENT: ClassVar[bool] = True
    GAPS: ClassVar[tuple[str, ...]] = (LEADING, "before_number", TRAILING)

    bits: int
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class File(Node):
    """``.file index "path"[, timestamp, size]``.

    Gaps: ``leading``, ``before_index``, :func:`~pyptx.ir.comma_gaps` of the items (the path,
    then each extra), ``trailing``. The path and the extras hold the gap before themselves.
    """

    STATEMENT: ClassVar[bool] = True

    index: int
    path: StringLiteral
    extras: tuple[Immediate, ...] = ()
    trivia: Trivia = _T

    def gap_names(self) -> tuple[str, ...]:
        """See :meth:`pyptx.ir.Node.gap_names`."""
        return (LEADING, "before_index", *comma_gaps(1 + len(self.extras)), TRAILING)


@dataclass(frozen=True, slots=True)
class LocFunctionName(Node):
    """``function_name label`` of a ``.loc``. Gaps: ``before_comma``, ``before_keyword``."""

    GAPS: ClassVar[tuple[str, ...]] = ("before_comma", "before_keyword")

    label: Expr
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class LocInlinedAt(Node):
    """``inlined_at file line col`` of a ``.loc``.

    Gaps: ``before_comma``, ``before_keyword``, ``before_file``, ``before_line``,
    ``before_column``.
    """

    GAPS: ClassVar[tuple[str, ...]] = (
        "before_comma",
        "before_keyword",
        "before_file",
        "before_line",
        "before_column",
    )

    file: int
    line: int
    column: int
    trivia: Trivia = _T


LocAttribute = LocFunctionName | LocInlinedAt
"""An optional attribute of ``.loc``."""


@dataclass(frozen=True, slots=True)
class Loc(Node):
    """``.loc file line column[, function_name f][, inlined_at f l c]``.

    Gaps: ``leading``, ``before_file``, ``before_line``, ``before_column``, ``trailing``
    (attributes hold their own gaps).
    """

    STATEMENT: ClassVar[bool] = True
    GAPS: ClassVar[tuple[str, ...]] = (
        LEADING,
        "before_file",
        "before_line",
        "before_column",
        TRAILING,
    )

    file: int
    line: int
    column: int
    attributes: tuple[LocAttribute, ...] = ()
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class Pragma(Node):
    """``.pragma "nounroll";``.

    Gaps: ``leading``, :func:`~pyptx.ir.comma_gaps` of the values, ``before_semicolon``,
    ``trailing``.
    """

    STATEMENT: ClassVar[bool] = True

    values: tuple[StringLiteral, ...]
    trivia: Trivia = _T

    def gap_names(self) -> tuple[str, ...]:
        """See :meth:`pyptx.ir.Node.gap_names`."""
        return (LEADING, *comma_gaps(len(self.values)), "before_semicolon", TRAILING)


@dataclass(frozen=True, slots=True)
class Alias(Node):
    """``.alias fAlias, fAliasee;``.

    Gaps: ``leading``, ``before_alias``, ``before_comma``, ``before_aliasee``,
    ``before_semicolon``, ``trailing``.
    """

    STATEMENT: ClassVar[bool] = True
    GAPS: ClassVar[tuple[str, ...]] = (
        LEADING,
        "before_alias",
        "before_comma",
        "before_aliasee",
        "before_semicolon",
        TRAILING,
    )

    alias: str
    aliasee: str
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class SectionData(Node):
    """A data line of a ``.section`` body: ``.b8 1, 2, 3`` or ``.b32 $L__end - $L__begin``.

    Gaps: ``leading``, :func:`~pyptx.ir.comma_gaps` of the values, ``trailing`` (values hold
    their own leading gap).
    """

    STATEMENT: ClassVar[bool] = True

    type: PtxType
    values: tuple[Expr, ...]
    trivia: Trivia = _T

    def gap_names(self) -> tuple[str, ...]:
        """See :meth:`pyptx.ir.Node.gap_names`."""
        return _values_gaps(len(self.values))

    def gap_index(self) -> Mapping[str, int]:
        """See :meth:`pyptx.ir.Node.gap_index` (cached per number of values)."""
        return _values_index(len(self.values))


@dataclass(frozen=True, slots=True)
class Section(Node):
    """``.section .debug_info { ... }``: a DWARF section body of data lines and labels.

    Attributes:
        name: the section name including its dot (``".debug_info"``).
        items: :class:`SectionData` and :class:`~pyptx.ir.Label` statements.

    Gaps: ``leading``, ``before_name``, ``before_lbrace``, ``before_rbrace``, ``trailing``.
    """

    STATEMENT: ClassVar[bool] = True
    GAPS: ClassVar[tuple[str, ...]] = (
        LEADING,
        "before_name",
        "before_lbrace",
        "before_rbrace",
        TRAILING,
    )

    name: str
    items: tuple[Node, ...]
    trivia: Trivia = _T


@lru_cache(maxsize=64)
def _values_gaps(values: int) -> tuple[str, ...]:
    return (LEADING, *comma_gaps(values), TRAILING)


@lru_cache(maxsize=64)
def _values_index(values: int) -> Mapping[str, int]:
    return {name: i for i, name in enumerate(_values_gaps(values))}


class FunctionDirectiveKind(enum.Enum):
    """Performance-tuning and cluster directives that follow a function's parameter list."""

    MAXNREG = "maxnreg"
    MAXNTID = "maxntid"
    REQNTID = "reqntid"
    MINNCTAPERSM = "minnctapersm"
    MAXNCTAPERSM = "maxnctapersm"
    REQNCTAPERCLUSTER = "reqnctapercluster"
    EXPLICITCLUSTER = "explicitcluster"
    MAXCLUSTERRANK = "maxclusterrank"
    BLOCKSARECLUSTERS = "blocksareclusters"
    NORETURN = "noreturn"
    ABI_PRESERVE = "abi_preserve"
    ABI_PRESERVE_CONTROL = "abi_preserve_control"

    @property
    def ptx(self) -> str:
        """The spelling with its dot."""
        return "." + self.value


@dataclass(frozen=True, slots=True)
class FunctionDirective(Node):
    """``.maxntid 128, 1, 1``, ``.explicitcluster``, ``.noreturn``, ...

    Gaps: ``leading``, :func:`~pyptx.ir.comma_gaps` of the values, ``trailing`` (values hold
    their own leading gap).
    """

    STATEMENT: ClassVar[bool] = True

    kind: FunctionDirectiveKind
    values: tuple[Immediate, ...] = ()
    trivia: Trivia = _T

    def gap_names(self) -> tuple[str, ...]:
        """See :meth:`pyptx.ir.Node.gap_names`."""
        return _values_gaps(len(self.values))

    def gap_index(self) -> Mapping[str, int]:
        """See :meth:`pyptx.ir.Node.gap_index` (cached per number of values)."""
        return _values_index(len(self.values))


@dataclass(frozen=True, slots=True)
class BranchTargets(Node):
    """``.branchtargets L1, L2;`` (after a label).

    Gaps: ``leading``, :func:`~pyptx.ir.comma_gaps` of the labels, ``before_semicolon``,
    ``trailing``.
    """

    STATEMENT: ClassVar[bool] = True

    labels: tuple[Expr, ...]
    trivia: Trivia = _T

    def gap_names(self) -> tuple[str, ...]:
        """See :meth:`pyptx.ir.Node.gap_names`."""
        return (LEADING, *comma_gaps(len(self.labels)), "before_semicolon", TRAILING)


@dataclass(frozen=True, slots=True)
class CallTargets(Node):
    """``.calltargets f1, f2;`` (after a label).

    Gaps: ``leading``, :func:`~pyptx.ir.comma_gaps` of the functions, ``before_semicolon``,
    ``trailing``.
    """

    STATEMENT: ClassVar[bool] = True

    functions: tuple[Expr, ...]
    trivia: Trivia = _T

    def gap_names(self) -> tuple[str, ...]:
        """See :meth:`pyptx.ir.Node.gap_names`."""
        return (LEADING, *comma_gaps(len(self.functions)), "before_semicolon", TRAILING)


@dataclass(frozen=True, slots=True)
class CallPrototype(Node):
    """``.callprototype (.param .b32 _) _ (.param .b32 _, .param .b64 _);`` (after a label).

    Attributes:
        returns: the return parameter list, or ``None`` when absent.
        params: the argument parameter list, or ``None`` when absent.
        noreturn: whether ``.noreturn`` follows the lists.

    Gaps: ``leading``; ``returns_before_lparen``, ``returns_before_comma_<i>`` and
    ``returns_before_rparen`` when there is a return list; ``before_sink``; the same with
    ``params_`` for the argument list; ``before_noreturn`` when ``.noreturn`` is there;
    ``before_semicolon``; ``trailing``.
    """

    STATEMENT: ClassVar[bool] = True

    returns: tuple[Param, ...] | None
    params: tuple[Param, ...] | None
    noreturn: bool = False
    trivia: Trivia = _T

    def gap_names(self) -> tuple[str, ...]:
        """See :meth:`pyptx.ir.Node.gap_names`."""
        return (
            LEADING,
            *_param_list_gaps(self.returns, "returns_"),
            "before_sink",
            *_param_list_gaps(self.params, "params_"),
            *(("before_noreturn",) if self.noreturn else ()),
            "before_semicolon",
            TRAILING,
        )
