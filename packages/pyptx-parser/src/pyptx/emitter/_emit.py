"""Rebuilds PTX text from the IR, one writer per node class (see :data:`_WRITERS`).

Each writer emits the node's tokens with the gap before each one taken from the node's
trivia (lossless mode) or from the canonical layout (``canonical=True``, or a node built
without trivia). Writers read gaps by the names the node's class declares
(:meth:`pyptx.ir.Node.gap_names`), never by position. When a node's trivia no longer fits
its shape (an edit changed the number of operands, say), the node keeps its ``leading`` and
``trailing`` gaps and lays out the rest canonically, so only the edited statement changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pyptx.ir import (
    LEADING,
    TRAILING,
    Address,
    AddressSize,
    Alias,
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
    Register,
    Section,
    SectionData,
    Sink,
    SpecialRegister,
    StringLiteral,
    Symbol,
    Target,
    UnaryExpr,
    VariableDecl,
    VectorOperand,
    Version,
    comma_gaps,
    qualifier_tokens,
    token_gaps,
)
from pyptx.ir.declarations import DeclQualifier

Writer = Callable[["_Emitter", Any, str, int], None]
Gaps = tuple[str, ...] | None
"""A node's trivia where it is used and fits the node's shape; ``None`` (or empty) where the
writer lays the node out canonically. Gap ``name`` is ``g[ix[name]]``, ``ix`` being the
node's :meth:`~pyptx.ir.Node.gap_index`."""
Index = Mapping[str, int]

_NO_GAPS: tuple[None, Index] = (None, {})


def _position(cls: type[Node], name: str) -> int:
    """Where gap ``name`` sits in the fixed layout that ``cls`` declares (its ``GAPS``)."""
    names = cls.GAPS
    if names is None:
        raise TypeError(f"{cls.__name__} has no fixed gap layout")
    return names.index(name)


_FIRST_COMMA = comma_gaps(2)[0]
"""The name of the gap before a list's first comma."""

