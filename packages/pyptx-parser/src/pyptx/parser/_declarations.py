"""Declaration rules: qualifiers, declarators, variable declarations and parameter lists.

Functions of the :class:`~._cursor.Cursor`, like every rule module of the parser, plus the
tables of qualifier words. The fast paths of the commonest declarations are in
:mod:`._fast_declarations`.
"""

from __future__ import annotations

from pyptx.ir import (
    Align,
    Declarator,
    FunctionKind,
    Linkage,
    Param,
    PtrQualifier,
    PtxType,
    StateSpace,
    VarAttribute,
    VariableDecl,
    VectorWidth,
)
from pyptx.ir.declarations import DeclQualifier

from ._build import new_declarator, new_param, new_variable_decl
from ._cursor import Cursor
from ._expressions import initializer
from ._lexer import DIRECTIVE, NUMBER

QUALIFIERS: dict[str, DeclQualifier] = {}
"""Declaration qualifiers by spelling (``.reg``, ``.b32``, ``.v4``, ``.ptr``; not ``.align``)."""
QUALIFIERS.update({"." + q.value: q for q in Linkage})
QUALIFIERS.update({"." + q.value: q for q in StateSpace})
QUALIFIERS.update({"." + q.value: q for q in PtxType})
QUALIFIERS.update({f".v{n}": VectorWidth(n) for n in (2, 4, 8)})
QUALIFIERS[".ptr"] = PtrQualifier()

FUNCTION_KINDS = {".entry": FunctionKind.ENTRY, ".func": FunctionKind.FUNC}
"""The keywords that start a function."""

DECL_STARTS = frozenset(
    "." + w
    for w in (
        "reg",
        "local",
        "shared",
        "param",
        "const",
        "global",
        "tex",
        "sreg",
        "visible",
        "extern",
        "weak",
        "common",
    )
)
"""The words a declaration in a function body may start with."""


def qualifiers(cur: Cursor, lead: str) -> tuple[list[DeclQualifier], list[str], str, str | None]:
    """Parse declaration qualifiers.

    Returns:
        (qualifiers, gaps, gap before what follows, function keyword if one was reached).
    """
    t = cur.text
    quals: list[DeclQualifier] = []
    gaps = [lead]
    while True:
        m = DIRECTIVE.match(t, cur.pos)
        if m is None:
            cur.expected("a declaration qualifier such as .reg, .align or .b32")
        word = m.group()
        if word in FUNCTION_KINDS and all(isinstance(q, Linkage) for q in quals):
            cur.pos = m.end()
            return quals, gaps, "", word
        cur.pos = m.end()
        if word == ".align":
            gaps.append(cur.ws())
            quals.append(Align(cur.integer()))
        elif word == ".attribute":
            quals.append(var_attribute(cur, gaps))
        else:
            q = QUALIFIERS.get(word)
            if q is None:
                cur.error(f"unknown qualifier {word!r} in a declaration", m.start(), len(word))
            quals.append(q)
        g = cur.ws()
        if t[cur.pos] != "." or t[cur.pos + 1] in "0123456789":
            return quals, gaps, g, None
        gaps.append(g)


def var_attribute(cur: Cursor, gaps: list[str]) -> VarAttribute:
    """Parse ``.attribute(.name)`` after its keyword; its gaps go to ``gaps``."""
    gaps.append(cur.ws())
    cur.expect("(", "'(' after .attribute")
    gaps.append(cur.ws())
    m = DIRECTIVE.match(cur.text, cur.pos)
    if not m:
        cur.expected("an attribute such as .managed")
    cur.pos = m.end()
    args: list[str] = []
    p0 = cur.pos
    g = cur.ws()
    if cur.text[cur.pos] == "(":
        gaps.append(g)
        cur.pos += 1
        while True:
            gaps.append(cur.ws())
            n = NUMBER.match(cur.text, cur.pos)
            if not n:
                cur.expected("a number in the attribute arguments")
            cur.pos = n.end()
            args.append(n.group())
            gaps.append(cur.ws())
            if cur.text[cur.pos] == ",":
                cur.pos += 1
                continue
            cur.expect(")", "')' to close the attribute arguments")
            break
    else:
        cur.pos = p0
    gaps.append(cur.ws())
    cur.expect(")", "')' to close .attribute(")
    return VarAttribute(m.group()[1:], tuple(args))


