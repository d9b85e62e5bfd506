"""Statement-level parsing (the upper half of the parser).

Every rule records the trivia before each of its own tokens in the order the emitter
writes them back (see :mod:`pyptx.ir.node`), so ``emit(parse(s)) == s``.
"""

from __future__ import annotations

from typing import Any

from pyptx.ir import (
    SPECIAL_REGISTERS,
    Align,
    Block,
    CallPrototype,
    Declarator,
    Function,
    FunctionDirective,
    FunctionDirectiveKind,
    FunctionKind,
    Immediate,
    Instruction,
    Label,
    LabelRef,
    Linkage,
    Loc,
    Module,
    Node,
    Param,
    Pragma,
    Predicate,
    Rewriter,
    StateSpace,
    Symbol,
    VarAttribute,
    VariableDecl,
)
from pyptx.ir.declarations import DeclQualifier

from ._calls import fast_call
from ._declarations import (
    DECL_STARTS,
    FUNCTION_KINDS,
    QUALIFIERS,
    fast_declaration,
    fast_param,
)
from ._directives import DirectiveParser
from ._lexer import (
    CALL_STATEMENT,
    CALL_TOKENS,
    DIRECTIVE,
    FAST_DECLARATION,
    FAST_PARAM,
    FAST_STATEMENT,
    INSTRUCTION_HEAD,
    LABEL,
    LABEL_LINE,
    LOC_LINE,
    MNEMONIC,
    NUMBER,
    OPERAND_SEGMENT,
    SEGMENT_PIECES,
    SIMPLE_INSTRUCTION,
)
from ._nodes import (
    new_block,
    new_declarator,
    new_instruction,
    new_label,
    new_loc,
    new_param,
    new_predicate,
    new_register,
    new_special_register,
    new_variable_decl,
)

_Head = tuple[str, tuple[str, ...], str, Predicate | None, int] | tuple[()]
"""What :meth:`Parser._whole_line` knows of a head: opcode, modifiers, the gap before the
mnemonic, the guard, and the length of the gap after it; or ``()`` for a head it leaves to
the other paths."""

_FUNC_DIRECTIVES = {"." + k.value: k for k in FunctionDirectiveKind}
# Statements whose tree depends only on their own text (given no bare identifiers).
_CONTEXT_FREE = (Instruction, VariableDecl, Loc, Pragma)


class _FixSymbols(Rewriter):
    """Reclassifies forward references once a function's labels are all known."""

    def __init__(self, to_label: set[str], to_symbol: set[str]) -> None:
        self.to_label = to_label
        self.to_symbol = to_symbol

    def rewrite_Symbol(self, node: Symbol) -> Node:
        if node.name in self.to_label:
            return LabelRef(node.name, node.trivia)
        return node

    def rewrite_LabelRef(self, node: LabelRef) -> Node:
        if node.name in self.to_symbol:
            return Symbol(node.name, node.trivia)
        return node


