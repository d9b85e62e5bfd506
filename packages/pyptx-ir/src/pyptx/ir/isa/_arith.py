"""Integer, extended-precision and the shared int/float arithmetic instructions.

``add``, ``sub``, ``mul``, ``mad``, ``div``, ``abs``, ``neg``, ``min`` and ``max`` exist on
integers, floats, halves (``.f16``/``.bf16`` and their ``x2`` packs) and, since PTX 8.6, in
mixed precision; each syntax block of the PTX ISA is one :class:`Form` of the same spec.
"""

from __future__ import annotations

from collections.abc import Callable

from ._common import (
    INTS,
    NO_GATE,
    Gate,
    InstructionSpec,
    dst,
    form,
    grp,
    req,
    since,
    spec,
    src,
)
from ._model import Form, ModifierGroup, OperandSpec

__all__ = ["SPECS"]

_FAM = "integer arithmetic"
_EXT = "extended-precision arithmetic"

RND = ("rn", "rz", "rm", "rp")
_F16 = since((4, 2), 53)
_BF16 = since((7, 8), 90)
_BF16_80 = since((7, 0), 80)
_F32X2 = since((8, 6), 100)
_MIXED = since((8, 6), 100)
_PACKED_INT = since((8, 0), 90)
_TYPE_GATES = {"u16x2": _PACKED_INT, "s16x2": _PACKED_INT}
_XTYPES = ("u32", "s32", "u64", "s64")


def _bin(a: str = "a", b: str = "b", ty: str = "@type") -> tuple[OperandSpec, ...]:
    return (dst(ty), src(a, ty), src(b, ty))


def _tern() -> tuple[OperandSpec, ...]:
    return (dst(), src("a"), src("b"), src("c"))


def _float_forms(op3: bool = False, sat: bool = True) -> list[Form]:
    """The float/half forms of add, sub and mul (``op3``: mad-style third source)."""
    ops = [dst(), src("a"), src("b")] + ([src("c")] if op3 else [])
    sat_g = [grp("sat", ("sat",))] if sat else []
    return [
        form(
            [grp("rnd", RND), grp("ftz", ("ftz",)), *sat_g, req("type", ("f32",))],
            ops,
            note="f32",
        ),
        form([grp("rnd", RND), req("type", ("f64",))], ops, note="f64"),
        form(
            [grp("rnd", RND), grp("ftz", ("ftz",)), req("type", ("f32x2",))], ops, _F32X2, "f32x2"
        ),
        form(
            [grp("rnd", ("rn",)), grp("ftz", ("ftz",)), *sat_g, req("type", ("f16", "f16x2"))],
            ops,
            _F16,
            "f16",
        ),
        form([grp("rnd", ("rn",)), req("type", ("bf16", "bf16x2"))], ops, _BF16, "bf16"),
    ]


def _mixed(op3: bool = False) -> Form:
    """``add/sub{.rnd}{.sat}.f32.atype d, a, c`` (PTX 8.6, sm_100): f16/bf16 ``a``."""
    ops = [dst("@dtype"), src("a", "@atype")]
    ops += [src("b", "@atype"), src("c", "@dtype")] if op3 else [src("c", "@dtype")]
    return form(
        [
            grp("rnd", RND),
            grp("sat", ("sat",)),
            req("dtype", ("f32",)),
            req("atype", ("f16", "bf16")),
        ],
        ops,
        _MIXED,
        "mixed precision",
    )


def _add_int(packed: bool) -> list[Form]:
    """The integer forms of add (``packed``: with ``.u16x2``/``.s16x2``) and sub."""
    types = (*INTS, "u16x2", "s16x2") if packed else INTS
    return [
        form([req("type", types, gates=_TYPE_GATES)], _bin(), note="integer"),
        form([req("sat", ("sat",)), req("type", ("s32",))], _bin(), note="saturating s32"),
    ]


