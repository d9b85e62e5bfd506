"""Atomic read-modify-write (``atom``) and reduction (``red``) on global and shared memory.

Both share one slot layout; ``atom`` returns the old value in ``d``, ``red`` has no result.
"""

from __future__ import annotations

from ._common import (
    IMM,
    REG,
    SCOPES,
    VEC,
    Form,
    InstructionSpec,
    addr,
    form,
    grp,
    opd,
    policy,
    req,
    since,
    spec,
    src,
)
from ._model import ModifierGroup, OperandSpec

__all__ = ["SPECS"]

_FAM = "parallel synchronization and communication"

_SEM = {s: since((6, 0), 70) for s in ("relaxed", "acquire", "release", "acq_rel")}
_SCOPE = {"cta": since((5, 0), 60), "gpu": since((5, 0), 60), "sys": since((5, 0), 60)}
_SCOPE["cluster"] = since((7, 8), 90)
_SPACE = {"shared::cta": since((7, 8), 90), "shared::cluster": since((7, 8), 90)}
_HINT = {"L2::cache_hint": since((7, 4), 80)}
_TYPES = ("b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64")
_TYPE_GATES = {"f64": since((5, 0), 60), "f32": since((2, 0), 20)}
_HALF = ("f16", "f16x2", "bf16", "bf16x2")
_HALF_GATES = {
    "f16": since((6, 3), 70),
    "f16x2": since((6, 0), 60),
    "bf16": since((7, 8), 90),
    "bf16x2": since((7, 8), 90),
}
_VEC = since((8, 1), 90)


def _head(ops: tuple[str, ...]) -> list[ModifierGroup]:
    return [
        grp("sem", ("relaxed", "acquire", "release", "acq_rel"), gates=_SEM),
        grp("scope", SCOPES, gates=_SCOPE),
        grp("space", ("global", "shared", "shared::cta", "shared::cluster"), gates=_SPACE),
        req("op", ops),
    ]


def _forms(atom: bool) -> list[Form]:
    hint = grp("cache_hint", ("L2::cache_hint",), gates=_HINT)
    out: list[OperandSpec] = [opd("d", REG | VEC, "@type", count="vec")] if atom else []
    a = addr("a")
    b = opd("b", REG | IMM | VEC, "@type", count="vec")
    plain_ops = ("and", "or", "xor", "add", "inc", "dec", "min", "max") + (
        ("exch",) if atom else ()
    )
    forms = [
        form(
            [*_head(plain_ops), hint, req("type", _TYPES, gates=_TYPE_GATES)],
            (*out, a, b, policy()),
            note="scalar",
        ),
        form(
            [
                *_head(("add", "min", "max")),
                req("noftz", ("noftz",)),
                hint,
                req("type", _HALF, gates=_HALF_GATES),
            ],
            (*out, a, b, policy()),
            note="half precision",
        ),
        form(
            [
                *_head(("add", "min", "max")),
                grp("noftz", ("noftz",)),
                hint,
                req("vec", ("v2", "v4", "v8")),
                req("type", ("f16", "bf16", "f16x2", "bf16x2", "f32")),
            ],
            (*out, a, b, policy()),
            _VEC,
            "vector",
        ),
    ]
    if atom:
        forms += [
            form(
                [
                    *_head(("cas",)),
                    hint,
                    req(
                        "type",
                        ("b16", "b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64", "b128"),
                        gates={"b16": since((6, 3), 70), "b128": since((8, 3), 90)},
                    ),
                ],
                (*out, a, b, src("c"), policy()),
                note="compare and swap",
            ),
            form(
                [*_head(("exch",)), hint, req("type", ("b128",))],
                (*out, a, b, policy()),
                since((8, 3), 90),
                "128-bit exchange",
            ),
        ]
    return forms


ATOM = spec(
    "atom",
    _forms(True),
    since((1, 1), 11),
    "parallel-synchronization-and-communication-instructions-atom",
    "Atomic read-modify-write; d receives the old value.",
    _FAM,
    examples=(
        "atom.global.add.u32 %r1, [%rd1], 1;",
        "atom.relaxed.gpu.global.cas.b32 %r1, [%rd1], %r2, %r3;",
        "atom.global.add.noftz.f16x2 %r1, [%rd1], %r2;",
    ),
)

RED = spec(
    "red",
    _forms(False),
    since((1, 2), 11),
    "parallel-synchronization-and-communication-instructions-red",
    "Atomic reduction into memory, without a result.",
    _FAM,
    examples=("red.global.add.s32 [%rd1], %r1;", "red.relaxed.gpu.global.max.u64 [%rd1], %rd2;"),
)

SPECS: tuple[InstructionSpec, ...] = (ATOM, RED)
"""The instructions of this family."""