class Parser(DirectiveParser):
    """Parses one PTX source text into a :class:`~pyptx.ir.Module`."""

    def __init__(self, text: str, filename: str, fast: bool = True) -> None:
        super().__init__(text, filename, fast)
        self._mnemonics: dict[str, tuple[str, tuple[str, ...]]] = {}
        # Heads of instruction lines, by their text (see _whole_line and _Head).
        self._heads: dict[str, _Head] = {}
        self._top = {
            ".version": self.version,
            ".target": self.target,
            ".address_size": self.address_size,
            ".file": self.file,
            ".section": self.section,
            ".pragma": self.pragma,
            ".alias": self.alias,
        }
        self._body = {
            ".loc": self.loc,
            ".pragma": self.pragma,
            ".branchtargets": self.branch_targets,
            ".calltargets": self.call_targets,
            ".callprototype": self.call_prototype,
        }

    # ----------------------------------------------------------------- module

    def module(self) -> Module:
        """Parse the whole text."""
        statements: list[Node] = []
        while True:
            lead = self.ws()
            if self.pos >= self.n:
                return Module(tuple(statements), (lead,))
            statements.append(self.top_statement(lead))

    def top_statement(self, lead: str) -> Node:
        """Parse one module-scope statement."""
        t = self.text
        m = DIRECTIVE.match(t, self.pos)
        if m is None:
            if self.pos < self.n and t[self.pos] == "}":
                self.error("unmatched '}' at module scope")
            self.expected("a directive at module scope (.version, .target, .entry, ...)")
        word = m.group()
        rule = self._top.get(word)
        if rule is not None:
            self.pos = m.end()
            return rule(lead)
        if word in FUNCTION_KINDS or word in QUALIFIERS:
            return self.declaration(lead, top=True)
        self.error(f"unknown directive {word!r} at module scope", length=len(word))

    def qualifiers(self, lead: str) -> tuple[list[DeclQualifier], list[str], str, str | None]:
        """Parse declaration qualifiers.

        Returns:
            (qualifiers, gaps, gap before what follows, function keyword if one was reached).
        """
        t = self.text
        quals: list[DeclQualifier] = []
        gaps = [lead]
        while True:
            m = DIRECTIVE.match(t, self.pos)
            if m is None:
                self.expected("a declaration qualifier such as .reg, .align or .b32")
            word = m.group()
            if word in FUNCTION_KINDS and all(isinstance(q, Linkage) for q in quals):
                self.pos = m.end()
                return quals, gaps, "", word
            self.pos = m.end()
            if word == ".align":
                gaps.append(self.ws())
                quals.append(Align(self.integer()))
            elif word == ".attribute":
                quals.append(self.var_attribute(gaps))
            else:
                q = QUALIFIERS.get(word)
                if q is None:
                    self.error(f"unknown qualifier {word!r} in a declaration", m.start(), len(word))
                quals.append(q)
            g = self.ws()
            if t[self.pos] != "." or t[self.pos + 1] in "0123456789":
                return quals, gaps, g, None
            gaps.append(g)

    def var_attribute(self, gaps: list[str]) -> VarAttribute:
        gaps.append(self.ws())
        self.expect("(", "'(' after .attribute")
        gaps.append(self.ws())
        m = DIRECTIVE.match(self.text, self.pos)
        if not m:
            self.expected("an attribute such as .managed")
        self.pos = m.end()
        args: list[str] = []
        p0 = self.pos
        g = self.ws()
        if self.text[self.pos] == "(":
            gaps.append(g)
            self.pos += 1
            while True:
                gaps.append(self.ws())
                n = NUMBER.match(self.text, self.pos)
                if not n:
                    self.expected("a number in the attribute arguments")
                self.pos = n.end()
                args.append(n.group())
                gaps.append(self.ws())
                if self.text[self.pos] == ",":
                    self.pos += 1
                    continue
                self.expect(")", "')' to close the attribute arguments")
                break
        else:
            self.pos = p0
        gaps.append(self.ws())
        self.expect(")", "')' to close .attribute(")
        return VarAttribute(m.group()[1:], tuple(args))

    def declarator(self, lead: str, allow_init: bool = True) -> Declarator:
        t = self.text
        gaps = [lead]
        name = self.ident("a name to declare")
        range_count: int | None = None
        dims: list[int | None] = []
        p0 = self.pos
        g = self.ws()
        if t[self.pos] == "<":
            gaps.append(g)
            self.pos += 1
            gaps.append(self.ws())
            range_count = self.integer()
            gaps.append(self.ws())
            self.expect(">", "'>' to close the register range")
            p0 = self.pos
            g = self.ws()
        while t[self.pos] == "[":
            gaps.append(g)
            self.pos += 1
            g = self.ws()
            if t[self.pos] == "]":
                dims.append(None)
            else:
                gaps.append(g)
                dims.append(self.integer())
                g = self.ws()
            gaps.append(g)
            self.expect("]", "']' to close the array dimension")
            p0 = self.pos
            g = self.ws()
        initializer = None
        if allow_init and t[self.pos] == "=":
            gaps.append(g)
            self.pos += 1
            initializer = self.initializer(self.ws())
        else:
            self.pos = p0
        return new_declarator(name, tuple(dims), range_count, initializer, tuple(gaps))

    def declaration(self, lead: str, top: bool = False) -> Node:
        """Parse a variable declaration, or (at module scope) a function."""
        quals, gaps, g, func_kw = self.qualifiers(lead)
        if func_kw is not None:
            if not top:
                self.error(f"{func_kw} is only allowed at module scope", self.pos - len(func_kw))
            return self.function(quals, gaps, func_kw)
        declarators = [self.declarator(g)]
        while True:
            g = self.ws()
            c = self.text[self.pos]
            if c == ",":
                gaps.append(g)
                self.pos += 1
                declarators.append(self.declarator(self.ws()))
            elif c == ";":
                gaps.append(g)
                self.pos += 1
                break
            else:
                self.expected("',' or ';' after the declared name")
        gaps.append(self.trailing())
        if self.in_function and StateSpace.REG in quals:
            for d in declarators:
                if not d.name.startswith("%"):
                    if d.range_count is None:
                        self.bare_regs.add(d.name)
                    else:
                        self.reg_ranges[d.name] = d.range_count
        return new_variable_decl(tuple(quals), tuple(declarators), tuple(gaps))

    def param(self, lead: str) -> Param:
        if self.fast:
            m = FAST_PARAM.match(self.text, self.pos)
            if m is not None:
                fast = fast_param(lead, m.groups())
                if fast is not None:
                    self.pos = m.end()
                    return fast
        quals, gaps, g, func_kw = self.qualifiers(lead)
        if func_kw is not None:
            self.error(f"{func_kw} cannot appear in a parameter list", self.pos - len(func_kw))
        return new_param(tuple(quals), self.declarator(g, allow_init=False), tuple(gaps))

    def param_list(self, gaps: list[str], g_open: str) -> tuple[Param, ...]:
        """Parse ``( param, ... )``; the gaps of the parentheses and commas go to ``gaps``."""
        open_pos = self.pos
        gaps.append(g_open)
        self.pos += 1
        self.enter()
        params: list[Param] = []
        g = self.ws()
        if self.text[self.pos] != ")":
            params.append(self.param(g))
            while True:
                g = self.ws()
                c = self.text[self.pos]
                if c == ",":
                    gaps.append(g)
                    self.pos += 1
                    params.append(self.param(self.ws()))
                elif c == ")":
                    break
                elif self.pos >= self.n:
                    self.error("missing ')' to close this parameter list", open_pos)
                else:
                    self.expected("',' or ')' in the parameter list")
        gaps.append(g)
        self.pos += 1
        self.depth -= 1
        return tuple(params)

    # ----------------------------------------------------------------- functions

    def function(self, linkage: list[Any], gaps: list[str], kw: str) -> Function:
        t = self.text
        kind = FUNCTION_KINDS[kw]
        returns = params = None
        g = self.ws()
        if kind is FunctionKind.FUNC and t[self.pos] == "(":
            returns = self.param_list(gaps, g)
            g = self.ws()
        gaps.append(g)
        name = self.ident(f"a function name after {kw}")
        g = self.ws()
        if t[self.pos] == "(":
            params = self.param_list(gaps, g)
            g = self.ws()
        directives: list[Node] = []
        self.in_function = True
        self.labels = set()
        self.bare_regs = set()
        self.reg_ranges = {}
        self.guessed_labels = set()
        self.guessed_symbols = set()
        body: Block | None = None
        while True:
            c = t[self.pos]
            if c == "{":
                body = self.block(g)
                gaps.append("")
                break
            if c == ";":
                gaps.append(g)
                self.pos += 1
                gaps.append(self.trailing())
                break
            m = DIRECTIVE.match(t, self.pos)
            if m and m.group() in _FUNC_DIRECTIVES:
                self.pos = m.end()
                directives.append(self.function_directive(g, _FUNC_DIRECTIVES[m.group()]))
            elif m and m.group() == ".pragma":
                self.pos = m.end()
                directives.append(self.pragma(g))
            else:
                self.expected(f"a function body '{{', ';' or a directive after {name!r}")
            g = self.ws()
        self.in_function = False
        if body is not None:
            to_label = self.guessed_symbols & self.labels
            to_symbol = self.guessed_labels - self.labels
            if to_label or to_symbol:
                body = _FixSymbols(to_label, to_symbol).rewrite(body)
        return Function(
            kind, name, params, body, tuple(linkage), returns, tuple(directives), tuple(gaps)
        )

    def function_directive(self, lead: str, kind: FunctionDirectiveKind) -> FunctionDirective:
        gaps = [lead]
        values: list[Immediate] = []
        p0 = self.pos
        g = self.ws()
        m = NUMBER.match(self.text, self.pos)
        if m:
            self.pos = m.end()
            values.append(Immediate(m.group(), (g,)))
            while True:
                p0 = self.pos
                g = self.ws()
                if self.text[self.pos] != ",":
                    break
                gaps.append(g)
                self.pos += 1
                g2 = self.ws()
                m = NUMBER.match(self.text, self.pos)
                if not m:
                    self.expected(f"a number in {kind.ptx}")
                self.pos = m.end()
                values.append(Immediate(m.group(), (g2,)))
        self.pos = p0
        gaps.append(self.trailing())
        return FunctionDirective(kind, tuple(values), tuple(gaps))

    def block(self, lead: str) -> Block:
        open_pos = self.pos
        self.pos += 1
        self.enter()
        statements: list[Node] = []
        append = statements.append
        t = self.text
        step = self._statement_step
        whole = self._whole_line
        while True:
            if self.fast:
                self.pos = self.fast_lines(
                    self.pos, statements, step, self._body_lines, self._statement_cache, whole
                )
            start = self.pos
            g = self.ws()
            c = t[self.pos]
            if c == "}":
                break
            if self.pos >= self.n:
                self.error("missing '}' to close this '{'", open_pos)
            bare = self.bare_names_seen
            node = self.body_statement(g)
            append(node)
            if self.fast and bare == self.bare_names_seen:
                self._remember_line(start, node)
        self.pos += 1
        self.depth -= 1
        return new_block(tuple(statements), (lead, g, self.trailing()))

    def _remember_line(self, start: int, node: Node) -> None:
        """Remember a statement the general rules parsed, for repeats of its line.

        Only one whole line whose meaning does not depend on the function around it is kept.
        """
        text = self.text
        if text[start] != "\n" or text.find("\n", start + 1, self.pos) >= 0:
            return
        if not isinstance(node, _CONTEXT_FREE):
            return
        if (
            isinstance(node, VariableDecl)
            and StateSpace.REG in node.qualifiers
            and any(not d.name.startswith("%") for d in node.declarators)
        ):
            return  # declares bare register names: it changes how later lines read
        if text[self.pos] in "\n\0":
            self._body_lines[text[start + 1 : self.pos]] = node
        else:
            self._statement_cache[text[start : self.pos]] = node

    def _whole_line(self, line: str) -> Node | None:
        """The cheapest fast path: a whole line in nvcc's layout of an instruction.

        Labels and ``.loc`` lines go to :meth:`_label_line` and :meth:`_loc_line`. The layout
        of an unguarded instruction is ``<indentation><mnemonic> <tab><simple operands>;``,
        which string methods split faster than a pattern does; any other line gives
        ``None``. The head before the operands is checked once per distinct text against
        the rules of :data:`SIMPLE_INSTRUCTION`, and every operand piece is one the piece
        rules accept, so the node is the one :meth:`_statement_step` builds (and, when it
        may be shared, it is remembered for repeats of the line the same way).
        """
        end = line[-1:]
        if end != ";":
            if end == ":":
                return self._label_line(line)
            if line.startswith("\t.loc\t"):
                return self._loc_line(line)
            return None
        k = line.find("\t", 1)
        if k < 0:
            # No tab after the indentation (as Triton writes): the gap after the mnemonic
            # starts with a space.
            k = line.find(" ", len(line) - len(line.lstrip(" \t")))
            if k < 0:
                return None
        head = self._heads.get(line[: k + 1])
        if head is None:
            head = self._new_head(line[: k + 1])
        if not head or k + 2 == len(line):
            return None  # another path, or no operands
        opcode, mods, lead, predicate, sep = head
        # The operand segment as SIMPLE_INSTRUCTION cuts it: from the gap after the mnemonic.
        seen = self.bare_names_seen
        node = self._simple_instruction(opcode, mods, predicate, lead, line[k + 1 - sep : -1], "")
        if node is not None and self.bare_names_seen == seen:
            self._body_lines[line] = node
        return node

    def _label_line(self, line: str) -> Label | None:
        """``name:`` alone on its line (see :meth:`_whole_line`), as FAST_STATEMENT reads it."""
        name = line[:-1]
        # [A-Za-z_$][A-Za-z0-9_$]* is an ASCII identifier once '$' reads as '_'.
        if not (name.isascii() and name.replace("$", "_").isidentifier()):
            return None
        self.labels.add(name)
        return new_label(name, ("\n", "", ""))

    def _loc_line(self, line: str) -> Loc | None:
        """``<tab>.loc<tab>F L C`` in nvcc's layout (see :meth:`_whole_line`).

        Built as LOC_LINE reads it, and remembered for repeats of the line.
        """
        numbers = line[6:].split(" ")
        if len(numbers) != 3:
            return None
        f, ln, column = numbers
        if not (f.isdigit() and ln.isdigit() and column.isdigit() and line.isascii()):
            return None
        loc = new_loc(int(f), int(ln), int(column), (), ("\n\t", "\t", " ", " ", ""))
        self._body_lines[line] = loc
        return loc

    def _new_head(self, text: str) -> _Head:
        """Check the head of a line for :meth:`_whole_line`, and remember it."""
        m = INSTRUCTION_HEAD.fullmatch(text)
        head: _Head = ()
        if m is not None:
            indent, pg1, bang, pg2, pred_name, mlead, word, sep = m.groups()
            opcode, *mods = word.split(".")
            if opcode != "call" and "" not in mods:
                lead = "\n" + indent
                predicate = None
                if pred_name is not None:  # a %register: the guard needs no context
                    predicate, lead = self._guard(lead, pg1, bang, pg2, pred_name, mlead)
                head = (opcode, tuple(mods), lead, predicate, len(sep))
        self._heads[text] = head
        return head

    def _statement_step(self, pos: int, stop: int) -> tuple[Node, int, bool] | None:
        """The fast paths of function bodies at ``pos`` (a :data:`~._lines.Step`)."""
        t = self.text
        seen = self.bare_names_seen
        m = SIMPLE_INSTRUCTION.match(t, pos)
        if m is not None:
            end = m.end()
            if end != stop:
                node = self._statement_cache.get(m.group())
                if node is not None:
                    return node, end, False
            lead, word, segment, trail = m.groups()
            insn = self.fast_instruction(lead, word, segment, trail)
            if insn is None:
                return None
            return insn, end, self.bare_names_seen == seen
        # Lines SIMPLE_INSTRUCTION leaves, by their first character (after one tab).
        c = t[pos + 1]
        if c == "\t":
            c = t[pos + 2]
            if c == "{" or c == "}":
                return None  # a block: the general rules
            if c == ".":
                # A directive: of FAST_STATEMENT's cases only a .loc can start so.
                if t.startswith(".loc", pos + 2):
                    m = LOC_LINE.match(t, pos)
                    if m is not None:
                        lead, g1, f, g2, line, g3, column, trail = m.groups()
                        node = new_loc(
                            int(f), int(line), int(column), (), (lead, g1, g2, g3, trail)
                        )
                        return node, m.end(), True
                return self._declaration_step(pos)
        elif c == "$" or c == "\n":
            m = LABEL_LINE.match(t, pos)
            if m is not None:
                lead, name, gap, trail = m.groups()
                self.labels.add(name)
                return new_label(name, (lead, gap, trail)), m.end(), False
        m = FAST_STATEMENT.match(t, pos)
        if m is None:
            return self._call_step(pos) or self._declaration_step(pos)
        end = m.end()
        if end != stop:
            node = self._statement_cache.get(m.group())
            if node is not None:
                return node, end, False
        node = self.fast_statement(m.groups())
        if node is None:
            return None
        return node, end, self.bare_names_seen == seen and not isinstance(node, Label)

    def _call_step(self, pos: int) -> tuple[Node, int, bool] | None:
        """The :data:`CALL_STATEMENT` fast path at ``pos`` (see :meth:`_statement_step`)."""
        m = CALL_STATEMENT.match(self.text, pos)
        if m is None:
            return None
        lead, word, segment, trail = m.groups()
        insn = fast_call(self, lead, word, CALL_TOKENS.findall(segment), trail)
        if insn is None:
            return None
        return insn, m.end(), False

    def _declaration_step(self, pos: int) -> tuple[Node, int, bool] | None:
        """The :data:`FAST_DECLARATION` fast path at ``pos`` (see :meth:`_statement_step`)."""
        m = FAST_DECLARATION.match(self.text, pos)
        if m is None:
            return None
        decl = fast_declaration(m.groups())
        if decl is None:
            return None
        d = decl.declarators[0]
        if d.name.startswith("%") or StateSpace.REG not in decl.qualifiers:
            return decl, m.end(), True
        # declares a bare register name: it changes how later lines read
        if d.range_count is None:
            self.bare_regs.add(d.name)
        else:
            self.reg_ranges[d.name] = d.range_count
        return decl, m.end(), False

    def fast_statement(self, groups: tuple[Any, ...]) -> Node | None:
        """Build the node for a :data:`FAST_STATEMENT` match, or ``None`` to use the rules.

        Produces exactly the tree the general rules produce for the same text. A node whose
        meaning does not depend on the surrounding function (no label, no bare identifier:
        see :attr:`bare_names_seen`) may stand for every repeat of its text.
        """
        (
            lead,
            pg1,
            bang,
            pg2,
            pred_name,
            mlead,
            word,
            segment,
            label,
            lgap,
            lg1,
            lf,
            lg2,
            ll,
            lg3,
            lc,
            trail,
        ) = groups
        if word is None:
            if label is not None:
                self.labels.add(label)
                return new_label(label, (lead, lgap, trail))
            return new_loc(int(lf), int(ll), int(lc), (), (lead, lg1, lg2, lg3, trail))
        if pred_name is None:
            return self.fast_instruction(lead, word, segment, trail)
        guard = (pg1, bang, pg2, pred_name, mlead)
        return self.fast_instruction(lead, word, segment, trail, guard)

    def fast_instruction(
        self,
        lead: str,
        word: str,
        segment: str,
        trail: str,
        guard: tuple[str, str, str, str, str] | None = None,
    ) -> Instruction | None:
        """Build an instruction from the groups of :data:`FAST_STATEMENT`, or return ``None``.

        ``guard`` holds the predicate's groups (gap after ``@``, ``!``, gap, name, gap before
        the mnemonic) when there is one. See :meth:`fast_statement`.
        """
        split = self._mnemonics.get(word)
        if split is None:
            opcode, *mods = word.split(".")
            if "" in mods:
                return None  # not a mnemonic (see SIMPLE_INSTRUCTION): the rules report it
            split = (opcode, tuple(mods))
            self._mnemonics[word] = split
        opcode = split[0]
        if opcode == "call":
            return None
        predicate = None
        if guard is not None:
            predicate, lead = self._guard(lead, *guard)
        if not segment or segment.isspace():
            return new_instruction(opcode, split[1], (), predicate, (lead, segment, trail))
        return self._simple_instruction(opcode, split[1], predicate, lead, segment, trail)

    def _guard(
        self, lead: str, pg1: str, bang: str, pg2: str, name: str, mlead: str
    ) -> tuple[Predicate, str]:
        """The guard ``@[!]name`` from FAST_STATEMENT's groups, after ``lead``.

        Returns the predicate and the gap before the mnemonic, which starts the
        instruction's own trivia.
        """
        if bang:
            return new_predicate(self._pred_atom(name, pg2), True, (lead, pg1)), mlead
        return new_predicate(self._pred_atom(name, pg1 + pg2), False, (lead,)), mlead

    def _simple_instruction(
        self,
        opcode: str,
        mods: tuple[str, ...],
        predicate: Predicate | None,
        lead: str,
        segment: str,
        trail: str,
    ) -> Instruction | None:
        """The instruction of a non-empty operand segment of simple pieces.

        Each piece is cached or accepted by :meth:`new_piece`; otherwise ``None`` (the
        general rules take the text).
        """
        if "{" in segment:
            pieces = SEGMENT_PIECES.findall(segment)
            if ",".join(pieces) != segment:
                return None  # an empty operand or stray brace: the general rules report it
        else:
            pieces = segment.split(",")
        operands = []
        gaps = [lead]
        cache = self._piece_cache
        self.opcode = opcode  # bare names in new pieces read it
        for piece in pieces:
            hit = cache.get(piece)
            if hit is None:
                hit = self.new_piece(piece)
                if hit is None:
                    self.opcode = ""
                    return None
            operands.append(hit[0])
            gaps.append(hit[1])
        self.opcode = ""
        gaps.append(trail)
        return new_instruction(opcode, mods, tuple(operands), predicate, tuple(gaps))

    def _pred_atom(self, name: str, lead: str) -> Any:
        if name.startswith("%"):
            if name in SPECIAL_REGISTERS:
                return new_special_register(name, (lead,))
            return new_register(name, (lead,))
        self.opcode = ""
        return self.bare_name(name, lead)

    def body_statement(self, lead: str) -> Node:
        """Parse one statement inside a function body."""
        t = self.text
        c = t[self.pos]
        if c == ".":
            m = DIRECTIVE.match(t, self.pos)
            word = m.group() if m else ""
            rule = self._body.get(word)
            if rule is not None:
                self.pos = m.end()  # type: ignore[union-attr]
                return rule(lead)
            if word in DECL_STARTS:
                return self.declaration(lead)
            self.error(f"unknown directive {word!r} in a function body", length=len(word) or 1)
        if c == "{":
            return self.block(lead)
        if c == "@":
            return self.instruction(lead)
        m = LABEL.match(t, self.pos)
        if m is not None:
            return self.label(lead)
        return self.instruction(lead)

    def instruction(self, lead: str) -> Instruction:
        t = self.text
        predicate = None
        if t[self.pos] == "@":
            pgaps = [lead]
            self.pos += 1
            g = self.ws()
            negated = t[self.pos] == "!"
            if negated:
                pgaps.append(g)
                self.pos += 1
                g = self.ws()
            if t[self.pos] not in "%$_" and not t[self.pos].isalpha():
                self.expected("a predicate register after '@'")
            self.opcode = ""
            predicate = Predicate(self.unary(g), negated, tuple(pgaps))
            lead = self.ws()
        m = MNEMONIC.match(t, self.pos)
        if m is None:
            self.expected("an instruction, label, directive or '}'")
        word = m.group()
        self.pos = m.end()
        split = self._mnemonics.get(word)
        if split is None:
            opcode, *mods = word.split(".")
            split = (opcode, tuple(mods))
            self._mnemonics[word] = split
        self.opcode = split[0]
        gaps = [lead]
        operands = []
        fast = OPERAND_SEGMENT.match(t, self.pos) if self.fast else None
        if fast is not None and split[0] != "call":
            segment = fast.group(1)
            if not segment or segment.isspace():
                gaps += (segment, self._after_semicolon(fast.end()))
                return new_instruction(split[0], split[1], (), predicate, tuple(gaps))
            for piece in segment.split(","):
                hit = self.fast_piece(piece)
                if hit is None:
                    break
                operands.append(hit[0])
                gaps.append(hit[1])
            else:
                gaps.append(self._after_semicolon(fast.end()))
                self.opcode = ""
                return new_instruction(split[0], split[1], tuple(operands), predicate, tuple(gaps))
            operands = []
            gaps = [lead]
        g = self.ws()
        c = t[self.pos]
        if c != ";":
            if c in "}" or self.pos >= self.n:
                self.error(f"expected ';' after {word!r}, got {self.describe()}")
            operands.append(self.operand(g))
            while True:
                g = self.ws()
                c = t[self.pos]
                if c == ",":
                    gaps.append(g)
                    self.pos += 1
                    operands.append(self.operand(self.ws()))
                elif c == ";":
                    break
                else:
                    self.error(
                        f"expected ',' or ';' after operand {len(operands)} of {word!r}, "
                        f"got {self.describe()}",
                        length=self._token_len(),
                    )
        gaps.append(g)
        self.pos += 1
        gaps.append(self.trailing())
        self.opcode = ""
        return new_instruction(split[0], split[1], tuple(operands), predicate, tuple(gaps))

    def _after_semicolon(self, end: int) -> str:
        self.pos = end
        return self.trailing()

    def call_prototype(self, lead: str) -> CallPrototype:
        gaps = [lead]
        returns = params = None
        g = self.ws()
        if self.text[self.pos] == "(":
            returns = self.param_list(gaps, g)
            g = self.ws()
        gaps.append(g)
        self.expect("_", "'_' (the prototype's name placeholder)")
        g = self.ws()
        if self.text[self.pos] == "(":
            params = self.param_list(gaps, g)
            g = self.ws()
        noreturn = self.text.startswith(".noreturn", self.pos)
        if noreturn:
            gaps.append(g)
            self.pos += len(".noreturn")
            g = self.ws()
        gaps.append(g)
        self.expect(";", "';' after .callprototype")
        gaps.append(self.trailing())
        return CallPrototype(returns, params, noreturn, tuple(gaps))
