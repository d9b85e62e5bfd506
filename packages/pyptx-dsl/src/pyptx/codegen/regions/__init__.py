"""Structural sugar: statement regions the generator writes as Python blocks.

A region pass rewrites a function body so that a run of statements becomes one region node:
:class:`Loop` (``with ptx.loop``), :class:`MbarrierWait` (``ptx.mbarrier.wait``),
:class:`Repeat` (a Python ``for`` loop) or :class:`ExprGroup` (a comment over a chain). The
nodes are codegen-only: :func:`lower` turns them back into the plain statements the generated
Python emits (the same program up to the new label names), and that lowered module is what
the layout, the equivalence checks and the emitter see. One module per pass.
"""

from __future__ import annotations

from dataclasses import replace

from pyptx.ir import Block, Function, Label, Module, Node

from .expressions import EXPRESSION_TEMPLATES, ExprGroup, GroupExpressions
from .loops import Loop, RaiseLoops
from .mbarrier import CollapseMbarrierWaits, MbarrierWait, wait_keywords
from .repeats import FoldRepeats, Leaf, Repeat, instruction_leaves, leaf_count

__all__ = [
    "EXPRESSION_TEMPLATES",
    "CollapseMbarrierWaits",
    "ExprGroup",
    "FoldRepeats",
    "GroupExpressions",
    "Leaf",
    "Loop",
    "MbarrierWait",
    "RaiseLoops",
    "Repeat",
    "instruction_leaves",
    "leaf_count",
    "lower",
    "wait_keywords",
]


def lower(module: Module) -> Module:
    """Replace every codegen region with the statements the generated code emits."""

    def flat(stmts: tuple[Node, ...]) -> tuple[Node, ...]:
        out: list[Node] = []
        for s in stmts:
            if isinstance(s, MbarrierWait):
                out.extend(s.lowered())
            elif isinstance(s, (Repeat, ExprGroup)):
                out.extend(flat(s.statements))
            elif isinstance(s, Loop):
                out.append(Label(s.label, trivia=s.trivia))
                out.extend(flat(s.statements))
            elif isinstance(s, Block):
                out.append(replace(s, statements=flat(s.statements)))
            else:
                out.append(s)
        return tuple(out)

    out = []
    for s in module.statements:
        if isinstance(s, Function) and s.body is not None:
            s = replace(s, body=replace(s.body, statements=flat(s.body.statements)))
        out.append(s)
    return replace(module, statements=tuple(out))
