"""Operand and constant-expression parsing (the lower half of the parser)."""

from __future__ import annotations

from typing import Any, NoReturn

from pyptx.ir import (
    SPECIAL_REGISTERS,
    Address,
    BinaryExpr,
    BraceList,
    Expr,
    FieldInit,
    GenericAddress,
    Immediate,
    Negated,
    Node,
    Operand,
    ParenExpr,
    ParenList,
    PredPair,
    Register,
    Sink,
    SpecialRegister,
    StringLiteral,
    Symbol,
    UnaryExpr,
    VectorOperand,
)

from ._lexer import (
    ADDRESS_PIECE,
    BINOP,
    COMPONENT,
    DIRECTIVE,
    IDENT,
    INTEGER,
    NUMBER,
    NUMBER_LIST,
    OPERAND_PIECE,
    PRECEDENCE,
    STRING,
    TRAILING,
    TRIVIA,
    VECTOR_BODY,
    VECTOR_PIECE,
)
from ._nodes import (
    new_address,
    new_immediate,
    new_label_ref,
    new_register,
    new_special_register,
    new_symbol,
    new_vector,
)
from .errors import PtxSyntaxError

MAX_DEPTH = 200
"""Deepest nesting of blocks, braces and parentheses the parser accepts."""

_IDENT_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$%")
_DIGITS = frozenset("0123456789")
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$")
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$0123456789")
_BRANCH_OPCODES = frozenset({"bra", "brx"})


