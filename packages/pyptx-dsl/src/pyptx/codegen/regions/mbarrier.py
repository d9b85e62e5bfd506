"""Mbarrier spin-loop collapse into ``ptx.mbarrier.wait(...)``."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

from pyptx.ir import (
    Block,
    Function,
    Instruction,
    Label,
    LabelRef,
    Module,
    Node,
    Register,
)

from .._refs import label_names
from ._common import defined_labels, function_label_counts, is_back_edge
from .loops import Loop

__all__ = ["CollapseMbarrierWaits", "MbarrierWait", "unwrap_waits", "wait_keywords"]


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
    source_label: str = ""
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

    def original(self) -> tuple[Node, ...]:
        """The three statements as they were in the input (the loop left as plain code)."""
        return Label(self.source_label, trivia=self.trivia), self.try_wait, self.back


def unwrap_waits(module: Module, plain: set[int]) -> Module:
    """``module`` with some waits put back as plain code and the others renumbered.

    The waits whose ``try_wait`` is in ``plain`` (by ``id``) become their original
    statements; the others are renumbered in order per function.

    The generator calls this for waits it cannot spell with ``ptx.mbarrier.wait`` (an operand
    without an exact Python spelling): ``ptx.mbarrier.wait`` numbers its labels in tracing
    order, so a wait written as plain code must not keep a number.
    """

    def flat(stmts: tuple[Node, ...], index: list[int]) -> tuple[Node, ...]:
        out: list[Node] = []
        for s in stmts:
            if isinstance(s, MbarrierWait):
                if id(s.try_wait) in plain:
                    out.extend(s.original())
                    continue
                s = replace(s, index=index[0])
                index[0] += 1
            elif isinstance(s, (Block, Loop)):
                s = replace(s, statements=flat(s.statements, index))
            out.append(s)
        return tuple(out)

    out = []
    for s in module.statements:
        if isinstance(s, Function) and s.body is not None:
            s = replace(s, body=replace(s.body, statements=flat(s.body.statements, [0])))
        out.append(s)
    return replace(module, statements=tuple(out))


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
        per_function = function_label_counts(module)
        out = []
        for s in module.statements:
            named_like_ours = isinstance(s, Function) and any(
                n.startswith("$L__mbar_wait_") for n in defined_labels(s)
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
                    out.append(MbarrierWait(insn, back, index[0], s.name, trivia=s.trivia))
                    index[0] += 1
                    i += 3
                    continue
            if isinstance(s, Block):
                # Labels of a nested block are only reachable from inside it (PTX scoping).
                local: dict[str, int] = {}
                for name in label_names(s):
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
    if not isinstance(back, Instruction) or not is_back_edge(back):
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
