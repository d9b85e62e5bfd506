"""Invariant 7: malformed input raises PtxSyntaxError with file:line:col, the line and a caret."""

from __future__ import annotations

import pytest

from pyptx.parser import PtxSyntaxError, parse

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"


def _err(body: str) -> PtxSyntaxError:
    with pytest.raises(PtxSyntaxError) as info:
        parse(HEAD + body, "k.ptx")
    return info.value


def _where(err: PtxSyntaxError) -> tuple[int, int]:
    return err.line, err.column


@pytest.mark.parametrize(
    ("body", "line", "col", "needle"),
    [
        # missing ';' after an instruction: where it belongs, not at the next statement
        (".entry k()\n{\n\tadd.s32 %r1, %r2, %r3\n\tret;\n}\n", 6, 23, "expected ',' or ';'"),
        (".entry k()\n{\n\tret\n}\n", 6, 5, "expected ';' after 'ret'"),
        # missing '}' at end of input: points at the '{' it should close
        (".entry k()\n{\n\tret;\n", 5, 1, "missing '}'"),
        (".entry k()\n{", 5, 1, "missing '}'"),
        (".entry k()\n{\n\t", 5, 1, "missing '}'"),
        # bad type name
        (".entry k()\n{\n\t.reg .b33 %r<4>;\n}\n", 6, 7, "unknown qualifier '.b33'"),
        # unterminated block comment
        (".entry k()\n{\n\t/* never closed\n\tret;\n}\n", 6, 2, "unterminated /* comment"),
        # garbage at module scope
        ("garbage here\n", 4, 1, "expected a directive at module scope"),
        # garbage in a body
        (".entry k()\n{\n\t#$ nonsense;\n}\n", 6, 2, "expected an instruction"),
        # unknown directive
        (".entry k()\n{\n\t.bogus 1;\n}\n", 6, 2, "unknown directive '.bogus'"),
        # unterminated string
        ('.file 1 "abc\n', 4, 9, "unterminated string"),
        # missing ']'
        (".entry k()\n{\n\tld.global.u32 %r1, [%rd1;\n}\n", 6, 26, "']'"),
        # unmatched '}' at module scope
        ("}\n", 4, 1, "unmatched '}'"),
        # missing operand after a comma
        (".entry k()\n{\n\tadd.s32 %r1, , %r3;\n}\n", 6, 15, "expected an operand"),
        # bad address size
        (".address_size 48\n", 4, 15, "32 or 64"),
        # .entry inside a body
        (".entry k()\n{\n\t.visible .entry j() {}\n}\n", 6, 11, "only allowed at module scope"),
        # a section's data line is no statement of a function body, even once seen in a section
        (
            ".section .debug_info\n{\n\t.b8 0\n}\n.entry k()\n{\n\t.b8 0\n\tret;\n}\n",
            10,
            2,
            "unknown directive '.b8'",
        ),
        # names are ASCII, as ptxas requires ("Unexpected non-ASCII character")
        (".entry k()\n{\n\t.reg .b32 %r\u00e9;\n}\n", 6, 14, "expected ',' or ';'"),
        (".entry k()\n{\n\tmov.u32 %r\u00e9, 1;\n}\n", 6, 12, "expected ',' or ';'"),
    ],
)
def test_error_location_and_message(body: str, line: int, col: int, needle: str) -> None:
    err = _err(body)
    assert needle in err.message, err.message
    assert _where(err) == (line, col), str(err)
    text = str(err)
    first, src_line, caret_line = text.split("\n")[:3]
    assert first.startswith(f"k.ptx:{line}:{col}: ")
    assert src_line.strip() == (HEAD + body).split("\n")[line - 1].strip()
    # The caret sits under the reported column.
    assert caret_line[4 + col - 1] == "^"


def test_a_missing_semicolon_shows_both_lines() -> None:
    """As C compilers do: the error where the ';' belongs, a note at the next statement."""
    err = _err(".entry k()\n{\n\t.reg .f64 %fd<4>;\n\tadd.f64 %fd1, %fd2, %fd3\n\tret;\n}\n")
    assert (err.line, err.column) == (7, 26)
    assert err.note is not None and (err.note.line, err.note.column) == (8, 2)
    lines = str(err).split("\n")
    assert lines[0] == "k.ptx:7:26: expected ',' or ';' after operand 3 of 'add.f64'"
    assert lines[1].strip() == "add.f64 %fd1, %fd2, %fd3" and lines[2].endswith("^")
    assert lines[3] == "k.ptx:8:2: note: the next token, 'ret', is here"
    assert lines[4].strip() == "ret;" and lines[5].strip() == "^^^"


def test_a_token_on_the_same_line_is_the_error_itself() -> None:
    err = _err(".entry k()\n{\n\tadd.s32 %r1, %r2, %r3 %r4;\n}\n")
    assert (err.line, err.column, err.note) == (6, 24, None)
    assert err.message.endswith("got '%r4'")


def test_error_is_a_syntax_error_with_fields() -> None:
    err = _err(".entry k()\n{\n\tret\n}\n")
    assert isinstance(err, SyntaxError)
    assert err.filename == "k.ptx" and err.lineno == err.line and err.text == err.source_line


def test_deep_nesting_is_a_syntax_error_not_recursion_error() -> None:
    body = ".entry k()\n{\n" + "{" * 5000 + "}" * 5000 + "\n}\n"
    err = _err(body)
    assert "nesting deeper" in err.message


def test_deep_parentheses_are_a_syntax_error() -> None:
    body = ".global .u32 x = " + "(" * 5000 + "1" + ")" * 5000 + ";\n"
    assert "nesting deeper" in _err(body).message


def test_non_str_input_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="expects PTX text as str"):
        parse(b".version 8.0")  # type: ignore[arg-type]


def test_nothing_is_dropped_silently() -> None:
    # Text after the last statement that is not trivia is an error, never ignored.
    err = _err(".entry k()\n{\n\tret;\n}\nstray\n")
    assert err.line == 8
