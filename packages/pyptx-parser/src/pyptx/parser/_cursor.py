"""The cursor every parser rule reads: the text, the offset, trivia and error reporting.

The parser is a set of rule modules (:mod:`._expressions`, :mod:`._statements`,
:mod:`._directives`, :mod:`._declarations`, :mod:`._module`) whose rules are plain functions
of one shared :class:`Cursor`. What a rule needs besides the text lives on the cursor too,
each in an object of its own: the names known in the current function
(:class:`~._names.Names`) and, unless they are switched off, the fast paths
(:class:`FastPaths`, implemented by :class:`~._fast.Shortcuts`).

Every rule receives the trivia before its first token as ``lead`` and records the trivia
before each of its own tokens in the order the emitter writes them back (see
:mod:`pyptx.ir.node`), so ``emit(parse(s)) == s``.
"""

from __future__ import annotations

from typing import NoReturn, Protocol

from pyptx.ir import (
    BraceList,
    Immediate,
    Instruction,
    Node,
    Param,
    Predicate,
    Register,
    VectorOperand,
)

from ._lexer import DIRECTIVE, IDENT, INTEGER, NUMBER, STRING, TRAILING, TRIVIA
from ._names import Names
from .errors import PtxSyntaxError, PtxSyntaxNote

MAX_DEPTH = 200
"""Deepest nesting of blocks, braces and parentheses the parser accepts."""


class FastPaths(Protocol):
    """The one interface of the fast paths, tried by the general rules before their own work.

    Each method either does the general rule's work for the text at the cursor, building
    exactly the tree the general rule would build (the test suite parses the corpus both
    ways and compares the trees, trivia included), or returns ``None`` (or leaves the offset
    where it was) without consuming anything, and the general rule runs.
    """

    def body(self, items: list[Node]) -> None:
        """Append the function-body statements at the cursor that need no general rule."""

    def section(self, items: list[Node]) -> None:
        """Append the ``.section`` body items at the cursor that need no general rule."""

    def remember(self, start: int, node: Node) -> None:
        """Offer a body statement the general rules parsed from ``start`` for repeats."""

    def instruction(self, lead: str, word: str, predicate: Predicate | None) -> Instruction | None:
        """The instruction whose mnemonic ``word`` ends at the cursor, from its operands."""

    def vector(self, lead: str) -> VectorOperand | None:
        """A ``{a, b, ...}`` operand of simple operands at the cursor."""

    def number_list(self, lead: str) -> BraceList | None:
        """A ``{1, 2, ...}`` initializer of decimal integers at the cursor."""

    def param(self, lead: str) -> Param | None:
        """A simple parameter (qualifiers, name, at most one array size) at the cursor."""


class Cursor:
    """The parse state shared by every rule: source text, offset, nesting and diagnostics.

    Attributes:
        text: the source followed by two NUL sentinels, so that ``text[pos]`` (and the fast
            paths' peeks at ``text[pos + 1]`` and ``text[pos + 2]``) never run off the end.
        n: the length of the source; ``pos >= n`` is the end of input.
        pos: the current offset.
        filename: the name used in error messages.
        depth: the current nesting of blocks, braces and parentheses.
        names: what the current function declares (see :class:`~._names.Names`).
        fast: the fast paths, or ``None`` to use the general rules alone (tests compare both).
        registers: interned registers by their lead and name (nodes are immutable values).
        immediates: interned immediates by their lead and spelling.
    """

    __slots__ = (
        "depth",
        "fast",
        "filename",
        "immediates",
        "n",
        "names",
        "pos",
        "registers",
        "text",
    )

    def __init__(self, text: str, filename: str) -> None:
        self.text = text + "\0\0"
        self.n = len(text)
        self.pos = 0
        self.filename = filename
        self.depth = 0
        self.names = Names()
        self.fast: FastPaths | None = None
        self.registers: dict[str, Register] = {}
        self.immediates: dict[str, Immediate] = {}

    # ----------------------------------------------------------------- diagnostics

    def error(
        self,
        message: str,
        pos: int | None = None,
        length: int = 1,
        note: tuple[str, int, int] | None = None,
    ) -> NoReturn:
        """Raise :class:`PtxSyntaxError` at ``pos`` (default: the current offset).

        ``note`` is ``(message, pos, length)`` of a second place to show.
        """
        line, column, source_line = self._where(self.pos if pos is None else pos)
        shown = None
        if note is not None:
            n_line, n_column, n_source = self._where(note[1])
            shown = PtxSyntaxNote(note[0], n_line, n_column, n_source, note[2])
        raise PtxSyntaxError(message, self.filename, line, column, source_line, length, note=shown)

    def _where(self, pos: int) -> tuple[int, int, str]:
        """(line, column, the line's text) of offset ``pos``."""
        src = self.text[: self.n]
        p = min(max(pos, 0), len(src))
        line_start = src.rfind("\n", 0, p) + 1
        line_end = src.find("\n", p)
        if line_end < 0:
            line_end = len(src)
        return src.count("\n", 0, p) + 1, p - line_start + 1, src[line_start:line_end].rstrip("\r")

    def missing(self, what: str, end: int) -> NoReturn:
        """Raise "expected <what>" at ``end`` when the next token starts a later line.

        Like a C compiler: a forgotten ``;`` is reported where it belongs (just after the
        last token of the statement), with the next statement shown as a note. When the
        next token is on the same line it is the error itself: "expected <what>, got <it>".
        """
        if "\n" not in self.text[end : self.pos]:
            self.expected(what)
        self.error(
            f"expected {what}",
            end,
            note=(f"the next token, {self.describe()}, is here", self.pos, self.token_len()),
        )

    def describe(self, pos: int | None = None) -> str:
        """Describe the token at ``pos`` (default: the current offset) for an error message."""
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
        self.error(f"expected {what}, got {self.describe()}", length=self.token_len())

    def token_len(self) -> int:
        """The length of the token at the current offset (for the carets of an error)."""
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

    def comma(self, gaps: list[str]) -> bool:
        """Consume the trivia and a ``,`` after it when a ``,`` follows, else nothing.

        Args:
            gaps: receives the trivia before the ``,`` when there is one.

        Returns:
            Whether a ``,`` was consumed.
        """
        p0 = self.pos
        g = self.ws()
        if self.text[self.pos] != ",":
            self.pos = p0
            return False
        gaps.append(g)
        self.pos += 1
        return True

    def comma_or_close(
        self, close: str, gaps: list[str], expected: str, start: int = -1, opened: str = ""
    ) -> bool:
        """Consume the trivia and the ``,`` or ``close`` after an item of a list ``close`` ends.

        Args:
            close: the character that ends the list.
            gaps: receives the trivia before the ``,`` or ``close``.
            expected: what to report as expected when neither follows.
            start: where the list opened; at the end of input, "missing <close> to close this
                <opened>" is reported there instead (-1: no such message).
            opened: what opened the list, for that message (default: the character at ``start``).

        Returns:
            True after a ``,`` (another item follows), False after ``close``.
        """
        g = self.ws()
        c = self.text[self.pos]
        if c == "," or c == close:
            gaps.append(g)
            self.pos += 1
            return c == ","
        if start >= 0 and self.pos >= self.n:
            self.error(f"missing {close!r} to close this {opened or repr(self.text[start])}", start)
        self.expected(expected)

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
