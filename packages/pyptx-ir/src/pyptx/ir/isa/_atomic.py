"""Atomic read-modify-write (``atom``) and reduction (``red``) on global and shared memory.

Both share one slot layout; ``atom`` returns the old value in ``d``, ``red`` has no result.
Each operation takes its own types (:data:`_SCALAR`): the bit operations bit types, ``add``
unsigned, signed and float types, ``inc``/``dec`` only ``.u32``. The half-precision forms need
``.noftz``; the sm_90 vector forms work on ``.global`` memory only.
"""

from __future__ import annotations

from ._common import (
    IMM,
    NO_GATE,
    REG,
    SCOPES,
    VEC,
    Form,
    Gate,
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
_SPACES = ("global", "shared", "shared::cta", "shared::cluster")
_HINT = grp("cache_hint", ("L2::cache_hint",), gates={"L2::cache_hint": since((7, 4), 80)})
_TYPE_GATES = {
    "f64": since((5, 0), 60),
    "f32": since((2, 0), 20),
    "b16": since((6, 3), 70),
    "f16": since((6, 3), 70),
    "f16x2": since((6, 0), 60),
    "bf16": since((7, 8), 90),
    "bf16x2": since((7, 8), 90),
}
_HALF = ("f16", "f16x2", "bf16", "bf16x2")
_VEC = since((8, 1), 90)

_B128 = since((8, 3), 90)
_SCALAR: tuple[tuple[tuple[str, ...], tuple[str, ...], bool, Gate], ...] = (
    (("and", "or", "xor"), ("b32", "b64"), False, NO_GATE),
    (("cas",), ("b16", "b32", "b64"), False, NO_GATE),
    (("cas",), ("b128",), False, _B128),
    (("exch",), ("b32", "b64"), False, NO_GATE),
    (("exch",), ("b128",), False, _B128),
    (("add",), ("u32", "s32", "u64", "f32", "f64"), False, NO_GATE),
    (("inc", "dec"), ("u32",), False, NO_GATE),
    (("min", "max"), ("u32", "s32", "u64", "s64"), False, NO_GATE),
    (("add",), _HALF, True, NO_GATE),
)
"""The scalar forms: (operations, types, needs ``.noftz``, gate). ``cas`` takes a third
operand and no cache hint, and ``red`` has neither ``cas`` nor ``exch``; ``.L2::cache_hint``
applies to ``.global`` (or generic) addresses only; 128-bit ones at ``.sys`` scope need PTX
8.4. Half-precision min/max exist only as vector forms."""

_VECTOR: tuple[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], bool], ...] = (
    (("add",), ("v2", "v4"), ("f32",), False),
    (("add", "min", "max"), ("v2", "v4", "v8"), ("f16", "bf16"), True),
    (("add", "min", "max"), ("v2", "v4"), ("f16x2", "bf16x2"), True),
)
"""The vector forms (sm_90, ``.global``): (operations, vector sizes, types, needs ``.noftz``)."""
_NOFTZ = req("noftz", ("noftz",))


def _head(
    ops: tuple[str, ...], sems: tuple[str, ...], spaces: tuple[str, ...]
) -> list[ModifierGroup]:
    return [
        grp("sem", sems, gates=_SEM),
        grp("scope", SCOPES, gates=_SCOPE),
        grp("space", spaces, gates=_SPACE),
        req("op", ops),
    ]


def _forms(atom: bool) -> list[Form]:
    sems = ("relaxed", "acquire", "release", "acq_rel") if atom else ("relaxed", "release")
    out: list[OperandSpec] = [opd("d", REG | VEC, "@type", count="vec")] if atom else []
    ops = (*out, addr("a"), opd("b", REG | IMM | VEC, "@type", count="vec"), policy())
    forms = []
    for o, types, half, gate in _SCALAR:
        if not atom and o[0] in ("cas", "exch"):
            continue
        note = "compare and swap" if o == ("cas",) else "half precision" if half else "scalar"
        head, noftz = _head(o, sems, _SPACES), [_NOFTZ] if half else []
        if gate is _B128:
            head[1] = grp("scope", SCOPES, gates=_SCOPE | {"sys": since((8, 4), 90)})
        tail = [*noftz, req("type", types, gates=_TYPE_GATES)]
        if o == ("cas",):
            forms.append(form([*head, *tail], (*ops[:-1], src("c")), gate, note))
            continue
        forms.append(form([*head, *tail], ops[:-1], gate, note))
        head[2] = grp("space", ("global",))
        forms.append(form([*head, *noftz, _HINT, *tail[-1:]], ops, gate, f"{note}, cache hint"))
    for o, vecs, types, half in _VECTOR:
        groups = [*_head(o, sems, ("global",)), *((_NOFTZ,) if half else ()), _HINT]
        forms.append(form([*groups, req("vec", vecs), req("type", types)], ops, _VEC, "vector"))
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
