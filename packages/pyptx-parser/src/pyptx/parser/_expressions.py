"""Rules for operands and constant expressions, as functions of the :class:`~._cursor.Cursor`.

Each rule starts at the cursor, after the trivia ``lead`` it is given, and leaves the cursor
after its last token.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from pyptx.ir import (
    SPECIAL_REGISTERS,
    Address,
    BinaryExpr,
    BraceList,
    Expr,
    FieldInit,
    GenericAddress,
    Immediate,
    Negated,
    Operand,
    ParenExpr,
    ParenList,
    PredPair,
    Sink,
    SpecialRegister,
    StringLiteral,
    Symbol,
    UnaryExpr,
    VectorOperand,
)

from ._build import new_immediate, new_label_ref, new_register, new_special_register, new_symbol
from ._cursor import Cursor
from ._lexer import BINOP, COMPONENT, DIRECTIVE, IDENT, NUMBER, PRECEDENCE, STRING

_IDENT_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$%")
_DIGITS = frozenset("0123456789")
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$0123456789")

_Item = TypeVar("_Item")


def operand(cur: Cursor, lead: str) -> Operand:
    """Parse one instruction operand whose leading trivia ``lead`` is already consumed."""
    t = cur.text
    c = t[cur.pos]
    if c == "%" or c == "$" or c.isalpha():
        return maybe_pair(cur, expr(cur, lead, 1, False))
    if c == "{":
        return vector(cur, lead)
    if c == "[":
        return address(cur, lead)
    if c == "(" and cur.names.opcode == "call":
        return paren_list(cur, lead)
    if c == "!":
        cur.pos += 1
        cur.enter()
        inner = operand(cur, cur.ws())
        cur.depth -= 1
        return Negated(inner, (lead,))
    if c == "_" and t[cur.pos + 1] not in _WORD:
        cur.pos += 1
        return maybe_pair(cur, Sink((lead,)))
    if c == '"':
        return string(cur, lead)
    return maybe_pair(cur, expr(cur, lead, 1, False))


def maybe_pair(cur: Cursor, first: Expr | Sink) -> Operand:
    """Turn ``first`` into a ``p|q`` pair when a single ``|`` follows."""
    t = cur.text
    p0 = cur.pos
    g = cur.ws()
    if t[cur.pos] == "|" and t[cur.pos + 1] != "|":
        cur.pos += 1
        second = expr(cur, cur.ws(), 1, False)
        return PredPair(first, second, (g,))
    cur.pos = p0
    return first


def string(cur: Cursor, lead: str) -> StringLiteral:
    """Parse a double-quoted string."""
    m = STRING.match(cur.text, cur.pos)
    if not m:
        cur.error("unterminated string literal (no closing '\"' on this line)")
    cur.pos = m.end()
    return StringLiteral(m.group()[1:-1], (lead,))


def vector(cur: Cursor, lead: str) -> VectorOperand:
    """Parse ``{a, b, ...}`` in operand position."""
    fast = cur.fast
    if fast is not None:
        node = fast.vector(lead)
        if node is not None:
            return node
    items, gaps = braced(cur, lead, "}", operand, "an operand")
    return VectorOperand(tuple(items), gaps)


def paren_list(cur: Cursor, lead: str) -> ParenList:
    """Parse ``(a, b, ...)`` (call argument and return lists)."""
    items, gaps = braced(cur, lead, ")", operand, "an operand")
    return ParenList(tuple(items), gaps)


def brace_list(cur: Cursor, lead: str) -> BraceList:
    """Parse a ``{...}`` initializer list."""
    fast = cur.fast
    if fast is not None:
        numbers = fast.number_list(lead)
        if numbers is not None:
            return numbers
    items, gaps = braced(cur, lead, "}", init_item, "an initializer")
    return BraceList(tuple(items), gaps)


def braced(
    cur: Cursor, lead: str, close: str, item: Callable[[Cursor, str], _Item], what: str
) -> tuple[list[_Item], tuple[str, ...]]:
    """Parse ``item``, ... from the bracket at the cursor up to ``close``.

    Returns:
        The items, and the gaps: ``lead``, the gap before each comma, the gap before ``close``.
    """
    start = cur.pos
    cur.pos += 1
    cur.enter()
    gaps = [lead]
    items: list[_Item] = []
    g = cur.ws()
    if cur.text[cur.pos] == close:
        gaps.append(g)
        cur.pos += 1
    else:
        items.append(item(cur, g))
        expected = f"',' or {close!r} after {what}"
        while cur.comma_or_close(close, gaps, expected, start):
            items.append(item(cur, cur.ws()))
    cur.depth -= 1
    return items, tuple(gaps)


def init_item(cur: Cursor, lead: str) -> Expr | BraceList | FieldInit:
    """Parse one item of an initializer list (nested list, ``name = value``, or value)."""
    t = cur.text
    if t[cur.pos] == "{":
        return brace_list(cur, lead)
    m = IDENT.match(t, cur.pos)
    if m:
        p0 = cur.pos
        cur.pos = m.end()
        g = cur.ws()
        if t[cur.pos] == "=" and t[cur.pos + 1] != "=":
            cur.pos += 1
            value = expr(cur, cur.ws(), 1, True)
            return FieldInit(m.group(), value, (lead, g))
        cur.pos = p0
    return expr(cur, lead, 1, True)


def initializer(cur: Cursor, lead: str) -> Expr | BraceList:
    """Parse what follows ``=`` in a declaration."""
    if cur.text[cur.pos] == "{":
        return brace_list(cur, lead)
    return expr(cur, lead, 1, True)


def address(cur: Cursor, lead: str) -> Address:
    """Parse ``[base]``, ``[base+offset]`` or ``[base, extra...]``."""
    t = cur.text
    start = cur.pos
    cur.pos += 1
    cur.enter()
    gaps = [lead]
    base = expr(cur, cur.ws(), 10, True)
    offset: Expr | None = None
    sign = "+"
    g = cur.ws()
    c = t[cur.pos]
    if c == "+" or c == "-":
        gaps.append(g)
        sign = c
        cur.pos += 1
        offset = expr(cur, cur.ws(), 1, True)
        g = cur.ws()
        c = t[cur.pos]
    extra: list[Operand] = []
    while c == ",":
        gaps.append(g)
        cur.pos += 1
        extra.append(operand(cur, cur.ws()))
        g = cur.ws()
        c = t[cur.pos]
    if c != "]":
        if cur.pos >= cur.n:
            cur.error("missing ']' to close this '['", start)
        cur.expected("']' to close the address")
    gaps.append(g)
    cur.pos += 1
    cur.depth -= 1
    return Address(base, offset, sign, tuple(extra), tuple(gaps))


def expr(cur: Cursor, lead: str, min_prec: int, allow_pipe: bool) -> Expr:
    """Parse a constant expression by precedence climbing."""
    lhs = unary(cur, lead)
    t = cur.text
    while True:
        c = t[cur.pos]
        if c not in " \t\r\n/|^&=!<>+-*%":
            return lhs
        p0 = cur.pos
        g = cur.ws()
        m = BINOP.match(t, cur.pos)
        if m is None:
            cur.pos = p0
            return lhs
        op = m.group()
        prec = PRECEDENCE[op]
        if prec < min_prec or (op == "|" and not allow_pipe) or (op == "%" and t[m.end()] in _WORD):
            cur.pos = p0
            return lhs
        cur.pos = m.end()
        cur.enter()
        rhs = expr(cur, cur.ws(), prec + 1, allow_pipe)
        cur.depth -= 1
        lhs = BinaryExpr(op, lhs, rhs, (g,))


def unary(cur: Cursor, lead: str) -> Expr:
    """Parse an atom or a prefix-operator expression."""
    t = cur.text
    p = cur.pos
    c = t[p]
    if c == "%":
        m = IDENT.match(t, p)
        if m:
            name = m.group()
            end = m.end()
            if t[end] == ".":
                cm = COMPONENT.match(t, end)
                if cm and name + cm.group() in SPECIAL_REGISTERS:
                    cur.pos = cm.end()
                    return SpecialRegister(name + cm.group(), (lead,))
            cur.pos = end
            if name in SPECIAL_REGISTERS:
                return new_special_register(name, (lead,))
            key = lead + name
            r = cur.registers.get(key)
            if r is None:
                r = cur.registers[key] = new_register(name, (lead,))
            return r
    if c in _DIGITS:
        m = NUMBER.match(t, p)
        if not m:
            cur.expected("a number")
        cur.pos = m.end()
        key = lead + m.group()
        i = cur.immediates.get(key)
        if i is None:
            i = cur.immediates[key] = new_immediate(m.group(), (lead,))
        return i
    if c in _IDENT_START:
        m = IDENT.match(t, p)
        if m:
            cur.pos = m.end()
            return bare_name(cur, m.group(), lead)
    if c == "-" and t[p + 1] in _DIGITS:
        m = NUMBER.match(t, p + 1)
        if m:
            cur.pos = m.end()
            return Immediate("-" + m.group(), (lead,))
    if c in "-+~!":
        cur.pos += 1
        cur.enter()
        inner = unary(cur, cur.ws())
        cur.depth -= 1
        return UnaryExpr(c, inner, (lead,))
    if c == "(":
        cur.pos += 1
        cur.enter()
        inner = expr(cur, cur.ws(), 1, True)
        g = cur.ws()
        if t[cur.pos] != ")":
            if cur.pos >= cur.n:
                cur.error("missing ')' to close this '('", p)
            cur.expected("')'")
        cur.pos += 1
        cur.depth -= 1
        return ParenExpr(inner, (lead, g))
    if c == "." and cur.names.in_section:
        m = DIRECTIVE.match(t, p)
        if m:
            cur.pos = m.end()
            return Symbol(m.group(), (lead,))
    if c == '"' and cur.names.in_section:
        return string(cur, lead)
    cur.expected("an operand")


def bare_name(cur: Cursor, name: str, lead: str) -> Expr:
    """Classify an identifier without ``%``: label, register, ``generic(...)`` or symbol.

    ``name`` ends at the cursor; ``generic(...)`` reads on to its ``)``.
    """
    names = cur.names
    names.bare_names_seen += 1
    if name == "generic":
        t = cur.text
        p0 = cur.pos
        g1 = cur.ws()
        if t[cur.pos] == "(":
            cur.pos += 1
            inner = expr(cur, cur.ws(), 1, True)
            g2 = cur.ws()
            cur.expect(")", "')' to close generic(")
            return GenericAddress(inner, (lead, g1, g2))
        cur.pos = p0
    if not names.in_function:
        return new_symbol(name, (lead,))
    if name in names.labels:
        return new_label_ref(name, (lead,))
    if names.is_declared_register(name):
        return new_register(name, (lead,))
    if names.is_branch():
        names.guessed_labels.add(name)
        return new_label_ref(name, (lead,))
    names.guessed_symbols.add(name)
    return new_symbol(name, (lead,))
