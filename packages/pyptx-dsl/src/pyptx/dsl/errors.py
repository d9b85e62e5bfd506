"""DSL errors that point at the user's Python line, not at pyptx's own code."""

from __future__ import annotations

import bisect
import functools
import sys
import weakref
from pathlib import Path
from types import CodeType, FrameType

__all__ = ["PtxDslError", "user_location"]

# Every pyptx source root (the dsl package and its siblings): frames inside these are ours.
_OURS = (str(Path(__file__).resolve().parents[1]),)


@functools.lru_cache(maxsize=512)
def _is_ours(filename: str) -> bool:
    try:
        path = str(Path(filename).resolve())
    except (OSError, ValueError):
        return False
    return path.startswith(_OURS) and "/tests/" not in path


# Standard-library modules whose frames stand between a DSL helper and the user's line: a
# ``with ptx.if_(p):`` runs the helper's generator from contextlib's ``__enter__``.
_PASS_THROUGH = frozenset({"contextlib"})


def user_location() -> tuple[str, int] | None:
    """The file and line of the innermost stack frame outside pyptx, if any.

    Frames of :data:`_PASS_THROUGH` modules (``contextlib``, which enters the ``with`` helpers)
    are skipped like pyptx's own.
    """
    frame = sys._getframe(1)
    while frame is not None:
        skip = frame.f_globals.get("__name__") in _PASS_THROUGH
        if not skip and not _is_ours(frame.f_code.co_filename):
            return frame.f_code.co_filename, _line(frame)
        frame = frame.f_back  # type: ignore[assignment]
    return None


def _line(frame: FrameType) -> int:
    """``frame.f_lineno``, in time logarithmic in the size of the frame's function.

    ``f_lineno`` reads the code's line table from the start up to the current instruction,
    so asking it once per traced instruction of a long kernel body (a transpiled one has a
    line per instruction) costs time quadratic in the body's length. The same table, read
    once per code object, answers by bisection. Under a tracer (a debugger), which may set
    ``f_lineno`` itself, the frame is asked.
    """
    if sys.gettrace() is None:
        starts, lines = _line_table(frame.f_code)
        i = bisect.bisect_right(starts, frame.f_lasti) - 1
        line = lines[i] if i >= 0 else None
        if line is not None:
            return line
    return frame.f_lineno


def _line_table(code: CodeType) -> tuple[list[int], list[int | None]]:
    """The start offset of each bytecode range of ``code`` and its line, in order (cached).

    Cached by identity (code objects hash and compare by content, in time proportional to
    their size) for as long as the code object lives: the cache holds it weakly.
    """
    key = id(code)
    found = _LINE_TABLES.get(key)
    if found is not None and found[0]() is code:
        return found[1]
    starts: list[int] = []
    lines: list[int | None] = []
    for start, _end, line in code.co_lines():
        starts.append(start)
        lines.append(line)
    _LINE_TABLES[key] = (weakref.ref(code, lambda _: _LINE_TABLES.pop(key, None)), (starts, lines))
    return starts, lines


_LINE_TABLES: dict[int, tuple[weakref.ref[CodeType], tuple[list[int], list[int | None]]]] = {}


class PtxDslError(Exception):
    """A mistake in a traced kernel, reported at the user's own Python line.

    ``str(err)`` is ``"<file>:<line>: <message>"`` where file and line are the innermost
    caller outside pyptx (the kernel body that made the call).

    Attributes:
        message: what was expected, what was got, and the fix when it is mechanical.
        filename: the user's file, or ``None`` when no frame outside pyptx exists.
        lineno: the user's line, or ``None``.
    """

    def __init__(self, message: str, location: tuple[str, int] | None = None) -> None:
        loc = location if location is not None else user_location()
        self.message = message
        self.filename = loc[0] if loc else None
        self.lineno = loc[1] if loc else None
        super().__init__(self._render())

    def _render(self) -> str:
        if self.filename is None:
            return self.message
        return f"{self.filename}:{self.lineno}: {self.message}"

    def __str__(self) -> str:
        return self._render()
