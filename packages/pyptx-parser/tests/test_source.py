"""Reading PTX files: exact text, or a located error for bytes that are not text."""

from __future__ import annotations

from pathlib import Path

import pytest

from pyptx.parser import PtxSyntaxError, decode_source, os_error_reason, parse_file, read_source


def test_text_comes_back_exactly(tmp_path: Path) -> None:
    path = tmp_path / "k.ptx"
    path.write_bytes(b".version 8.0\r\n// \xc3\xa9t\xc3\xa9\r\n")
    assert read_source(path) == ".version 8.0\r\n// \u00e9t\u00e9\r\n"


@pytest.mark.parametrize(
    ("data", "line", "column", "message"),
    [
        (b".version 8.0\n// caf\xe9 au lait\n", 2, 7, "byte 0xe9 is not UTF-8"),
        (b"\x7fELF\x02\x01\x01\x00rest", 1, 8, "a NUL byte"),
        (b"ab\xffc\x00", 1, 3, "byte 0xff is not UTF-8"),  # the first bad byte wins
        (b"a\x00b\xff", 1, 2, "a NUL byte"),
    ],
)
def test_bytes_that_are_not_text_are_located(
    data: bytes, line: int, column: int, message: str
) -> None:
    with pytest.raises(PtxSyntaxError) as info:
        decode_source(data, "x.ptx")
    err = info.value
    assert (err.line, err.column) == (line, column)
    assert err.message.startswith(message)
    assert str(err).startswith(f"x.ptx:{line}:{column}: {message}")
    assert "\ufffd" not in err.source_line and "\x00" not in err.source_line


def test_os_errors_are_worded(tmp_path: Path) -> None:
    with pytest.raises(OSError) as missing:
        read_source(tmp_path / "nope.ptx")
    assert os_error_reason(missing.value) == "no such file"
    with pytest.raises(OSError) as directory:
        read_source(tmp_path)
    assert os_error_reason(directory.value) == "is a directory, not a file"


def test_parse_file_reports_binary_files_as_syntax_errors(tmp_path: Path) -> None:
    path = tmp_path / "b.ptx"
    path.write_bytes(b"\x00\x01")
    with pytest.raises(PtxSyntaxError, match=r"b\.ptx:1:1: a NUL byte"):
        parse_file(path)
