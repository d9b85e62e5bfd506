"""A key under which :func:`check` gives every instruction the same verdict.

:func:`check` reads an instruction's opcode, modifiers, operands and guard, and of a register
only its declared type and whether it is the same register as another operand. So two
instructions that differ only in register names, with registers of the same types in the
same places and repeated in the same pattern, pass or fail together. :func:`shape_key`
spells that out, so callers checking many instructions (a transpiled file, a traced kernel)
can remember which shapes passed.
"""

from __future__ import annotations

from collections.abc import Hashable

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

from ._diagnostics import RegType

__all__ = ["shape_key"]


def shape_key(insn: Instruction, reg_type: RegType | None = None) -> Hashable:
    """A hashable key that is equal for two instructions :func:`check` must judge alike.

    Registers become ``(first-occurrence index, declared type)``, so the names drop out while
    the types and the pattern of repeated registers stay; every other part of the instruction
    (opcode, modifiers, immediates, symbols, labels, special registers, the guard's negation)
    is kept as it is. Diagnostics name operands, so only a verdict (pass/fail) may be shared by key,
    never the messages.
    """
    seen: dict[str, int] = {}

    def key(value: object) -> Hashable:
        cls = type(value)
        if cls is Register:
            name = value.name  # type: ignore[attr-defined]
            index = seen.setdefault(name, len(seen))
            return (index, reg_type(name) if reg_type is not None else None)
        if cls in _LEAVES:
            return value
        if cls is tuple:
            return tuple(key(item) for item in value)  # type: ignore[attr-defined]
        if isinstance(value, Node):
            return (cls, *(key(getattr(value, name)) for name in child_fields(cls)))
        assert isinstance(value, Hashable)
        return value

    guard = insn.predicate
    return (
        insn.opcode,
        insn.modifiers,
        None if guard is None else (key(guard.register), guard.negated),
        tuple([key(op) for op in insn.operands]),
    )


# Operand nodes that hold no register: they key as themselves (trivia is never compared).
_LEAVES = frozenset({Immediate, LabelRef, Symbol, SpecialRegister, Sink, StringLiteral})
