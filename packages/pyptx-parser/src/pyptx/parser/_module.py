"""Rules for module scope and functions, and :func:`parse_module`, which runs them all.

Functions of the :class:`~._cursor.Cursor`, like every rule module of the parser.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from pyptx.ir import (
    Block,
    Function,
    FunctionDirective,
    FunctionDirectiveKind,
    FunctionKind,
    Immediate,
    Linkage,
    Module,
    Node,
)
from pyptx.ir.declarations import DeclQualifier

from ._cursor import Cursor
from ._declarations import FUNCTION_KINDS, QUALIFIERS, param_list, qualifiers, variable_decl
from ._directives import address_size, alias, file, pragma, section, target, version
from ._fast import Shortcuts
from ._lexer import DIRECTIVE, NUMBER
from ._statements import block

_TOP_DIRECTIVES: dict[str, Callable[[Cursor, str], Node]] = {
    ".version": version,
    ".target": target,
    ".address_size": address_size,
    ".file": file,
    ".section": section,
    ".pragma": pragma,
    ".alias": alias,
}
"""The rules of the directives at module scope, by their keyword (declarations aside)."""

_FUNC_DIRECTIVES = {"." + k.value: k for k in FunctionDirectiveKind}


def parse_module(text: str, filename: str, fast: bool = True) -> Module:
    """Parse a whole PTX text.

    Args:
        text: the PTX program.
        filename: the name used in error messages.
        fast: whether to try the fast paths before the general rules. Both ways give the
            same tree (the tests compare them); ``False`` is for those tests.

    Returns:
        The module, with its trivia.

    Raises:
        PtxSyntaxError: the text is not well-formed PTX.
    """
    cur = Cursor(text, filename)
    if fast:
        cur.fast = Shortcuts(cur)
    return module(cur)


def module(cur: Cursor) -> Module:
    """Parse the whole text at the cursor."""
    statements: list[Node] = []
    while True:
        lead = cur.ws()
        if cur.pos >= cur.n:
            return Module(tuple(statements), (lead,))
        statements.append(top_statement(cur, lead))


def top_statement(cur: Cursor, lead: str) -> Node:
    """Parse one module-scope statement."""
    t = cur.text
    m = DIRECTIVE.match(t, cur.pos)
    if m is None:
        if cur.pos < cur.n and t[cur.pos] == "}":
            cur.error("unmatched '}' at module scope")
        cur.expected("a directive at module scope (.version, .target, .entry, ...)")
    word = m.group()
    rule = _TOP_DIRECTIVES.get(word)
    if rule is not None:
        cur.pos = m.end()
        return rule(cur, lead)
    if word in FUNCTION_KINDS or word in QUALIFIERS:
        quals, gaps, g, func_kw = qualifiers(cur, lead)
        if func_kw is not None:
            return function(cur, quals, gaps, func_kw)
        return variable_decl(cur, quals, gaps, g)
    cur.error(f"unknown directive {word!r} at module scope", length=len(word))


def function(cur: Cursor, linkage: list[DeclQualifier], gaps: list[str], kw: str) -> Function:
    """Parse a function after its linkage and its keyword ``kw`` (``.entry`` or ``.func``)."""
    t = cur.text
    kind = FUNCTION_KINDS[kw]
    returns = params = None
    g = cur.ws()
    if kind is FunctionKind.FUNC and t[cur.pos] == "(":
        returns = param_list(cur, gaps, g)
        g = cur.ws()
    gaps.append(g)
    name = cur.ident(f"a function name after {kw}")
    g = cur.ws()
    if t[cur.pos] == "(":
        params = param_list(cur, gaps, g)
        g = cur.ws()
    directives: list[Node] = []
    names = cur.names
    names.begin_function()
    body: Block | None = None
    while True:
        c = t[cur.pos]
        if c == "{":
            body = block(cur, g)
            gaps.append("")
            break
        if c == ";":
            gaps.append(g)
            cur.pos += 1
            gaps.append(cur.trailing())
            break
        m = DIRECTIVE.match(t, cur.pos)
        if m and m.group() in _FUNC_DIRECTIVES:
            cur.pos = m.end()
            directives.append(function_directive(cur, g, _FUNC_DIRECTIVES[m.group()]))
        elif m and m.group() == ".pragma":
            cur.pos = m.end()
            directives.append(pragma(cur, g))
        else:
            cur.expected(f"a function body '{{', ';' or a directive after {name!r}")
        g = cur.ws()
    names.in_function = False
    if body is not None:
        body = names.fix_forward_references(body)
    # qualifiers() reaches a function keyword only after linkage qualifiers.
    linkages = cast("tuple[Linkage, ...]", tuple(linkage))
    return Function(kind, name, params, body, linkages, returns, tuple(directives), tuple(gaps))


def function_directive(cur: Cursor, lead: str, kind: FunctionDirectiveKind) -> FunctionDirective:
    """Parse a performance directive (``.maxntid 128, 1, 1``) after its keyword."""
    gaps = [lead]
    values: list[Immediate] = []
    p0 = cur.pos
    g = cur.ws()
    m = NUMBER.match(cur.text, cur.pos)
    if m:
        cur.pos = m.end()
        values.append(Immediate(m.group(), (g,)))
        while cur.comma(gaps):
            g = cur.ws()
            m = NUMBER.match(cur.text, cur.pos)
            if not m:
                cur.expected(f"a number in {kind.ptx}")
            cur.pos = m.end()
            values.append(Immediate(m.group(), (g,)))
    else:
        cur.pos = p0
    gaps.append(cur.trailing())
    return FunctionDirective(kind, tuple(values), tuple(gaps))
