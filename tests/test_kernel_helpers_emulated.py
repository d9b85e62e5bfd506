"""The DSL's kernel helpers (docs/guide/dsl-helpers.md) do what they say when run.

Each kernel runs through pyptx.runtime in the emulator (numpy arrays in and out, the
shared-memory race checker on) and its result is compared with numpy: warp and block
reductions, the mbarrier pipeline's phases with the wgmma fragment order, the transposed
stmatrix epilogue, the mma.sync fragment order and ptx.kloop's trip counts. The emitted lines
and the argument errors are tested in packages/pyptx-dsl/tests/test_kernel_helpers.py; these
runs need pyptx-emu and pyptx-runtime, so they live with the cross-package tests.
"""

from __future__ import annotations

import numpy as np
import pytest

from pyptx import Layout, Tile, kernel, ptx, reg, smem
from pyptx.dsl.kernel import assemble
from pyptx.types import b32, bf16, f32, u32, u64

pytest.importorskip("pyptx.emu")
pytest.importorskip("pyptx.runtime")


def _assemble(text: str) -> None:
    """ptxas accepts ``text`` for its own .target (raises with ptxas's message otherwise)."""
    arch = next(ln.split()[1] for ln in text.splitlines() if ln.startswith(".target"))
    assemble(text, arch, "helpers")


BM, BN, BK, STAGES = 64, 16, 64, 2


A_STAGE, B_STAGE = BM * BK * 2, BN * BK * 2


