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
    Declarator,
    FunctionKind,
    Linkage,
    PtrQualifier,
    PtxType,
    StateSpace,
    VariableDecl,
    VectorWidth,
)
from pyptx.ir.declarations import DeclQualifier

from ._lexer import QUALIFIER_PART

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
    parts = QUALIFIER_PART.findall(qual_text)
    if parts[0][0] not in DECL_STARTS:
        return None
    quals: list[DeclQualifier] = []
    gaps = [lead]
    g = ""
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
    if count is not None:
        declarator = Declarator(name, (), int(count), None, (g, lt_gap, lt_in, gt_gap))
    elif size is not None:
        declarator = Declarator(name, (int(size),), None, None, (g, br_gap, br_in, br_out))
    else:
        declarator = Declarator(name, (), None, None, (g,))
    gaps += (semi, trail)
    return VariableDecl(tuple(quals), (declarator,), tuple(gaps))