ADD = spec(
    "add",
    [*_add_int(packed=True), *_float_forms(), _mixed()],
    NO_GATE,
    "integer-arithmetic-instructions-add",
    "Add two values (integer, float, half, packed or mixed precision).",
    _FAM,
    examples=("add.s32 %r1, %r2, %r3;", "add.rn.ftz.f32 %f1, %f2, 0f3F800000;"),
)

SUB = spec(
    "sub",
    [*_add_int(packed=False), *_float_forms(), _mixed()],
    NO_GATE,
    "integer-arithmetic-instructions-sub",
    "Subtract one value from another.",
    _FAM,
    examples=("sub.s64 %rd1, %rd2, %rd3;", "sub.f64 %fd1, %fd2, %fd3;"),
)

_WIDE = ("u16", "u32", "s16", "s32")

MUL = spec(
    "mul",
    [
        form([req("mode", ("hi", "lo")), req("type", INTS)], _bin(), note="integer"),
        form(
            [req("mode", ("wide",)), req("type", _WIDE)],
            (dst(scale=2), src("a"), src("b")),
            note="widening",
        ),
        *_float_forms(),
    ],
    NO_GATE,
    "integer-arithmetic-instructions-mul",
    "Multiply two values (.lo/.hi half or .wide product for integers).",
    _FAM,
    examples=("mul.lo.s32 %r1, %r2, 3;", "mul.wide.u32 %rd1, %r1, 4;", "mul.rn.f32 %f1, %f2, %f3;"),
)

_CC = {"cc": since((3, 0), 20)}
_MAD_F = [
    form(
        [req("rnd", RND), grp("ftz", ("ftz",)), grp("sat", ("sat",)), req("type", ("f32",))],
        (dst(), src("a"), src("b"), src("c")),
        note="f32",
    ),
    form(
        [req("rnd", RND), req("type", ("f64",))], (dst(), src("a"), src("b"), src("c")), note="f64"
    ),
]

MAD = spec(
    "mad",
    [
        form([req("mode", ("hi", "lo")), req("type", INTS)], _tern(), note="integer"),
        form(
            [req("mode", ("hi", "lo")), req("cc", ("cc",), gates=_CC), req("type", _XTYPES)],
            _tern(),
            note="carry-out (32 and 64 bits)",
        ),
        form(
            [req("mode", ("wide",)), req("type", _WIDE)],
            (dst(scale=2), src("a"), src("b"), src("c", scale=2)),
            note="widening",
        ),
        form(
            [req("mode", ("hi",)), req("sat", ("sat",)), req("type", ("s32",))],
            (dst(), src("a"), src("b"), src("c")),
            note="saturating s32",
        ),
        *_MAD_F,
    ],
    NO_GATE,
    "integer-arithmetic-instructions-mad",
    "Multiply two values and add a third (.cc writes the carry flag).",
    _FAM,
    examples=("mad.lo.s32 %r1, %r2, %r3, %r4;", "mad.wide.u32 %rd1, %r1, 4, %rd2;"),
)

MUL24 = spec(
    "mul24",
    [form([req("mode", ("hi", "lo")), req("type", ("u32", "s32"))], _bin())],
    NO_GATE,
    "integer-arithmetic-instructions-mul24",
    "Multiply the low 24 bits of two 32-bit integers.",
    _FAM,
    examples=("mul24.lo.u32 %r1, %r2, %r3;",),
)

MAD24 = spec(
    "mad24",
    [
        form(
            [req("mode", ("hi", "lo")), req("type", ("u32", "s32"))],
            (dst(), src("a"), src("b"), src("c")),
        ),
        form(
            [req("mode", ("hi",)), req("sat", ("sat",)), req("type", ("s32",))],
            (dst(), src("a"), src("b"), src("c")),
        ),
    ],
    NO_GATE,
    "integer-arithmetic-instructions-mad24",
    "Multiply the low 24 bits of two integers and add a third.",
    _FAM,
    examples=("mad24.lo.s32 %r1, %r2, %r3, %r4;",),
)

SAD = spec(
    "sad",
    [form([req("type", INTS)], (dst(), src("a"), src("b"), src("c")))],
    NO_GATE,
    "integer-arithmetic-instructions-sad",
    "Sum of absolute difference: d = c + |a - b|.",
    _FAM,
    examples=("sad.u32 %r1, %r2, %r3, %r4;",),
)

