"""Directive rules: module header, debug info, sections, pragmas, labels and name lists.

Functions of the :class:`~._cursor.Cursor`, like every rule module of the parser.
"""

from __future__ import annotations

from typing import Any

from pyptx.ir import (
    AddressSize,
    Alias,
    BranchTargets,
    CallTargets,
    File,
    Immediate,
    Label,
    Loc,
    LocFunctionName,
    LocInlinedAt,
    Node,
    Pragma,
    PtxType,
    Section,
    SectionData,
    StringLiteral,
    Target,
    Version,
)

from ._build import new_label
from ._cursor import Cursor
from ._expressions import expr, string, unary
from ._lexer import DIRECTIVE, IDENT, LABEL, NUMBER, VERSION


def version(cur: Cursor, lead: str) -> Version:
    """Parse ``.version major.minor`` after its keyword."""
    g = cur.ws()
    m = VERSION.match(cur.text, cur.pos)
    if not m:
        cur.expected("a version number like 8.7 after .version")
    cur.pos = m.end()
    return Version(int(m.group(1)), int(m.group(2)), (lead, g, cur.trailing()))


def target(cur: Cursor, lead: str) -> Target:
    """Parse ``.target name, ...`` after its keyword."""
    gaps = [lead, cur.ws()]
    names = [cur.ident("a target name such as sm_90a")]
    while cur.comma(gaps):
        gaps.append(cur.ws())
        names.append(cur.ident("a target name after ','"))
    gaps.append(cur.trailing())
    return Target(tuple(names), tuple(gaps))


def address_size(cur: Cursor, lead: str) -> AddressSize:
    """Parse ``.address_size 32|64`` after its keyword."""
    g = cur.ws()
    bits = cur.integer()
    if bits not in (32, 64):
        cur.error(f".address_size must be 32 or 64, got {bits}", cur.pos - len(str(bits)))
    return AddressSize(bits, (lead, g, cur.trailing()))


def file(cur: Cursor, lead: str) -> File:
    """Parse ``.file index "name"[, timestamp, size]`` after its keyword."""
    gaps = [lead, cur.ws()]
    index = cur.integer()
    g = cur.ws()
    if cur.text[cur.pos] != '"':
        cur.expected("a quoted file name after the .file index")
    path = string(cur, g)
    extras: list[Immediate] = []
    while cur.comma(gaps):
        lead2 = cur.ws()
        m = NUMBER.match(cur.text, cur.pos)
        if not m:
            cur.expected("a number (timestamp or size) in .file")
        cur.pos = m.end()
        extras.append(Immediate(m.group(), (lead2,)))
    gaps.append(cur.trailing())
    return File(index, path, tuple(extras), tuple(gaps))


def section(cur: Cursor, lead: str) -> Section:
    """Parse ``.section name { data and labels }`` after its keyword."""
    gaps = [lead, cur.ws()]
    m = DIRECTIVE.match(cur.text, cur.pos) or IDENT.match(cur.text, cur.pos)
    if not m:
        cur.expected("a section name such as .debug_info")
    cur.pos = m.end()
    name = m.group()
    gaps.append(cur.ws())
    open_pos = cur.pos
    cur.expect("{", "'{' to open the section body")
    items: list[Node] = []
    cur.names.in_section = True
    t = cur.text
    fast = cur.fast
    while True:
        if fast is not None:
            fast.section(items)
        g = cur.ws()
        c = t[cur.pos]
        if c == "}":
            break
        if cur.pos >= cur.n:
            cur.error("missing '}' to close this .section", open_pos)
        if c == ".":
            items.append(section_data(cur, g))
        else:
            items.append(label(cur, g))
    cur.names.in_section = False
    cur.pos += 1
    gaps += (g, cur.trailing())
    return Section(name, tuple(items), tuple(gaps))