_ATOM_LEADING: dict[type, int] = {
    cls: _position(cls, LEADING)
    for cls in (Register, SpecialRegister, Symbol, LabelRef, Immediate, StringLiteral, Sink)
}


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

    # ----------------------------------------------------------------- helpers

    def node(self, n: Node, lead: str, depth: int) -> None:
        try:
            writer = _WRITERS[type(n)]
        except KeyError:
            raise TypeError(f"cannot emit a {type(n).__name__}: not a PTX IR node") from None
        writer(self, n, lead, depth)

    def gaps(self, n: Node) -> tuple[Gaps, Index]:
        """The node's trivia and gap index if its trivia is to be used and fits its shape."""
        t = n.trivia
        if t is None or self.canonical:
            return _NO_GAPS
        ix = n.gap_index()
        if len(t) != len(ix):
            return _NO_GAPS
        return t, ix

    def _lead(self, n: Node, lead: str) -> str:
        """The node's ``leading`` gap (kept when the rest of its trivia no longer fits)."""
        if n.trivia is None or self.canonical:
            return lead
        t = n.gap(LEADING)
        return lead if t is None else t

    def _trailing(self, n: Node) -> str:
        """A statement's ``trailing`` gap (kept when the rest of its trivia no longer fits)."""
        if n.trivia is None or self.canonical:
            return ""
        t = n.gap(TRAILING)
        return "" if t is None else t

    def seq(
        self,
        items: tuple[Node, ...],
        g: Gaps,
        ix: Index,
        first_lead: str,
        lead: str,
        depth: int,
    ) -> None:
        """Write ``items`` separated by commas, whose gaps are the :func:`comma_gaps`."""
        if not items:
            return
        out = self.out
        node = self.node
        node(items[0], first_lead, depth)
        if len(items) == 1:
            return
        if g:
            # The comma gaps of a list are consecutive: iterate from the first one's position.
            i = ix[_FIRST_COMMA]
            for item in items[1:]:
                out += (g[i], ",")
                i += 1
                node(item, lead, depth)
        else:
            for item in items[1:]:
                out.append(",")
                node(item, lead, depth)

    # ----------------------------------------------------------------- operands

    # Atoms are the most numerous nodes: their one gap is read inline, at the position of
    # ``leading`` in their class's fixed layout (which holds whether or not the trivia fits).

    def atom_name(self, n: Any, lead: str, depth: int) -> None:
        t = n.trivia
        self.out += (t[_ATOM_LEADING[type(n)]] if t and not self.canonical else lead, n.name)

    def immediate(self, n: Immediate, lead: str, depth: int) -> None:
        t = n.trivia
        self.out += (t[_ATOM_LEADING[Immediate]] if t and not self.canonical else lead, n.text)

    def string(self, n: StringLiteral, lead: str, depth: int) -> None:
        t = n.trivia
        first = t[_ATOM_LEADING[StringLiteral]] if t and not self.canonical else lead
        self.out += (first, '"', n.text, '"')

    def sink(self, n: Sink, lead: str, depth: int) -> None:
        t = n.trivia
        self.out += (t[_ATOM_LEADING[Sink]] if t and not self.canonical else lead, "_")

    def _braced(
        self,
        n: Node,
        items: tuple[Node, ...],
        lead: str,
        depth: int,
        brackets: tuple[str, str, str],
    ) -> None:
        open_, close, before_close = brackets
        g, ix = self.gaps(n)
        out = self.out
        out += (g[ix[LEADING]] if g else self._lead(n, lead), open_)
        self.seq(items, g, ix, "", " ", depth)
        out += (g[ix[before_close]] if g else "", close)

    def vector(self, n: VectorOperand, lead: str, depth: int) -> None:
        self._braced(n, n.elements, lead, depth, ("{", "}", "before_rbrace"))

    def brace_list(self, n: BraceList, lead: str, depth: int) -> None:
        self._braced(n, n.items, lead, depth, ("{", "}", "before_rbrace"))

    def paren_list(self, n: ParenList, lead: str, depth: int) -> None:
        self._braced(n, n.items, lead, depth, ("(", ")", "before_rparen"))

    def field_init(self, n: FieldInit, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        self.out += (
            g[ix[LEADING]] if g else self._lead(n, lead),
            n.name,
            g[ix["before_eq"]] if g else " ",
            "=",
        )
        self.node(n.value, " ", depth)

    def address(self, n: Address, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        out = self.out
        out += (g[ix[LEADING]] if g else self._lead(n, lead), "[")
        self.node(n.base, "", depth)
        if n.offset is not None:
            out += (g[ix["before_sign"]] if g else "", n.sign)
            self.node(n.offset, "", depth)
        # The base (with its offset) is item 0 of the comma list, the extras items 1...
        commas = comma_gaps(1 + len(n.extra)) if g else ()
        for i, e in enumerate(n.extra):
            out += (g[ix[commas[i]]] if g else "", ",")
            self.node(e, " ", depth)
        out += (g[ix["before_rbracket"]] if g else "", "]")

    def negated(self, n: Negated, lead: str, depth: int) -> None:
        self.out += (self._lead(n, lead), "!")
        self.node(n.operand, "", depth)

    def pred_pair(self, n: PredPair, lead: str, depth: int) -> None:
        self.node(n.first, lead, depth)
        g, ix = self.gaps(n)
        self.out += (g[ix["before_bar"]] if g else "", "|")
        self.node(n.second, "", depth)

    def binary(self, n: BinaryExpr, lead: str, depth: int) -> None:
        self.node(n.lhs, lead, depth)
        g, ix = self.gaps(n)
        self.out += (g[ix["before_op"]] if g else "", n.op)
        self.node(n.rhs, "", depth)

    def unary(self, n: UnaryExpr, lead: str, depth: int) -> None:
        self.out += (self._lead(n, lead), n.op)
        self.node(n.operand, "", depth)

    def paren(self, n: ParenExpr, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        self.out += (g[ix[LEADING]] if g else self._lead(n, lead), "(")
        self.node(n.inner, "", depth)
        self.out += (g[ix["before_rparen"]] if g else "", ")")

    def generic(self, n: GenericAddress, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        self.out += (
            g[ix[LEADING]] if g else self._lead(n, lead),
            "generic",
            g[ix["before_lparen"]] if g else "",
            "(",
        )
        self.node(n.operand, "", depth)
        self.out += (g[ix["before_rparen"]] if g else "", ")")

    # ----------------------------------------------------------------- statements

    def instruction(self, n: Instruction, lead: str, depth: int) -> None:
        if self.marks is not None:
            # The first piece written below is the instruction's leading gap.
            self.marks.append(len(self.out))
        g, ix = self.gaps(n)
        out = self.out
        node = self.node
        pred = n.predicate
        if pred is not None:
            self.predicate(pred, lead)
            out.append(g[ix["before_opcode"]] if g else " ")
        else:
            out.append(g[ix[LEADING]] if g else self._lead(n, lead))
        out.append(n.opcode)
        for m in n.modifiers:
            out += (".", m)
        # As seq() does, inlined: instructions are the most numerous statements.
        ops = n.operands
        if g:
            if ops:
                node(ops[0], " ", depth)
                i = ix[_FIRST_COMMA] if len(ops) > 1 else 0
                for op in ops[1:]:
                    out += (g[i], ",")
                    i += 1
                    node(op, " ", depth)
            out += (g[ix["before_semicolon"]], ";", g[ix[TRAILING]])
        else:
            for i, op in enumerate(ops):
                if i:
                    out.append(",")
                node(op, " ", depth)
            out += (";", self._trailing(n))

    def predicate(self, n: Predicate, lead: str) -> None:
        g, ix = self.gaps(n)
        out = self.out
        out += (g[ix[LEADING]] if g else self._lead(n, lead), "@")
        if n.negated:
            out += (g[ix["before_bang"]] if g else "", "!")
        self.node(n.register, "", 0)

    def label(self, n: Label, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        if g:
            self.out += (g[ix[LEADING]], n.name, g[ix["before_colon"]], ":", g[ix[TRAILING]])
        else:
            self.out += (self._lead(n, lead), n.name, ":", self._trailing(n))

    def block(self, n: Block, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        out = self.out
        out += (g[ix[LEADING]] if g else self._lead(n, lead), "{")
        self.statements(n.statements, depth + 1)
        out += (
            g[ix["before_rbrace"]] if g else "\n" + "\t" * depth,
            "}",
            g[ix[TRAILING]] if g else self._trailing(n),
        )

    def statements(self, stmts: tuple[Node, ...], depth: int) -> None:
        indent = "\n" + "\t" * depth
        for s in stmts:
            self.node(s, "\n" if isinstance(s, Label) else indent, depth)

    def _qualifiers(self, quals: tuple[DeclQualifier, ...], g: Gaps, ix: Index, first: str) -> None:
        """Write the qualifier tokens, whose gaps are the :func:`token_gaps`."""
        toks: list[str] = []
        for q in quals:
            toks += qualifier_tokens(q)
        out = self.out
        if g:
            for name, tok in zip(token_gaps(len(toks)), toks, strict=True):
                out += (g[ix[name]], tok)
            return
        defaults = _qualifier_defaults(toks)
        for i, tok in enumerate(toks):
            out += (first if i == 0 else defaults[i], tok)

    def variable_decl(self, n: VariableDecl, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        # A declaration without qualifiers has no leading gap (its declarator holds it).
        first = self._lead(n, lead) if not g and n.qualifiers else lead
        self._qualifiers(n.qualifiers, g, ix, first)
        self.seq(n.declarators, g, ix, " ", " ", depth)
        if g:
            self.out += (g[ix["before_semicolon"]], ";", g[ix[TRAILING]])
        else:
            self.out += (";", self._trailing(n))

    def declarator(self, n: Declarator, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        out = self.out
        out += (g[ix[LEADING]] if g else self._lead(n, lead), n.name)
        if n.range_count is not None:
            out += (
                g[ix["before_lt"]] if g else "",
                "<",
                g[ix["before_count"]] if g else "",
                str(n.range_count),
                g[ix["before_gt"]] if g else "",
                ">",
            )
        for j, dim in enumerate(n.dims):
            out += (g[ix[f"before_lbracket_{j}"]] if g else "", "[")
            if dim is not None:
                out += (g[ix[f"before_size_{j}"]] if g else "", str(dim))
            out += (g[ix[f"before_rbracket_{j}"]] if g else "", "]")
        if n.initializer is not None:
            out += (g[ix["before_eq"]] if g else " ", "=")
            self.node(n.initializer, " ", depth)

    def param(self, n: Param, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        first = self._lead(n, lead) if not g and n.qualifiers else lead
        self._qualifiers(n.qualifiers, g, ix, first)
        self.declarator(n.declarator, " ", depth)

    def _param_list(
        self,
        params: tuple[Param, ...],
        g: Gaps,
        ix: Index,
        prefix: str,
        leads: tuple[str, str, str, str],
    ) -> None:
        """Write ``(param, ...)``.

        ``leads`` is the canonical layout: before ``(``, before each further parameter,
        before the first one, before ``)``.
        """
        open_lead, item_lead, first_lead, close_lead = leads
        out = self.out
        out += (g[ix[prefix + "before_lparen"]] if g else open_lead, "(")
        commas = comma_gaps(len(params), prefix) if g else ()
        for i, p in enumerate(params):
            if i:
                out += (g[ix[commas[i - 1]]] if g else "", ",")
            self.param(p, first_lead if i == 0 else item_lead, 0)
        out += (g[ix[prefix + "before_rparen"]] if g else (close_lead if params else ""), ")")

    def function(self, n: Function, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        out = self.out
        toks = [q.ptx for q in n.linkage] + [n.kind.ptx]
        if g:
            for name, tok in zip(token_gaps(len(toks)), toks, strict=True):
                out += (g[ix[name]], tok)
        else:
            for i, tok in enumerate(toks):
                out += (self._lead(n, lead) if i == 0 else " ", tok)
        if n.returns is not None:
            self._param_list(n.returns, g, ix, "returns_", (" ", " ", "", ""))
        out += (g[ix["before_name"]] if g else " ", n.name)
        if n.params is not None:
            self._param_list(n.params, g, ix, "params_", ("", "\n\t", "\n\t", "\n"))
        for d in n.directives:
            self.node(d, "\n", depth)
        if n.body is not None:
            self.block(n.body, "\n", depth)
            # A stale trivia's trailing gap is dropped after a body (the block ends the line).
            out.append(g[ix[TRAILING]] if g else "")
        elif g:
            out += (g[ix["before_semicolon"]], ";", g[ix[TRAILING]])
        else:
            out += (";", self._trailing(n))

    def _keyword_number(self, n: Version | AddressSize, lead: str, kw: str, number: str) -> None:
        g, ix = self.gaps(n)
        if g:
            self.out += (g[ix[LEADING]], kw, g[ix["before_number"]], number, g[ix[TRAILING]])
        else:
            self.out += (self._lead(n, lead), kw, " ", number, self._trailing(n))

    def version(self, n: Version, lead: str, depth: int) -> None:
        self._keyword_number(n, lead, ".version", f"{n.major}.{n.minor}")

    def address_size(self, n: AddressSize, lead: str, depth: int) -> None:
        self._keyword_number(n, lead, ".address_size", str(n.bits))

    def target(self, n: Target, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        out = self.out
        out += (
            g[ix[LEADING]] if g else self._lead(n, lead),
            ".target",
            g[ix["before_name_0"]] if g else " ",
            n.targets[0],
        )
        commas = comma_gaps(len(n.targets)) if g else ()
        for i, name in enumerate(n.targets[1:], 1):
            if g:
                out += (g[ix[commas[i - 1]]], ",", g[ix[f"before_name_{i}"]], name)
            else:
                out += (",", " ", name)
        out.append(g[ix[TRAILING]] if g else self._trailing(n))

    def file(self, n: File, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        out = self.out
        out += (
            g[ix[LEADING]] if g else self._lead(n, lead),
            ".file",
            g[ix["before_index"]] if g else " ",
            str(n.index),
        )
        self.node(n.path, " ", depth)
        # The path is item 0 of the comma list, the extras items 1...
        commas = comma_gaps(1 + len(n.extras)) if g else ()
        for i, e in enumerate(n.extras):
            out += (g[ix[commas[i]]] if g else "", ",")
            self.node(e, " ", depth)
        out.append(g[ix[TRAILING]] if g else self._trailing(n))

    def loc(self, n: Loc, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        self.out += (
            g[ix[LEADING]] if g else self._lead(n, lead),
            ".loc",
            g[ix["before_file"]] if g else " ",
            str(n.file),
            g[ix["before_line"]] if g else " ",
            str(n.line),
            g[ix["before_column"]] if g else " ",
            str(n.column),
        )
        for a in n.attributes:
            self.node(a, "", depth)
        self.out.append(g[ix[TRAILING]] if g else self._trailing(n))

    def loc_function_name(self, n: LocFunctionName, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        self.out += (
            g[ix["before_comma"]] if g else "",
            ",",
            g[ix["before_keyword"]] if g else " ",
            "function_name",
        )
        self.node(n.label, " ", depth)

    def loc_inlined_at(self, n: LocInlinedAt, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        self.out += (
            g[ix["before_comma"]] if g else "",
            ",",
            g[ix["before_keyword"]] if g else " ",
            "inlined_at",
            g[ix["before_file"]] if g else " ",
            str(n.file),
            g[ix["before_line"]] if g else " ",
            str(n.line),
            g[ix["before_column"]] if g else " ",
            str(n.column),
        )

    def _semicolon(self, n: Node, g: Gaps, ix: Index) -> None:
        """End a statement with ``;`` and its trailing gap."""
        if g:
            self.out += (g[ix["before_semicolon"]], ";", g[ix[TRAILING]])
        else:
            self.out += (";", self._trailing(n))

    def pragma(self, n: Pragma, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        self.out += (g[ix[LEADING]] if g else self._lead(n, lead), ".pragma")
        self.seq(n.values, g, ix, " ", " ", depth)
        self._semicolon(n, g, ix)

    def alias(self, n: Alias, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        self.out += (
            g[ix[LEADING]] if g else self._lead(n, lead),
            ".alias",
            g[ix["before_alias"]] if g else " ",
            n.alias,
            g[ix["before_comma"]] if g else "",
            ",",
            g[ix["before_aliasee"]] if g else " ",
            n.aliasee,
        )
        self._semicolon(n, g, ix)

    def section(self, n: Section, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        out = self.out
        out += (
            g[ix[LEADING]] if g else self._lead(n, lead),
            ".section",
            g[ix["before_name"]] if g else " ",
            n.name,
            g[ix["before_lbrace"]] if g else "\n",
            "{",
        )
        done: dict[int, list[str]] = {}  # the parser shares one node between identical lines
        for item in n.items:
            pieces = done.get(id(item))
            if pieces is None:
                start = len(out)
                self.node(item, "\n", depth)
                done[id(item)] = out[start:]
            else:
                out += pieces
        out += (
            g[ix["before_rbrace"]] if g else "\n",
            "}",
            g[ix[TRAILING]] if g else self._trailing(n),
        )

    def section_data(self, n: SectionData, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        self.out += (g[ix[LEADING]] if g else self._lead(n, lead), "." + n.type.value)
        self.seq(n.values, g, ix, " ", "", depth)
        self.out.append(g[ix[TRAILING]] if g else self._trailing(n))

    def function_directive(self, n: FunctionDirective, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        self.out += (g[ix[LEADING]] if g else self._lead(n, lead), n.kind.ptx)
        self.seq(n.values, g, ix, " ", " ", depth)
        self.out.append(g[ix[TRAILING]] if g else self._trailing(n))

    def _name_list(self, n: Node, kw: str, items: tuple[Node, ...], lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        self.out += (g[ix[LEADING]] if g else self._lead(n, lead), kw)
        self.seq(items, g, ix, " ", " ", depth)
        self._semicolon(n, g, ix)

    def branch_targets(self, n: BranchTargets, lead: str, depth: int) -> None:
        self._name_list(n, ".branchtargets", n.labels, lead, depth)

    def call_targets(self, n: CallTargets, lead: str, depth: int) -> None:
        self._name_list(n, ".calltargets", n.functions, lead, depth)

    def call_prototype(self, n: CallPrototype, lead: str, depth: int) -> None:
        g, ix = self.gaps(n)
        out = self.out
        out += (g[ix[LEADING]] if g else self._lead(n, lead), ".callprototype")
        if n.returns is not None:
            self._param_list(n.returns, g, ix, "returns_", (" ", " ", "", ""))
        out += (g[ix["before_sink"]] if g else " ", "_")
        if n.params is not None:
            self._param_list(n.params, g, ix, "params_", (" ", " ", "", ""))
        if n.noreturn:
            out += (g[ix["before_noreturn"]] if g else " ", ".noreturn")
        self._semicolon(n, g, ix)

    def module(self, n: Module) -> None:
        for i, s in enumerate(n.statements):
            if i == 0:
                lead = ""
            elif isinstance(s, Function):
                lead = "\n\n"
            else:
                lead = "\n"
            self.node(s, lead, 0)
        end = None if self.canonical or n.trivia is None else n.gap("end")
        self.out.append("\n" if end is None else end)


_WRITERS: dict[type, Writer] = {
    Register: _Emitter.atom_name,
    SpecialRegister: _Emitter.atom_name,
    Symbol: _Emitter.atom_name,
    LabelRef: _Emitter.atom_name,
    Immediate: _Emitter.immediate,
    StringLiteral: _Emitter.string,
    Sink: _Emitter.sink,
    VectorOperand: _Emitter.vector,
    BraceList: _Emitter.brace_list,
    FieldInit: _Emitter.field_init,
    Address: _Emitter.address,
    ParenList: _Emitter.paren_list,
    Negated: _Emitter.negated,
    PredPair: _Emitter.pred_pair,
    BinaryExpr: _Emitter.binary,
    UnaryExpr: _Emitter.unary,
    ParenExpr: _Emitter.paren,
    GenericAddress: _Emitter.generic,
    Instruction: _Emitter.instruction,
    Label: _Emitter.label,
    Block: _Emitter.block,
    VariableDecl: _Emitter.variable_decl,
    Version: _Emitter.version,
    Target: _Emitter.target,
    AddressSize: _Emitter.address_size,
    File: _Emitter.file,
    Loc: _Emitter.loc,
    LocFunctionName: _Emitter.loc_function_name,
    LocInlinedAt: _Emitter.loc_inlined_at,
    Pragma: _Emitter.pragma,
    Alias: _Emitter.alias,
    Section: _Emitter.section,
    SectionData: _Emitter.section_data,
    FunctionDirective: _Emitter.function_directive,
    BranchTargets: _Emitter.branch_targets,
    CallTargets: _Emitter.call_targets,
    CallPrototype: _Emitter.call_prototype,
    Function: _Emitter.function,
    Declarator: _Emitter.declarator,
    Param: _Emitter.param,
}
"""The writer of each node class (a method of :class:`_Emitter`, called with the emitter)."""


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


def instruction_positions(module: Module, canonical: bool = False) -> list[tuple[int, int]]:
    """The 1-based (line, column) each instruction starts at in the emitted text of ``module``.

    One entry per instruction, in :meth:`pyptx.ir.Module.instructions` order; a guarded
    instruction starts at its ``@``.
    """
    e = _Emitter(canonical)
    e.marks = []
    e.module(module)
    out = e.out
    positions: list[tuple[int, int]] = []
    line, column, done = 1, 0, 0
    for mark in e.marks:
        # The pieces up to and including the instruction's leading gap.
        for piece in out[done : mark + 1]:
            newline = piece.rfind("\n")
            if newline < 0:
                column += len(piece)
            else:
                line += piece.count("\n")
                column = len(piece) - newline - 1
        done = mark + 1
        positions.append((line, column + 1))
    return positions


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
