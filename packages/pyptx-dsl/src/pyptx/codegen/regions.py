"""Structural sugar: statement regions the generator writes as Python blocks.

A region pass rewrites a function body so that a run of statements becomes one
:class:`Loop` node. The node is codegen-only: :func:`lower` turns it back into the plain
statements the generated Python emits (the same program up to the loop label's new name), and
that lowered module is what the layout, the equivalence checks and the emitter see.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import ClassVar

from pyptx.ir import (
    Block,
    Function,
    Immediate,
    Instruction,
    Label,
    LabelRef,
    Module,
    Node,
    Register,
    Rewriter,
)

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
    "lower",
]


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


@dataclass(frozen=True, slots=True)
class MbarrierWait(Node):
    """An mbarrier spin loop, written ``ptx.mbarrier.wait(bar, phase, dst=p[, uni=True])``.

    Stands for ``$L__mbar_wait_<index>: <try_wait>; @!p bra[.uni] $L__mbar_wait_<index>;``.

    Attributes:
        try_wait: the ``mbarrier.try_wait.parity`` instruction.
        back: the back edge ``@!p bra[.uni] L``.
        index: the loop's number among the function's waits (``ptx.mbarrier.wait`` numbers
            its labels in tracing order).
    """

    STATEMENT: ClassVar[bool] = True

    try_wait: Instruction
    back: Instruction
    index: int
    trivia: tuple[str, ...] | None = field(default=None, compare=False, repr=False)

    @property
    def label(self) -> str:
        """The label ``ptx.mbarrier.wait`` places."""
        return f"$L__mbar_wait_{self.index}"

    @property
    def uni(self) -> bool:
        """Whether the back edge is ``bra.uni``."""
        return self.back.modifiers == ("uni",)

    def lowered(self) -> tuple[Node, ...]:
        """The three statements ``ptx.mbarrier.wait`` emits for this loop."""
        ref = self.back.operands[0]
        assert isinstance(ref, LabelRef)
        back = replace(self.back, operands=(replace(ref, name=self.label),))
        return Label(self.label, trivia=self.trivia), self.try_wait, back


_WAIT_SPACES = ("shared", "shared::cta", None)


def wait_keywords(insn: Instruction) -> dict[str, str | None] | None:
    """The ``sem``/``scope``/``space`` keywords that make ``ptx.mbarrier.wait`` spell ``insn``.

    ``None`` when ``insn`` is not a ``try_wait.parity`` the helper writes the same way.
    """
    mods = insn.modifiers
    if insn.opcode != "mbarrier" or mods[:2] != ("try_wait", "parity") or mods[-1:] != ("b64",):
        return None
    rest = list(mods[2:-1])
    sem = scope = space = None
    if len(rest) >= 2 and rest[0] in ("acquire", "relaxed") and rest[1] in ("cta", "cluster"):
        sem, scope = rest[0], rest[1]
        rest = rest[2:]
    if rest:
        space = rest.pop(0)
    if rest or space not in _WAIT_SPACES:
        return None
    return {"sem": sem, "scope": scope, "space": space}


def _refs(node: Node) -> Iterator[str]:
    """Names of every label referenced below ``node``."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, LabelRef):
            yield n.name
        stack.extend(n.children())


