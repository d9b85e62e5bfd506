"""Statement-level parsing (the upper half of the parser).

Every rule records the trivia before each of its own tokens in the order the emitter
writes them back (see :mod:`pyptx.ir.node`), so ``emit(parse(s)) == s``.
"""

from __future__ import annotations

from typing import Any

from pyptx.ir import (
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

from ._body_paths import BodyFastPaths
from ._declarations import (
    DECL_STARTS,
    FUNCTION_KINDS,
    QUALIFIERS,
    fast_param,
)
from ._lexer import (
    DIRECTIVE,
    FAST_PARAM,
    LABEL,
    MNEMONIC,
    NUMBER,
    OPERAND_SEGMENT,
)
from ._nodes import (
    new_block,
    new_declarator,
    new_instruction,
    new_param,
    new_variable_decl,
)

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


class Parser(BodyFastPaths):
    """Parses one PTX source text into a :class:`~pyptx.ir.Module`."""

    def __init__(self, text: str, filename: str, fast: bool = True) -> None:
        super().__init__(text, filename, fast)
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
