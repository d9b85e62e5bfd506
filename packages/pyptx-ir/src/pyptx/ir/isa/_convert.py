"""Register-to-register data movement and conversion: ``mov``, ``shfl``, ``prmt``, ``cvt``."""

from __future__ import annotations

from ._common import (
    IMM,
    LABEL,
    NO_GATE,
    REG,
    SINK,
    SYM,
    VEC,
    InstructionSpec,
    Width,
    arch,
    dst,
    form,
    grp,
    opd,
    req,
    since,
    spec,
    src,
)
from ._model import Form, Gate, OperandKind, OperandSpec

__all__ = ["SPECS"]

_FAM = "data movement and conversion"

MOV_TYPES = (
    "pred", "b16", "b32", "b64", "b128", "u16", "u32", "u64", "s16", "s32", "s64",
    "f16", "f16x2", "bf16", "bf16x2", "f32", "f64",
)  # fmt: skip

MOV = spec(
    "mov",
    [
        form(
            [req("type", MOV_TYPES, gates={"b128": since((8, 3), 70)})],
            (
                opd("d", REG | VEC | SINK, "@type"),
                opd("a", REG | IMM | SYM | VEC | LABEL, "@type"),
            ),
        )
    ],
    NO_GATE,
    "data-movement-and-conversion-instructions-mov",
    "Copy a register, immediate, special register or symbol address; pack or unpack vectors.",
    _FAM,
    examples=("mov.u32 %r1, %tid.x;", "mov.b64 %rd1, {%r1, %r2};", "mov.u64 %rd1, smem;"),
)

_SHFL_MODES = ("up", "down", "bfly", "idx")

SHFL_SYNC = spec(
    "shfl.sync",
    [
        form(
            [req("mode", _SHFL_MODES), req("type", ("b32",))],
            (
                opd("d", REG | OperandKind.PRED_PAIR, "@type"),
                src("a"),
                src("b", "b32"),
                src("c", "b32"),
                src("membermask", "b32"),
            ),
        )
    ],
    since((6, 0), 30),
    "data-movement-and-conversion-instructions-shfl-sync",
    "Exchange a register across the lanes of a warp.",
    _FAM,
    examples=("shfl.sync.bfly.b32 %r1|%p1, %r2, 16, 31, -1;",),
)

SHFL = spec(
    "shfl",
    [
        form(
            [req("mode", _SHFL_MODES), req("type", ("b32",))],
            (
                opd("d", REG | OperandKind.PRED_PAIR, "@type"),
                src("a"),
                src("b", "b32"),
                src("c", "b32"),
            ),
        )
    ],
    since((3, 0), 30),
    "data-movement-and-conversion-instructions-shfl-deprecated",
    "Warp shuffle without a member mask (deprecated; not available on sm_70 and newer).",
    _FAM,
    examples=("shfl.bfly.b32 %r1, %r2, 16, 31;",),
)

