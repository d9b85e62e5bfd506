"""Floating-point instructions that have no integer form (``fma``, ``rcp``, ``ex2``, ...).

The float forms of ``add``, ``mul``, ``min`` and the like live with their integer forms in
:mod:`._arith`.
"""

from __future__ import annotations

from ._common import (
    NO_GATE,
    Form,
    InstructionSpec,
    dst,
    form,
    grp,
    pdst,
    req,
    since,
    spec,
    src,
)
from ._model import OperandSpec

__all__ = ["SPECS"]

_FAM = "floating point"
RND = ("rn", "rz", "rm", "rp")
_UN = (dst(), src("a"))
_F16 = since((4, 2), 53)
_BF16 = since((7, 0), 80)
_OOB = {"oob": since((8, 1), 90)}


def _fma_half_forms(ops: tuple[OperandSpec, ...]) -> list[Form]:
    """The ``.relu`` and ``.oob`` forms of fma on halves, and its mixed-precision form."""
    return [
        form(
            [
                req("rnd", ("rn",)),
                grp("ftz", ("ftz",)),
                req("relu", ("relu",)),
                req("type", ("f16", "f16x2")),
            ],
            ops,
            since((7, 0), 80),
            "f16 relu",
        ),
        form(
            [
                req("rnd", ("rn",)),
                grp("oob", ("oob",), gates=_OOB),
                grp("relu", ("relu",)),
                req("type", ("bf16", "bf16x2")),
            ],
            ops,
            _BF16,
            "bf16",
        ),
        form(
            [
                req("rnd", ("rn",)),
                req("oob", ("oob",)),
                grp("relu", ("relu",)),
                req("type", ("f16", "f16x2")),
            ],
            ops,
            since((8, 1), 90),
            "f16 oob",
        ),
        form(
            [
                req("rnd", RND),
                grp("sat", ("sat",)),
                req("dtype", ("f32",)),
                req("atype", ("f16", "bf16")),
            ],
            (dst("@dtype"), src("a", "@atype"), src("b", "@atype"), src("c", "@dtype")),
            since((8, 6), 100),
            "mixed precision",
        ),
    ]


def _fma_forms() -> list[Form]:
    ops = (dst(), src("a"), src("b"), src("c"))
    return [
        form(
            [req("rnd", RND), grp("ftz", ("ftz",)), grp("sat", ("sat",)), req("type", ("f32",))],
            ops,
            note="f32",
        ),
        form([req("rnd", RND), req("type", ("f64",))], ops, note="f64"),
        form(
            [req("rnd", RND), grp("ftz", ("ftz",)), req("type", ("f32x2",))],
            ops,
            since((8, 6), 100),
            "f32x2",
        ),
        form(
            [
                req("rnd", ("rn",)),
                grp("ftz", ("ftz",)),
                grp("sat", ("sat",)),
                req("type", ("f16", "f16x2")),
            ],
            ops,
            _F16,
            "f16",
        ),
        *_fma_half_forms(ops),
    ]


FMA = spec(
    "fma",
    _fma_forms(),
    since((1, 4), 20),
    "floating-point-instructions-fma",
    "Fused multiply-add, rounded once.",
    _FAM,
    examples=("fma.rn.f32 %f1, %f2, %f3, %f4;", "fma.rn.f16x2 %r1, %r2, %r3, %r4;"),
)

RCP = spec(
    "rcp",
    [
        form(
            [req("mode", ("approx",)), grp("ftz", ("ftz",)), req("type", ("f32",))],
            _UN,
            note="approximate",
        ),
        form([req("rnd", RND), grp("ftz", ("ftz",)), req("type", ("f32",))], _UN, note="f32"),
        form([req("rnd", RND), req("type", ("f64",))], _UN, note="f64"),
        form(
            [req("mode", ("approx",)), req("ftz", ("ftz",)), req("type", ("f64",))],
            _UN,
            since((2, 1), 20),
            "approximate f64",
        ),
    ],
    NO_GATE,
    "floating-point-instructions-rcp",
    "Reciprocal, 1/a.",
    _FAM,
    examples=("rcp.rn.f32 %f1, %f2;", "rcp.approx.ftz.f64 %fd1, %fd2;"),
)