DIV = spec(
    "div",
    [
        form([req("type", INTS)], _bin(), note="integer"),
        form(
            [req("mode", ("approx", "full")), grp("ftz", ("ftz",)), req("type", ("f32",))],
            _bin(),
            note="approximate f32",
        ),
        form([req("rnd", RND), grp("ftz", ("ftz",)), req("type", ("f32",))], _bin(), note="f32"),
        form([req("rnd", RND), req("type", ("f64",))], _bin(), note="f64"),
    ],
    NO_GATE,
    "integer-arithmetic-instructions-div",
    "Divide one value by another.",
    _FAM,
    examples=("div.s32 %r1, %r2, %r3;", "div.rn.f64 %fd1, %fd2, %fd3;"),
)

REM = spec(
    "rem",
    [form([req("type", INTS)], _bin())],
    NO_GATE,
    "integer-arithmetic-instructions-rem",
    "Integer remainder.",
    _FAM,
    examples=("rem.u32 %r1, %r2, 7;",),
)


def _unary_forms(f16_gate: Gate) -> list[Form]:
    un = (dst(), src("a"))
    return [
        form([req("type", ("s16", "s32", "s64"))], un, note="integer"),
        form([grp("ftz", ("ftz",)), req("type", ("f32",))], un, note="f32"),
        form([req("type", ("f64",))], un, note="f64"),
        form([grp("ftz", ("ftz",)), req("type", ("f16", "f16x2"))], un, f16_gate, "f16"),
        form([req("type", ("bf16", "bf16x2"))], un, _BF16_80, "bf16"),
    ]


ABS = spec(
    "abs",
    _unary_forms(since((6, 5), 53)),
    NO_GATE,
    "integer-arithmetic-instructions-abs",
    "Absolute value.",
    _FAM,
    examples=("abs.s32 %r1, %r2;", "abs.ftz.f32 %f1, %f2;"),
)

NEG = spec(
    "neg",
    _unary_forms(since((6, 0), 53)),
    NO_GATE,
    "integer-arithmetic-instructions-neg",
    "Arithmetic negation.",
    _FAM,
    examples=("neg.s32 %r1, %r2;", "neg.f64 %fd1, %fd2;"),
)

_NAN = {"NaN": since((7, 0), 80), "xorsign": since((7, 2), 86), "abs": since((7, 2), 86)}
_RELU = since((8, 0), 90)


def _flag(name: str, kind: Callable[..., ModifierGroup] = grp) -> ModifierGroup:
    """A one-value slot (optional, or ``req``) gated as min/max's .NaN/.xorsign/.abs are."""
    return kind(name, (name,), gates={name: _NAN[name]})


def _with_xorsign(
    flags: list[ModifierGroup], types: tuple[str, ...], gate: Gate, note: str
) -> list[Form]:
    """A two-input float min/max form, without and with the ``.xorsign.abs`` pair."""
    pair = [_flag("xorsign", req), _flag("abs", req)]
    return [
        form([*flags, req("type", types)], _bin(), gate, note),
        form([*flags, *pair, req("type", types)], _bin(), gate, f"{note} xorsign.abs"),
    ]


def _minmax_forms() -> list[Form]:
    ftz, nan = grp("ftz", ("ftz",)), _flag("NaN")
    return [
        form([req("type", (*INTS, "u16x2", "s16x2"), gates=_TYPE_GATES)], _bin(), note="integer"),
        form([req("relu", ("relu",)), req("type", ("s16x2", "s32"))], _bin(), _RELU, "relu"),
        *_with_xorsign([ftz, nan], ("f32",), NO_GATE, "f32"),
        form(
            [ftz, grp("NaN", ("NaN",)), grp("abs", ("abs",)), req("type", ("f32",))],
            (dst(), src("a"), src("b"), src("c")),
            since((8, 8), 100),
            "three f32 inputs",
        ),
        form([req("type", ("f64",))], _bin(), note="f64"),
        *_with_xorsign([ftz, nan], ("f16", "f16x2"), since((7, 0), 80), "f16"),
        *_with_xorsign([nan], ("bf16", "bf16x2"), _BF16_80, "bf16"),
    ]