def declarator(cur: Cursor, lead: str, allow_init: bool = True) -> Declarator:
    """Parse one declared name with its range, dimensions and initializer."""
    t = cur.text
    gaps = [lead]
    name = cur.ident("a name to declare")
    range_count: int | None = None
    dims: list[int | None] = []
    p0 = cur.pos
    g = cur.ws()
    if t[cur.pos] == "<":
        gaps.append(g)
        cur.pos += 1
        gaps.append(cur.ws())
        range_count = cur.integer()
        gaps.append(cur.ws())
        cur.expect(">", "'>' to close the register range")
        p0 = cur.pos
        g = cur.ws()
    while t[cur.pos] == "[":
        gaps.append(g)
        cur.pos += 1
        g = cur.ws()
        if t[cur.pos] == "]":
            dims.append(None)
        else:
            gaps.append(g)
            dims.append(cur.integer())
            g = cur.ws()
        gaps.append(g)
        cur.expect("]", "']' to close the array dimension")
        p0 = cur.pos
        g = cur.ws()
    init = None
    if allow_init and t[cur.pos] == "=":
        gaps.append(g)
        cur.pos += 1
        init = initializer(cur, cur.ws())
    else:
        cur.pos = p0
    return new_declarator(name, tuple(dims), range_count, init, tuple(gaps))


def declaration(cur: Cursor, lead: str) -> VariableDecl:
    """Parse a variable declaration in a function body."""
    quals, gaps, g, func_kw = qualifiers(cur, lead)
    if func_kw is not None:
        cur.error(f"{func_kw} is only allowed at module scope", cur.pos - len(func_kw))
    return variable_decl(cur, quals, gaps, g)


def variable_decl(cur: Cursor, quals: list[DeclQualifier], gaps: list[str], g: str) -> VariableDecl:
    """Parse the declarators of a declaration after its qualifiers (see :func:`qualifiers`)."""
    declarators = [declarator(cur, g)]
    while cur.comma_or_close(";", gaps, "',' or ';' after the declared name"):
        declarators.append(declarator(cur, cur.ws()))
    gaps.append(cur.trailing())
    names = cur.names
    if names.in_function and StateSpace.REG in quals:
        for d in declarators:
            if not d.name.startswith("%"):
                names.declare_register(d.name, d.range_count)
    return new_variable_decl(tuple(quals), tuple(declarators), tuple(gaps))


def param(cur: Cursor, lead: str) -> Param:
    """Parse one parameter of a parameter list."""
    fast = cur.fast
    if fast is not None:
        simple = fast.param(lead)
        if simple is not None:
            return simple
    quals, gaps, g, func_kw = qualifiers(cur, lead)
    if func_kw is not None:
        cur.error(f"{func_kw} cannot appear in a parameter list", cur.pos - len(func_kw))
    return new_param(tuple(quals), declarator(cur, g, allow_init=False), tuple(gaps))


def param_list(cur: Cursor, gaps: list[str], g_open: str) -> tuple[Param, ...]:
    """Parse ``( param, ... )``; the gaps of the parentheses and commas go to ``gaps``."""
    open_pos = cur.pos
    gaps.append(g_open)
    cur.pos += 1
    cur.enter()
    params: list[Param] = []
    g = cur.ws()
    if cur.text[cur.pos] == ")":
        gaps.append(g)
        cur.pos += 1
    else:
        params.append(param(cur, g))
        expected = "',' or ')' in the parameter list"
        while cur.comma_or_close(")", gaps, expected, open_pos, "parameter list"):
            params.append(param(cur, cur.ws()))
    cur.depth -= 1
    return tuple(params)