SQRT = spec(
    "sqrt",
    [
        form(
            [req("mode", ("approx",)), grp("ftz", ("ftz",)), req("type", ("f32",))],
            _UN,
            note="approximate",
        ),
        form([req("rnd", RND), grp("ftz", ("ftz",)), req("type", ("f32",))], _UN, note="f32"),
        form([req("rnd", RND), req("type", ("f64",))], _UN, note="f64"),
    ],
    NO_GATE,
    "floating-point-instructions-sqrt",
    "Square root.",
    _FAM,
    examples=("sqrt.rn.f32 %f1, %f2;",),
)

RSQRT = spec(
    "rsqrt",
    [
        form([req("mode", ("approx",)), grp("ftz", ("ftz",)), req("type", ("f32", "f64"))], _UN),
    ],
    NO_GATE,
    "floating-point-instructions-rsqrt",
    "Reciprocal square root, 1/sqrt(a).",
    _FAM,
    examples=("rsqrt.approx.f32 %f1, %f2;",),
)


def _approx(name: str, summary: str, example: str) -> InstructionSpec:
    return spec(
        name,
        [form([req("mode", ("approx",)), grp("ftz", ("ftz",)), req("type", ("f32",))], _UN)],
        NO_GATE,
        f"floating-point-instructions-{name}",
        summary,
        _FAM,
        examples=(example,),
    )


SIN = _approx("sin", "Approximate sine.", "sin.approx.f32 %f1, %f2;")
COS = _approx("cos", "Approximate cosine.", "cos.approx.ftz.f32 %f1, %f2;")
LG2 = _approx("lg2", "Approximate base-2 logarithm.", "lg2.approx.f32 %f1, %f2;")

EX2 = spec(
    "ex2",
    [
        form(
            [req("mode", ("approx",)), grp("ftz", ("ftz",)), req("type", ("f32",))], _UN, note="f32"
        ),
        form(
            [req("mode", ("approx",)), req("type", ("f16", "f16x2"))], _UN, since((7, 0), 75), "f16"
        ),
        form(
            [req("mode", ("approx",)), req("ftz", ("ftz",)), req("type", ("bf16", "bf16x2"))],
            _UN,
            since((7, 8), 90),
            "bf16",
        ),
    ],
    NO_GATE,
    "floating-point-instructions-ex2",
    "Approximate base-2 exponential.",
    _FAM,
    examples=("ex2.approx.ftz.f32 %f1, %f2;",),
)

TANH = spec(
    "tanh",
    [
        form(
            [req("mode", ("approx",)), req("type", ("f32", "f16", "f16x2"))], _UN, note="f32, f16"
        ),
        form(
            [req("mode", ("approx",)), req("type", ("bf16", "bf16x2"))],
            _UN,
            since((7, 8), 90),
            "bf16",
        ),
    ],
    since((7, 0), 75),
    "floating-point-instructions-tanh",
    "Approximate hyperbolic tangent.",
    _FAM,
    examples=("tanh.approx.f32 %f1, %f2;",),
)

COPYSIGN = spec(
    "copysign",
    [form([req("type", ("f32", "f64"))], (dst(), src("a"), src("b")))],
    since((2, 0), 20),
    "floating-point-instructions-copysign",
    "Copy the sign of a onto b.",
    _FAM,
    examples=("copysign.f32 %f1, %f2, %f3;",),
)

TESTP = spec(
    "testp",
    [
        form(
            [
                req("op", ("finite", "infinite", "number", "notanumber", "normal", "subnormal")),
                req("type", ("f32", "f64")),
            ],
            (pdst(), src("a")),
        )
    ],
    since((2, 0), 20),
    "floating-point-instructions-testp",
    "Test a float for a property (finite, NaN, subnormal, ...).",
    _FAM,
    examples=("testp.notanumber.f32 %p1, %f1;",),
)

SPECS: tuple[InstructionSpec, ...] = (
    FMA,
    RCP,
    SQRT,
    RSQRT,
    SIN,
    COS,
    LG2,
    EX2,
    TANH,
    COPYSIGN,
    TESTP,
)
"""The instructions of this family."""
