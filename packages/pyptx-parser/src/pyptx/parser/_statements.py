"""Rules for the statements of a function body: blocks, instructions, labels, directives.

Functions of the :class:`~._cursor.Cursor`, like every rule module of the parser. A block
hands the cursor to the fast paths first (:meth:`~._cursor.FastPaths.body`) and parses what
they leave with the rules here.
"""

from __future__ import annotations

from collections.abc import Callable

from pyptx.ir import Block, CallPrototype, Instruction, Node, Operand, Predicate

from ._build import new_block, new_instruction
from ._cursor import Cursor
from ._declarations import DECL_STARTS, declaration, param_list
from ._directives import branch_targets, call_targets, label, loc, pragma
from ._expressions import operand, unary
from ._lexer import DIRECTIVE, LABEL, MNEMONIC


def call_prototype(cur: Cursor, lead: str) -> CallPrototype:
    """Parse ``.callprototype`` after its keyword."""
    gaps = [lead]
    returns = params = None
    g = cur.ws()
    if cur.text[cur.pos] == "(":
        returns = param_list(cur, gaps, g)
        g = cur.ws()
    gaps.append(g)
    cur.expect("_", "'_' (the prototype's name placeholder)")
    g = cur.ws()
    if cur.text[cur.pos] == "(":
        params = param_list(cur, gaps, g)
        g = cur.ws()
    noreturn = cur.text.startswith(".noreturn", cur.pos)
    if noreturn:
        gaps.append(g)
        cur.pos += len(".noreturn")
        g = cur.ws()
    gaps.append(g)
    cur.expect(";", "';' after .callprototype")
    gaps.append(cur.trailing())
    return CallPrototype(returns, params, noreturn, tuple(gaps))


_BODY_DIRECTIVES: dict[str, Callable[[Cursor, str], Node]] = {
    ".loc": loc,
    ".pragma": pragma,
    ".branchtargets": branch_targets,
    ".calltargets": call_targets,
    ".callprototype": call_prototype,
}
"""The rules of the directives a function body may hold, by their keyword."""


def block(cur: Cursor, lead: str) -> Block:
    """Parse ``{ statement ... }``."""
    open_pos = cur.pos
    cur.pos += 1
    cur.enter()
    statements: list[Node] = []
    append = statements.append
    t = cur.text
    fast = cur.fast
    names = cur.names
    while True:
        if fast is not None:
            fast.body(statements)
        start = cur.pos
        g = cur.ws()
        c = t[cur.pos]
        if c == "}":
            break
        if cur.pos >= cur.n:
            cur.error("missing '}' to close this '{'", open_pos)
        bare = names.bare_names_seen
        node = body_statement(cur, g)
        append(node)
        if fast is not None and bare == names.bare_names_seen:
            fast.remember(start, node)
    cur.pos += 1
    cur.depth -= 1
    return new_block(tuple(statements), (lead, g, cur.trailing()))


def body_statement(cur: Cursor, lead: str) -> Node:
    """Parse one statement inside a function body."""
    t = cur.text
    c = t[cur.pos]
    if c == ".":
        m = DIRECTIVE.match(t, cur.pos)
        word = m.group() if m else ""
        rule = _BODY_DIRECTIVES.get(word)
        if rule is not None:
            cur.pos = m.end()  # type: ignore[union-attr]
            return rule(cur, lead)
        if word in DECL_STARTS:
            return declaration(cur, lead)
        cur.error(f"unknown directive {word!r} in a function body", length=len(word) or 1)
    if c == "{":
        return block(cur, lead)
    if c == "@":
        return instruction(cur, lead)
    m = LABEL.match(t, cur.pos)
    if m is not None:
        return label(cur, lead)
    return instruction(cur, lead)


def instruction(cur: Cursor, lead: str) -> Instruction:
    """Parse ``[@[!]pred] opcode.mods operand, ...;``."""
    t = cur.text
    names = cur.names
    predicate = None
    if t[cur.pos] == "@":
        pgaps = [lead]
        cur.pos += 1
        g = cur.ws()
        negated = t[cur.pos] == "!"
        if negated:
            pgaps.append(g)
            cur.pos += 1
            g = cur.ws()
        if t[cur.pos] not in "%$_" and not t[cur.pos].isalpha():
            cur.expected("a predicate register after '@'")
        names.opcode = ""
        predicate = Predicate(unary(cur, g), negated, tuple(pgaps))
        lead = cur.ws()
    m = MNEMONIC.match(t, cur.pos)
    if m is None:
        cur.expected("an instruction, label, directive or '}'")
    word = m.group()
    cur.pos = m.end()
    fast = cur.fast
    if fast is not None:
        insn = fast.instruction(lead, word, predicate)
        if insn is not None:
            return insn
    opcode, *mods = word.split(".")
    names.opcode = opcode
    gaps = [lead]
    operands: list[Operand] = []
    g = cur.ws()
    c = t[cur.pos]
    if c != ";":
        if c in "}" or cur.pos >= cur.n:
            cur.missing(f"';' after {word!r}", cur.pos - len(g))
        operands.append(operand(cur, g))
        while True:
            g = cur.ws()
            c = t[cur.pos]
            if c == ",":
                gaps.append(g)
                cur.pos += 1
                operands.append(operand(cur, cur.ws()))
            elif c == ";":
                break
            else:
                cur.missing(
                    f"',' or ';' after operand {len(operands)} of {word!r}", cur.pos - len(g)
                )
    gaps.append(g)
    cur.pos += 1
    gaps.append(cur.trailing())
    names.opcode = ""
    return new_instruction(opcode, tuple(mods), tuple(operands), predicate, tuple(gaps), None)
