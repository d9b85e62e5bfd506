"""Repeated-block folding: unrolled copies -> a Python ``for`` loop."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from typing import ClassVar

from pyptx.ir import (
    Block,
    Function,
    Immediate,
    Instruction,
    Module,
    Node,
    Register,
    child_fields,
)

from .._literals import EXACT_INT
from .loops import Loop

__all__ = ["FoldRepeats", "Leaf", "Repeat", "instruction_leaves", "leaf_count"]


Leaf = tuple[str, str, int, int] | None
"""How one register/integer leaf of a folded statement varies with the iteration ``t``:
``("reg", prefix, v0, d)`` is register ``prefix{v0 + d*t}``, ``("imm", "", v0, d)`` the
integer ``v0 + d*t``, ``None`` a leaf that never changes."""


@dataclass(frozen=True, slots=True)
class Repeat(Node):
    """Back-to-back copies of a block that differ by linearly growing numbers: a ``for`` loop.

    Operands of the copies differ only by register numbers and integers that grow by a fixed
    step per copy.

    Attributes:
        period: statements per iteration.
        count: iterations.
        statements: all ``period * count`` statements, in order.
        leaves: for each of the first ``period`` statements, its leaves (see :data:`Leaf`).
    """

    STATEMENT: ClassVar[bool] = True

    period: int
    count: int
    statements: tuple[Node, ...]
    leaves: tuple[tuple[Leaf, ...], ...]
    trivia: tuple[str, ...] | None = field(default=None, compare=False, repr=False)


_NUMBERED = re.compile(r"(.*?\D)(0|[1-9][0-9]*)\Z")


@functools.lru_cache(maxsize=8192)
def _numbered(name: str) -> tuple[str, int] | None:
    """``%r12`` -> ``("%r", 12)``; ``None`` for a name without a number (cached)."""
    m = _NUMBERED.match(name)
    return (m.group(1), int(m.group(2))) if m else None


def _shape(node: object, leaves: list[tuple[str, str, int]]) -> object:
    """``node`` with its leaves blanked; the leaves are appended to ``leaves`` in order."""
    if type(node) is Register:
        numbered = _numbered(node.name)
        if numbered is not None:
            leaves.append(("reg", *numbered))
            return ("reg", numbered[0])
        return node
    if type(node) is Immediate and EXACT_INT.match(node.text):
        leaves.append(("imm", "", int(node.text)))
        return ("imm",)
    if isinstance(node, Node):
        return (
            type(node).__name__,
            *(_shape(getattr(node, f), leaves) for f in child_fields(type(node))),
        )
    if isinstance(node, tuple):
        return tuple(_shape(v, leaves) for v in node)
    return node


def instruction_leaves(insn: Instruction) -> tuple[object, list[tuple[str, str, int]]]:
    """The instruction's shape (leaves blanked) and its leaves in rendering order.

    Leaves are numbered registers ``("reg", prefix, n)`` and decimal integers
    ``("imm", "", value)``; the guard's register comes first, then the operands depth-first.
    """
    leaves: list[tuple[str, str, int]] = []
    guard = insn.predicate
    head = (_shape(guard.register, leaves), guard.negated) if guard is not None else None
    operands: list[object] = []
    for op in insn.operands:  # _shape(insn.operands), with bare registers handled inline
        numbered = _numbered(op.name) if type(op) is Register else None
        if numbered is not None:
            leaves.append(("reg", *numbered))
            operands.append(("reg", numbered[0]))
        else:
            operands.append(_shape(op, leaves))
    return (insn.opcode, insn.modifiers, head, tuple(operands)), leaves


def leaf_count(node: Node) -> int:
    """How many leaves ``node`` holds.

    An operand a folded loop writes as fixed text must not hold a varying leaf, and the
    leaves of the next operand start after all of its own.
    """
    leaves: list[tuple[str, str, int]] = []
    _shape(node, leaves)
    return len(leaves)


@dataclass(frozen=True)
class FoldRepeats:
    """Repeated-block folding: unrolled copies of a block become a Python ``for`` loop.

    A run qualifies when ``count >= min_count`` copies of a ``period``-statement block
    (``period <= max_period``) are back to back, every statement is an instruction with the
    same opcode, modifiers and operand structure as its counterpart in the first copy, and
    every register number and integer differs from the first copy by ``t * step`` for a fixed
    step. The generator writes the loop only if it can spell every varying leaf (otherwise the
    copies stay unrolled), so each iteration reproduces its statements exactly.

    Attributes:
        min_count: the fewest copies folded (at least 2).
        max_period: the longest block considered (at least 1).

    Raises:
        ValueError: ``min_count`` or ``max_period`` is out of range.
    """

    name: ClassVar[str] = "fold-repeats"
    min_count: int = 3
    max_period: int = 8

    def __post_init__(self) -> None:
        if not isinstance(self.min_count, int) or self.min_count < 2:
            raise ValueError(f"FoldRepeats: min_count must be an int >= 2, got {self.min_count!r}")
        if not isinstance(self.max_period, int) or self.max_period < 1:
            raise ValueError(
                f"FoldRepeats: max_period must be an int >= 1, got {self.max_period!r}"
            )

    def __call__(self, module: Module) -> Module:
        """Return ``module`` with qualifying runs replaced by :class:`Repeat` nodes."""
        out = []
        for s in module.statements:
            if isinstance(s, Function) and s.body is not None:
                s = replace(s, body=replace(s.body, statements=self._statements(s.body.statements)))
            out.append(s)
        return replace(module, statements=tuple(out))

    def _statements(self, stmts: tuple[Node, ...]) -> tuple[Node, ...]:
        # Shapes are compared very often while runs are searched: each distinct shape is
        # replaced by a small number, so that comparing two is comparing two ints.
        shapes: dict[object, int] = {}
        info: list[tuple[object, list[tuple[str, str, int]]] | None] = []
        for s in stmts:
            if isinstance(s, Instruction):
                shape, its_leaves = instruction_leaves(s)
                info.append((shapes.setdefault(shape, len(shapes)), its_leaves))
            else:
                info.append(None)
        out: list[Node] = []
        j = 0
        n = len(stmts)
        while j < n:
            best: tuple[int, int, tuple[tuple[Leaf, ...], ...]] | None = None
            head = info[j]
            for p in range(1, self.max_period + 1) if head is not None else ():
                after = info[j + p] if j + p * self.min_count <= n else None
                if after is None or after[0] != head[0]:  # type: ignore[index]
                    continue  # too short, or the first statement does not repeat after p
                found = self._run(info, j, p)
                if found and (best is None or found[0] * p > best[0] * best[1]):
                    best = (found[0], p, found[1])
            if best is None:
                s = stmts[j]
                if isinstance(s, (Block, Loop)):
                    s = replace(s, statements=self._statements(s.statements))
                out.append(s)
                j += 1
                continue
            count, p, leaves = best
            out.append(Repeat(p, count, stmts[j : j + p * count], leaves))
            j += p * count
        return tuple(out)

    def _run(
        self, info: list[tuple[object, list[tuple[str, str, int]]] | None], j: int, p: int
    ) -> tuple[int, tuple[tuple[Leaf, ...], ...]] | None:
        """The longest run of period ``p`` starting at ``j``, if it qualifies.

        The caller has checked that ``p * min_count`` statements fit and that the first
        statement repeats after ``p``.
        """
        first = info[j : j + p]
        if any(x is None for x in first):
            return None
        steps: list[list[int]] = []
        for k in range(p):
            a, b = first[k], info[j + p + k]
            if b is None or a[0] != b[0]:  # type: ignore[index]
                return None
            steps.append([lb[2] - la[2] for la, lb in zip(a[1], b[1], strict=True)])  # type: ignore[index]
        count = 1
        while j + p * (count + 1) <= len(info):
            ok = True
            for k in range(p):
                a, c = first[k], info[j + p * count + k]
                if c is None or a[0] != c[0]:  # type: ignore[index]
                    ok = False
                    break
                for (_, _, va), (_, _, vc), d in zip(a[1], c[1], steps[k], strict=True):  # type: ignore[index]
                    if vc != va + d * count:
                        ok = False
                        break
                if not ok:
                    break
            if not ok:
                break
            count += 1
        if count < self.min_count or not any(any(st) for st in steps):
            return None
        leaves = tuple(
            tuple(
                (kind, prefix, v0, d) if d else None
                for (kind, prefix, v0), d in zip(first[k][1], steps[k], strict=True)  # type: ignore[index]
            )
            for k in range(p)
        )
        return count, leaves
