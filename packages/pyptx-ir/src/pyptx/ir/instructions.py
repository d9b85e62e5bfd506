"""Instructions and their guard predicates."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .node import Node, Trivia
from .operands import Operand

__all__ = ["Instruction", "Predicate"]

_T = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Predicate(Node):
    """The guard of an instruction: ``@%p1`` or ``@!%p1``.

    Gaps: before ``@``, and before ``!`` when negated.
    """

    register: Operand
    negated: bool = False
    trivia: Trivia = _T


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

    Gaps: leading; before the mnemonic if guarded; before each ``,``; before ``;``; trailing.
    """

    STATEMENT: ClassVar[bool] = True

    opcode: str
    modifiers: tuple[str, ...] = ()
    operands: tuple[Operand, ...] = ()
    predicate: Predicate | None = None
    trivia: Trivia = _T

    @property
    def mnemonic(self) -> str:
        """The full dotted spelling, e.g. ``"cp.async.bulk.tensor.2d.global.shared::cta"``."""
        if not self.modifiers:
            return self.opcode
        return self.opcode + "." + ".".join(self.modifiers)

    def has_modifier(self, modifier: str) -> bool:
        """Return whether ``modifier`` (without dot) is one of this instruction's modifiers."""
        return modifier in self.modifiers
