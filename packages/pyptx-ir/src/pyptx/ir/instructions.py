"""Instructions and their guard predicates."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import ClassVar

from .node import LEADING, TRAILING, Node, Span, Trivia, comma_gaps
from .operands import Operand

__all__ = ["Instruction", "Predicate"]

_T = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Predicate(Node):
    """The guard of an instruction: ``@%p1`` or ``@!%p1``.

    Gaps: ``leading`` (before ``@``), and ``before_bang`` when negated.
    """

    register: Operand
    negated: bool = False
    trivia: Trivia = _T

    def gap_names(self) -> tuple[str, ...]:
        """See :meth:`pyptx.ir.Node.gap_names`."""
        return (LEADING, "before_bang") if self.negated else (LEADING,)


@dataclass(frozen=True, slots=True)
class Instruction(Node):
    """One PTX instruction statement, e.g. ``@%p1 ld.global.nc.v4.f32 {...}, [%rd4+16];``.

    The parser is opcode-agnostic: ``opcode`` is the first dot-separated component of the
    mnemonic and ``modifiers`` the rest, in source order and spelling (``"shared::cluster"``,
    ``"L2::cache_hint"``, ``"2d"``).

    Attributes:
        opcode: ``"ld"``, ``"wgmma"``, ``"tcgen05"``, ...
        modifiers: the remaining components without dots.
        operands: the comma-separated operands.
        predicate: the guard, if any.
        span: where the instruction starts in the text it was parsed from, when the parser
            was asked for spans (``parse(..., spans=True)``); never compared.

    Gaps: ``leading`` (before the mnemonic), or ``before_opcode`` when guarded (the predicate
    then holds the statement's leading gap); :func:`~pyptx.ir.comma_gaps` of the operands;
    ``before_semicolon``; ``trailing``. Each operand holds the gap before itself.
    """

    STATEMENT: ClassVar[bool] = True

    opcode: str
    modifiers: tuple[str, ...] = ()
    operands: tuple[Operand, ...] = ()
    predicate: Predicate | None = None
    trivia: Trivia = _T
    span: Span | None = field(default=None, compare=False, repr=False)

    def gap_names(self) -> tuple[str, ...]:
        """See :meth:`pyptx.ir.Node.gap_names`."""
        return _instruction_gaps(self.predicate is not None, len(self.operands))

    def gap_index(self) -> Mapping[str, int]:
        """See :meth:`pyptx.ir.Node.gap_index` (cached per layout: the hottest node to emit)."""
        return _instruction_index(self.predicate is not None, len(self.operands))

    @property
    def mnemonic(self) -> str:
        """The full dotted spelling, e.g. ``"cp.async.bulk.tensor.2d.global.shared::cta"``."""
        if not self.modifiers:
            return self.opcode
        return self.opcode + "." + ".".join(self.modifiers)

    def has_modifier(self, modifier: str) -> bool:
        """Return whether ``modifier`` (without dot) is one of this instruction's modifiers."""
        return modifier in self.modifiers


@lru_cache(maxsize=128)
def _instruction_gaps(guarded: bool, operands: int) -> tuple[str, ...]:
    first = "before_opcode" if guarded else LEADING
    return (first, *comma_gaps(operands), "before_semicolon", TRAILING)


@lru_cache(maxsize=128)
def _instruction_index(guarded: bool, operands: int) -> Mapping[str, int]:
    return {name: i for i, name in enumerate(_instruction_gaps(guarded, operands))}
