"""The fast path for ``call`` statements.

nvcc writes every call as a statement of its own, usually over several lines::

    call.uni (retval0),
    _Z3fooPf,
    (
    param0,
    param1
    );

The general rules spend most of their time on such a statement in scanning its many gaps
one rule at a time. When the operands are only names, registers and one level of parenthesised
lists of them, :func:`fast_call` builds the same instruction from one token scan instead.
"""

from __future__ import annotations

from pyptx.ir import SPECIAL_REGISTERS, Expr, Instruction, Operand

from ._build import new_instruction, new_paren_list, new_register, new_special_register
from ._cursor import Cursor
from ._expressions import bare_name

_DIGITS = frozenset("0123456789")


def _atom(cur: Cursor, name: str, lead: str) -> Expr | None:
    """A name or register operand, as the general rules classify it (``None``: leave it)."""
    c = name[0]
    if c in _DIGITS:
        return None  # a number
    if c == "%":
        if name in SPECIAL_REGISTERS:
            return new_special_register(name, (lead,))
        key = lead + name
        reg = cur.registers.get(key)
        if reg is None:
            reg = cur.registers[key] = new_register(name, (lead,))
        return reg
    if name == "generic" or name == "_":
        return None  # generic(...) and the sink '_' have rules of their own
    return bare_name(cur, name, lead)


def fast_call(
    cur: Cursor, lead: str, word: str, tokens: list[tuple[str, str]], trail: str
) -> Instruction | None:
    """Build a ``call`` instruction from its mnemonic and operand tokens, or return ``None``.

    ``tokens`` are the (gap, token) pairs that cover the operand segment (see
    ``CALL_TOKENS``), the last one an empty token after the gap before ``;``. Returns
    ``None`` when they do not form ``operand, ...`` with operands that are names, registers,
    or ``( item, ... )`` lists of them; the general rules then parse the text.
    """
    opcode, *mods = word.split(".")
    if "" in mods:
        return None
    operands: list[Operand] = []
    gaps = [lead]
    items: list[Operand] = []
    list_gaps: list[str] = []
    # States: 0 expects an operand, 1 an item or ')' right after '(', 2 ',' or ')' after an
    # item, 3 ',' or the end after an operand, 4 an item after ',' in a list.
    state = 0
    names = cur.names
    names.opcode = opcode
    try:
        for gap, token in tokens:
            if state == 3:
                gaps.append(gap)
                if token == ",":
                    state = 0
                    continue
                if token:
                    return None
                break
            if state == 2:
                list_gaps.append(gap)
                if token == ",":
                    state = 4
                elif token == ")":
                    operands.append(new_paren_list(tuple(items), tuple(list_gaps)))
                    state = 3
                else:
                    return None
                continue
            if token == "(" and state == 0:
                items = []
                list_gaps = [gap]
                state = 1
                continue
            if token == ")" and state == 1:
                list_gaps.append(gap)
                operands.append(new_paren_list((), tuple(list_gaps)))
                state = 3
                continue
            if not token or token in "(),":
                return None
            atom = _atom(cur, token, gap)
            if atom is None:
                return None
            if state == 0:
                operands.append(atom)
                state = 3
            else:
                items.append(atom)
                state = 2
        else:
            return None
    finally:
        names.opcode = ""
    if not operands:
        return None
    gaps.append(trail)
    return new_instruction(opcode, tuple(mods), tuple(operands), None, tuple(gaps), None)
