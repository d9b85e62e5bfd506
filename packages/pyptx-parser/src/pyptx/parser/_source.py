"""Reading PTX files for the command lines: exact text, or one clear error.

:func:`read_source` returns a file's text with its line endings untouched, and reports a file
that is not text (a binary, another encoding) as a :class:`PtxSyntaxError` at the first byte
that is not UTF-8, or the first NUL, with the line and a caret, like any other bad input.
:func:`os_error_reason` words an ``OSError`` for ``FILE: reason`` messages.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from .errors import PtxSyntaxError

__all__ = ["decode_source", "os_error_reason", "read_source"]

_REASONS = {
    errno.ENOENT: "no such file",
    errno.EISDIR: "is a directory, not a file",
    errno.EACCES: "permission denied",
    errno.ENOTDIR: "no such file (a part of the path is not a directory)",
}
_SHOWN = 120  # characters of an offending line shown in an error


def os_error_reason(exc: OSError) -> str:
    """``"no such file"``, ``"is a directory, not a file"``... for ``FILE: reason`` messages."""
    return _REASONS.get(exc.errno or 0) or (exc.strerror or str(exc)).lower()


def read_source(path: str | os.PathLike[str]) -> str:
    """The text of a PTX file, exactly (line endings kept).

    Raises:
        OSError: the file cannot be read (:func:`os_error_reason` words it).
        PtxSyntaxError: the file is not UTF-8 text (see :func:`decode_source`).
    """
    return decode_source(Path(path).read_bytes(), os.fspath(path))


def decode_source(data: bytes, filename: str) -> str:
    """``data`` as text; a byte that is not UTF-8, or a NUL, is a located error.

    Raises:
        PtxSyntaxError: at the first such byte, naming it, with its line and a caret.
    """
    nul = data.find(b"\0")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        offset, what = exc.start, f"byte 0x{data[exc.start]:02x} is not UTF-8"
    else:
        if nul < 0:
            return text
        offset, what = nul, "a NUL byte"
    if 0 <= nul < offset:
        offset, what = nul, "a NUL byte"
    start = data.rfind(b"\n", 0, offset) + 1
    end = data.find(b"\n", offset)
    line = data[start : end if end >= 0 else len(data)].decode("utf-8", "replace")
    shown = "".join(
        c if (c.isprintable() and c != "\ufffd") or c == "\t" else "?" for c in line[:_SHOWN]
    )
    column = len(data[start:offset].decode("utf-8", "replace")) + 1
    raise PtxSyntaxError(
        f"{what}: this is not a PTX text file (PTX is ASCII text; pyptx reads UTF-8)",
        filename,
        data.count(b"\n", 0, offset) + 1,
        min(column, len(shown) + 1),
        shown,
    )