def _count_refs(nodes: list[Node]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for node in nodes:
        for name in _refs(node):
            counts[name] = counts.get(name, 0) + 1
    return counts


def _function_label_counts(module: Module) -> dict[int, dict[str, int]]:
    """Per function: references to each label name from it and from module-level data.

    Labels are function-scoped, so other functions' references do not count; debug sections
    (module level) may name any function's labels, so theirs always do.
    """
    shared = _count_refs([s for s in module.statements if not isinstance(s, Function)])
    out: dict[int, dict[str, int]] = {}
    for f in module.functions:
        counts = dict(shared)
        for name, n in _count_refs([f]).items():
            counts[name] = counts.get(name, 0) + n
        out[id(f)] = counts
    return out


def _defined_labels(f: Function) -> set[str]:
    return {s.name for s in f.body.walk_statements() if isinstance(s, Label)} if f.body else set()


class _RenameLabel(Rewriter):
    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def rewrite_LabelRef(self, n: LabelRef) -> Node:
        return replace(n, name=self.new) if n.name == self.old else n


def _is_back_edge(s: Node) -> bool:
    """Whether ``s`` is a (possibly guarded) ``bra`` to a label."""
    return (
        isinstance(s, Instruction)
        and s.opcode == "bra"
        and len(s.operands) == 1
        and isinstance(s.operands[0], LabelRef)
    )


@dataclass(frozen=True)
class RaiseLoops:
    """Loop raising: ``label: ... [@p] bra label;`` becomes ``with ptx.loop(...)``.

    A label qualifies when its last back edge is in the same statement list, every reference
    to it lies between the label and that back edge, and the label ``ptx.loop`` would place
    is not already used. Anything else is left alone. Instruction order never changes.

    Attributes:
        min_body: the least number of statements a raised loop body has.
    """

    name: ClassVar[str] = "raise-loops"
    min_body: int = 2

    def __call__(self, module: Module) -> Module:
        """Return ``module`` with the qualifying statement runs replaced by region nodes."""
        per_function = _function_label_counts(module)
        out = []
        for s in module.statements:
            if isinstance(s, Function) and s.body is not None:
                taken = _defined_labels(s)
                counts = per_function[id(s)]
                body = self._statements(s.body.statements, taken, counts)
                s = replace(s, body=replace(s.body, statements=body))
            out.append(s)
        return replace(module, statements=tuple(out))

    def _statements(
        self, stmts: tuple[Node, ...], taken: set[str], counts: dict[str, int]
    ) -> tuple[Node, ...]:
        last_edge: dict[str, int] = {}
        for j, s in enumerate(stmts):
            if _is_back_edge(s):
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
                or sum(1 for st in stmts[i + 1 : end + 1] for n in _refs(st) if n == s.name)
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


@dataclass(frozen=True)
class CollapseMbarrierWaits:
    """Mbarrier spin-loop collapse into one ``ptx.mbarrier.wait(bar, phase, dst=p)``.

    The pattern is ``L: mbarrier.try_wait.parity p, [bar], phase; @!p bra L;``.

    Only when the three statements are adjacent, the label is referenced by that branch alone,
    the instruction has no guard and its modifiers are ones ``ptx.mbarrier.wait`` writes in the
    same order, and the function has no label named like the ones the helper places. Nothing
    moves: the loop is exactly the same instructions.
    """

    name: ClassVar[str] = "collapse-mbarrier-waits"

    def __call__(self, module: Module) -> Module:
        """Return ``module`` with the qualifying statement runs replaced by region nodes."""
        per_function = _function_label_counts(module)
        out = []
        for s in module.statements:
            named_like_ours = isinstance(s, Function) and any(
                n.startswith("$L__mbar_wait_") for n in _defined_labels(s)
            )
            if isinstance(s, Function) and s.body is not None and not named_like_ours:
                body = self._statements(s.body.statements, per_function[id(s)], [0])
                s = replace(s, body=replace(s.body, statements=body))
            out.append(s)
        return replace(module, statements=tuple(out))

    def _statements(
        self, stmts: tuple[Node, ...], counts: dict[str, int], index: list[int]
    ) -> tuple[Node, ...]:
        out: list[Node] = []
        i = 0
        while i < len(stmts):
            s = stmts[i]
            if isinstance(s, Label) and i + 2 < len(stmts):
                insn, back = stmts[i + 1], stmts[i + 2]
                if _spin_wait(s, insn, back, counts):
                    assert isinstance(insn, Instruction) and isinstance(back, Instruction)
                    out.append(MbarrierWait(insn, back, index[0], trivia=s.trivia))
                    index[0] += 1
                    i += 3
                    continue
            if isinstance(s, Block):
                # Labels of a nested block are only reachable from inside it (PTX scoping).
                local: dict[str, int] = {}
                for name in _refs(s):
                    local[name] = local.get(name, 0) + 1
                s = replace(s, statements=self._statements(s.statements, local, index))
            elif isinstance(s, Loop):
                s = replace(s, statements=self._statements(s.statements, counts, index))
            out.append(s)
            i += 1
        return tuple(out)


def _spin_wait(label: Label, insn: Node, back: Node, counts: dict[str, int]) -> bool:
    """Whether ``label: insn; back`` is a spin wait ``ptx.mbarrier.wait`` reproduces."""
    if not isinstance(insn, Instruction) or insn.predicate is not None:
        return False
    if wait_keywords(insn) is None or len(insn.operands) not in (3, 4):
        return False
    p = insn.operands[0]
    if not isinstance(p, Register) or counts.get(label.name) != 1:
        return False
    if not isinstance(back, Instruction) or not _is_back_edge(back):
        return False
    ref = back.operands[0]
    guard = back.predicate
    return (
        isinstance(ref, LabelRef)
        and ref.name == label.name
        and guard is not None
        and guard.negated
        and guard.register == p
        and back.modifiers in ((), ("uni",))
    )


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
_INT = re.compile(r"-?(0|[1-9][0-9]*)\Z")


def instruction_leaves(insn: Instruction) -> tuple[object, list[tuple[str, str, int]]]:
    """The instruction's shape (leaves blanked) and its leaves in rendering order.

    Leaves are numbered registers ``("reg", prefix, n)`` and decimal integers
    ``("imm", "", value)``; the guard's register comes first, then the operands depth-first.
    """
    leaves: list[tuple[str, str, int]] = []

    def shape(node: object) -> object:
        if isinstance(node, Register):
            m = _NUMBERED.match(node.name)
            if m:
                leaves.append(("reg", m.group(1), int(m.group(2))))
                return ("reg", m.group(1))
            return node
        if isinstance(node, Immediate) and _INT.match(node.text):
            leaves.append(("imm", "", int(node.text)))
            return ("imm",)
        if isinstance(node, Node):
            return (type(node).__name__, *(shape(getattr(node, f)) for f in _fields(node)))
        if isinstance(node, tuple):
            return tuple(shape(v) for v in node)
        return node

    guard = insn.predicate
    head = (shape(guard.register), guard.negated) if guard is not None else None
    return (insn.opcode, insn.modifiers, head, shape(insn.operands)), leaves


_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(node: Node) -> tuple[str, ...]:
    from dataclasses import fields

    cls = type(node)
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(node) if f.name != "trivia")  # type: ignore[arg-type]
    return names


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
        min_count: the fewest copies folded.
        max_period: the longest block considered.
    """

    name: ClassVar[str] = "fold-repeats"
    min_count: int = 3
    max_period: int = 8

    def __call__(self, module: Module) -> Module:
        """Return ``module`` with qualifying runs replaced by :class:`Repeat` nodes."""
        out = []
        for s in module.statements:
            if isinstance(s, Function) and s.body is not None:
                s = replace(s, body=replace(s.body, statements=self._statements(s.body.statements)))
            out.append(s)
        return replace(module, statements=tuple(out))

    def _statements(self, stmts: tuple[Node, ...]) -> tuple[Node, ...]:
        info = [instruction_leaves(s) if isinstance(s, Instruction) else None for s in stmts]
        out: list[Node] = []
        j = 0
        while j < len(stmts):
            best: tuple[int, int, tuple[tuple[Leaf, ...], ...]] | None = None
            for p in range(1, self.max_period + 1):
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
        if j + p * self.min_count > len(info):
            return None
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


EXPRESSION_TEMPLATES: dict[str, tuple[str, int | None, int]] = {
    # opcode: (template over the sources, precedence of the result, least precedence a
    # source may have without parentheses); Python's operator precedences, None = the source
    "add": ("{0} + {1}", 11, 11),
    "sub": ("{0} - {1}", 11, 11),
    "mul": ("{0} * {1}", 12, 12),
    "mad": ("{0} * {1} + {2}", 11, 12),
    "shl": ("{0} << {1}", 10, 10),
    "shr": ("{0} >> {1}", 10, 10),
    "and": ("{0} & {1}", 9, 9),
    "xor": ("{0} ^ {1}", 8, 8),
    "or": ("{0} | {1}", 7, 7),
    "neg": ("-{0}", 13, 13),
    "not": ("~{0}", 13, 13),
    "min": ("min({0}, {1})", 15, 0),
    "max": ("max({0}, {1})", 15, 0),
    "cvta": ("{0}", None, 0),
    "cvt": ("{0}", None, 0),
    "mov": ("{0}", None, 0),
}
"""How each grouped opcode reads as an expression of its source operands (the comment of an
:class:`ExprGroup`); the destination is operand 0."""


@dataclass(frozen=True, slots=True)
class ExprGroup(Node):
    """A chain of arithmetic whose intermediate registers are used once, by the chain itself.

    Written as the same statements under one comment showing the whole expression, e.g.
    ``# rd[7] = rd[3] + (r[5] << 2)``. Nothing is reordered or changed.

    Attributes:
        statements: the chain, in order; the last one writes the result.
    """

    STATEMENT: ClassVar[bool] = True

    statements: tuple[Instruction, ...]
    trivia: tuple[str, ...] | None = field(default=None, compare=False, repr=False)


def _arity(template: str) -> int:
    return max(int(i) for i in re.findall(r"\{(\d)\}", template)) + 1


def _groupable(s: Node) -> bool:
    return (
        isinstance(s, Instruction)
        and s.predicate is None
        and s.opcode in EXPRESSION_TEMPLATES
        and len(s.operands) == 1 + _arity(EXPRESSION_TEMPLATES[s.opcode][0])
        and isinstance(s.operands[0], Register)
        and all(isinstance(o, (Register, Immediate)) for o in s.operands[1:])
    )


def _register_counts(f: Function) -> tuple[dict[str, int], dict[str, int]]:
    """(definitions as operand 0 of a groupable instruction, all other appearances)."""
    defs: dict[str, int] = {}
    uses: dict[str, int] = {}
    assert f.body is not None
    for st in f.body.walk_statements():
        nodes: list[Node] = [st]
        first_dest = _groupable(st)
        while nodes:
            n = nodes.pop()
            if isinstance(n, Register):
                uses[n.name] = uses.get(n.name, 0) + 1
            else:
                nodes.extend(n.children())
        if first_dest:
            name = st.operands[0].name  # type: ignore[attr-defined]
            uses[name] -= 1
            defs[name] = defs.get(name, 0) + 1
    return defs, uses


@dataclass(frozen=True)
class GroupExpressions:
    """Expression grouping: single-use temporaries and the chain that consumes them.

    A chain is a run of adjacent unguarded instructions from :data:`EXPRESSION_TEMPLATES`
    whose operands are registers and immediates, where every register written before the last
    instruction is written once and read once in the whole function, by a later instruction
    of the chain (the last one's result may be read anywhere). Only the Python changes (a
    comment over the group); the statements stay.

    Attributes:
        min_length: the fewest instructions a group has.
    """

    name: ClassVar[str] = "group-expressions"
    min_length: int = 2

    def __call__(self, module: Module) -> Module:
        """Return ``module`` with qualifying chains wrapped in :class:`ExprGroup` nodes."""
        out = []
        for s in module.statements:
            if isinstance(s, Function) and s.body is not None:
                defs, uses = _register_counts(s)
                body = self._statements(s.body.statements, defs, uses)
                s = replace(s, body=replace(s.body, statements=body))
            out.append(s)
        return replace(module, statements=tuple(out))

    def _statements(
        self, stmts: tuple[Node, ...], defs: dict[str, int], uses: dict[str, int]
    ) -> tuple[Node, ...]:
        out: list[Node] = []
        chain: list[Instruction] = []
        pending: set[str] = set()  # temporaries written by the chain, not yet read

        def close() -> None:
            last = chain[-1].operands[0] if chain else None
            result = {last.name} if isinstance(last, Register) else set()
            if len(chain) >= self.min_length and pending <= result:
                out.append(ExprGroup(tuple(chain)))
            else:
                out.extend(chain)
            chain.clear()
            pending.clear()

        for s in stmts:
            if not _groupable(s):
                close()
                if isinstance(s, (Block, Loop)):
                    s = replace(s, statements=self._statements(s.statements, defs, uses))
                out.append(s)
                continue
            assert isinstance(s, Instruction)
            pending.difference_update(o.name for o in s.operands[1:] if isinstance(o, Register))
            chain.append(s)
            dest = s.operands[0]
            assert isinstance(dest, Register)
            if defs.get(dest.name) == 1 and uses.get(dest.name) == 1:
                pending.add(dest.name)  # a temporary: the chain goes on
            else:
                close()  # the result: the chain ends here
        close()
        return tuple(out)


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
