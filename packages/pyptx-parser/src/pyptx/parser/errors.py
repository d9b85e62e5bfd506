"""The parser's one exception type, :class:`PtxSyntaxError`."""

from __future__ import annotations

__all__ = ["PtxSyntaxError"]


class PtxSyntaxError(SyntaxError):
    """Malformed PTX: says what was expected, what was found, and where.

    ``str(err)`` renders as::

        kernel.ptx:12:19: expected ';' after the operands of 'add', got '}'
            add.s32 %r1, %r2 }
                             ^

    Attributes:
        message: the bare message.
        filename: the file name given to :func:`~pyptx.parser.parse`.
        line: 1-based line number.
        column: 1-based column (characters, tabs count as one).
        source_line: the offending line, without its line break.
        length: how many characters the carets cover.
    """

    def __init__(
        self, message: str, filename: str, line: int, column: int, source_line: str, length: int = 1
    ) -> None:
        self.message = message
        self.filename = filename
        self.line = line
        self.column = column
        self.source_line = source_line
        self.length = max(1, length)
        super().__init__(self._render())
        # SyntaxError's own fields, so tracebacks and IDEs point at the right place.
        self.lineno = line
        self.offset = column
        self.text = source_line

    def _render(self) -> str:
        pad = "".join(c if c == "\t" else " " for c in self.source_line[: self.column - 1])
        carets = "^" * min(self.length, max(1, len(self.source_line) - self.column + 1))
        return (
            f"{self.filename}:{self.line}:{self.column}: {self.message}\n"
            f"    {self.source_line}\n"
            f"    {pad}{carets}"
        )

    def __str__(self) -> str:
        return self._render()
