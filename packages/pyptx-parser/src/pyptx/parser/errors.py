"""The parser's one exception type, :class:`PtxSyntaxError`."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PtxSyntaxError", "PtxSyntaxNote"]


@dataclass(frozen=True)
class PtxSyntaxNote:
    """A second place an error points at (shown after the error, as ``FILE:L:C: note: ...``).

    Attributes:
        message: what is there.
        line: 1-based line number.
        column: 1-based column.
        source_line: that line, without its line break.
        length: how many characters the carets cover.
    """

    message: str
    line: int
    column: int
    source_line: str
    length: int = 1


def _located(
    filename: str, line: int, column: int, message: str, source_line: str, length: int
) -> str:
    pad = "".join(c if c == "\t" else " " for c in source_line[: column - 1])
    carets = "^" * min(max(1, length), max(1, len(source_line) - column + 1))
    return f"{filename}:{line}:{column}: {message}\n    {source_line}\n    {pad}{carets}"


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
        note: a second place to show (the next statement, after a missing ``;``), or
            ``None``.
    """

    def __init__(
        self,
        message: str,
        filename: str,
        line: int,
        column: int,
        source_line: str,
        length: int = 1,
        note: PtxSyntaxNote | None = None,
    ) -> None:
        self.message = message
        self.filename = filename
        self.line = line
        self.column = column
        self.source_line = source_line
        self.length = max(1, length)
        self.note = note
        super().__init__(self._render())
        # SyntaxError's own fields, so tracebacks and IDEs point at the right place.
        self.lineno = line
        self.offset = column
        self.text = source_line

    def _render(self) -> str:
        filename = self.filename or "<string>"
        text = _located(
            filename, self.line, self.column, self.message, self.source_line, self.length
        )
        if self.note is not None:
            n = self.note
            text += "\n" + _located(
                filename, n.line, n.column, f"note: {n.message}", n.source_line, n.length
            )
        return text

    def __str__(self) -> str:
        return self._render()
