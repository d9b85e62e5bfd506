"""Comparison and selection (``setp``, ``set``, ``selp``, ``slct``), logic and shifts."""

from __future__ import annotations

from ._common import (
    IMM,
    NO_GATE,
    PRED,
    Form,
    InstructionSpec,
    dst,
    form,
    grp,
    opd,
    psrc,
    req,
    since,
    spec,
    src,
)
from ._model import OperandKind

__all__ = ["SPECS"]

_CMP = "comparison and selection"
_LOGIC = "logic and shift"

INT_CMP = ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs")
FLOAT_CMP = (*INT_CMP[:6], "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")
BOOL_OPS = ("and", "or", "xor")
_INTS = ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64")
_HALF = {
    "f16": since((4, 2), 53),
    "f16x2": since((4, 2), 53),
    "bf16": since((7, 8), 90),
    "bf16x2": since((7, 8), 90),
}
SEL_TYPES = ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64")
_SET_D = ("u32", "s32", "f32", "f16", "bf16")
_SET_DH = ("u16", "s16", "u32", "s32", "f16", "bf16")
_PAIR, _ONE = OperandKind.PRED_PAIR, PRED

_COMPARE: tuple[
    tuple[tuple[str, ...], tuple[str, ...], bool, OperandKind, tuple[str, ...]], ...
] = (
    (_INTS, INT_CMP, False, _ONE | _PAIR, _SET_D),
    (("f32",), FLOAT_CMP, True, _ONE | _PAIR, _SET_D),
    (("f64",), FLOAT_CMP, False, _ONE | _PAIR, _SET_D),
    (("f16",), FLOAT_CMP, True, _ONE, _SET_DH),
    (("bf16",), FLOAT_CMP, False, _ONE, ("u16", "s16", "u32", "s32", "bf16")),
    (("f16x2",), FLOAT_CMP, True, _PAIR, ("f16x2", "u32", "s32")),
    (("bf16x2",), FLOAT_CMP, False, _PAIR, ("bf16x2", "u32", "s32")),
)
"""setp/set by source type: (types, comparison operators, whether ``.ftz`` applies, what
setp's destination is, the destination types of set). Unsigned comparisons (``lo``...) are
for integers, unordered ones (``ltu``...) for floats; ``.ftz`` is for f32, f16 and f16x2
only (and never with a bf16 destination). setp writes a ``p|q`` pair for the packed types
and a single predicate for f16/bf16."""


def _compare_forms(name: str) -> list[Form]:
    """The forms of setp or set, one per source class of :data:`_COMPARE`."""
    forms = []
    for types, cmps, ftz, p, dtypes in _COMPARE:
        c = psrc("c", when=BOOL_OPS)
        if name == "setp":
            ops = (opd("p", p, "pred"), src("a"), src("b"), c)
            groups = [[req("type", types, gates=_HALF)]]
        else:
            ops = (dst("@dtype"), src("a", "@stype"), src("b", "@stype"), c)
            stype = req("stype", types, gates=_HALF)
            split = ftz and "bf16" in dtypes
            rest = tuple(d for d in dtypes if d != "bf16") if split else dtypes
            groups = [[req("dtype", rest, gates=_HALF), stype]]
            groups += [[req("dtype", ("bf16",), gates=_HALF), stype]] if split else []
        for i, g in enumerate(groups):
            f = [grp("ftz", ("ftz",))] if ftz and (i == 0) else []
            forms.append(
                form([req("cmp", cmps), grp("bool", BOOL_OPS), *f, *g], ops, note=types[0])
            )
    return forms


SETP = spec(
    "setp",
    _compare_forms("setp"),
    NO_GATE,
    "comparison-and-selection-instructions-setp",
    "Compare two values and write a predicate (optionally combined with another).",
    _CMP,
    examples=("setp.lt.s32 %p1, %r1, %r2;", "setp.eq.and.f32 %p1|%p2, %f1, %f2, !%p3;"),
)

SET = spec(
    "set",
    _compare_forms("set"),
    NO_GATE,
    "comparison-and-selection-instructions-set",
    "Compare two values and write all ones (or 1.0) when true, zero otherwise.",
    _CMP,
    examples=("set.lt.u32.s32 %r1, %r2, %r3;",),
)

SELP = spec(
    "selp",
    [form([req("type", SEL_TYPES)], (dst(), src("a"), src("b"), psrc("c")))],
    NO_GATE,
    "comparison-and-selection-instructions-selp",
    "Select a or b by a predicate.",
    _CMP,
    examples=("selp.b32 %r1, %r2, 7, %p1;",),
)

