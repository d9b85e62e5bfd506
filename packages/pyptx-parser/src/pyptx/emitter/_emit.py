"""Rebuilds PTX text from the IR, one writer per node class (see :data:`_Emitter.table`).

Each writer emits the node's tokens with the gap before each one taken from the node's
trivia (lossless mode) or from the canonical layout (``canonical=True``, or a node built
without trivia). When a node's trivia no longer fits its shape (an edit changed the number
of operands, say), the node keeps its leading and trailing trivia and lays out the rest
canonically, so only the edited statement changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyptx.ir import (
    Address,
    AddressSize,
    Alias,
    Align,
    BinaryExpr,
    Block,
    BraceList,
    BranchTargets,
    CallPrototype,
    CallTargets,
    Declarator,
    FieldInit,
    File,
    Function,
    FunctionDirective,
    GenericAddress,
    Immediate,
    Instruction,
    Label,
    LabelRef,
    Linkage,
    Loc,
    LocFunctionName,
    LocInlinedAt,
    Module,
    Negated,
    Node,
    Param,
    ParenExpr,
    ParenList,
    Pragma,
    Predicate,
    PredPair,
    PtrQualifier,
    PtxType,
    Register,
    Section,
    SectionData,
    Sink,
    SpecialRegister,
    StateSpace,
    StringLiteral,
    Symbol,
    Target,
    UnaryExpr,
    VarAttribute,
    VariableDecl,
    VectorOperand,
    VectorWidth,
    Version,
)
from pyptx.ir.declarations import DeclQualifier

Writer = Callable[[Any, str, int], None]


def qualifier_tokens(q: DeclQualifier) -> list[str]:
    """The tokens one declaration qualifier is written as (``Align(16)`` -> ``.align``, ``16``)."""
    if isinstance(q, (Linkage, StateSpace, PtxType)):
        return ["." + q.value]
    if isinstance(q, Align):
        return [".align", str(q.value)]
    if isinstance(q, VectorWidth):
        return [f".v{q.lanes}"]
    if isinstance(q, PtrQualifier):
        return [".ptr"]
    if isinstance(q, VarAttribute):
        toks = [".attribute", "(", "." + q.name]
        if q.args:
            toks.append("(")
            for i, a in enumerate(q.args):
                if i:
                    toks.append(",")
                toks.append(a)
            toks.append(")")
        toks.append(")")
        return toks
    raise TypeError(f"not a declaration qualifier: {q!r}")


def _qualifier_defaults(tokens: list[str]) -> list[str]:
    out = []
    prev = ""
    for tok in tokens:
        out.append("" if tok in "()" or prev == "(" else (" " if tok != "," else ""))
        if prev == "," and tok not in "()":
            out[-1] = " "
        prev = tok
    return out


class _Emitter:
    def __init__(self, canonical: bool) -> None:
        self.canonical = canonical
        self.out: list[str] = []
        # Where each instruction's pieces start in ``out``, when asked for (instruction_lines).
        self.marks: list[int] | None = None
        self.table: dict[type, Writer] = {
            Register: self.atom_name,
            SpecialRegister: self.atom_name,
            Symbol: self.atom_name,
            LabelRef: self.atom_name,
            Immediate: self.immediate,
            StringLiteral: self.string,
            Sink: self.sink,
            VectorOperand: self.vector,
            BraceList: self.brace_list,
            FieldInit: self.field_init,
            Address: self.address,
            ParenList: self.paren_list,
            Negated: self.negated,
            PredPair: self.pred_pair,
            BinaryExpr: self.binary,
            UnaryExpr: self.unary,
            ParenExpr: self.paren,
            GenericAddress: self.generic,
            Instruction: self.instruction,
            Label: self.label,
            Block: self.block,
            VariableDecl: self.variable_decl,
            Version: self.version,
            Target: self.target,
            AddressSize: self.address_size,
            File: self.file,
            Loc: self.loc,
            LocFunctionName: self.loc_function_name,
            LocInlinedAt: self.loc_inlined_at,
            Pragma: self.pragma,
            Alias: self.alias,
            Section: self.section,
            SectionData: self.section_data,
            FunctionDirective: self.function_directive,
            BranchTargets: self.branch_targets,
            CallTargets: self.call_targets,
            CallPrototype: self.call_prototype,
            Function: self.function,
            Declarator: self.declarator,
            Param: self.param,
        }

    # ----------------------------------------------------------------- helpers

    def node(self, n: Node, lead: str, depth: int) -> None:
        try:
            writer = self.table[type(n)]
        except KeyError:
            raise TypeError(f"cannot emit a {type(n).__name__}: not a PTX IR node") from None
        writer(n, lead, depth)

    def gaps(self, n: Any, expected: int) -> tuple[str, ...] | None:
        """The node's trivia if it is to be used and fits ``expected`` gaps, else ``None``."""
        t = n.trivia
        if t is None or self.canonical or len(t) != expected:
            return None
        return t  # type: ignore[no-any-return]

    def ends(self, n: Any, lead: str) -> tuple[str, str]:
        """Leading and trailing trivia of a statement whose inner trivia did not fit."""
        t = n.trivia
        if t is None or self.canonical or not t:
            return lead, ""
        return t[0], (t[-1] if len(t) > 1 else "")

    def _lead(self, n: Any, lead: str) -> str:
        t = n.trivia
        if t is None or self.canonical or not t:
            return lead
        return t[0]  # type: ignore[no-any-return]

    def seq(
        self,
        items: tuple[Node, ...],
        g: tuple[str, ...] | None,
        gi: int,
        sep: str,
        first_lead: str,
        lead: str,
        depth: int,
    ) -> int:
        """Write ``items`` separated by ``sep``; comma gaps come from ``g[gi:]``."""
        out = self.out
        for i, item in enumerate(items):
            if i:
                out.append(g[gi] if g else "")
                out.append(sep)
                gi += 1
            self.node(item, first_lead if i == 0 else lead, depth)
        return gi

    # ----------------------------------------------------------------- operands

    def atom_name(self, n: Any, lead: str, depth: int) -> None:
        self.out += (self._lead(n, lead), n.name)

    def immediate(self, n: Immediate, lead: str, depth: int) -> None:
        self.out += (self._lead(n, lead), n.text)

    def string(self, n: StringLiteral, lead: str, depth: int) -> None:
        self.out += (self._lead(n, lead), '"', n.text, '"')

    def sink(self, n: Sink, lead: str, depth: int) -> None:
        self.out += (self._lead(n, lead), "_")

    def _braced(
        self, n: Any, items: tuple[Node, ...], lead: str, depth: int, open_: str, close: str
    ) -> None:
        g = self.gaps(n, 1 + max(len(items) - 1, 0) + 1)
        out = self.out
        out += (g[0] if g else self._lead(n, lead), open_)
        gi = self.seq(items, g, 1, ",", "", " ", depth)
        out += (g[gi] if g else "", close)

    def vector(self, n: VectorOperand, lead: str, depth: int) -> None:
        self._braced(n, n.elements, lead, depth, "{", "}")

    def brace_list(self, n: BraceList, lead: str, depth: int) -> None:
        self._braced(n, n.items, lead, depth, "{", "}")

    def paren_list(self, n: ParenList, lead: str, depth: int) -> None:
        self._braced(n, n.items, lead, depth, "(", ")")

    def field_init(self, n: FieldInit, lead: str, depth: int) -> None:
        g = self.gaps(n, 2)
        self.out += (g[0] if g else self._lead(n, lead), n.name, g[1] if g else " ", "=")
        self.node(n.value, " ", depth)

    def address(self, n: Address, lead: str, depth: int) -> None:
        has_off = n.offset is not None
        g = self.gaps(n, 1 + has_off + len(n.extra) + 1)
        out = self.out
        out += (g[0] if g else self._lead(n, lead), "[")
        self.node(n.base, "", depth)
        gi = 1
        if n.offset is not None:
            out += (g[gi] if g else "", n.sign)
            gi += 1
            self.node(n.offset, "", depth)
        for e in n.extra:
            out += (g[gi] if g else "", ",")
            gi += 1
            self.node(e, " ", depth)
        out += (g[gi] if g else "", "]")

    def negated(self, n: Negated, lead: str, depth: int) -> None:
        self.out += (self._lead(n, lead), "!")
        self.node(n.operand, "", depth)

    def pred_pair(self, n: PredPair, lead: str, depth: int) -> None:
        self.node(n.first, lead, depth)
        g = self.gaps(n, 1)
        self.out += (g[0] if g else "", "|")
        self.node(n.second, "", depth)

    def binary(self, n: BinaryExpr, lead: str, depth: int) -> None:
        self.node(n.lhs, lead, depth)
        g = self.gaps(n, 1)
        self.out += (g[0] if g else "", n.op)
        self.node(n.rhs, "", depth)

    def unary(self, n: UnaryExpr, lead: str, depth: int) -> None:
        self.out += (self._lead(n, lead), n.op)
        self.node(n.operand, "", depth)

    def paren(self, n: ParenExpr, lead: str, depth: int) -> None:
        g = self.gaps(n, 2)
        self.out += (g[0] if g else self._lead(n, lead), "(")
        self.node(n.inner, "", depth)
        self.out += (g[1] if g else "", ")")

    def generic(self, n: GenericAddress, lead: str, depth: int) -> None:
        g = self.gaps(n, 3)
        self.out += (g[0] if g else self._lead(n, lead), "generic", g[1] if g else "", "(")
        self.node(n.operand, "", depth)
        self.out += (g[2] if g else "", ")")

    # ----------------------------------------------------------------- statements

    def instruction(self, n: Instruction, lead: str, depth: int) -> None:
        if self.marks is not None:
            # The first piece written below is the instruction's leading gap.
            self.marks.append(len(self.out))
        ops = n.operands
        k = len(ops)
        g = self.gaps(n, k + 2 if k else 3)
        out = self.out
        pred = n.predicate
        first, last = ("", "") if g else self.ends(n, lead)
        if pred is not None:
            self.predicate(pred, lead)
            out.append(g[0] if g else " ")
        else:
            out.append(g[0] if g else first)
        out.append(n.opcode)
        for m in n.modifiers:
            out += (".", m)
        gi = 1
        for i, op in enumerate(ops):
            if i:
                out += (g[gi] if g else "", ",")
                gi += 1
            self.node(op, " ", depth)
        out += (g[gi] if g else "", ";", g[gi + 1] if g else last)

    def predicate(self, n: Predicate, lead: str) -> None:
        g = self.gaps(n, 1 + n.negated)
        out = self.out
        out += (g[0] if g else self._lead(n, lead), "@")
        if n.negated:
            out += (g[1] if g else "", "!")
        self.node(n.register, "", 0)

    def label(self, n: Label, lead: str, depth: int) -> None:
        g = self.gaps(n, 3)
        first, last = (g[0], g[2]) if g else self.ends(n, lead)
        self.out += (first, n.name, g[1] if g else "", ":", last)

    def block(self, n: Block, lead: str, depth: int) -> None:
        g = self.gaps(n, 3)
        first, last = (g[0], g[2]) if g else self.ends(n, lead)
        out = self.out
        out += (first, "{")
        self.statements(n.statements, depth + 1)
        out += (g[1] if g else "\n" + "\t" * depth, "}", last)

    def statements(self, stmts: tuple[Node, ...], depth: int) -> None:
        indent = "\n" + "\t" * depth
        for s in stmts:
            self.node(s, "\n" if isinstance(s, Label) else indent, depth)

    def _qualifiers(
        self, quals: tuple[DeclQualifier, ...], g: tuple[str, ...] | None, first: str
    ) -> int:
        toks: list[str] = []
        for q in quals:
            toks += qualifier_tokens(q)
        defaults = _qualifier_defaults(toks)
        out = self.out
        for i, tok in enumerate(toks):
            out += (g[i] if g else (first if i == 0 else defaults[i]), tok)
        return len(toks)

    @staticmethod
    def _qualifier_count(quals: tuple[DeclQualifier, ...]) -> int:
        return sum(len(qualifier_tokens(q)) for q in quals)

    def variable_decl(self, n: VariableDecl, lead: str, depth: int) -> None:
        k = self._qualifier_count(n.qualifiers)
        d = len(n.declarators)
        g = self.gaps(n, k + (d - 1) + 2)
        first, last = self.ends(n, lead)
        gi = self._qualifiers(n.qualifiers, g, first)
        gi = self.seq(n.declarators, g, gi, ",", " ", " ", depth)
        self.out += (g[gi] if g else "", ";", g[gi + 1] if g else last)

    def declarator(self, n: Declarator, lead: str, depth: int) -> None:
        expected = (
            1
            + (3 if n.range_count is not None else 0)
            + sum(2 if dim is None else 3 for dim in n.dims)
            + (n.initializer is not None)
        )
        g = self.gaps(n, expected)
        out = self.out
        out += (g[0] if g else self._lead(n, lead), n.name)
        gi = 1
        if n.range_count is not None:
            out += (
                g[1] if g else "",
                "<",
                g[2] if g else "",
                str(n.range_count),
                g[3] if g else "",
                ">",
            )
            gi = 4
        for dim in n.dims:
            out += (g[gi] if g else "", "[")
            gi += 1
            if dim is not None:
                out += (g[gi] if g else "", str(dim))
                gi += 1
            out += (g[gi] if g else "", "]")
            gi += 1
        if n.initializer is not None:
            out += (g[gi] if g else " ", "=")
            self.node(n.initializer, " ", depth)

    def param(self, n: Param, lead: str, depth: int) -> None:
        k = self._qualifier_count(n.qualifiers)
        g = self.gaps(n, k)
        self._qualifiers(n.qualifiers, g, self._lead(n, lead))
        self.declarator(n.declarator, " ", depth)

    def _param_list(
        self,
        params: tuple[Param, ...],
        g: tuple[str, ...] | None,
        gi: int,
        open_lead: str,
        item_lead: str,
        first_lead: str,
        close_lead: str,
    ) -> int:
        out = self.out
        out += (g[gi] if g else open_lead, "(")
        gi += 1
        for i, p in enumerate(params):
            if i:
                out += (g[gi] if g else "", ",")
                gi += 1
            self.param(p, first_lead if i == 0 else item_lead, 0)
        out += (g[gi] if g else (close_lead if params else ""), ")")
        return gi + 1

    @staticmethod
    def _list_gaps(params: tuple[Param, ...] | None) -> int:
        return 0 if params is None else 2 + max(len(params) - 1, 0)

    def function(self, n: Function, lead: str, depth: int) -> None:
        expected = (
            len(n.linkage)
            + 1
            + self._list_gaps(n.returns)
            + 1
            + self._list_gaps(n.params)
            + (n.body is None)
            + 1
        )
        g = self.gaps(n, expected)
        first, last = self.ends(n, lead)
        out = self.out
        gi = 0
        for tok in [q.ptx for q in n.linkage] + [n.kind.ptx]:
            out += (g[gi] if g else (first if gi == 0 else " "), tok)
            gi += 1
        if n.returns is not None:
            gi = self._param_list(n.returns, g, gi, " ", " ", "", "")
        out += (g[gi] if g else " ", n.name)
        gi += 1
        if n.params is not None:
            gi = self._param_list(n.params, g, gi, "", "\n\t", "\n\t", "\n")
        for d in n.directives:
            self.node(d, "\n", depth)
        if n.body is not None:
            self.block(n.body, "\n", depth)
            out.append(g[gi] if g else "")
        else:
            out += (g[gi] if g else "", ";", g[gi + 1] if g else last)

    def version(self, n: Version, lead: str, depth: int) -> None:
        g = self.gaps(n, 3)
        first, last = (g[0], g[2]) if g else self.ends(n, lead)
        self.out += (first, ".version", g[1] if g else " ", f"{n.major}.{n.minor}", last)

    def target(self, n: Target, lead: str, depth: int) -> None:
        g = self.gaps(n, 2 + 2 * (len(n.targets) - 1) + 1)
        first, last = self.ends(n, lead)
        out = self.out
        out += (g[0] if g else first, ".target", g[1] if g else " ", n.targets[0])
        gi = 2
        for name in n.targets[1:]:
            out += (g[gi] if g else "", ",", g[gi + 1] if g else " ", name)
            gi += 2
        out.append(g[gi] if g else last)

    def address_size(self, n: AddressSize, lead: str, depth: int) -> None:
        g = self.gaps(n, 3)
        first, last = (g[0], g[2]) if g else self.ends(n, lead)
        self.out += (first, ".address_size", g[1] if g else " ", str(n.bits), last)

    def file(self, n: File, lead: str, depth: int) -> None:
        g = self.gaps(n, 2 + len(n.extras) + 1)
        first, last = self.ends(n, lead)
        out = self.out
        out += (g[0] if g else first, ".file", g[1] if g else " ", str(n.index))
        self.node(n.path, " ", depth)
        gi = 2
        for e in n.extras:
            out += (g[gi] if g else "", ",")
            gi += 1
            self.node(e, " ", depth)
        out.append(g[gi] if g else last)

    def loc(self, n: Loc, lead: str, depth: int) -> None:
        g = self.gaps(n, 5)
        first, last = self.ends(n, lead)
        self.out += (
            g[0] if g else first,
            ".loc",
            g[1] if g else " ",
            str(n.file),
            g[2] if g else " ",
            str(n.line),
            g[3] if g else " ",
            str(n.column),
        )
        for a in n.attributes:
            self.node(a, "", depth)
        self.out.append(g[4] if g else last)

    def loc_function_name(self, n: LocFunctionName, lead: str, depth: int) -> None:
        g = self.gaps(n, 2)
        self.out += (g[0] if g else "", ",", g[1] if g else " ", "function_name")
        self.node(n.label, " ", depth)

    def loc_inlined_at(self, n: LocInlinedAt, lead: str, depth: int) -> None:
        g = self.gaps(n, 5)
        self.out += (
            g[0] if g else "",
            ",",
            g[1] if g else " ",
            "inlined_at",
            g[2] if g else " ",
            str(n.file),
            g[3] if g else " ",
            str(n.line),
            g[4] if g else " ",
            str(n.column),
        )

    def pragma(self, n: Pragma, lead: str, depth: int) -> None:
        k = len(n.values)
        g = self.gaps(n, 1 + max(k - 1, 0) + 2)
        first, last = self.ends(n, lead)
        self.out += (g[0] if g else first, ".pragma")
        gi = self.seq(n.values, g, 1, ",", " ", " ", depth)
        self.out += (g[gi] if g else "", ";", g[gi + 1] if g else last)

    def alias(self, n: Alias, lead: str, depth: int) -> None:
        g = self.gaps(n, 6)
        first, last = self.ends(n, lead)
        self.out += (
            g[0] if g else first,
            ".alias",
            g[1] if g else " ",
            n.alias,
            g[2] if g else "",
            ",",
            g[3] if g else " ",
            n.aliasee,
            g[4] if g else "",
            ";",
            g[5] if g else last,
        )

    def section(self, n: Section, lead: str, depth: int) -> None:
        g = self.gaps(n, 5)
        first, last = self.ends(n, lead)
        out = self.out
        out += (
            g[0] if g else first,
            ".section",
            g[1] if g else " ",
            n.name,
            g[2] if g else "\n",
            "{",
        )
        for item in n.items:
            self.node(item, "\n", depth)
        out += (g[3] if g else "\n", "}", g[4] if g else last)

    def section_data(self, n: SectionData, lead: str, depth: int) -> None:
        k = len(n.values)
        g = self.gaps(n, 1 + max(k - 1, 0) + 1)
        first, last = self.ends(n, lead)
        self.out += (g[0] if g else first, "." + n.type.value)
        gi = self.seq(n.values, g, 1, ",", " ", "", depth)
        self.out.append(g[gi] if g else last)

    def function_directive(self, n: FunctionDirective, lead: str, depth: int) -> None:
        k = len(n.values)
        g = self.gaps(n, 1 + max(k - 1, 0) + 1)
        first, last = self.ends(n, lead)
        self.out += (g[0] if g else first, n.kind.ptx)
        gi = self.seq(n.values, g, 1, ",", " ", " ", depth)
        self.out.append(g[gi] if g else last)

    def _name_list(self, n: Any, kw: str, items: tuple[Node, ...], lead: str, depth: int) -> None:
        g = self.gaps(n, 1 + max(len(items) - 1, 0) + 2)
        first, last = self.ends(n, lead)
        self.out += (g[0] if g else first, kw)
        gi = self.seq(items, g, 1, ",", " ", " ", depth)
        self.out += (g[gi] if g else "", ";", g[gi + 1] if g else last)

    def branch_targets(self, n: BranchTargets, lead: str, depth: int) -> None:
        self._name_list(n, ".branchtargets", n.labels, lead, depth)

    def call_targets(self, n: CallTargets, lead: str, depth: int) -> None:
        self._name_list(n, ".calltargets", n.functions, lead, depth)

    def call_prototype(self, n: CallPrototype, lead: str, depth: int) -> None:
        expected = 1 + self._list_gaps(n.returns) + 1 + self._list_gaps(n.params) + n.noreturn + 2
        g = self.gaps(n, expected)
        first, last = self.ends(n, lead)
        out = self.out
        out += (g[0] if g else first, ".callprototype")
        gi = 1
        if n.returns is not None:
            gi = self._param_list(n.returns, g, gi, " ", " ", "", "")
        out += (g[gi] if g else " ", "_")
        gi += 1
        if n.params is not None:
            gi = self._param_list(n.params, g, gi, " ", " ", "", "")
        if n.noreturn:
            out += (g[gi] if g else " ", ".noreturn")
            gi += 1
        out += (g[gi] if g else "", ";", g[gi + 1] if g else last)

    def module(self, n: Module) -> None:
        for i, s in enumerate(n.statements):
            if i == 0:
                lead = ""
            elif isinstance(s, Function):
                lead = "\n\n"
            else:
                lead = "\n"
            self.node(s, lead, 0)
        t = n.trivia
        self.out.append(t[0] if t and not self.canonical else "\n")


def emit_node(node: Node, canonical: bool = False) -> str:
    """Emit any IR node (module, statement or operand) as PTX text."""
    e = _Emitter(canonical)
    if isinstance(node, Module):
        e.module(node)
    elif isinstance(node, Predicate):
        e.predicate(node, "")
    else:
        e.node(node, "", 0)
    return "".join(e.out)


def instruction_lines(module: Module, canonical: bool = False) -> list[int]:
    """The 1-based line each instruction starts on in the emitted text of ``module``.

    One entry per instruction, in the order :meth:`pyptx.ir.Module.instructions` yields
    them (the order they are written in). A guarded instruction starts at its ``@``.
    """
    e = _Emitter(canonical)
    e.marks = []
    e.module(module)
    lines: list[int] = []
    line = 1
    done = 0
    out = e.out
    for mark in e.marks:
        # Newlines before the mark, then those in the leading gap (comments, blank lines).
        line += sum(piece.count("\n") for piece in out[done : mark + 1])
        done = mark + 1
        lines.append(line)
    return lines
