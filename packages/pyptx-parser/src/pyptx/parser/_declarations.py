"""Declaration tables, and the one-line fast path for the commonest declarations.

``.reg .b32 %r<12>;``, ``.reg .pred %p<4>;``, ``.param .b64 param0;`` and
``.local .align 8 .b8 __local_depot0[16];`` open almost every function. :func:`fast_declaration`
builds their :class:`~pyptx.ir.VariableDecl` from one :data:`~._lexer.FAST_DECLARATION`
match, exactly as the general rules in :mod:`._parser` would.
"""

from __future__ import annotations

from typing import Any

from pyptx.ir import (
    Align,
    FunctionKind,
    Linkage,
    Param,
    PtrQualifier,
    PtxType,
    StateSpace,
    VariableDecl,
    VectorWidth,
)
from pyptx.ir.declarations import DeclQualifier

from ._lexer import QUALIFIER_PART
from ._nodes import new_declarator, new_param, new_variable_decl

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
    """First word, qualifiers, gaps and the gap before the name, as ``Parser.qualifiers`` gives.

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
