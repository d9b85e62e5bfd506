"""A key under which :func:`check` gives every instruction the same verdict.

:func:`check` reads an instruction's opcode, modifiers, operands and guard; of a register it
reads only the declared type, and of an immediate only the value, and that only where an
operand's values are restricted (a selector, a mask). So two instructions that differ only
in register names, with registers of the same types in the same places, pass or fail
together; so do two that differ only in unrestricted numbers. :func:`shape_key` spells that
out (keeping, to spare, which registers repeat), so callers checking many instructions (a
transpiled file, a traced kernel) can remember which shapes passed.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache

from pyptx.ir import (
    Immediate,
    Instruction,
    LabelRef,
    Node,
    Register,
    Sink,
    SpecialRegister,
    StringLiteral,
    Symbol,
    child_fields,
)

from ._check import _match
from ._diagnostics import RegType

__all__ = ["shape_key"]


def shape_key(insn: Instruction, reg_type: RegType | None = None) -> Hashable:
    """A hashable key that is equal for two instructions :func:`check` must judge alike.

    Registers become ``(first-occurrence index, declared type)``, so the names drop out while
    the types and the pattern of repeated registers stay. Immediates drop out too where no
    form the mnemonic may take restricts an operand's values (``add.s32``'s ``1`` and ``2``
    key alike; ``vote.sync``'s member mask does not); every other part of the instruction
    (opcode, modifiers, symbols, labels, special registers, the guard's negation) is kept as
    it is. Diagnostics name operands, so only a verdict (pass/fail, or a :class:`Verdict`)
    may be shared by key, never the messages.
    """
    seen: dict[str, int] = {}
    numbers = _values_read(insn.opcode, insn.modifiers)

    def key(value: object) -> Hashable:
        cls = type(value)
        if cls is Register:
            name = value.name  # type: ignore[attr-defined]
            index = seen.setdefault(name, len(seen))
            return (index, reg_type(name) if reg_type is not None else None)
        if cls is Immediate and not numbers:
            return Immediate
        if cls in _LEAVES:
            return value
        if cls is tuple:
            return tuple(key(item) for item in value)  # type: ignore[attr-defined]
        if isinstance(value, Node):
            return (cls, *(key(getattr(value, name)) for name in child_fields(cls)))
        assert isinstance(value, Hashable)
        return value

    guard = insn.predicate
    head = None if guard is None else (key(guard.register), guard.negated)
    operands: list[Hashable] = []
    for op in insn.operands:  # key() inlined for the common plain operands
        cls = type(op)
        if cls is Register:
            name = op.name  # type: ignore[union-attr]
            index = seen.setdefault(name, len(seen))
            operands.append((index, reg_type(name) if reg_type is not None else None))
        elif cls is Immediate and not numbers:
            operands.append(Immediate)
        else:
            operands.append(key(op))
    return (insn.opcode, insn.modifiers, head, tuple(operands))


@lru_cache(maxsize=8192)
def _values_read(opcode: str, modifiers: tuple[str, ...]) -> bool:
    """Whether :func:`check` may read the value of an immediate of this mnemonic.

    It does only for an operand with :attr:`OperandSpec.values`, in a form the modifiers fit;
    a mnemonic that fits no form fails whatever its operands.
    """
    m = _match(opcode, modifiers)
    return any(
        op.values is not None
        for cand in (m, *m.others)
        if cand.form is not None
        for op in cand.form.operands
    )


# Operand nodes that hold no register: they key as themselves (trivia is never compared).
_LEAVES = frozenset({Immediate, LabelRef, Symbol, SpecialRegister, Sink, StringLiteral})
