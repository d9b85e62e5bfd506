"""Loop raising: ``label: ... [@p] bra label;`` -> ``with ptx.loop(...)``."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

from pyptx.ir import Block, Function, Label, LabelRef, Module, Node, Rewriter

from .._refs import label_names
from ._common import (
    defined_labels,
    function_label_counts,
    is_back_edge,
    shadowed_labels,
)

__all__ = ["Loop", "RaiseLoops"]


@dataclass(frozen=True, slots=True)
class Loop(Node):
    """``label: body`` where the body ends with the branch back to ``label``.

    Rendered as ``with ptx.loop(stem) as <name>:``; ``ptx.loop`` places ``$L__<stem>_0``.

    Attributes:
        stem: the ``ptx.loop`` stem; the placed label is :attr:`label`.
        statements: the body, ending with the back edge (``[@p] bra label;``).
    """

    STATEMENT: ClassVar[bool] = True

    stem: str
    statements: tuple[Node, ...]
    trivia: tuple[str, ...] | None = field(default=None, compare=False, repr=False)

    @property
    def label(self) -> str:
        """The label ``ptx.loop(stem)`` places (first loop of that stem in a function)."""
        return f"$L__{self.stem}_0"


class _RenameLabel(Rewriter):
    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def rewrite_LabelRef(self, n: LabelRef) -> Node:
        return LabelRef(self.new, trivia=n.trivia) if n.name == self.old else n


@dataclass(frozen=True)
class RaiseLoops:
    """Loop raising: ``label: ... [@p] bra label;`` becomes ``with ptx.loop(...)``.

    A label qualifies when its last back edge is in the same statement list, every reference
    to it lies between the label and that back edge, no nested block defines the same name,
    and the label ``ptx.loop`` would place is not already used. Anything else is left alone.
    Instruction order never changes.

    Attributes:
        min_body: the least number of statements a raised loop body has.
    """

    name: ClassVar[str] = "raise-loops"
    min_body: int = 2

    def __call__(self, module: Module) -> Module:
        """Return ``module`` with the qualifying statement runs replaced by region nodes."""
        per_function = function_label_counts(module)
        out = []
        for s in module.statements:
            if isinstance(s, Function) and s.body is not None:
                taken = defined_labels(s)
                counts = dict(per_function[id(s)])
                for name in shadowed_labels(s):
                    counts[name] = -1  # never matches a count of references: left alone
                body = self._statements(s.body.statements, taken, counts)
                s = replace(s, body=replace(s.body, statements=body))
            out.append(s)
        return replace(module, statements=tuple(out))

    def _statements(
        self, stmts: tuple[Node, ...], taken: set[str], counts: dict[str, int]
    ) -> tuple[Node, ...]:
        last_edge: dict[str, int] = {}
        for j, s in enumerate(stmts):
            if is_back_edge(s):
                last_edge[s.operands[0].name] = j  # type: ignore[attr-defined]
        out: list[Node] = []
        i = 0
        while i < len(stmts):
            s = stmts[i]
            end = last_edge.get(s.name, -1) if isinstance(s, Label) else -1
            stem = _stem(s.name) if isinstance(s, Label) else ""
            if (
                not isinstance(s, Label)
                or end - i < self.min_body
                or f"$L__{stem}_0" in taken
                or label_names(stmts[i + 1 : end + 1]).count(s.name)
                != counts.get(s.name, 0)  # referenced from outside the loop or debug data
            ):
                if isinstance(s, Block):
                    s = replace(s, statements=self._statements(s.statements, taken, counts))
                out.append(s)
                i += 1
                continue
            new = f"$L__{stem}_0"
            taken.add(new)
            rename = _RenameLabel(s.name, new)
            body = tuple(rename.rewrite(b) for b in stmts[i + 1 : end + 1])
            out.append(Loop(stem, self._statements(body, taken, counts), trivia=s.trivia))
            i = end + 1
        return tuple(out)


def _stem(label: str) -> str:
    stem = label.lstrip("$").removeprefix("L__") or "loop"
    return "".join(c if c.isalnum() or c == "_" else "_" for c in stem)
