"""The one-line fast paths of the commonest declarations and parameters.

``.reg .b32 %r<12>;``, ``.reg .pred %p<4>;``, ``.param .b64 param0;`` and
``.local .align 8 .b8 __local_depot0[16];`` open almost every function. :func:`fast_declaration`
builds their :class:`~pyptx.ir.VariableDecl` from one :data:`~._lexer.FAST_DECLARATION`
match, and :func:`fast_param` a parameter from one :data:`~._lexer.FAST_PARAM` match,
exactly as the general rules in :mod:`._declarations` would.
"""

from __future__ import annotations

from typing import Any

from pyptx.ir import Align, Param, VariableDecl
from pyptx.ir.declarations import DeclQualifier

from ._build import new_declarator, new_param, new_variable_decl
from ._declarations import DECL_STARTS, QUALIFIERS
from ._lexer import QUALIFIER_PART


def fast_declaration(groups: tuple[Any, ...]) -> VariableDecl | None:
    """The declaration of one :data:`~._lexer.FAST_DECLARATION` match, or ``None``.

    ``None`` means the general rules must parse the text (and report any error in it).
    """
    (
        lead,
        qual_text,
        name,
        lt_gap,
        lt_in,
        count,
        gt_gap,
        br_gap,
        br_in,
        size,
        br_out,
        semi,
        trail,
    ) = groups
    qualified = _qualifiers(lead, qual_text)
    if qualified is None or qualified[0] not in DECL_STARTS:
        return None
    _, quals, gaps, g = qualified
    if count is not None:
        declarator = new_declarator(name, (), int(count), None, (g, lt_gap, lt_in, gt_gap))
    elif size is not None:
        declarator = new_declarator(name, (int(size),), None, None, (g, br_gap, br_in, br_out))
    else:
        declarator = new_declarator(name, (), None, None, (g,))
    gaps += (semi, trail)
    return new_variable_decl(tuple(quals), (declarator,), tuple(gaps))


def fast_param(lead: str, groups: tuple[Any, ...]) -> Param | None:
    """The parameter of one :data:`~._lexer.FAST_PARAM` match after ``lead``, or ``None``."""
    qual_text, name, br_gap, br_in, size, br_out = groups
    qualified = _qualifiers(lead, qual_text)
    if qualified is None:
        return None
    _, quals, gaps, g = qualified
    if size is not None:
        declarator = new_declarator(name, (int(size),), None, None, (g, br_gap, br_in, br_out))
    else:
        declarator = new_declarator(name, (), None, None, (g,))
    return new_param(tuple(quals), declarator, tuple(gaps))


def _qualifiers(lead: str, text: str) -> tuple[str, list[DeclQualifier], list[str], str] | None:
    """First word, qualifiers, gaps and the gap before the name (as the general rule gives).

    ``None`` for a word that is no qualifier (the general rules report it), ``.entry`` and
    ``.func`` included.
    """
    quals: list[DeclQualifier] = []
    gaps = [lead]
    g = ""
    parts = QUALIFIER_PART.findall(text)
    for k, (word, gap, number, number_gap) in enumerate(parts):
        if k:
            gaps.append(g)
        if word == ".align":
            if not number:
                return None
            gaps.append(gap)
            quals.append(Align(int(number)))
            g = number_gap
        else:
            q = QUALIFIERS.get(word)
            if q is None or number:
                return None
            quals.append(q)
            g = gap
    return parts[0][0], quals, gaps, g