class ExprParser:
    """Scanner state plus operand/expression rules; :class:`~._parser.Parser` adds statements."""

    def __init__(self, text: str, filename: str, fast: bool = True) -> None:
        self.fast = fast
        """Whether to use the one-line fast paths (disabled in tests to check they agree)."""
        # NUL sentinels mean text[pos] (and the fast paths' peeks at text[pos + 1] and
        # text[pos + 2]) never run off the end; pos >= n is end of input.
        self.text = text + "\0\0"
        self.n = len(text)
        self.pos = 0
        self.filename = filename
        self.depth = 0
        self.opcode = ""
        self.in_section = False
        self.in_function = False
        # Per-function symbol knowledge, used to classify bare identifiers.
        self.labels: set[str] = set()
        self.bare_regs: set[str] = set()
        self.reg_ranges: dict[str, int] = {}
        self.guessed_labels: set[str] = set()
        self.guessed_symbols: set[str] = set()
        # How many bare identifiers were classified so far (they depend on the context).
        self.bare_names_seen = 0
        self._reg_cache: dict[str, Register] = {}
        self._imm_cache: dict[str, Immediate] = {}
        self._piece_cache: dict[str, tuple[Operand, str]] = {}
        # Whole-line statements by their exact text (lead and trailing included); nodes are
        # immutable values, so identical lines can share one node. Function bodies and
        # sections keep apart (a section's data line is no statement of a function body).
        self._statement_cache: dict[str, Node] = {}
        self._section_cache: dict[str, Node] = {}
        # The same, for statements that fill one line, keyed by the line's text.
        self._body_lines: dict[str, Node] = {}
        self._section_lines: dict[str, Node] = {}

    # ----------------------------------------------------------------- diagnostics

    def error(self, message: str, pos: int | None = None, length: int = 1) -> NoReturn:
        """Raise :class:`PtxSyntaxError` at ``pos`` (default: the current offset)."""
        p = self.pos if pos is None else pos
        src = self.text[: self.n]
        p = min(max(p, 0), len(src))
        line_start = src.rfind("\n", 0, p) + 1
        line_end = src.find("\n", p)
        if line_end < 0:
            line_end = len(src)
        line_no = src.count("\n", 0, p) + 1
        raise PtxSyntaxError(
            message,
            self.filename,
            line_no,
            p - line_start + 1,
            src[line_start:line_end].rstrip("\r"),
            length,
        )

    def describe(self, pos: int | None = None) -> str:
        """Describe the token at ``pos`` for an error message."""
        p = self.pos if pos is None else pos
        if p >= self.n:
            return "end of input"
        t = self.text
        for rx in (DIRECTIVE, NUMBER, IDENT, STRING):
            m = rx.match(t, p)
            if m:
                return repr(m.group()[:40])
        return repr(t[p])

    def expected(self, what: str) -> NoReturn:
        """Raise "expected <what>, got <token>" at the current offset."""
        self.error(f"expected {what}, got {self.describe()}", length=self._token_len())

    def _token_len(self) -> int:
        if self.pos >= self.n:
            return 1
        for rx in (DIRECTIVE, NUMBER, IDENT):
            m = rx.match(self.text, self.pos)
            if m:
                return m.end() - m.start()
        return 1

    # ----------------------------------------------------------------- scanning

    def ws(self) -> str:
        """Consume and return the trivia at the current offset."""
        t = self.text
        p = self.pos
        c = t[p]
        if c not in " \t\r\n/\f\v":
            return ""
        if c == " " and t[p + 1] not in " \t\r\n/\f\v":
            self.pos = p + 1
            return " "  # the commonest gap, without the pattern
        end = TRIVIA.match(t, p).end()  # type: ignore[union-attr]
        if t[end] == "/" and t[end + 1] == "*":
            self.error("unterminated /* comment (no closing */ before end of input)", end, 2)
        self.pos = end
        return t[p:end]

    def trailing(self) -> str:
        """Consume and return same-line trivia after a statement's last token."""
        m = TRAILING.match(self.text, self.pos)
        end = m.end()  # type: ignore[union-attr]
        s = self.text[self.pos : end]
        self.pos = end
        return s

    def expect(self, char: str, what: str) -> None:
        """Consume ``char`` or raise "expected <what>"."""
        if self.text[self.pos] != char:
            self.expected(what)
        self.pos += 1

    def integer(self) -> int:
        """Consume a decimal integer."""
        m = INTEGER.match(self.text, self.pos)
        if not m:
            self.expected("an integer")
        self.pos = m.end()
        return int(m.group())

    def ident(self, what: str = "an identifier") -> str:
        """Consume an identifier."""
        m = IDENT.match(self.text, self.pos)
        if not m:
            self.expected(what)
        self.pos = m.end()
        return m.group()

    def enter(self) -> None:
        """Count one level of nesting; refuse absurdly deep input."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.error(f"nesting deeper than {MAX_DEPTH} levels")

    # ----------------------------------------------------------------- operands

    def operand(self, lead: str) -> Operand:
        """Parse one instruction operand whose leading trivia ``lead`` is already consumed."""
        t = self.text
        c = t[self.pos]
        if c == "%" or c == "$" or c.isalpha():
            # Fast path for the common atom followed by ',' ';' or ']'.
            return self.maybe_pair(self.expr(lead, 1, False))
        if c == "{":
            return self.vector(lead)
        if c == "[":
            return self.address(lead)
        if c == "(" and self.opcode == "call":
            return self.paren_list(lead)
        if c == "!":
            self.pos += 1
            self.enter()
            inner = self.operand(self.ws())
            self.depth -= 1
            return Negated(inner, (lead,))
        if c == "_" and t[self.pos + 1] not in _WORD:
            self.pos += 1
            return self.maybe_pair(Sink((lead,)))
        if c == '"':
            return self.string(lead)
        return self.maybe_pair(self.expr(lead, 1, False))

    def maybe_pair(self, first: Expr | Sink) -> Operand:
        """Turn ``first`` into a ``p|q`` pair when a single ``|`` follows."""
        t = self.text
        p0 = self.pos
        g = self.ws()
        if t[self.pos] == "|" and t[self.pos + 1] != "|":
            self.pos += 1
            second = self.expr(self.ws(), 1, False)
            return PredPair(first, second, (g,))
        self.pos = p0
        return first

    def string(self, lead: str) -> StringLiteral:
        """Parse a double-quoted string."""
        m = STRING.match(self.text, self.pos)
        if not m:
            self.error("unterminated string literal (no closing '\"' on this line)")
        self.pos = m.end()
        return StringLiteral(m.group()[1:-1], (lead,))

    def vector(self, lead: str) -> VectorOperand:
        """Parse ``{a, b, ...}`` in operand position."""
        m = VECTOR_BODY.match(self.text, self.pos) if self.fast else None
        if m is not None:
            items: list[Operand] = []
            gaps = [lead]
            for piece in m.group(1).split(","):
                hit = self.fast_piece(piece)
                if hit is None:
                    break
                items.append(hit[0])
                gaps.append(hit[1])
            else:
                self.pos = m.end()
                return new_vector(tuple(items), tuple(gaps))
        slow, slow_gaps = self._braced(lead, "}", self.operand, "an operand")
        return VectorOperand(tuple(slow), slow_gaps)

    def paren_list(self, lead: str) -> ParenList:
        """Parse ``(a, b, ...)`` (call argument and return lists)."""
        items, gaps = self._braced(lead, ")", self.operand, "an operand")
        return ParenList(tuple(items), gaps)

    def brace_list(self, lead: str) -> BraceList:
        """Parse a ``{...}`` initializer list."""
        if self.fast and self.depth < MAX_DEPTH:
            numbers = self._number_list(lead)
            if numbers is not None:
                return numbers
        items, gaps = self._braced(lead, "}", self.init_item, "an initializer")
        return BraceList(tuple(items), gaps)

    def _number_list(self, lead: str) -> BraceList | None:
        """``{1, 2, ...}`` of decimal integers and spaces only, as the general rules build it."""
        m = NUMBER_LIST.match(self.text, self.pos)
        if m is None:
            return None
        items: list[Expr] = []
        gaps = [lead]
        cache = self._imm_cache
        for piece in m.group(1).split(","):
            body = piece.lstrip(" \t\r\n")
            number = body.rstrip(" \t\r\n")
            if not number.isdigit():
                return None  # an empty item or two numbers without a comma
            item_lead = piece[: len(piece) - len(body)]
            key = item_lead + number
            imm = cache.get(key)
            if imm is None:
                imm = cache[key] = new_immediate(number, (item_lead,))
            items.append(imm)
            gaps.append(body[len(number) :])
        self.pos = m.end()
        return BraceList(tuple(items), tuple(gaps))

    def _braced(self, lead: str, close: str, item, what: str):  # type: ignore[no-untyped-def]
        start = self.pos
        self.pos += 1
        self.enter()
        gaps = [lead]
        items = []
        g = self.ws()
        if self.text[self.pos] != close:
            items.append(item(g))
            while True:
                g = self.ws()
                c = self.text[self.pos]
                if c == ",":
                    gaps.append(g)
                    self.pos += 1
                    items.append(item(self.ws()))
                elif c == close:
                    break
                elif self.pos >= self.n:
                    self.error(f"missing {close!r} to close this {self.text[start]!r}", start)
                else:
                    self.expected(f"',' or {close!r} after {what}")
        gaps.append(g)
        self.pos += 1
        self.depth -= 1
        return items, tuple(gaps)

    def init_item(self, lead: str) -> Expr | BraceList | FieldInit:
        """Parse one item of an initializer list (nested list, ``name = value``, or value)."""
        t = self.text
        if t[self.pos] == "{":
            return self.brace_list(lead)
        m = IDENT.match(t, self.pos)
        if m:
            p0 = self.pos
            self.pos = m.end()
            g = self.ws()
            if t[self.pos] == "=" and t[self.pos + 1] != "=":
                self.pos += 1
                value = self.expr(self.ws(), 1, True)
                return FieldInit(m.group(), value, (lead, g))
            self.pos = p0
        return self.expr(lead, 1, True)

    def initializer(self, lead: str) -> Expr | BraceList:
        """Parse what follows ``=`` in a declaration."""
        if self.text[self.pos] == "{":
            return self.brace_list(lead)
        return self.expr(lead, 1, True)

    def address(self, lead: str) -> Address:
        """Parse ``[base]``, ``[base+offset]`` or ``[base, extra...]``."""
        t = self.text
        start = self.pos
        self.pos += 1
        self.enter()
        gaps = [lead]
        base = self.expr(self.ws(), 10, True)
        offset: Expr | None = None
        sign = "+"
        g = self.ws()
        c = t[self.pos]
        if c == "+" or c == "-":
            gaps.append(g)
            sign = c
            self.pos += 1
            offset = self.expr(self.ws(), 1, True)
            g = self.ws()
            c = t[self.pos]
        extra: list[Operand] = []
        while c == ",":
            gaps.append(g)
            self.pos += 1
            extra.append(self.operand(self.ws()))
            g = self.ws()
            c = t[self.pos]
        if c != "]":
            if self.pos >= self.n:
                self.error("missing ']' to close this '['", start)
            self.expected("']' to close the address")
        gaps.append(g)
        self.pos += 1
        self.depth -= 1
        return Address(base, offset, sign, tuple(extra), tuple(gaps))

    def fast_piece(self, piece: str) -> tuple[Operand, str] | None:
        """Parse one simple comma-separated operand text, or ``None`` if it is not simple.

        Gives exactly the node the general rules give (a register, number, bare name or
        ``[base+offset]`` address) and the gap that follows it. Results without bare names
        are cached by their text, spaces included.
        """
        hit = self._piece_cache.get(piece)
        if hit is not None:
            return hit
        return self.new_piece(piece)

    def new_piece(self, piece: str) -> tuple[Operand, str] | None:
        """:meth:`fast_piece` for a piece that is not in the piece cache.

        The commonest pieces (a register, a decimal integer, a bare name or an address,
        each after spaces or tabs) are told apart by their first character and checked
        with string methods or one small pattern; anything else goes through
        :data:`OPERAND_PIECE`. Every way gives the node the general rules give.
        """
        body = piece.lstrip(" \t")
        c = body[:1]
        out: tuple[Operand, str]
        if c == "%":
            if body.isascii() and body[1:].isalnum():
                lead = piece[: len(piece) - len(body)]
                make = new_special_register if body in SPECIAL_REGISTERS else new_register
                out = (make(body, (lead,)), "")
                self._piece_cache[piece] = out
                return out
        elif c in _DIGITS:
            if body.isdigit() and body.isascii():
                out = (new_immediate(body, (piece[: len(piece) - len(body)],)), "")
                self._piece_cache[piece] = out
                return out
        elif c == "[":
            m = ADDRESS_PIECE.match(body)
            if m is not None:
                return self._address_piece(piece[: len(piece) - len(body)], piece, m.groups())
        elif c in _NAME_START and body.isascii() and body.replace("$", "_").isidentifier():
            # [A-Za-z_$][A-Za-z0-9_$]* is an ASCII identifier once '$' reads as '_'.
            return self._name_piece(piece[: len(piece) - len(body)], piece, body)
        elif c == "{":
            return self._fast_vector_piece(piece)  # OPERAND_PIECE never matches a '{'
        return self._pattern_piece(piece)

    def _address_piece(
        self, lead: str, piece: str, groups: tuple[Any, ...]
    ) -> tuple[Operand, str] | None:
        """The node of an :data:`ADDRESS_PIECE` match (see :meth:`new_piece`)."""
        blead, breg, bbare, sgap, sign, olead, onum, cgap, trail = groups
        base: Expr
        if breg is not None:
            if breg in SPECIAL_REGISTERS:
                base = new_special_register(breg, (blead,))
            else:
                base = new_register(breg, (blead,))
        elif bbare == "generic":
            return None  # generic(...) reads past the piece: the general rules parse it
        else:
            base = self.bare_name(bbare, blead)
        if sign is not None:
            node = new_address(base, new_immediate(onum, (olead,)), sign, (), (lead, sgap, cgap))
        else:
            node = new_address(base, None, "+", (), (lead, cgap))
        out = (node, trail)
        if breg is not None:
            self._piece_cache[piece] = out
        return out

    def _name_piece(self, lead: str, piece: str, name: str) -> tuple[Operand, str] | None:
        """The node of a bare-name piece (see :meth:`new_piece`)."""
        if name == "generic":
            return None  # generic(...) reads past the piece: the general rules parse it
        if name == "_":
            out: tuple[Operand, str] = (Sink((lead,)), "")
            self._piece_cache[piece] = out
            return out
        return self.bare_name(name, lead), ""

    def _pattern_piece(self, piece: str) -> tuple[Operand, str] | None:
        """:meth:`new_piece` for the pieces its first checks leave, by :data:`OPERAND_PIECE`.

        Those are a register, number or name with spaces after it, ``%tid.x`` and the like,
        numbers other than plain decimals, and ``_``.
        """
        m = OPERAND_PIECE.match(piece)
        if m is None:
            return None
        lead, reg, num, bare, trail = m.groups()
        node: Operand
        if reg is not None:
            if reg in SPECIAL_REGISTERS:
                node = new_special_register(reg, (lead,))
            elif "." in reg:
                return None  # %name.x that is no special register: the general rules report it
            else:
                node = new_register(reg, (lead,))
        elif num is not None:
            node = new_immediate(num, (lead,))
        elif bare == "_":
            node = Sink((lead,))
        elif bare == "generic":
            return None  # generic(...) reads past the piece: the general rules parse it
        else:
            return self.bare_name(bare, lead), trail  # depends on the context: not cached
        out = (node, trail)
        self._piece_cache[piece] = out
        return out

    def _fast_vector_piece(self, piece: str) -> tuple[Operand, str] | None:
        """``{a, b, ...}`` of simple operands as one piece (see :meth:`fast_piece`)."""
        m = VECTOR_PIECE.match(piece)
        if m is None:
            return None
        lead, inner, trail = m.groups()
        cache = self._piece_cache
        elements: list[Operand] = []
        gaps = [lead]
        cacheable = True
        for element in inner.split(","):
            hit = cache.get(element)
            if hit is None:
                hit = self.fast_piece(element)
                if hit is None or isinstance(hit[0], VectorOperand):
                    return None
                cacheable = cacheable and element in cache
            elements.append(hit[0])
            gaps.append(hit[1])
        out = (new_vector(tuple(elements), tuple(gaps)), trail)
        if cacheable:
            cache[piece] = out
        return out

    # ----------------------------------------------------------------- expressions

    def expr(self, lead: str, min_prec: int, allow_pipe: bool) -> Expr:
        """Parse a constant expression by precedence climbing."""
        lhs = self.unary(lead)
        t = self.text
        while True:
            c = t[self.pos]
            if c not in " \t\r\n/|^&=!<>+-*%":
                return lhs
            p0 = self.pos
            g = self.ws()
            m = BINOP.match(t, self.pos)
            if m is None:
                self.pos = p0
                return lhs
            op = m.group()
            prec = PRECEDENCE[op]
            if (
                prec < min_prec
                or (op == "|" and not allow_pipe)
                or (op == "%" and t[m.end()] in _WORD)
            ):
                self.pos = p0
                return lhs
            self.pos = m.end()
            self.enter()
            rhs = self.expr(self.ws(), prec + 1, allow_pipe)
            self.depth -= 1
            lhs = BinaryExpr(op, lhs, rhs, (g,))

    def unary(self, lead: str) -> Expr:
        """Parse an atom or a prefix-operator expression."""
        t = self.text
        p = self.pos
        c = t[p]
        if c == "%":
            m = IDENT.match(t, p)
            if m:
                name = m.group()
                end = m.end()
                if t[end] == ".":
                    cm = COMPONENT.match(t, end)
                    if cm and name + cm.group() in SPECIAL_REGISTERS:
                        self.pos = cm.end()
                        return SpecialRegister(name + cm.group(), (lead,))
                self.pos = end
                if name in SPECIAL_REGISTERS:
                    return new_special_register(name, (lead,))
                key = lead + name
                r = self._reg_cache.get(key)
                if r is None:
                    r = new_register(name, (lead,))
                    self._reg_cache[key] = r
                return r
        if c in _DIGITS:
            m = NUMBER.match(t, p)
            if not m:
                self.expected("a number")
            self.pos = m.end()
            key = lead + m.group()
            i = self._imm_cache.get(key)
            if i is None:
                i = new_immediate(m.group(), (lead,))
                self._imm_cache[key] = i
            return i
        if c in _IDENT_START:
            m = IDENT.match(t, p)
            if m:
                self.pos = m.end()
                return self.bare_name(m.group(), lead)
        if c == "-" and t[p + 1] in _DIGITS:
            m = NUMBER.match(t, p + 1)
            if m:
                self.pos = m.end()
                return Immediate("-" + m.group(), (lead,))
        if c in "-+~!":
            self.pos += 1
            self.enter()
            inner = self.unary(self.ws())
            self.depth -= 1
            return UnaryExpr(c, inner, (lead,))
        if c == "(":
            self.pos += 1
            self.enter()
            inner = self.expr(self.ws(), 1, True)
            g = self.ws()
            if t[self.pos] != ")":
                if self.pos >= self.n:
                    self.error("missing ')' to close this '('", p)
                self.expected("')'")
            self.pos += 1
            self.depth -= 1
            return ParenExpr(inner, (lead, g))
        if c == "." and self.in_section:
            m = DIRECTIVE.match(t, p)
            if m:
                self.pos = m.end()
                return Symbol(m.group(), (lead,))
        if c == '"' and self.in_section:
            return self.string(lead)
        self.expected("an operand")

    def bare_name(self, name: str, lead: str) -> Expr:
        """Classify an identifier without ``%``: label, register, ``generic(...)`` or symbol."""
        self.bare_names_seen += 1
        t = self.text
        if name == "generic":
            p0 = self.pos
            g1 = self.ws()
            if t[self.pos] == "(":
                self.pos += 1
                inner = self.expr(self.ws(), 1, True)
                g2 = self.ws()
                self.expect(")", "')' to close generic(")
                return GenericAddress(inner, (lead, g1, g2))
            self.pos = p0
        if not self.in_function:
            return new_symbol(name, (lead,))
        if name in self.labels:
            return new_label_ref(name, (lead,))
        if self.is_declared_register(name):
            return new_register(name, (lead,))
        if self.opcode in _BRANCH_OPCODES:
            self.guessed_labels.add(name)
            return new_label_ref(name, (lead,))
        self.guessed_symbols.add(name)
        return new_symbol(name, (lead,))

    def is_declared_register(self, name: str) -> bool:
        """Whether a bare ``name`` was declared with ``.reg`` in the current function."""
        if name in self.bare_regs:
            return True
        stem = name.rstrip("0123456789")
        if stem != name and stem in self.reg_ranges:
            return int(name[len(stem) :]) < self.reg_ranges[stem]
        return False
