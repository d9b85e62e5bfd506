"""Helpers shared by the region passes: label references and node fields."""

from __future__ import annotations

from pyptx.ir import Function, Instruction, Label, LabelRef, Module, Node

from .._refs import label_names

__all__ = [
    "count_refs",
    "defined_labels",
    "function_label_counts",
    "is_back_edge",
    "shadowed_labels",
]


def count_refs(nodes: list[Node]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for node in nodes:
        for name in label_names(node):
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
