"""Warpgroup-level matrix instructions (``wgmma``, Hopper ``sm_90a`` only).

``wgmma.mma_async`` multiplies an M=64 by K tile of A (from shared memory through a 64-bit
descriptor, or from four registers per thread) by a K by N tile of B (descriptor) into an
accumulator held in registers: N/2 registers per thread for ``.f32``/``.s32`` accumulators,
N/4 for ``.f16``. K is fixed by the input type (16 for halves, 8 for tf32, 32 for 8-bit types,
256 for ``.b1``); the sparse form doubles it.
"""

from __future__ import annotations

from ._common import (
    IMM,
    NO_GATE,
    PRED,
    REG,
    VEC,
    Form,
    InstructionSpec,
    Width,
    arch,
    form,
    grp,
    imm,
    opd,
    req,
    since,
    spec,
    src,
)
from ._model import Modifiers, OperandSpec

__all__ = ["SPECS"]

_FAM = "asynchronous warpgroup-level matrix multiply-accumulate"
_A = "asynchronous-warpgroup-level-matrix-instructions-"
_SM90A = arch((8, 0), "sm_90a")
_SYNC = [req("sync", ("sync",)), req("aligned", ("aligned",))]

_N_FLOAT = tuple(range(8, 257, 8))
_N_INT = (8, 16, 24, *range(32, 257, 16))


def _shapes(k: int, ns: tuple[int, ...]) -> tuple[str, ...]:
    return tuple(f"m64n{n}k{k}" for n in ns)


def _acc(mods: Modifiers) -> int | None:
    """Accumulator registers per thread: N/2 for f32/s32, N/4 for f16."""
    shape = mods.get("shape")
    dtype = mods.get("dtype")
    if not shape or not dtype:
        return None
    n = int(shape[0].split("n")[1].split("k")[0])
    return n // 4 if dtype[0] == "f16" else n // 2


def _ops(sparse: bool, scale: bool, trans: bool) -> tuple[OperandSpec, ...]:
    ops: list[OperandSpec] = [
        opd("d", VEC, "@dtype", width=Width.FRAGMENT, count=_acc),
        opd("a", REG | VEC, count=None, doc="a-desc (b64) or four registers"),
        opd("b-desc", REG, "b64"),
    ]
    if sparse:
        ops += [src("sp-meta", "b32"), imm("sp-sel")]
    ops.append(opd("scale-d", PRED | IMM, negatable=True))
    if scale:
        ops += [imm("imm-scale-a"), imm("imm-scale-b")]
    if trans:
        ops += [imm("imm-trans-a", optional=True), imm("imm-trans-b")]
    return tuple(ops)


def _forms(sparse: bool) -> list[Form]:
    k2 = 2 if sparse else 1
    return [
        form(
            [
                *_SYNC,
                req("shape", _shapes(16 * k2, _N_FLOAT)),
                req("dtype", ("f16", "f32")),
                req("atype", ("f16",)),
                req("btype", ("f16",)),
            ],
            _ops(sparse, True, True),
            note="f16",
        ),
        form(
            [
                *_SYNC,
                req("shape", _shapes(16 * k2, _N_FLOAT)),
                req("dtype", ("f32",)),
                req("atype", ("bf16",)),
                req("btype", ("bf16",)),
            ],
            _ops(sparse, True, True),
            note="bf16",
        ),
        form(
            [
                *_SYNC,
                req("shape", _shapes(8 * k2, _N_FLOAT)),
                req("dtype", ("f32",)),
                req("atype", ("tf32",)),
                req("btype", ("tf32",)),
            ],
            _ops(sparse, True, False),
            note="tf32",
        ),
        form(
            [
                *_SYNC,
                req("shape", _shapes(32 * k2, _N_FLOAT)),
                req("dtype", ("f16", "f32")),
                req("atype", ("e4m3", "e5m2")),
                req("btype", ("e4m3", "e5m2")),
            ],
            _ops(sparse, True, False),
            note="fp8",
        ),
        *(
            form(
                [
                    *_SYNC,
                    req("shape", _shapes(32 * k2, _N_INT)),
                    req("dtype", ("s32",)),
                    req("atype", (a,)),
                    req("btype", (b,)),
                    grp("satfinite", ("satfinite",)),
                ],
                _ops(sparse, False, False),
                NO_GATE if a == b else since((8, 4), 90),
                "8-bit integer" if a == b else "mixed 8-bit integer",
            )
            for a, b in (("s8", "s8"), ("u8", "u8"), ("s8", "u8"), ("u8", "s8"))
        ),
    ] + (
        []
        if sparse
        else [
            form(
                [
                    *_SYNC,
                    req("shape", _shapes(256, _N_INT)),
                    req("dtype", ("s32",)),
                    req("atype", ("b1",)),
                    req("btype", ("b1",)),
                    req("op", ("and",)),
                    req("popc", ("popc",)),
                ],
                _ops(False, False, False),
                note="single bit",
            )
        ]
    )


WGMMA_MMA_ASYNC = spec(
    "wgmma.mma_async",
    _forms(False),
    _SM90A,
    _A + "wgmma-mma-async",
    "Warpgroup matrix multiply-accumulate, D = A*B + D (asynchronous).",
    _FAM,
    examples=(
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4},"
        " %rd1, %rd2, 1, 1, 1, 0, 0;",
    ),
)

WGMMA_MMA_ASYNC_SP = spec(
    "wgmma.mma_async.sp",
    _forms(True),
    arch((8, 2), "sm_90a"),
    _A + "wgmma-mma-async-sp",
    "Warpgroup sparse matrix multiply-accumulate (A is 2:4 structured sparse).",
    _FAM,
    examples=(
        "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f1, %f2, %f3, %f4},"
        " %rd1, %rd2, %r1, 0, 1, 1, 1, 0, 0;",
    ),
)

WGMMA_FENCE = spec(
    "wgmma.fence",
    [form(_SYNC, ())],
    _SM90A,
    _A + "wgmma-fence",
    "Order register accesses before the following wgmma.mma_async.",
    _FAM,
    examples=("wgmma.fence.sync.aligned;",),
)

WGMMA_COMMIT_GROUP = spec(
    "wgmma.commit_group",
    [form(_SYNC, ())],
    _SM90A,
    _A + "wgmma-commit-group",
    "Close the current group of wgmma.mma_async operations.",
    _FAM,
    examples=("wgmma.commit_group.sync.aligned;",),
)

WGMMA_WAIT_GROUP = spec(
    "wgmma.wait_group",
    [form(_SYNC, (imm("N"),))],
    _SM90A,
    _A + "wgmma-wait-group",
    "Wait until at most N wgmma groups are pending.",
    _FAM,
    examples=("wgmma.wait_group.sync.aligned 0;",),
)

SPECS: tuple[InstructionSpec, ...] = (
    WGMMA_MMA_ASYNC,
    WGMMA_MMA_ASYNC_SP,
    WGMMA_FENCE,
    WGMMA_COMMIT_GROUP,
    WGMMA_WAIT_GROUP,
)
"""The instructions of this family."""
