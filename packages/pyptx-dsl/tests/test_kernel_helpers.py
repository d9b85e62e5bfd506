"""The kernel-writing helpers (docs/guide/dsl-helpers.md): the exact PTX each emits, ptxas,
and, for the ones with run-time meaning (reductions, pipeline phases, fragment orders, the
transposed epilogue store, kloop), a small kernel run in the emulator against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from dsl_testing import body, here, raises_at

from pyptx import Layout, PtxDslError, Tile, kernel, ptx, reg, smem
from pyptx.types import b32, bf16, f32, s32, u32, u64

# --------------------------------------------------------------------------- emulator


@pytest.fixture
def emulate(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """``emulate(k, *arrays, **kw)``: run ``k`` through pyptx.runtime in the emulator, with
    the shared-memory race checker on; numpy arrays in and out."""
    pytest.importorskip("pyptx.emu")
    pytest.importorskip("pyptx.runtime")
    monkeypatch.setenv("PYPTX_EMU_CHECK_RACES", "1")

    def run(k, *args, **kw):  # type: ignore[no-untyped-def]
        result = k(*args, **kw)
        results = result if isinstance(result, tuple) else (result,)
        return [np.asarray(r) for r in results]

    return run


# --------------------------------------------------------------------------- reductions


def test_warp_reduce_in_place(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        v = reg.scalar(f32)
        n = reg.scalar(s32)
        assert ptx.warp.reduce_sum(v, width=4) is v
        ptx.warp.reduce_max(n, width=2, membermask=0xFF)
        ptx.warp.reduce_min(v, width=2)

    assert body(k.ptx()) == [
        "shfl.sync.bfly.b32 %f1, %f0, 2, 7199, -1;",
        "add.f32 %f0, %f0, %f1;",
        "shfl.sync.bfly.b32 %f1, %f0, 1, 7199, -1;",
        "add.f32 %f0, %f0, %f1;",
        "shfl.sync.bfly.b32 %r1, %r0, 1, 7711, 255;",
        "max.s32 %r0, %r0, %r1;",
        "shfl.sync.bfly.b32 %f2, %f0, 1, 7711, -1;",
        "min.f32 %f0, %f0, %f2;",
        "ret;",
    ]
    assemble(k.ptx())


def test_block_reduce_lines(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        v = reg.scalar(u32)
        tid = reg.from_(ptx.special.tid.x(), u32)
        scratch = smem.alloc(u32, 4, name="scratch")
        total = ptx.block_reduce_sum(v, scratch, warps=4, tid=tid, barrier=1, threads=128)
        assert total.type is u32
        assert ptx.block_reduce_max(v, scratch, warps=1).name == "%r32"

    lines = body(k.ptx())
    butterfly = [
        "shfl.sync.bfly.b32 %r2, %r0, 16, 31, -1;",
        "add.u32 %r3, %r0, %r2;",
        "shfl.sync.bfly.b32 %r4, %r3, 8, 31, -1;",
        "add.u32 %r5, %r3, %r4;",
        "shfl.sync.bfly.b32 %r6, %r5, 4, 31, -1;",
        "add.u32 %r7, %r5, %r6;",
        "shfl.sync.bfly.b32 %r8, %r7, 2, 31, -1;",
        "add.u32 %r9, %r7, %r8;",
        "shfl.sync.bfly.b32 %r10, %r9, 1, 31, -1;",
        "add.u32 %r11, %r9, %r10;",
    ]
    assert lines[:25] == [
        "mov.u32 %r1, %tid.x;",
        *butterfly,
        "and.b32 %r12, %r1, 31;",
        "shr.u32 %r13, %r1, 5;",
        "mov.u32 %r14, scratch;",
        "mad.lo.u32 %r15, %r13, 4, %r14;",
        "setp.eq.u32 %p0, %r12, 0;",
        "@%p0 st.shared.u32 [%r15], %r11;",
        "bar.sync 1, 128;",
        "and.b32 %r17, %r12, 3;",
        "mad.lo.u32 %r16, %r17, 4, %r14;",
        "ld.shared.u32 %r18, [%r16];",
        "shfl.sync.bfly.b32 %r19, %r18, 2, 7199, -1;",
        "add.u32 %r20, %r18, %r19;",
        "shfl.sync.bfly.b32 %r21, %r20, 1, 7199, -1;",
        "add.u32 %r22, %r20, %r21;",
    ]
    assert lines[25:-1] == [ln.replace("add.u32", "max.u32") for ln in _renumber(butterfly, 21)]
    assemble(k.ptx())


def _renumber(lines: list[str], shift: int) -> list[str]:
    """The butterfly lines with every ``%rN`` (N >= 2) moved by ``shift``."""
    import re

    return [
        re.sub(r"%r(\d+)", lambda m: f"%r{int(m[1]) + shift if int(m[1]) >= 2 else m[1]}", ln)
        for ln in lines
    ]


def test_block_reduce_checks_its_arguments() -> None:
    @kernel(arch="sm_80")
    def small() -> None:
        v = reg.scalar(f32)
        ptx.block_reduce_sum(v, smem.alloc(f32, 2), warps=4)

    raises_at(small, [here() - 2], "needs 16 bytes of scratch for 4 warps")

    @kernel(arch="sm_80")
    def odd() -> None:
        v = reg.scalar(f32)
        ptx.block_reduce_sum(v, smem.alloc(f32, 8), warps=3)

    raises_at(odd, [here() - 2], "warps= the CTA's warp count, a power of two")

    @kernel(arch="sm_80")
    def wide() -> None:
        ptx.warp.reduce_sum(reg.scalar(u64))

    raises_at(wide, [here() - 2], "reduces a 32-bit register in place")


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


def test_reductions_in_the_emulator(emulate, assemble) -> None:  # type: ignore[no-untyped-def]
    # Small integers: every partial sum is exact in f32, whatever the order.
    x = np.random.default_rng(1).integers(-50, 50, 256).astype(np.float32)
    quad, total, high, low = emulate(_reduce_kernel, x)
    np.testing.assert_array_equal(quad, np.repeat(x.reshape(64, 4).sum(axis=1), 4))
    np.testing.assert_array_equal(total, np.full(256, x.sum(), np.float32))
    np.testing.assert_array_equal(high, np.full(256, x.max(), np.float32))
    np.testing.assert_array_equal(low, np.full(256, x.min(), np.float32))
    assemble(_reduce_kernel.ptx())


# --------------------------------------------------------------------------- pipeline


def test_pipeline_state_and_rings(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a", cluster=(2, 1, 1))
    def k() -> None:
        pipe = smem.mbarrier_pipeline(2, consumer_arrivals=4, name="pl")
        tid = reg.from_(ptx.special.tid.x(), u32)
        pipe.init()
        state = pipe.producer_state()
        stage, phase = state.advance()
        assert phase is state.phase and stage.type is u32
        pipe.producer_acquire(stage, phase)
        bar = pipe.producer_commit(stage, 1024)
        ptx.mbarrier.try_wait.parity(bar, phase)  # a slot is an address operand
        pipe.consumer_release(1)
        ring = ptx.mbarrier_array(smem.base(pipe.full.base), 8, 1)
        ring.at(stage).arrive_remote(tid, 2)
        pipe.empty[0].arrive_remote(tid)
        ptx.pipeline(3, cursor=tid)

    assert body(k.ptx()) == [
        "mov.u32 %r5, pl_empty;",  # an allocated ring's base, once, at the kernel start
        "mov.u32 %r7, pl_full;",
        "mov.u32 %r0, %tid.x;",
        "mbarrier.init.shared.b64 [pl_full], 1;",
        "mbarrier.init.shared.b64 [pl_empty], 4;",
        "mbarrier.init.shared.b64 [pl_full+8], 1;",
        "mbarrier.init.shared.b64 [pl_empty+8], 4;",
        "mov.u32 %r1, 1;",
        "mov.u32 %r2, 0;",
        "setp.eq.u32 %p0, %r2, 2;",
        "@%p0 xor.b32 %r1, %r1, 1;",
        "selp.u32 %r3, 0, %r2, %p0;",
        "add.u32 %r2, %r3, 1;",
        "mad.lo.u32 %r4, %r3, 8, %r5;",
        "$L__mbar_wait_0:",
        "mbarrier.try_wait.parity.shared.b64 %p1, [%r4], %r1;",
        "@!%p1 bra $L__mbar_wait_0;",
        "mad.lo.u32 %r6, %r3, 8, %r7;",
        "mbarrier.arrive.expect_tx.shared.b64 %rd0, [%r6], 1024;",
        "mbarrier.try_wait.parity.shared.b64 %p2, [%r6], %r1;",
        "mbarrier.arrive.shared.b64 %rd1, [pl_empty+8];",
        "mov.u32 %r8, pl_full;",
        "mad.lo.u32 %r9, %r3, 8, %r8;",
        "add.u32 %r10, %r9, 8;",
        "mapa.shared::cluster.u32 %r11, %r10, %r0;",
        "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r11], 2;",
        "mapa.shared::cluster.u32 %r12, pl_empty, %r0;",
        "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r12], 1;",
        "mov.u32 %r13, 0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_mbarrier_array_checks() -> None:
    @kernel(arch="sm_90a")
    def past_end() -> None:
        ptx.mbarrier_array(smem.mbarrier(2), 8, 2)

    raises_at(past_end, [here() - 2], "a ring of 2 mbarriers from byte 8 overruns")

    @kernel(arch="sm_90a")
    def no_count() -> None:
        ptx.mbarrier_array(reg.scalar(u32))

    raises_at(no_count, [here() - 2], "needs count= for a register or allocation base")

    @kernel(arch="sm_90a")
    def register_index() -> None:
        ptx.mbarrier_array(smem.mbarrier(2))[reg.scalar(u32)]  # type: ignore[index]

    raises_at(register_index, [here() - 2], r"for a register stage use \.at\(stage\)")


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


def _bf16(x: np.ndarray) -> np.ndarray:
    ml_dtypes = pytest.importorskip("ml_dtypes")
    return x.astype(ml_dtypes.bfloat16)


def test_pipeline_phases_and_wgmma_fragment_order_in_the_emulator(emulate, assemble) -> None:  # type: ignore[no-untyped-def]
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
    assemble(k.ptx(M=BM, N=BN, K=256))


def test_a_producer_starting_at_phase_0_deadlocks_in_the_emulator(emulate) -> None:  # type: ignore[no-untyped-def]
    emu = pytest.importorskip("pyptx.emu")
    a = np.ones((BM, 256), np.float32)
    b = np.ones((BN, 256), np.float32)
    with pytest.raises(emu.Deadlock):
        emulate(_pipelined_gemm(producer_phase=0), _bf16(a), _bf16(b))


# --------------------------------------------------------------------------- barriers, pointers


def test_named_barrier_and_pointers(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(in_specs=(Tile("N", f32), Tile("N", u32)), arch="sm_90a")
    def k(x, y) -> None:  # type: ignore[no-untyped-def]
        tid = reg.from_(ptx.sreg("%tid.x"), u32)
        group = ptx.named_barrier((tid >> 7) + 1, count=128)
        group.sync()
        group.arrive()
        ptx.named_barrier(0).sync()
        px, _py = ptx.global_ptrs(x, y)
        assert ptx.global_ptrs(x) == (px,)  # the same register: loaded once
        generic = reg.scalar(u64)
        ptx.global_ptr(generic)
        reg.from_(ptx.sreg("%cluster_ctarank"), u32)

    assert body(k.ptx(N=64)) == [
        "ld.param.u64 %rd0, [k_param_0];",
        "cvta.to.global.u64 %rd1, %rd0;",
        "ld.param.u64 %rd2, [k_param_1];",
        "cvta.to.global.u64 %rd3, %rd2;",
        "mov.u32 %r0, %tid.x;",
        "shr.u32 %r1, %r0, 7;",
        "add.u32 %r2, %r1, 1;",
        "bar.sync %r2, 128;",
        "bar.arrive %r2, 128;",
        "bar.sync 0;",
        "cvta.to.global.u64 %rd5, %rd4;",
        "mov.u32 %r3, %cluster_ctarank;",
        "ret;",
    ]
    assemble(k.ptx(N=64))


def test_named_barrier_and_sreg_errors() -> None:
    @kernel(arch="sm_80")
    def arrive_all() -> None:
        ptx.named_barrier(1).arrive()

    raises_at(arrive_all, [here() - 2], r"bar.arrive needs a thread count")

    @kernel(arch="sm_80")
    def bogus() -> None:
        ptx.sreg("%bogus")

    raises_at(bogus, [here() - 2], "ptx.sreg takes a PTX special register name")


# --------------------------------------------------------------------------- TMA


def test_tma_helpers(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(
        in_specs=(
            Tile("M", "K", bf16, layout=Layout.TMA_128B, tma_box=(64, 64)),
            Tile("M", "K", bf16, layout=Layout.TMA_128B, tma_box=(64, 64), tma_rank=3),
        ),
        cluster=(2, 1, 1),
        arch="sm_90a",
    )
    def k(a, a3) -> None:  # type: ignore[no-untyped-def]
        s = smem.alloc(bf16, (2, 64, 64), swizzle="128B", align=1024, name="s")
        bars = smem.mbarrier(2, name="bars")
        row = reg.from_(ptx.special.ctaid.x(), u32)
        col = reg.scalar(u32, 64)
        ptx.tma.load_2d(dst=s[0], src=a, row=row, col=0, mbar=bars[0])
        ptx.tma.load_2d(s[1], a.tma_desc(), coords=(col, row), mbar=bars[1])
        ptx.tma.load_3d(dst=s[0], src=a3, row=row, col=col, mbar=bars[0])
        ptx.tma.load_3d(dst=s[0], src=a3, row=row, col=128, mbar=bars[0])
        ptx.tma.load_2d_multicast(dst=s[0], src=a, row=row, col=0, mbar=bars[0], mask=3, issuer=1)
        ptx.tma.load_3d_multicast(dst=s[0], src=a3, coords=(0, row, 1), mbar=bars[0], mask=3)
        ptx.tma.store_2d(dst=a, src=s[0], row=row, col=col)
        ptx.tma.store_3d(dst=a3, src=s[1], row=row, col=col, chunk=32)

    lines = body(k.ptx(M=256, K=256))
    load, store = "cp.async.bulk.tensor", "cp.async.bulk.tensor"
    tail = "shared::cluster.global.tile.mbarrier::complete_tx::bytes"
    assert lines[4:] == [
        "mov.u32 %r0, %ctaid.x;",
        "mov.u32 %r1, 64;",
        f"{load}.2d.{tail} [s], [%rd1, {{0, %r0}}], [bars];",
        f"{load}.2d.{tail} [s+8192], [%rd1, {{%r1, %r0}}], [bars+8];",
        "shr.u32 %r2, %r1, 6;",
        f"{load}.3d.{tail} [s], [%rd3, {{0, %r0, %r2}}], [bars];",
        f"{load}.3d.{tail} [s], [%rd3, {{0, %r0, 2}}], [bars];",
        "mov.u32 %r3, %cluster_ctarank;",
        "setp.eq.u32 %p0, %r3, 1;",
        f"@%p0 {load}.2d.{tail}.multicast::cluster [s], [%rd1, {{0, %r0}}], [bars], 3;",
        f"{load}.3d.{tail}.multicast::cluster [s], [%rd3, {{0, %r0, 1}}], [bars], 3;",
        f"{store}.2d.global.shared::cta.tile.bulk_group [%rd1, {{%r1, %r0}}], [s];",
        "shr.u32 %r4, %r1, 5;",
        f"{store}.3d.global.shared::cta.tile.bulk_group [%rd3, {{0, %r0, %r4}}], [s+8192];",
        "ret;",
    ]
    assemble(k.ptx(M=256, K=256))


def test_tma_argument_errors() -> None:
    tile = Tile("M", "K", bf16, layout=Layout.TMA_128B, tma_box=(64, 64))

    @kernel(in_specs=(tile,), arch="sm_90a")
    def both(a) -> None:  # type: ignore[no-untyped-def]
        s, bars = smem.alloc(bf16, (64, 64)), smem.mbarrier(1)
        ptx.tma.load_2d(dst=s, src=a, row=0, col=0, coords=(0, 0), mbar=bars[0])

    raises_at(both, [here() - 2], "takes row=/col= or coords=, not both")

    @kernel(in_specs=(tile,), arch="sm_90a")
    def unaligned(a) -> None:  # type: ignore[no-untyped-def]
        s, bars = smem.alloc(bf16, (64, 64)), smem.mbarrier(1)
        ptx.tma.load_3d(dst=s, src=a, row=0, col=100, mbar=bars[0])

    raises_at(unaligned, [here() - 2], "col=100 is not a multiple of chunk=64")

    @kernel(in_specs=(tile,), arch="sm_90a")
    def no_barrier(a) -> None:  # type: ignore[no-untyped-def]
        ptx.tma.load_2d(dst=smem.alloc(bf16, (64, 64)), src=a, row=0, col=0)

    raises_at(no_barrier, [here() - 2], "needs mbar=")


# --------------------------------------------------------------------------- epilogue


def test_stmatrix_x4_trans_lines(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        acc = reg.wgmma_frag(16)
        tid = reg.from_(ptx.special.tid.x(), u32)
        c = smem.alloc(bf16, (16, 72), name="c")
        packs = [reg.scalar(b32) for _ in range(4)]
        ptx.stmatrix_x4_trans_f32_bf16(
            frag=acc, smem_base=c, lane=tid, row_stride=72, tmp_pack=packs
        )

    assert body(k.ptx()) == [
        "mov.u32 %r0, %tid.x;",
        "and.b32 %r6, %r0, 31;",
        "shr.u32 %r7, %r6, 4;",
        "and.b32 %r8, %r0, 8;",
        "mad.lo.u32 %r5, %r7, 576, %r8;",
        "and.b32 %r9, %r0, 7;",
        "mad.lo.u32 %r5, %r9, 72, %r5;",
        "shr.u32 %r10, %r0, 5;",
        "mad.lo.u32 %r5, %r10, 16, %r5;",
        "mov.u32 %r11, c;",
        "mad.lo.u32 %r12, %r5, 2, %r11;",
        "cvt.rn.bf16x2.f32 %r1, %f1, %f0;",
        "cvt.rn.bf16x2.f32 %r2, %f3, %f2;",
        "cvt.rn.bf16x2.f32 %r3, %f5, %f4;",
        "cvt.rn.bf16x2.f32 %r4, %f7, %f6;",
        "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%r12], {%r1, %r2, %r3, %r4};",
        "ret;",
    ]
    assemble(k.ptx())


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


def test_stmatrix_x4_trans_layout_in_the_emulator(emulate, assemble) -> None:  # type: ignore[no-untyped-def]
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
    assemble(_epilogue_kernel.ptx())


# --------------------------------------------------------------------------- fragment orders


def test_fragment_orders() -> None:
    # PTX ISA, "wgmma .m64nNk16 register fragment layout for accumulator matrix D".
    assert ptx.wgmma_acc_coords(16, 0) == (
        (0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9),
    )  # fmt: skip
    assert ptx.wgmma_acc_coords(8, 37) == ((17, 2), (17, 3), (25, 2), (25, 3))
    every = {rc for t in range(128) for rc in ptx.wgmma_acc_coords(64, t)}
    assert every == {(m, n) for m in range(64) for n in range(64)}
    # mma.sync m16n8k*: c0, c1 on row lane/4, c2, c3 eight rows down.
    assert ptx.mma_acc_coords("m16n8k16", 5) == ((1, 2), (1, 3), (9, 2), (9, 3))
    every = {rc for ln in range(32) for rc in ptx.mma_acc_coords("m16n8k8", ln)}
    assert every == {(m, n) for m in range(16) for n in range(8)}
    assert ptx.tcgen05_acc_coords(70, 4, col0=32) == ((70, 32), (70, 33), (70, 34), (70, 35))
    with pytest.raises(PtxDslError, match="multiple of 8"):
        ptx.wgmma_acc_coords(12, 0)
    with pytest.raises(PtxDslError, match="m16n8k"):
        ptx.mma_acc_offsets("m8n8k4")


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


# --------------------------------------------------------------------------- kloop


@kernel(
    out_specs=(Tile(1, u32),),
    grid=(1, 1, 1),
    block=(1, 1, 1),
    raw_params=[("u32", "n")],
    arch="sm_80",
)
def _kloop_kernel(out):  # type: ignore[no-untyped-def]
    count = reg.scalar(u32, 0)
    ptx.kloop(ptx.param("n"), unroll=4, body=lambda: ptx.add(count, count, 1))
    ptx.st(ptx.addr(out.ptr()), count, space="global")


def test_kloop_lines_and_trip_counts(emulate, assemble) -> None:  # type: ignore[no-untyped-def]
    lines = body(_kloop_kernel.ptx())
    assert lines[3:20] == [
        "mov.u32 %r0, 0;",
        "and.b32 %r2, %r1, 3;",
        "sub.u32 %r3, %r1, %r2;",
        "setp.ne.u32 %p0, %r3, 0;",
        "@!%p0 bra $L__kloop_end_0;",
        "$L__kloop_0:",
        *["add.u32 %r0, %r0, 1;"] * 4,
        "sub.u32 %r3, %r3, 4;",
        "setp.ne.u32 %p1, %r3, 0;",
        "@%p1 bra $L__kloop_0;",
        "$L__kloop_end_0:",
        "setp.gt.u32 %p2, %r2, 0;",
        "@!%p2 bra $L__endif_0;",
        "add.u32 %r0, %r0, 1;",
    ]
    assemble(_kloop_kernel.ptx())
    for n in (0, 3, 4, 9):
        (got,) = emulate(_kloop_kernel, n)
        assert int(got[0]) == n


# --------------------------------------------------------------------------- the table


def test_multi_instruction_table_lists_the_helpers() -> None:
    for name in (
        "ptx.warp.reduce_sum",
        "ptx.block_reduce_max",
        "PipelineState.advance",
        "MbarrierPipeline.producer_commit",
        "BarrierSlot.arrive_remote",
        "ptx.stmatrix_x4_trans_f32_bf16",
        "ptx.tma.load_*_multicast (int issuer)",
    ):
        assert name in ptx.MULTI_INSTRUCTION_HELPERS, name
    assert "@p xor.b32 phase, phase, 1" in ptx.MULTI_INSTRUCTION_HELPERS["PipelineState.advance"]
