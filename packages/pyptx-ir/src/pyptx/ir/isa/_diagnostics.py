"""The types the checker's modules share: diagnostics and what a mnemonic matched.

:mod:`._check` (matching, gates, the public entry points) and :mod:`._operand_check` (the
operand checks) both build on these, so they live in this leaf module.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..node import Span
from ..types import PtxType
from ._model import Form, Gate, InstructionSpec

__all__ = ["Diagnostic", "DiagnosticCode", "RegType"]

RegType = Callable[[str], PtxType | None]


class DiagnosticCode(enum.Enum):
    """What kind of problem a :class:`Diagnostic` reports."""

    UNKNOWN_OPCODE = "unknown-opcode"
    """The table has no instruction by that name."""
    UNKNOWN_MODIFIER = "unknown-modifier"
    """A modifier the instruction does not take, or not with the other modifiers given."""
    MISSING_MODIFIER = "missing-modifier"
    """A required modifier (a type, a shape, a state space) is absent."""
    OPERAND_COUNT = "operand-count"
    """Too few or too many operands."""
    OPERAND_KIND = "operand-kind"
    """An operand of the wrong kind: an address where a register goes, and so on."""
    REGISTER_WIDTH = "register-width"
    """A register declared with a width (or as a predicate) the instruction does not take."""
    VECTOR_SIZE = "vector-size"
    """A vector operand with the wrong number of elements."""
    IMMEDIATE_VALUE = "immediate-value"
    """An immediate outside the values the operand takes (a selector, a flag)."""
    TARGET = "target"
    """The ``.target`` lacks the instruction or one of its modifiers."""
    PTX_VERSION = "ptx-version"
    """The ``.version`` is older than the instruction or one of its modifiers."""


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found in an instruction.

    Attributes:
        code: what kind of problem.
        message: what was expected, what was got, and the fix when it is mechanical.
        operand: the index of the operand concerned, if one is.
        span: where the instruction is, when it was parsed with spans; ``str()`` then
            starts with ``file:line:col: ``.
    """

    code: DiagnosticCode
    message: str
    operand: int | None = None
    span: Span | None = None

    def __str__(self) -> str:
        return self.message if self.span is None else f"{self.span}: {self.message}"


@dataclass(frozen=True, slots=True)
class _Match:
    """What the mnemonic alone says: spec, form, slot values, diagnostics, gates."""

    spec: InstructionSpec | None
    rest: tuple[str, ...] = ()
    form: Form | None = None
    slots: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()
    gates: tuple[tuple[str, Gate], ...] = ()
    others: tuple[_Match, ...] = ()
    """Later forms the modifiers fit too, tried when the operands do not fit this one."""
