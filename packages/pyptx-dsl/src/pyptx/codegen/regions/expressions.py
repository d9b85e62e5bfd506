"""Expression grouping: single-use temporaries under one explanatory comment."""

from __future__ import annotations

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
)

from .._refs import collect_references
from .loops import Loop

__all__ = ["EXPRESSION_TEMPLATES", "ExprGroup", "GroupExpressions"]


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


_OPERANDS: dict[str, int] = {
    opcode: 1 + _arity(template) for opcode, (template, _, _) in EXPRESSION_TEMPLATES.items()
}
"""How many operands each grouped opcode has: the destination and its sources."""


def _groupable(s: Node) -> bool:
    return (
        type(s) is Instruction
        and s.predicate is None
        and len(s.operands) == _OPERANDS.get(s.opcode, -1)
        and type(s.operands[0]) is Register
        and all(type(o) is Register or type(o) is Immediate for o in s.operands[1:])
    )


def _register_counts(f: Function) -> tuple[dict[str, int], dict[str, int]]:
    """(definitions as operand 0 of a groupable instruction, all other appearances)."""
    defs: dict[str, int] = {}
    uses: dict[str, int] = {}
    assert f.body is not None
    statements = tuple(f.body.walk_statements())
    # Every statement's appearances, in one walk. A nested block's registers count with the
    # block and again with each of its statements: conservative, as grouping needs one use.
    for n in collect_references(statements, []):
        if type(n) is Register:
            uses[n.name] = uses.get(n.name, 0) + 1
    for st in statements:
        if _groupable(st):  # a definition, not a use
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