MIN = spec(
    "min",
    _minmax_forms(),
    NO_GATE,
    "integer-arithmetic-instructions-min",
    "Minimum of two (or, for f32 since PTX 8.8, three) values.",
    _FAM,
    examples=("min.s32 %r1, %r2, %r3;", "min.NaN.f32 %f1, %f2, %f3;"),
)

MAX = spec(
    "max",
    _minmax_forms(),
    NO_GATE,
    "integer-arithmetic-instructions-max",
    "Maximum of two (or, for f32 since PTX 8.8, three) values.",
    _FAM,
    examples=("max.u64 %rd1, %rd2, %rd3;", "max.f32 %f1, %f2, %f3;"),
)

_B3264 = ("b32", "b64")

POPC = spec(
    "popc",
    [form([req("type", _B3264)], (dst("u32"), src("a")))],
    since((2, 0), 20),
    "integer-arithmetic-instructions-popc",
    "Population count (number of one bits).",
    _FAM,
    examples=("popc.b64 %r1, %rd1;",),
)

CLZ = spec(
    "clz",
    [form([req("type", _B3264)], (dst("u32"), src("a")))],
    since((2, 0), 20),
    "integer-arithmetic-instructions-clz",
    "Count leading zeros.",
    _FAM,
    examples=("clz.b32 %r1, %r2;",),
)

BFIND = spec(
    "bfind",
    [
        form(
            [grp("shiftamt", ("shiftamt",)), req("type", ("u32", "u64", "s32", "s64"))],
            (dst("u32"), src("a")),
        )
    ],
    since((2, 0), 20),
    "integer-arithmetic-instructions-bfind",
    "Find the most significant non-sign bit.",
    _FAM,
    examples=("bfind.u32 %r1, %r2;", "bfind.shiftamt.s64 %r1, %rd1;"),
)

FNS = spec(
    "fns",
    [form([req("type", ("b32",))], (dst(), src("mask"), src("base", "u32"), src("offset", "s32")))],
    since((6, 0), 30),
    "integer-arithmetic-instructions-fns",
    "Find the n-th set bit.",
    _FAM,
    examples=("fns.b32 %r1, %r2, %r3, 1;",),
)

BREV = spec(
    "brev",
    [form([req("type", _B3264)], (dst(), src("a")))],
    since((2, 0), 20),
    "integer-arithmetic-instructions-brev",
    "Bit reverse.",
    _FAM,
    examples=("brev.b32 %r1, %r2;",),
)

BFE = spec(
    "bfe",
    [
        form(
            [req("type", ("u32", "u64", "s32", "s64"))],
            (dst(), src("a"), src("b", "u32"), src("c", "u32")),
        )
    ],
    since((2, 0), 20),
    "integer-arithmetic-instructions-bfe",
    "Bit field extract.",
    _FAM,
    examples=("bfe.u32 %r1, %r2, 8, 4;",),
)

BFI = spec(
    "bfi",
    [
        form(
            [req("type", _B3264)],
            (dst(name="f"), src("a"), src("b"), src("c", "u32"), src("d", "u32")),
        )
    ],
    since((2, 0), 20),
    "integer-arithmetic-instructions-bfi",
    "Bit field insert.",
    _FAM,
    examples=("bfi.b32 %r1, %r2, %r3, 8, 4;",),
)

SZEXT = spec(
    "szext",
    [
        form(
            [req("mode", ("clamp", "wrap")), req("type", ("u32", "s32"))],
            (dst(), src("a"), src("b", "u32")),
        )
    ],
    since((7, 6), 70),
    "integer-arithmetic-instructions-szext",
    "Sign- or zero-extend the value below a bit position.",
    _FAM,
    examples=("szext.wrap.s32 %r1, %r2, %r3;",),
)