def section_data(cur: Cursor, lead: str) -> SectionData:
    """Parse one data directive of a section (``.b8 1, 2``)."""
    m = DIRECTIVE.match(cur.text, cur.pos)
    ty = PtxType.from_name(m.group()) if m else None
    if m is None or ty is None:
        cur.expected("a data directive such as .b8 or .b32 in a .section")
    cur.pos = m.end()
    gaps = [lead]
    values = [expr(cur, cur.ws(), 1, True)]
    while cur.comma(gaps):
        values.append(expr(cur, cur.ws(), 1, True))
    gaps.append(cur.trailing())
    return SectionData(ty, tuple(values), tuple(gaps))


def pragma(cur: Cursor, lead: str) -> Pragma:
    """Parse ``.pragma "text", ...;`` after its keyword."""
    gaps = [lead]
    values: list[StringLiteral] = []
    while True:
        g = cur.ws()
        if cur.text[cur.pos] != '"':
            cur.expected("a quoted pragma string")
        values.append(string(cur, g))
        if not cur.comma(gaps):
            break
    gaps.append(cur.ws())
    cur.expect(";", "';' after the .pragma strings")
    gaps.append(cur.trailing())
    return Pragma(tuple(values), tuple(gaps))


def alias(cur: Cursor, lead: str) -> Alias:
    """Parse ``.alias name, aliased;`` after its keyword."""
    gaps = [lead, cur.ws()]
    a = cur.ident("the alias name")
    gaps.append(cur.ws())
    cur.expect(",", "',' between the alias and the aliased function")
    gaps.append(cur.ws())
    b = cur.ident("the aliased function name")
    gaps.append(cur.ws())
    cur.expect(";", "';' after .alias")
    gaps.append(cur.trailing())
    return Alias(a, b, tuple(gaps))


# ----------------------------------------------------------------- declarations


def label(cur: Cursor, lead: str) -> Label:
    """Parse a label definition ``name:``."""
    m = LABEL.match(cur.text, cur.pos)
    if m is None:
        cur.expected("a label ('name:') or a data directive")
    cur.pos = m.end()
    name = m.group(1)
    if cur.names.in_function:
        cur.names.labels.add(name)
    return new_label(name, (lead, m.group(2), cur.trailing()))


def loc(cur: Cursor, lead: str) -> Loc:
    """Parse ``.loc file line column[, attributes]`` after its keyword."""
    gaps = [lead]
    nums = []
    for _ in range(3):
        gaps.append(cur.ws())
        nums.append(cur.integer())
    attrs: list[Node] = []
    while True:
        ag: list[str] = []  # the gaps of this attribute
        if not cur.comma(ag):
            break
        ag.append(cur.ws())
        word = cur.ident("function_name or inlined_at")
        if word == "function_name":
            attrs.append(LocFunctionName(unary(cur, cur.ws()), tuple(ag)))
        elif word == "inlined_at":
            inums = []
            for _ in range(3):
                ag.append(cur.ws())
                inums.append(cur.integer())
            attrs.append(LocInlinedAt(inums[0], inums[1], inums[2], tuple(ag)))
        else:
            cur.error(
                f"expected function_name or inlined_at in .loc, got {word!r}",
                cur.pos - len(word),
                len(word),
            )
    gaps.append(cur.trailing())
    return Loc(nums[0], nums[1], nums[2], tuple(attrs), tuple(gaps))  # type: ignore[arg-type]


def _name_list(cur: Cursor, lead: str, opcode: str, what: str) -> tuple[list[Any], list[str]]:
    gaps = [lead]
    cur.names.opcode = opcode
    items = [unary(cur, cur.ws())]
    expected = f"',' or ';' in {what}"
    while cur.comma_or_close(";", gaps, expected):
        items.append(unary(cur, cur.ws()))
    cur.names.opcode = ""
    gaps.append(cur.trailing())
    return items, gaps


def branch_targets(cur: Cursor, lead: str) -> BranchTargets:
    """Parse ``.branchtargets label, ...;`` after its keyword."""
    items, gaps = _name_list(cur, lead, "bra", ".branchtargets")
    return BranchTargets(tuple(items), tuple(gaps))


def call_targets(cur: Cursor, lead: str) -> CallTargets:
    """Parse ``.calltargets function, ...;`` after its keyword."""
    items, gaps = _name_list(cur, lead, "call", ".calltargets")
    return CallTargets(tuple(items), tuple(gaps))
