"""Python source spellings of PTX-derived text that can never become executable code.

Everything the transpiler copies from PTX into Python (names, strings, statement text,
comments) goes through this module:

* :func:`identifier` maps a PTX name to ``[A-Za-z_][A-Za-z0-9_]*``, never a keyword;
* :func:`string` writes a string literal with every quote, backslash and non-printable
  character escaped, so its contents cannot end the literal;
* :func:`comment` writes a ``#`` comment with line breaks and control characters escaped, so
  its contents cannot start a new line of code.
"""

from __future__ import annotations

import keyword
import re

__all__ = ["EXACT_INT", "comment", "identifier", "sanitize_identifier", "string"]

_NOT_IDENT = re.compile(r"[^A-Za-z0-9_]+")

EXACT_INT = re.compile(r"(0|-?[1-9][0-9]*)\Z")
"""PTX integer spellings a Python ``int`` reproduces (``str(int(text)) == text``): these can be
written as plain Python numbers in generated code."""
_PRINTABLE = frozenset(chr(c) for c in range(0x20, 0x7F))
_VERBATIM = re.compile(r"[ -\[\]-~\n]*\Z")
"""Printable ASCII but ``\\``, and line breaks: a literal holds these as they are, but its
quote character."""


def sanitize_identifier(text: str) -> str:
    """Make ``text`` a Python and PTX identifier: ``[A-Za-z_][A-Za-z0-9_]*``.

    Runs of other characters become one ``_``; a leading digit, a lone ``_`` (the PTX sink)
    and Python keywords get an extra ``_``; an empty result becomes ``_anon``.

    Args:
        text: any string.

    Returns:
        A non-empty identifier.
    """
    out = _NOT_IDENT.sub("_", text)
    if not out:
        return "_anon"
    if out[0].isdigit():
        out = "_" + out
    if out == "_" or keyword.iskeyword(out) or keyword.issoftkeyword(out):
        out += "_"
    return out


def identifier(name: str) -> str:
    """A Python identifier spelled like the PTX name ``name`` (``%rd`` -> ``rd``).

    :func:`sanitize_identifier` of the name without its ``%``; dunder names lose their
    surrounding underscores.
    """
    text = sanitize_identifier(name.lstrip("%"))
    if text.startswith("__") and text.endswith("__"):
        text = sanitize_identifier(text.strip("_"))
    return text


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def string(text: str) -> str:
    """A Python string literal for ``text`` (ASCII only, every special character escaped).

    Double-quoted unless the text holds ``"`` but no ``'``; text with line breaks becomes a
    triple-quoted literal whose lines follow the text's lines, so multi-line PTX stays
    readable in the Python source.
    """
    quote = "'" if '"' in text and "'" not in text else '"'
    verbatim = _VERBATIM.match(text) is not None  # the common case: nothing to escape
    if "\n" not in text:
        if verbatim and quote not in text:
            return quote + text + quote
        return quote + _escaped(text, False, quote) + quote
    if verbatim and '"' not in text:
        return '"""\\\n' + text + '"""'
    return '"""\\\n' + _escaped(text, True, '"') + '"""'


def _escaped(text: str, multiline: bool, quote: str) -> str:
    """``text`` with every character :func:`_char` would change escaped."""
    if text.isascii():  # one translate instead of a call per character
        return text.translate(_ASCII_ESCAPES[multiline, quote])
    return "".join(_char(c, multiline, quote) for c in text)


_SIMPLE = {"\\": "\\\\", "\t": "\\t", "\r": "\\r"}


def _char(c: str, multiline: bool, quote: str) -> str:
    if c == quote:
        return "\\" + c
    if c in _SIMPLE:
        return _SIMPLE[c]
    if c == "\n":
        return "\n" if multiline else "\\n"
    if c in _PRINTABLE:
        return c
    return _escape(c)


# str.translate tables of _char over ASCII, per (multiline, quote).
_ASCII_ESCAPES = {
    (multiline, quote): {code: _char(chr(code), multiline, quote) for code in range(128)}
    for multiline in (False, True)
    for quote in ('"', "'")
}


def comment(text: str) -> str:
    """A one-line ``# ...`` comment showing ``text`` (line breaks and controls escaped)."""
    body = "".join(c if c in _PRINTABLE and c != "\\" else _escape(c) for c in text)
    return "# " + body
