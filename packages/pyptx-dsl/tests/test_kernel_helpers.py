"""The kernel-writing helpers (docs/guide/dsl-helpers.md): the exact PTX each emits, ptxas,
and the argument errors. The runs in the emulator of the ones with run-time meaning
(reductions, pipeline phases, fragment orders, the transposed epilogue store, kloop) need
pyptx-emu and pyptx-runtime, so they are in tests/test_kernel_helpers_emulated.py."""

from __future__ import annotations

import pytest
from dsl_testing import body, here, raises_at

from pyptx import Layout, PtxDslError, Tile, kernel, ptx, reg, smem
from pyptx.types import b32, bf16, f32, s32, u32, u64

# --------------------------------------------------------------------------- emulator


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


def test_kloop_lines(assemble) -> None:  # type: ignore[no-untyped-def]
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