BMSK = spec(
    "bmsk",
    [
        form(
            [req("mode", ("clamp", "wrap")), req("type", ("b32",))],
            (dst(), src("a", "u32"), src("b", "u32")),
        )
    ],
    since((7, 6), 70),
    "integer-arithmetic-instructions-bmsk",
    "Build a bit mask from a position and a width.",
    _FAM,
    examples=("bmsk.clamp.b32 %r1, %r2, 4;",),
)

_DP = ("u32", "s32")

DP4A = spec(
    "dp4a",
    [
        form(
            [req("atype", _DP), req("btype", _DP)],
            (dst("b32"), src("a", "b32"), src("b", "b32"), src("c", "b32")),
        )
    ],
    since((5, 0), 61),
    "integer-arithmetic-instructions-dp4a",
    "Four-way byte dot product, accumulated.",
    _FAM,
    examples=("dp4a.u32.u32 %r1, %r2, %r3, %r4;",),
)

DP2A = spec(
    "dp2a",
    [
        form(
            [req("mode", ("lo", "hi")), req("atype", _DP), req("btype", _DP)],
            (dst("b32"), src("a", "b32"), src("b", "b32"), src("c", "b32")),
        )
    ],
    since((5, 0), 61),
    "integer-arithmetic-instructions-dp2a",
    "Two-way 16x8-bit dot product, accumulated.",
    _FAM,
    examples=("dp2a.lo.u32.u32 %r1, %r2, %r3, %r4;",),
)

_X64 = {"u64": since((4, 3), 20), "s64": since((4, 3), 20)}

ADD_CC = spec(
    "add.cc",
    [form([req("type", _XTYPES, gates=_X64)], _bin())],
    since((1, 2), 10),
    "extended-precision-arithmetic-instructions-add-cc",
    "Add and write the carry-out flag.",
    _EXT,
    examples=("add.cc.u32 %r1, %r2, %r3;",),
)

ADDC = spec(
    "addc",
    [form([grp("cc", ("cc",)), req("type", _XTYPES, gates=_X64)], _bin())],
    since((1, 2), 10),
    "extended-precision-arithmetic-instructions-addc",
    "Add with carry-in (and optionally write the carry-out).",
    _EXT,
    examples=("addc.cc.u32 %r1, %r2, %r3;",),
)

SUB_CC = spec(
    "sub.cc",
    [form([req("type", _XTYPES, gates=_X64)], _bin())],
    since((1, 2), 10),
    "extended-precision-arithmetic-instructions-sub-cc",
    "Subtract and write the borrow-out flag.",
    _EXT,
    examples=("sub.cc.u32 %r1, %r2, %r3;",),
)

SUBC = spec(
    "subc",
    [form([grp("cc", ("cc",)), req("type", _XTYPES, gates=_X64)], _bin())],
    since((1, 2), 10),
    "extended-precision-arithmetic-instructions-subc",
    "Subtract with borrow-in (and optionally write the borrow-out).",
    _EXT,
    examples=("subc.u32 %r1, %r2, %r3;",),
)

MADC = spec(
    "madc",
    [
        form(
            [req("mode", ("hi", "lo")), grp("cc", ("cc",)), req("type", _XTYPES, gates=_X64)],
            (dst(), src("a"), src("b"), src("c")),
        )
    ],
    since((3, 0), 20),
    "extended-precision-arithmetic-instructions-madc",
    "Multiply-add with carry-in (and optionally write the carry-out).",
    _EXT,
    examples=("madc.hi.cc.u32 %r1, %r2, %r3, %r4;",),
)

SPECS: tuple[InstructionSpec, ...] = (
    ADD,
    SUB,
    MUL,
    MAD,
    MUL24,
    MAD24,
    SAD,
    DIV,
    REM,
    ABS,
    NEG,
    MIN,
    MAX,
    POPC,
    CLZ,
    BFIND,
    FNS,
    BREV,
    BFE,
    BFI,
    SZEXT,
    BMSK,
    DP4A,
    DP2A,
    ADD_CC,
    ADDC,
    SUB_CC,
    SUBC,
    MADC,
)
"""The instructions of this family."""
