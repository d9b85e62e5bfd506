"""Helpers shared by the region passes: label references and node fields."""

from __future__ import annotations

from collections.abc import Iterator

from pyptx.ir import (
    Function,
    Immediate,
    Instruction,
    Label,
    LabelRef,
    Module,
    Node,
    Register,
    Sink,
    SpecialRegister,
    StringLiteral,
    Symbol,
    child_fields,
)

__all__ = [
    "count_refs",
    "defined_labels",
    "function_label_counts",
    "is_back_edge",
    "label_refs",
    "shadowed_labels",
]


def label_refs(node: Node) -> Iterator[str]:
    """Names of every label referenced below ``node``."""
    stack: list[object] = [node]
    while stack:  # a faster walk than Node.children(): field values go on the stack as they are
        item = stack.pop()
        if type(item) is str or isinstance(item, _NAME_LEAVES):
            continue
        if isinstance(item, LabelRef):
            yield item.name
        elif isinstance(item, Node):
            stack.extend(getattr(item, name) for name in child_fields(type(item)))
        elif isinstance(item, tuple):
            stack.extend(item)


_NAME_LEAVES = (Register, Immediate, SpecialRegister, Symbol, StringLiteral, Sink)
"""Nodes without children that are not label references (most operands)."""


def count_refs(nodes: list[Node]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for node in nodes:
        for name in label_refs(node):
            counts[name] = counts.get(name, 0) + 1
    return counts


def function_label_counts(module: Module) -> dict[int, dict[str, int]]:
    """Per function: references to each label name from it and from module-level data.

    Labels are function-scoped, so other functions' references do not count; debug sections
    (module level) may name any function's labels, so theirs always do.
    """
    shared = count_refs([s for s in module.statements if not isinstance(s, Function)])
    out: dict[int, dict[str, int]] = {}
    for f in module.functions:
        counts = dict(shared)
        for name, n in count_refs([f]).items():
            counts[name] = counts.get(name, 0) + n
        out[id(f)] = counts
    return out


def defined_labels(f: Function) -> set[str]:
    return {s.name for s in f.body.walk_statements() if isinstance(s, Label)} if f.body else set()


def shadowed_labels(f: Function) -> set[str]:
    """Label names ``f`` defines more than once (in nested blocks, each shadows the outer one).

    Region passes leave such labels alone: a reference's target then depends on the block it
    is in, which their name-based bookkeeping does not follow.
    """
    seen: set[str] = set()
    twice: set[str] = set()
    for s in f.body.walk_statements() if f.body else ():
        if isinstance(s, Label):
            (twice if s.name in seen else seen).add(s.name)
    return twice


def is_back_edge(s: Node) -> bool:
    """Whether ``s`` is a (possibly guarded) ``bra`` to a label."""
    return (
        isinstance(s, Instruction)
        and s.opcode == "bra"
        and len(s.operands) == 1
        and isinstance(s.operands[0], LabelRef)
    )