SLCT = spec(
    "slct",
    [
        form(
            [req("dtype", SEL_TYPES), req("ctype", ("s32",))],
            (dst("@dtype"), src("a", "@dtype"), src("b", "@dtype"), src("c", "s32")),
        ),
        form(
            [grp("ftz", ("ftz",)), req("dtype", SEL_TYPES), req("ctype", ("f32",))],
            (dst("@dtype"), src("a", "@dtype"), src("b", "@dtype"), src("c", "f32")),
        ),
    ],
    NO_GATE,
    "comparison-and-selection-instructions-slct",
    "Select a or b by the sign of c.",
    _CMP,
    examples=("slct.b32.s32 %r1, %r2, %r3, %r4;",),
)

_LOGIC_TYPES = ("pred", "b16", "b32", "b64")


def _logic2(name: str, summary: str, example: str) -> InstructionSpec:
    return spec(
        name,
        [form([req("type", _LOGIC_TYPES)], (dst(), src("a"), src("b")))],
        NO_GATE,
        f"logic-and-shift-instructions-{name}",
        summary,
        _LOGIC,
        examples=(example,),
    )


AND = _logic2("and", "Bitwise AND.", "and.b32 %r1, %r2, 255;")
OR = _logic2("or", "Bitwise OR.", "or.pred %p1, %p2, %p3;")
XOR = _logic2("xor", "Bitwise exclusive OR.", "xor.b64 %rd1, %rd2, %rd3;")

NOT = spec(
    "not",
    [form([req("type", _LOGIC_TYPES)], (dst(), src("a")))],
    NO_GATE,
    "logic-and-shift-instructions-not",
    "Bitwise negation (one's complement).",
    _LOGIC,
    examples=("not.pred %p1, %p2;",),
)

CNOT = spec(
    "cnot",
    [form([req("type", ("b16", "b32", "b64"))], (dst(), src("a")))],
    NO_GATE,
    "logic-and-shift-instructions-cnot",
    "C-style logical negation: 1 if a is zero, else 0.",
    _LOGIC,
    examples=("cnot.b32 %r1, %r2;",),
)

LOP3 = spec(
    "lop3",
    [
        form(
            [req("type", ("b32",))],
            (dst(), src("a"), src("b"), src("c"), opd("immLut", IMM)),
            note="plain",
        ),
        form(
            [req("bool", ("or", "and")), req("type", ("b32",))],
            (
                opd("d", OperandKind.PRED_PAIR, "@type"),
                src("a"),
                src("b"),
                src("c"),
                opd("immLut", IMM),
                psrc("q"),
            ),
            since((8, 2), 70),
            "with predicate output",
        ),
    ],
    since((4, 3), 50),
    "logic-and-shift-instructions-lop3",
    "Arbitrary three-input logic operation given by a lookup table.",
    _LOGIC,
    examples=("lop3.b32 %r1, %r2, %r3, %r4, 0x96;",),
)

SHF = spec(
    "shf",
    [
        form(
            [req("dir", ("l", "r")), req("mode", ("clamp", "wrap")), req("type", ("b32",))],
            (dst(), src("a"), src("b"), src("c", "u32")),
        )
    ],
    since((3, 1), 32),
    "logic-and-shift-instructions-shf",
    "Funnel shift of the 64-bit pair {b, a}.",
    _LOGIC,
    examples=("shf.l.wrap.b32 %r1, %r2, %r3, 8;",),
)

SHL = spec(
    "shl",
    [form([req("type", ("b16", "b32", "b64"))], (dst(), src("a"), src("b", "u32")))],
    NO_GATE,
    "logic-and-shift-instructions-shl",
    "Shift left.",
    _LOGIC,
    examples=("shl.b64 %rd1, %rd2, 3;",),
)

SHR = spec(
    "shr",
    [
        form(
            [req("type", ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64"))],
            (dst(), src("a"), src("b", "u32")),
        )
    ],
    NO_GATE,
    "logic-and-shift-instructions-shr",
    "Shift right (arithmetic for signed types).",
    _LOGIC,
    examples=("shr.u32 %r1, %r2, 5;",),
)

SPECS: tuple[InstructionSpec, ...] = (
    SETP,
    SET,
    SELP,
    SLCT,
    AND,
    OR,
    XOR,
    NOT,
    CNOT,
    LOP3,
    SHF,
    SHL,
    SHR,
)
"""The instructions of this family."""
