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
    Gate,
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


_FLAG = ((0, 1),)
_SIGN = ((1, -1),)


def _ops(sparse: bool, scale: bool, trans: bool, regs: bool, sel: int) -> tuple[OperandSpec, ...]:
    """The operands of one form; ``regs``: A in four registers (no ``imm-trans-a`` then)."""
    a = (
        opd("a", VEC, "b32", count=4, doc="four registers of A")
        if regs
        else opd("a", REG, "b64", doc="a-desc, the matrix descriptor of A")
    )
    ops: list[OperandSpec] = [
        opd("d", VEC, "@dtype", width=Width.FRAGMENT, count=_acc),
        a,
        opd("b-desc", REG, "b64"),
    ]
    if sparse:
        ops += [src("sp-meta", "b32"), opd("sp-sel", IMM, values=lambda _: ((*range(sel + 1),),))]
    ops.append(opd("scale-d", PRED | IMM, "pred", negatable=True, values=lambda _: _FLAG))
    if scale:
        ops += [opd(f"imm-scale-{x}", IMM, values=lambda _: _SIGN) for x in "ab"]
    if trans:
        ops += [opd(f"imm-trans-{x}", IMM, values=lambda _: _FLAG) for x in ("b" if regs else "ab")]
    return tuple(ops)


_Row = tuple[str, int, tuple[int, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...], Gate]
_ROWS: tuple[_Row, ...] = (
    ("f16", 16, _N_FLOAT, ("f16", "f32"), ("f16",), ("f16",), NO_GATE),
    ("bf16", 16, _N_FLOAT, ("f32",), ("bf16",), ("bf16",), NO_GATE),
    ("tf32", 8, _N_FLOAT, ("f32",), ("tf32",), ("tf32",), NO_GATE),
    ("fp8", 32, _N_FLOAT, ("f16", "f32"), ("e4m3", "e5m2"), ("e4m3", "e5m2"), NO_GATE),
    ("8-bit integer", 32, _N_INT, ("s32",), ("s8",), ("s8",), NO_GATE),
    ("8-bit integer", 32, _N_INT, ("s32",), ("u8",), ("u8",), NO_GATE),
    ("mixed 8-bit integer", 32, _N_INT, ("s32",), ("s8",), ("u8",), since((8, 4), 90)),
    ("mixed 8-bit integer", 32, _N_INT, ("s32",), ("u8",), ("s8",), since((8, 4), 90)),
    ("single bit", 256, _N_INT, ("s32",), ("b1",), ("b1",), NO_GATE),
)
"""(note, dense K, the N, D types, A types, B types, gate); each row has a form with A from a
descriptor and one with A in registers. Floating-point types take ``imm-scale-a/b``, f16 and
bf16 ``imm-trans-a/b``; only 8-bit integers take ``.satfinite``, only ``.b1`` ``.and.popc``,
which has no sparse form. The sparse selector is 0..1 for 16/32-bit types, else 0."""


def _forms(sparse: bool) -> list[Form]:
    forms = []
    for note, k, ns, dtype, atype, btype, gate in _ROWS:
        if sparse and note == "single bit":
            continue
        integer = dtype == ("s32",)
        sat = [grp("satfinite", ("satfinite",))] if "8-bit" in note else []
        bitop = [req("op", ("and",)), req("popc", ("popc",))] if note == "single bit" else []
        groups = [
            *_SYNC,
            req("shape", _shapes(k * (2 if sparse else 1), ns)),
            *sat,
            req("dtype", dtype),
            req("atype", atype),
            req("btype", btype),
            *bitop,
        ]
        trans = note in ("f16", "bf16")
        sel = 1 if k in (8, 16) else 0
        forms += [
            form(groups, _ops(sparse, not integer, trans, regs, sel), gate, note)
            for regs in (False, True)
        ]
    return forms


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