PRMT = spec(
    "prmt",
    [
        form(
            [req("type", ("b32",)), grp("mode", ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16"))],
            (dst(), src("a"), src("b"), src("c")),
        )
    ],
    since((2, 0), 20),
    "data-movement-and-conversion-instructions-prmt",
    "Permute bytes from a pair of registers.",
    _FAM,
    examples=("prmt.b32 %r1, %r2, %r3, 0x3210;",),
)

# cvt ---------------------------------------------------------------------------------------

_IRND = ("rni", "rzi", "rmi", "rpi")
_FRND = ("rn", "rz", "rm", "rp")
_F8X2 = ("e4m3x2", "e5m2x2")
_F6X2 = ("e2m3x2", "e3m2x2")
_F4X2 = ("e2m1x2",)
_FP8 = since((7, 8), 89)  # PTX 8.1 on sm_89 itself; 7.8 is enough from sm_90 on
# fp6/fp4/ue8m0 conversions: sm_100a, sm_101a, sm_120a from PTX 8.6; their families from 8.8.
_NARROW = arch((8, 6), "sm_100f", "sm_110f", "sm_120f")
_NARROW_GATES = {t: _NARROW for t in (*_F6X2, *_F4X2)}
_NARROW_GATES.update({"e4m3x2": _FP8, "e5m2x2": _FP8})
_X4 = ("e4m3x4", "e5m2x4", "e2m3x4", "e3m2x4", "e2m1x4")
_STOCHASTIC = arch((8, 7), "sm_100f", "sm_110f")


_INTS = ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64")
_FLOATS = ("f16", "f32", "f64", "bf16")
_BF16_90 = since((7, 8), 90)
_BF16_ANY = {"bf16": _BF16_90}
_FTZ = grp("ftz", ("ftz",))
_SAT = grp("sat", ("sat",))
_RELU = grp("relu", ("relu",), gates={"relu": since((7, 0), 80)})
_SATFINITE = grp("satfinite", ("satfinite",), gates={"satfinite": since((8, 1), 70)})

# Float-to-float conversions by destination: (sources that narrow, that widen, that keep the
# width but change the format). Narrowing needs a rounding modifier, widening takes none.
_FLOAT_PAIRS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "f16": (("f32", "f64"), (), ("bf16",)),
    "bf16": (("f32", "f64"), (), ("f16",)),
    "f32": (("f64",), ("f16", "bf16"), ()),
    "f64": ((), ("f16", "f32", "bf16"), ()),
}
# bf16 from/to f32 came first (sm_80); the rest of bf16 with sm_90.
_PAIR_GATES = {
    ("bf16", "f32"): since((7, 0), 80),
    ("f32", "bf16"): since((7, 1), 80),
}


def _f32_gate(dtype: str) -> dict[str, Gate]:
    gate = _PAIR_GATES.get((dtype, "f32"))
    return {"f32": gate} if gate is not None else {}


def _scalar_forms() -> list[Form]:
    """Scalar conversions, one form per rounding rule (see the PTX ISA's cvt table)."""
    forms = [
        form([_SAT, req("dtype", _INTS), req("atype", _INTS)], _cvt(), note="integer"),
        form(
            [
                req("rnd", _IRND),
                _FTZ,
                _SAT,
                req("dtype", _INTS),
                req("atype", _FLOATS, gates=_BF16_ANY),
            ],
            _cvt(),
            note="float to integer",
        ),
        form(
            [
                req("rnd", _FRND),
                _FTZ,
                _SAT,
                req("dtype", _FLOATS, gates=_BF16_ANY),
                req("atype", _INTS),
            ],
            _cvt(),
            note="integer to float",
        ),
    ]
    for dtype in _FLOAT_PAIRS:
        forms += _to_float_forms(dtype)
    return forms


def _to_float_forms(dtype: str) -> list[Form]:
    """Float-to-float conversions into ``dtype``, by how the source's width compares.

    f16/bf16 from f32 also have a ``.relu``/``.satfinite`` form (``.rn``/``.rz``, no
    ``.ftz``/``.sat``), and every float type an integral rounding into itself.
    """
    narrow, wide, same_size = _FLOAT_PAIRS[dtype]
    forms = []
    for sources, rnd in ((narrow, req("rnd", _FRND)), (wide, None), (same_size, grp("rnd", _FRND))):
        flags = [] if sources is same_size else [_FTZ, _SAT]
        gates = {a: _PAIR_GATES.get((dtype, a), _BF16_90) for a in sources if "bf16" in (a, dtype)}
        if sources:
            forms.append(
                form(
                    [
                        *([rnd] if rnd else []),
                        *flags,
                        req("dtype", (dtype,)),
                        req("atype", sources, gates=gates),
                    ],
                    _cvt(),
                    note=f"to {dtype}",
                )
            )
    if dtype in ("f16", "bf16"):
        relu = [req("rnd", ("rn", "rz")), _RELU, _SATFINITE, req("dtype", (dtype,))]
        atype = req("atype", ("f32",), gates=_f32_gate(dtype))
        forms.append(form([*relu, atype], _cvt(), note=f"f32 to {dtype}, .relu/.satfinite"))
    forms.append(
        form(
            [grp("rnd", _IRND), _FTZ, _SAT, req("dtype", (dtype,)), req("atype", (dtype,))],
            _cvt(),
            _BF16_90 if dtype == "bf16" else NO_GATE,
            f"{dtype} to an integral {dtype}",
        )
    )
    return forms


def _cvt(d: str = "@dtype", a: str = "@atype") -> tuple[OperandSpec, OperandSpec]:
    return (
        opd("d", REG, d, width=Width.AT_LEAST),
        opd("a", REG | IMM, a, width=Width.AT_LEAST),
    )


CVT = spec(
    "cvt",
    [
        *_scalar_forms(),
        form(
            [
                req("rnd", ("rna",)),
                grp("satfinite", ("satfinite",), gates={"satfinite": since((8, 1), 80)}),
                req("dtype", ("tf32",)),
                req("atype", ("f32",)),
            ],
            _cvt(),
            since((7, 0), 80),
            "to tf32, round to nearest away",
        ),
        form(
            [
                req("rnd", ("rn", "rz")),
                grp("satfinite", ("satfinite",), gates={"satfinite": since((8, 6), 100)}),
                grp("relu", ("relu",)),
                req("dtype", ("tf32",)),
                req("atype", ("f32",)),
            ],
            _cvt(),
            since((7, 8), 90),
            "to tf32",
        ),
        form(
            [
                req("rnd", ("rn", "rz")),
                grp("relu", ("relu",)),
                grp("satfinite", ("satfinite",)),
                req("dtype", ("f16x2", "bf16x2")),
                req("atype", ("f32",)),
            ],
            (*_cvt(), opd("b", REG | IMM, "@atype")),
            since((7, 0), 80),
            "pack two f32",
        ),
        form(
            [
                req("rnd", ("rn",)),
                req("satfinite", ("satfinite",)),
                grp("relu", ("relu",)),
                req("dtype", (*_F8X2, *_F6X2, *_F4X2), gates=_NARROW_GATES),
                req("atype", ("f32",)),
            ],
            (*_cvt(), opd("b", REG | IMM, "@atype")),
            note="pack two f32 into fp8/fp6/fp4",
        ),
        form(
            [
                req("rnd", ("rn",)),
                req("satfinite", ("satfinite",)),
                grp("relu", ("relu",)),
                req("dtype", _F8X2, gates={t: _FP8 for t in _F8X2}),
                req(
                    "atype",
                    ("f16x2", "bf16x2"),
                    gates={"bf16x2": arch((9, 1), "sm_100f", "sm_110f", "sm_120f")},
                ),
            ],
            _cvt(),
            note="f16x2 to fp8",
        ),
        form(
            [
                req("rnd", ("rn",)),
                grp("relu", ("relu",)),
                req("dtype", ("f16x2",)),
                req("atype", (*_F8X2, *_F6X2, *_F4X2), gates=_NARROW_GATES),
            ],
            _cvt(),
            note="fp8/fp6/fp4 to f16x2",
        ),
        form(
            [
                req("rnd", ("rz", "rp")),
                grp("satfinite", ("satfinite",)),
                req("dtype", ("ue8m0x2",)),
                req("atype", ("f32",)),
            ],
            (*_cvt(), opd("b", REG | IMM, "@atype")),
            _NARROW,
            "pack two f32 into ue8m0",
        ),
        form(
            [
                req("rnd", ("rz", "rp")),
                grp("satfinite", ("satfinite",)),
                req("dtype", ("ue8m0x2",)),
                req("atype", ("bf16x2",)),
            ],
            _cvt(),
            _NARROW,
            "bf16x2 to ue8m0",
        ),
        form(
            [req("rnd", ("rn",)), req("dtype", ("bf16x2",)), req("atype", ("ue8m0x2",))],
            _cvt(),
            _NARROW,
            "ue8m0 to bf16x2",
        ),
        form(
            [
                req("rnd", ("rs",)),
                grp("relu", ("relu",)),
                grp("satfinite", ("satfinite",)),
                req("dtype", ("f16x2", "bf16x2")),
                req("atype", ("f32",)),
            ],
            (*_cvt(), opd("b", REG | IMM, "@atype"), opd("rbits", REG, "b32")),
            _STOCHASTIC,
            "stochastic rounding",
        ),
        form(
            [
                req("rnd", ("rs",)),
                grp("relu", ("relu",)),
                req("satfinite", ("satfinite",)),
                req("dtype", _X4),
                req("atype", ("f32",)),
            ],
            (
                opd("d", REG, "@dtype", width=Width.AT_LEAST),
                opd("a", VEC, "f32", count=4),
                opd("rbits", REG, "b32"),
            ),
            _STOCHASTIC,
            "stochastic rounding, four values",
        ),
    ],
    NO_GATE,
    "data-movement-and-conversion-instructions-cvt",
    "Convert between types (integer, float, half, tf32, fp8/fp6/fp4, ue8m0).",
    _FAM,
    examples=(
        "cvt.rn.f32.s32 %f1, %r1;",
        "cvt.u64.u32 %rd1, %r1;",
        "cvt.rn.f16x2.f32 %r1, %f1, %f2;",
    ),
)

CVT_PACK = spec(
    "cvt.pack",
    [
        form(
            [req("sat", ("sat",)), req("ctype", ("u16", "s16")), req("atype", ("s32",))],
            (dst("b32"), src("a", "s32"), src("b", "s32")),
            note="two 16-bit fields",
        ),
        form(
            [
                req("sat", ("sat",)),
                req("ctype", ("u8", "s8", "u4", "s4", "u2", "s2")),
                req("atype", ("s32",)),
                req("btype", ("b32",)),
            ],
            (dst("b32"), src("a", "s32"), src("b", "s32"), src("c", "b32")),
            note="packed into c",
        ),
    ],
    since((6, 5), 72),
    "data-movement-and-conversion-instructions-cvt-pack",
    "Convert and pack two 32-bit integers into narrower fields.",
    _FAM,
    examples=("cvt.pack.sat.u8.s32.b32 %r1, %r2, %r3, %r4;",),
)

SPECS: tuple[InstructionSpec, ...] = (MOV, SHFL_SYNC, SHFL, PRMT, CVT, CVT_PACK)
"""The instructions of this family."""
