"""Module-header, debug, linking and performance-tuning directives (PTX ISA chapter 11)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import ClassVar

from .declarations import Param
from .node import Node, Trivia
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
    """``.version major.minor``. Gaps: leading, before the number, trailing."""

    STATEMENT: ClassVar[bool] = True

    major: int
    minor: int
    trivia: Trivia = _T

    @property
    def tuple(self) -> tuple[int, int]:
        """``(major, minor)``."""
        return (self.major, self.minor)


@dataclass(frozen=True, slots=True)
class Target(Node):
    """``.target sm_90a[, option...]``. Gaps: leading, before each name and ``,``, trailing."""

    STATEMENT: ClassVar[bool] = True

    targets: tuple[str, ...]
    trivia: Trivia = _T

    @property
    def arch(self) -> str | None:
        """The first ``sm_XX`` entry, if any."""
        return next((t for t in self.targets if t.startswith("sm_")), None)


@dataclass(frozen=True, slots=True)
class AddressSize(Node):
    """``.address_size 32|64``. Gaps: leading, before the number, trailing."""

    STATEMENT: ClassVar[bool] = True

    bits: int
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class File(Node):
    """``.file index "path"[, timestamp, size]``.

    Gaps: leading, before the index, before the path, before each ``,`` and number, trailing.
    """

    STATEMENT: ClassVar[bool] = True

    index: int
    path: StringLiteral
    extras: tuple[Immediate, ...] = ()
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class LocFunctionName(Node):
    """``function_name label`` of a ``.loc``. Gaps: before ``,``, before the keyword."""

    label: Expr
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class LocInlinedAt(Node):
    """``inlined_at file line col`` of a ``.loc``.

    Gaps: before ``,``, before the keyword, before each number.
    """

    file: int
    line: int
    column: int
    trivia: Trivia = _T


LocAttribute = LocFunctionName | LocInlinedAt
"""An optional attribute of ``.loc``."""


@dataclass(frozen=True, slots=True)
class Loc(Node):
    """``.loc file line column[, function_name f][, inlined_at f l c]``.

    Gaps: leading, before each of the three numbers, trailing.
    """

    STATEMENT: ClassVar[bool] = True

    file: int
    line: int
    column: int
    attributes: tuple[LocAttribute, ...] = ()
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class Pragma(Node):
    """``.pragma "nounroll";``. Gaps: leading, before each ``,``, before ``;``, trailing."""

    STATEMENT: ClassVar[bool] = True

    values: tuple[StringLiteral, ...]
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class Alias(Node):
    """``.alias fAlias, fAliasee;``. Gaps: leading, before each name, ``,`` and ``;``, trailing."""

    STATEMENT: ClassVar[bool] = True

    alias: str
    aliasee: str
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class SectionData(Node):
    """A data line of a ``.section`` body: ``.b8 1, 2, 3`` or ``.b32 $L__end - $L__begin``.

    Gaps: leading, before each ``,``, trailing (values hold their own leading gap).
    """

    STATEMENT: ClassVar[bool] = True

    type: PtxType
    values: tuple[Expr, ...]
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class Section(Node):
    """``.section .debug_info { ... }``: a DWARF section body of data lines and labels.

    Attributes:
        name: the section name including its dot (``".debug_info"``).
        items: :class:`SectionData` and :class:`~pyptx.ir.Label` statements.

    Gaps: leading, before the name, before ``{``, before ``}``, trailing.
    """

    STATEMENT: ClassVar[bool] = True

    name: str
    items: tuple[Node, ...]
    trivia: Trivia = _T


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

    Gaps: leading, before each ``,``, trailing (values hold their own leading gap).
    """

    STATEMENT: ClassVar[bool] = True

    kind: FunctionDirectiveKind
    values: tuple[Immediate, ...] = ()
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class BranchTargets(Node):
    """``.branchtargets L1, L2;`` (after a label). Gaps: leading, before ``,`` / ``;``, trailing."""

    STATEMENT: ClassVar[bool] = True

    labels: tuple[Expr, ...]
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class CallTargets(Node):
    """``.calltargets f1, f2;`` (after a label). Gaps: leading, before ``,`` / ``;``, trailing."""

    STATEMENT: ClassVar[bool] = True

    functions: tuple[Expr, ...]
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class CallPrototype(Node):
    """``.callprototype (.param .b32 _) _ (.param .b32 _, .param .b64 _);`` (after a label).

    Attributes:
        returns: the return parameter list, or ``None`` when absent.
        params: the argument parameter list, or ``None`` when absent.
        noreturn: whether ``.noreturn`` follows the lists.

    Gaps: leading; before each ``(``, ``,`` and ``)`` of the return list; before ``_``; the
    same for the argument list; before ``.noreturn``; before ``;``; trailing.
    """

    STATEMENT: ClassVar[bool] = True

    returns: tuple[Param, ...] | None
    params: tuple[Param, ...] | None
    noreturn: bool = False
    trivia: Trivia = _T