def _pipelined_gemm(*, producer_phase: int = 1):  # type: ignore[no-untyped-def]
    """``A @ B.T`` for one 64 x 16 tile: a TMA producer thread and a consumer warpgroup
    running a 2-stage ``smem.mbarrier_pipeline`` over K / 64 k-tiles; each consumer thread
    writes its raw accumulator registers, which the test places with ``wgmma_acc_coords``.
    ``producer_phase=0`` is the classic bug (the producer waits for releases that never
    come)."""

    @kernel(
        in_specs=(
            Tile("M", "K", bf16, layout=Layout.TMA_128B, tma_box=(BM, BK)),
            Tile("N", "K", bf16, layout=Layout.TMA_128B, tma_box=(BN, BK)),
        ),
        out_specs=(Tile(128, BN // 2, f32),),
        grid=(1, 1, 1),
        block=(160, 1, 1),
        arch="sm_90a",
    )
    def pipelined_gemm(a, b, out):  # type: ignore[no-untyped-def]
        k_tiles = a.shape[1] // BK
        s_a = smem.wgmma_tile(bf16, (STAGES, BM, BK))
        s_b = smem.wgmma_tile(bf16, (STAGES, BN, BK))
        pipe = smem.mbarrier_pipeline(STAGES, consumer_arrivals=4)  # one per consumer warp
        tid = reg.from_(ptx.special.tid.x(), u32)
        with ptx.if_(tid == 0):
            pipe.init()
        ptx.bar.sync(0)  # the barriers are initialized before anyone waits on them
        with ptx.if_(tid == 128):  # the producer: one thread of warp 4
            state = ptx.pipeline(STAGES, phase=reg.scalar(u32, producer_phase))
            for kt in ptx.range_(0, k_tiles):
                stage, phase = state.advance()
                pipe.producer_acquire(stage, phase)
                bar = pipe.producer_commit(stage, A_STAGE + B_STAGE)
                dst_a, dst_b = reg.scalar(u32), reg.scalar(u32)
                ptx.mad(dst_a, stage, A_STAGE, smem.base(s_a), mode="lo")
                ptx.mad(dst_b, stage, B_STAGE, smem.base(s_b), mode="lo")
                ptx.tma.load_2d(dst=dst_a, src=a, row=0, col=kt << 6, mbar=bar)
                ptx.tma.load_2d(dst=dst_b, src=b, row=0, col=kt << 6, mbar=bar)
        with ptx.if_(tid < 128):  # the consumers: warpgroup 0
            acc = reg.wgmma_frag(BN)
            for r in acc:
                ptx.mov(r, 0.0)
            da0, db0 = ptx.wgmma.descriptor(s_a[0]), ptx.wgmma.descriptor(s_b[0])
            state = pipe.consumer_state()
            for _ in ptx.range_(0, k_tiles):
                stage, phase = state.advance()
                pipe.consumer_wait(stage, phase)
                da, db = reg.scalar(u64), reg.scalar(u64)  # descriptors count 16-byte units
                ptx.mad(da, stage, A_STAGE >> 4, da0, mode="wide")
                ptx.mad(db, stage, B_STAGE >> 4, db0, mode="wide")
                ptx.wgmma.fence()
                for kk in range(BK // 16):
                    step = 32 * kk >> 4
                    a_op, b_op = (da + step, db + step) if step else (da, db)
                    ptx.wgmma.mma_async(acc, a_op, b_op, dtype_a=bf16)
                ptx.wgmma.commit_group()
                ptx.wgmma.wait_group(0)  # the stage is read: hand it back
                pipe.consumer_release(stage, pred=(tid & 31) == 0)
            o = reg.scalar(u64)
            ptx.mad(o, tid, 4 * (BN // 2), out.ptr(), mode="wide")
            for i, r in enumerate(acc):
                ptx.st(ptx.addr(o, 4 * i), r, space="global")

    return pipelined_gemm


N_EPI, STRIDE = 32, 72


@kernel(
    out_specs=(Tile(N_EPI, STRIDE, bf16),),
    grid=(1, 1, 1),
    block=(128, 1, 1),
    arch="sm_90a",
)
def _epilogue_kernel(out, *, field="row"):  # type: ignore[no-untyped-def]
    """Fill an m64n32 accumulator with each register's row (or column), computed from the
    fragment order at trace time, store it transposed and copy the tile out."""
    tid = reg.from_(ptx.special.tid.x(), u32)
    lane, warp = tid & 31, tid >> 5
    r0, c0 = reg.scalar(u32), reg.scalar(u32)
    ptx.mad(r0, warp, 16, lane >> 2, mode="lo")  # wgmma_acc_base
    ptx.shl(c0, lane & 3, 1)
    acc = reg.wgmma_frag(N_EPI)
    for reg_i, (dr, dc) in zip(acc, ptx.wgmma_acc_offsets(N_EPI), strict=True):
        ptx.cvt(reg_i, (r0 + dr) if field == "row" else (c0 + dc), rnd="rn")
    c = smem.alloc(bf16, (N_EPI, STRIDE))
    for i in ptx.range_(tid, N_EPI * STRIDE // 2, 128):  # zero the padding too
        ptx.st(ptx.addr(smem.base(c) + (i << 2)), 0, space="shared", ty=u32)
    ptx.bar.sync(0)
    ptx.stmatrix_x4_trans_f32_bf16(frag=acc, smem_base=c, lane=tid, row_stride=STRIDE)
    ptx.bar.sync(0)
    for i in ptx.range_(tid, N_EPI * STRIDE // 2, 128):
        v = reg.scalar(u32)
        ptx.ld(v, ptx.addr(smem.base(c) + (i << 2)), space="shared")
        o = reg.scalar(u64)
        ptx.mad(o, i, 4, out.ptr(), mode="wide")
        ptx.st(ptx.addr(o), v, space="global")


@pytest.fixture
def emulate(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """``emulate(k, *arrays, **kw)``: run ``k`` through pyptx.runtime in the emulator, with
    the shared-memory race checker on; numpy arrays in and out."""
    monkeypatch.setenv("PYPTX_EMU_CHECK_RACES", "1")

    def run(k, *args, **kw):  # type: ignore[no-untyped-def]
        result = k(*args, **kw)
        results = result if isinstance(result, tuple) else (result,)
        return [np.asarray(r) for r in results]

    return run


@kernel(
    in_specs=(Tile(256, f32),),
    out_specs=(Tile(256, f32), Tile(256, f32), Tile(256, f32), Tile(256, f32)),
    grid=(1, 1, 1),
    block=(256, 1, 1),
    arch="sm_80",
)
def _reduce_kernel(x, quad_sum, block_sum, block_max, block_min):  # type: ignore[no-untyped-def]
    tid = reg.from_(ptx.special.tid.x(), u32)
    off = reg.scalar(u64)
    ptx.mul(off, tid, 4, mode="wide")
    v = reg.scalar(f32)
    ptx.ld(v, ptx.addr(x.ptr() + off), space="global")
    results = (
        ptx.warp.reduce_sum(ptx.mov(reg.scalar(f32), v), width=4),
        # one scratch buffer per reduction: reusing one would need a barrier in between
        ptx.block_reduce_sum(v, smem.alloc(f32, 8), warps=8, tid=tid),
        ptx.block_reduce_max(v, smem.alloc(f32, 8), warps=8, tid=tid),
        ptx.block_reduce_min(v, smem.alloc(f32, 8), warps=8),
    )
    for out, r in zip((quad_sum, block_sum, block_max, block_min), results, strict=True):
        ptx.st(ptx.addr(out.ptr() + off), r, space="global")


def test_reductions_in_the_emulator(emulate) -> None:  # type: ignore[no-untyped-def]
    # Small integers: every partial sum is exact in f32, whatever the order.
    x = np.random.default_rng(1).integers(-50, 50, 256).astype(np.float32)
    quad, total, high, low = emulate(_reduce_kernel, x)
    np.testing.assert_array_equal(quad, np.repeat(x.reshape(64, 4).sum(axis=1), 4))
    np.testing.assert_array_equal(total, np.full(256, x.sum(), np.float32))
    np.testing.assert_array_equal(high, np.full(256, x.max(), np.float32))
    np.testing.assert_array_equal(low, np.full(256, x.min(), np.float32))
    _assemble(_reduce_kernel.ptx())


def _bf16(x: np.ndarray) -> np.ndarray:
    ml_dtypes = pytest.importorskip("ml_dtypes")
    return x.astype(ml_dtypes.bfloat16)


def test_pipeline_phases_and_wgmma_fragment_order_in_the_emulator(emulate) -> None:  # type: ignore[no-untyped-def]
    # K = 256: four k-tiles through two stages, so both walkers wrap and flip their phase.
    rng = np.random.default_rng(2)
    a = rng.integers(-3, 4, (BM, 256)).astype(np.float32)  # exact in bf16 and in the sums
    b = rng.integers(-3, 4, (BN, 256)).astype(np.float32)
    k = _pipelined_gemm()
    (raw,) = emulate(k, _bf16(a), _bf16(b))
    c = np.full((BM, BN), np.nan, np.float32)
    for t in range(128):
        for i, (row, col) in enumerate(ptx.wgmma_acc_coords(BN, t)):
            c[row, col] = raw[t, i]
    np.testing.assert_array_equal(c, a @ b.T)
    _assemble(k.ptx(M=BM, N=BN, K=256))


def test_a_producer_starting_at_phase_0_deadlocks_in_the_emulator(emulate) -> None:  # type: ignore[no-untyped-def]
    emu = pytest.importorskip("pyptx.emu")
    a = np.ones((BM, 256), np.float32)
    b = np.ones((BN, 256), np.float32)
    with pytest.raises(emu.Deadlock):
        emulate(_pipelined_gemm(producer_phase=0), _bf16(a), _bf16(b))


def test_stmatrix_x4_trans_layout_in_the_emulator(emulate) -> None:  # type: ignore[no-untyped-def]
    def values(bits: np.ndarray) -> np.ndarray:
        return (bits.view(np.uint16).astype(np.uint32) << 16).view(np.float32)

    (rows,) = emulate(_epilogue_kernel, field="row")
    (cols,) = emulate(_epilogue_kernel, field="col")
    rows, cols = values(rows), values(cols)
    # smem[n * STRIDE + m] holds element (m, n): rows m along each line, the column n fixed.
    np.testing.assert_array_equal(rows[:, :64], np.tile(np.arange(64, dtype=np.float32), (32, 1)))
    np.testing.assert_array_equal(
        cols[:, :64], np.repeat(np.arange(32.0, dtype=np.float32), 64).reshape(32, 64)
    )
    assert not rows[:, 64:].any()  # the padding is untouched
    _assemble(_epilogue_kernel.ptx())


@kernel(
    in_specs=(Tile(32, 4, u32), Tile(32, 2, u32)),
    out_specs=(Tile(32, 4, f32),),
    grid=(1, 1, 1),
    block=(32, 1, 1),
    arch="sm_80",
)
def _mma_kernel(a_frag, b_frag, out):  # type: ignore[no-untyped-def]
    """One m16n8k16 bf16 mma.sync from fragments the host laid out; raw accumulators out."""
    lane = reg.from_(ptx.special.tid.x(), u32)
    a, b, d = reg.array(b32, 4), reg.array(b32, 2), reg.array(f32, 4)
    pa, pb, po = (reg.scalar(u64) for _ in range(3))
    ptx.mad(pa, lane, 16, a_frag.ptr(), mode="wide")
    ptx.mad(pb, lane, 8, b_frag.ptr(), mode="wide")
    ptx.mad(po, lane, 16, out.ptr(), mode="wide")
    ptx.ld(tuple(a), ptx.addr(pa), space="global")
    ptx.ld(tuple(b), ptx.addr(pb), space="global")
    for r in d:
        ptx.mov(r, 0.0)
    ptx.mma(d, a, b, d, shape="m16n8k16", dtype_a=bf16)
    ptx.st(ptx.addr(po), tuple(d), space="global")


def test_mma_fragment_order_in_the_emulator(emulate) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(3)
    a = rng.integers(-4, 5, (16, 16)).astype(np.float32)
    b = rng.integers(-4, 5, (16, 8)).astype(np.float32)
    # A and B fragments as the PTX ISA lays them out for m16n8k16 (.bf16, two per register).
    a_frag = np.zeros((32, 8), np.float32)
    b_frag = np.zeros((32, 4), np.float32)
    for ln in range(32):
        g, q = ln // 4, ln % 4
        for i in range(8):
            a_frag[ln, i] = a[g + 8 * ((i // 2) % 2), 2 * q + i % 2 + 8 * (i // 4)]
        for i in range(4):
            b_frag[ln, i] = b[2 * q + i % 2 + 8 * (i // 2), g]
    a_bits = _bf16(a_frag).view(np.uint32)
    b_bits = _bf16(b_frag).view(np.uint32)
    (raw,) = emulate(_mma_kernel, a_bits, b_bits)
    c = np.full((16, 8), np.nan, np.float32)
    for ln in range(32):
        for i, (row, col) in enumerate(ptx.mma_acc_coords("m16n8k16", ln)):
            c[row, col] = raw[ln, i]
    np.testing.assert_array_equal(c, a @ b)


@kernel(
    out_specs=(Tile(1, u32),),
    grid=(1, 1, 1),
    block=(1, 1, 1),
    raw_params=[("u32", "n")],
    arch="sm_80",
)
def _kloop_counter(out):  # type: ignore[no-untyped-def]
    """Counts the body's runs with a step of 3 (an unroll of 2: a main loop and one tail)."""
    count = reg.scalar(u32, 0)
    ptx.kloop(ptx.param("n"), unroll=2, body=lambda: ptx.add(count, count, 3))
    ptx.st(ptx.addr(out.ptr()), count, space="global")


@pytest.mark.parametrize("n", [0, 1, 2, 7])
def test_kloop_runs_its_body_n_times(emulate, n: int) -> None:  # type: ignore[no-untyped-def]
    (got,) = emulate(_kloop_counter, n)
    assert int(got[0]) == 3 * n
