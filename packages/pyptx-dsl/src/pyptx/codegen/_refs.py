"""The names a tree refers to, found fast: the hot loop of the sugar passes.

Every renaming and region pass asks the same question of every statement (which registers,
labels and symbols does it spell?); instructions are nearly all of a module and their operands
are mostly bare registers and numbers, so :func:`collect_references` looks at an instruction's
operands directly and walks only the operands that have structure (addresses, vectors,
expressions).
"""

from __future__ import annotations

from pyptx.ir import (
    Address,
    Alias,
    Immediate,
    Instruction,
    LabelRef,
    Node,
    Register,
    SectionData,
    Sink,
    SpecialRegister,
    StringLiteral,
    Symbol,
    node_fields,
)

__all__ = ["NAMELESS", "REFERENCE_TYPES", "collect_references", "label_names"]

Reference = Symbol | LabelRef | Register | Alias

REFERENCE_TYPES: frozenset[type] = frozenset({Symbol, LabelRef, Register, Alias})
"""Nodes that spell a name as a reference (the IR has no subclasses of them)."""

NAMELESS: frozenset[type] = frozenset({Immediate, SpecialRegister, StringLiteral, Sink})
"""Operand leaves that spell no name."""

_SKIPPED: frozenset[type] = NAMELESS | {str, bool, int, type(None)}
"""What the walk passes over (``str``: opcodes, modifiers, names held as plain fields;
``None``: an absent child, such as an address without an offset)."""


def collect_references(node: object, out: list[Reference]) -> list[Reference]:
    """Append every reference node at or below ``node`` to ``out`` and return ``out``.

    References are :data:`REFERENCE_TYPES` nodes (a predicate's register included); the
    order is unspecified. ``node`` may also be a tuple of nodes.
    """
    stack: list[object] = [node]
    pop, push, many, add = stack.pop, stack.append, stack.extend, out.append
    while stack:
        item = pop()
        t = type(item)
        if t in REFERENCE_TYPES:
            add(item)  # type: ignore[arg-type]
        elif t in _SKIPPED:
            continue
        elif t is Instruction or t is SectionData:  # DWARF sections hold thousands of lines
            for op in item.operands if t is Instruction else item.values:  # type: ignore[attr-defined]
                kind = type(op)
                if kind in REFERENCE_TYPES:
                    add(op)
                elif kind not in _SKIPPED:
                    push(op)
            guard = getattr(item, "predicate", None)
            if guard is not None:  # its one child node is the register
                push(guard.register)
        elif t is Address:
            push(item.base)  # type: ignore[attr-defined]
            push(item.offset)  # type: ignore[attr-defined]
            many(item.extra)  # type: ignore[attr-defined]
        elif t is tuple:
            many(item)  # type: ignore[arg-type]
        elif isinstance(item, Node):
            many(getattr(item, name) for name in node_fields(t))
        elif isinstance(item, tuple):
            many(item)
    return out


def label_names(node: object) -> list[str]:
    """The name of every label reference at or below ``node`` (repeated as often as it is)."""
    return [r.name for r in collect_references(node, []) if type(r) is LabelRef]
