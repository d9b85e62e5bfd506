"""ptx.tcgen05: Blackwell tensor-core / Tensor Memory wrappers (one call = one instruction).

Each case traces a small kernel, compares the exact body lines and assembles the module with
ptxas for every listed target. sm_101a (renamed sm_110a in PTX 9.0) is traced but not
assembled: ptxas 13.x no longer accepts it as a GPU name.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path

import pytest
from dsl_testing import body

from pyptx import kernel, ptx, reg, smem
from pyptx.dsl.errors import PtxDslError
from pyptx.dsl.regs import Reg
from pyptx.types import b16, f32, pred, u8, u16, u32, u64

T05 = ("sm_100a", "sm_103a", "sm_110a")
"""Targets ptxas assembles every general tcgen05 case for."""
A100 = ("sm_100a",)
"""Cases pinned to PTX 8.7, which sm_103a (8.8) and sm_110a (9.0) predate."""
NOT_110 = ("sm_100a", "sm_103a")
"""The scale-input-d operand: sm_100a and its family (ptxas rejects it for sm_110a)."""
NOT_103 = ("sm_100a", "sm_110a")
""".kind::i8: sm_100a and sm_110a only (ptxas rejects it for sm_103a)."""


# --------------------------------------------------------------------------- cases


def alloc_shared() -> None:
    slot = smem.alloc(u32, 2, align=16)
    ptx.tcgen05.alloc(slot, 32)
    ptx.tcgen05.alloc(slot[1], reg.scalar(u32))


def alloc_register_addresses() -> None:
    ptx.tcgen05.alloc(reg.scalar(u32), 64)
    ptx.tcgen05.alloc(reg.scalar(u64), 512)
    ptx.tcgen05.alloc(ptx.addr(reg.scalar(u32), 8), 128)


def alloc_pair() -> None:
    slot = smem.alloc(u32, 1, align=16)
    ptx.tcgen05.alloc(slot, 256, cta_group=2)
    ptx.tcgen05.relinquish_alloc_permit(cta_group=2)
    ptx.tcgen05.dealloc(reg.scalar(u32), 256, cta_group=2)


def dealloc_single() -> None:
    t = reg.scalar(u32)
    ptx.tcgen05.relinquish_alloc_permit()
    ptx.tcgen05.dealloc(t, reg.scalar(u32))
    ptx.tcgen05.dealloc(t, 32, pred=reg.scalar(pred))


def mma_f16_desc() -> None:
    d, a, b = reg.scalar(u32), reg.scalar(u64), reg.scalar(u64)
    ptx.tcgen05.mma(d, a, b, 0x08200490, kind="f16", enable_input_d=reg.scalar(pred))
    ptx.tcgen05.mma(d, a, b, reg.scalar(u32), kind="f16", enable_input_d=True)


def mma_f16_lanes_scale() -> None:
    d, a, b, i = reg.scalar(u32), reg.scalar(u64), reg.scalar(u64), reg.scalar(u32)
    lanes = reg.array(u32, 4)
    p = reg.scalar(pred)
    ptx.tcgen05.mma(d, a, b, i, kind="f16", enable_input_d=p, disable_output_lane=lanes)
    ptx.tcgen05.mma(d, a, b, i, kind="tf32", enable_input_d=~p, scale_input_d=15)


def mma_pair_lanes() -> None:
    d, a, b, i = reg.scalar(u32), reg.scalar(u64), reg.scalar(u64), reg.scalar(u32)
    lanes = reg.array(u32, 8)
    ptx.tcgen05.mma(
        d, a, b, i, kind="f8f6f4", enable_input_d=False, cta_group=2, disable_output_lane=lanes
    )


def mma_a_tmem_collector() -> None:
    d, a, b, i = reg.scalar(u32), reg.scalar(u32), reg.scalar(u64), reg.scalar(u32)
    p = reg.scalar(pred)
    ptx.tcgen05.mma(d, a, b, i, kind="tf32", enable_input_d=p, collector="fill")
    ptx.tcgen05.mma(d, ptx.addr(a, 64), b, i, kind="f16", enable_input_d=p, collector="use")
    ptx.tcgen05.mma(d, a, b, i, kind="f8f6f4", enable_input_d=p, ashift=True)
    ptx.tcgen05.mma(d, a, b, i, kind="f16", enable_input_d=p, ashift=True, collector="lastuse")


def mma_i8() -> None:
    d, a, b, i = reg.scalar(u32), reg.scalar(u64), reg.scalar(u64), reg.scalar(u32)
    p = reg.scalar(pred)
    ptx.tcgen05.mma(d, a, b, i, kind="i8", enable_input_d=~p, collector="discard")
    ptx.tcgen05.mma(d, reg.scalar(u32), b, i, kind="i8", enable_input_d=p, ashift=True)


def mma_mxf8f6f4() -> None:
    d, a, b, i = reg.scalar(u32), reg.scalar(u64), reg.scalar(u64), reg.scalar(u32)
    sa, sb, p = reg.scalar(u32), reg.scalar(u32), reg.scalar(pred)
    ptx.tcgen05.mma(
        d, a, b, i, kind="mxf8f6f4", enable_input_d=p, scale_a=sa, scale_b=sb, scale_vec="1X"
    )
    ptx.tcgen05.mma(d, a, b, i, kind="mxf4", enable_input_d=p, scale_a=sa, scale_b=sb)
    ptx.tcgen05.mma(
        d, a, b, i, kind="mxf4", enable_input_d=p, scale_a=sa, scale_b=sb, scale_vec="2X"
    )


def mma_mxf4nvf4() -> None:
    d, a, b, i = reg.scalar(u32), reg.scalar(u32), reg.scalar(u64), reg.scalar(u32)
    sa, sb, p = reg.scalar(u32), reg.scalar(u32), reg.scalar(pred)
    ptx.tcgen05.mma(
        d, a, b, i, kind="mxf4nvf4", enable_input_d=p, scale_a=sa, scale_b=sb, scale_vec="4X"
    )


def mma_block_n() -> None:
    d, a, b, i = reg.scalar(u32), reg.scalar(u64), reg.scalar(u64), reg.scalar(u32)
    sa, sb, p = reg.scalar(u32), reg.scalar(u32), reg.scalar(pred)
    ptx.tcgen05.mma(
        d, a, b, i, kind="mxf4nvf4", enable_input_d=p, scale_a=sa, scale_b=sb,
        scale_vec="block16", collector="fill",
    )  # fmt: skip


def mma_sparse() -> None:
    d, a, b, i = reg.scalar(u32), reg.scalar(u64), reg.scalar(u64), reg.scalar(u32)
    meta, p = reg.scalar(u32), reg.scalar(pred)
    ptx.tcgen05.mma.sp(d, a, b, meta, i, kind="f16", enable_input_d=p)
    ptx.tcgen05.mma.sp(
        d, reg.scalar(u32), b, meta, i, kind="tf32", enable_input_d=p,
        disable_output_lane=reg.array(u32, 4), ashift=True,
    )  # fmt: skip


def mma_sparse_scaled() -> None:
    d, a, b, i = reg.scalar(u32), reg.scalar(u64), reg.scalar(u64), reg.scalar(u32)
    meta, sa, sb = reg.scalar(u32), reg.scalar(u32), reg.scalar(u32)
    ptx.tcgen05.mma.sp(
        d, a, b, meta, i, kind="mxf8f6f4", enable_input_d=True, scale_a=sa, scale_b=sb,
        scale_vec="block32", collector="fill",
    )  # fmt: skip


def mma_ws() -> None:
    d, a, b, i = reg.scalar(u32), reg.scalar(u64), reg.scalar(u64), reg.scalar(u32)
    p = reg.scalar(pred)
    ptx.tcgen05.mma.ws(d, a, b, i, kind="f16", enable_input_d=p)
    ptx.tcgen05.mma.ws(d, a, b, i, kind="tf32", enable_input_d=p, collector="use", buffer=2)
    ptx.tcgen05.mma.ws(
        d, reg.scalar(u32), b, i, kind="f8f6f4", enable_input_d=p,
        zero_column_mask=reg.scalar(u64), collector="fill",
    )  # fmt: skip
    ptx.tcgen05.mma.ws.sp(
        d, a, b, reg.scalar(u32), i, kind="f16", enable_input_d=p, collector="lastuse", buffer=3
    )


def mma_ws_i8() -> None:
    d, a, b, i = reg.scalar(u32), reg.scalar(u64), reg.scalar(u64), reg.scalar(u32)
    ptx.tcgen05.mma.ws(d, a, b, i, kind="i8", enable_input_d=False, collector="discard", buffer=1)


def ld_shapes() -> None:
    t = reg.scalar(u32)
    ptx.tcgen05.ld(reg.array(u32, 2), t, shape="32x32b", num=2)
    ptx.tcgen05.ld(reg.array(f32, 4), t, shape="16x64b", num="x4", pack=True)
    ptx.tcgen05.ld(reg.array(u32, 4), t, shape="16x128b", num=2)
    ptx.tcgen05.ld(reg.array(u32, 4), t, shape="16x256b", num=1)
    ptx.tcgen05.ld(reg.array(u32, 2), ptx.addr(t, 32), shape="16x32bx2", num=2,
                   half_split_offset=16)  # fmt: skip
    ptx.tcgen05.wait.ld()


def ld_max() -> None:
    t = reg.scalar(u32)
    ptx.tcgen05.ld(reg.array(f32, 128), t, shape="16x256b", num=32)
    ptx.tcgen05.ld(reg.array(u32, 128), t, shape="32x32b", num=128)


def st_shapes() -> None:
    t = reg.scalar(u32)
    ptx.tcgen05.st(t, reg.array(u32, 4), shape="16x64b", num=4)
    ptx.tcgen05.st(t, reg.array(u32, 2), shape="16x128b", num=1, unpack=True)
    ptx.tcgen05.st(t, reg.array(f32, 8), shape="16x32bx2", num=8, half_split_offset=64)
    ptx.tcgen05.st(t, reg.array(u32, 64), shape="32x32b", num=64)
    ptx.tcgen05.wait.st()


def cp_shapes() -> None:
    t, s = reg.scalar(u32), reg.scalar(u64)
    ptx.tcgen05.cp(t, s, shape="128x256b")
    ptx.tcgen05.cp(t, s, shape="4x256b")
    ptx.tcgen05.cp(t, s, shape="128x128b", src_fmt="b6x16_p32")
    ptx.tcgen05.cp(t, s, shape="64x128b", multicast="warpx2::02_13")
    ptx.tcgen05.cp(t, s, shape="64x128b", multicast="warpx2::01_23", dst_fmt="b8x16",
                   src_fmt="b4x16_p64")  # fmt: skip
    ptx.tcgen05.cp(t, s, shape="32x128b", multicast="warpx4")


def cp_pair() -> None:
    ptx.tcgen05.cp(reg.scalar(u32), reg.scalar(u64), shape="128x256b", cta_group=2)
    ptx.tcgen05.shift.down(reg.scalar(u32), cta_group=2)


def shift_fence_wait() -> None:
    p = reg.scalar(pred)
    ptx.tcgen05.shift.down(reg.scalar(u32))
    ptx.tcgen05.fence.before_thread_sync()
    ptx.tcgen05.fence.after_thread_sync(pred=p)
    ptx.tcgen05.wait.ld(pred=~p)
    ptx.tcgen05.wait.st()


def commit_forms() -> None:
    bar = smem.mbarrier(2)
    ptx.tcgen05.commit(bar[1])
    ptx.tcgen05.commit(reg.scalar(u64))
    ptx.tcgen05.commit(reg.scalar(u32), multicast_mask=0b11)
    ptx.tcgen05.commit(bar[0], multicast_mask=reg.scalar(u16), pred=reg.scalar(pred))


def commit_pair() -> None:
    bar = smem.mbarrier(1)
    ptx.tcgen05.commit(bar[0], cta_group=2, multicast_mask=reg.scalar(b16))


CaseSpec = tuple[Callable[[], None], tuple[str, ...], "tuple[int, int] | None", list[str]]

CASES: list[CaseSpec] = [
    (alloc_shared, T05, None, [
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [smem_0], 32;",
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [smem_0+4], %r0;",
    ]),
    (alloc_register_addresses, T05, None, [
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r0], 64;",
        "tcgen05.alloc.cta_group::1.sync.aligned.b32 [%rd0], 512;",
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1+8], 128;",
    ]),
    (alloc_pair, T05, None, [
        "tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [smem_0], 256;",
        "tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;",
        "tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r0, 256;",
    ]),
    (dealloc_single, T05, None, [
        "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
        "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r0, %r1;",
        "@%p0 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r0, 32;",
    ]),
    (mma_f16_desc, T05, None, [
        "tcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd1, 0x08200490, %p0;",
        "tcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd1, %r1, 1;",
    ]),
    (mma_f16_lanes_scale, NOT_110, None, [
        "tcgen05.mma.cta_group::1.kind::f16 [%r0], %rd0, %rd1, %r1, {%r2, %r3, %r4, %r5}, %p0;",
        "tcgen05.mma.cta_group::1.kind::tf32 [%r0], %rd0, %rd1, %r1, !%p0, 15;",
    ]),
    (mma_pair_lanes, T05, None, [
        "tcgen05.mma.cta_group::2.kind::f8f6f4 [%r0], %rd0, %rd1, %r1, "
        "{%r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9}, 0;",
    ]),
    (mma_a_tmem_collector, T05, None, [
        "tcgen05.mma.cta_group::1.kind::tf32.collector::a::fill [%r0], [%r1], %rd0, %r2, %p0;",
        "tcgen05.mma.cta_group::1.kind::f16.collector::a::use [%r0], [%r1+64], %rd0, %r2, %p0;",
        "tcgen05.mma.cta_group::1.kind::f8f6f4.ashift [%r0], [%r1], %rd0, %r2, %p0;",
        "tcgen05.mma.cta_group::1.kind::f16.ashift.collector::a::lastuse [%r0], [%r1], %rd0, "
        "%r2, %p0;",
    ]),
    (mma_i8, NOT_103, None, [
        "tcgen05.mma.cta_group::1.kind::i8.collector::a::discard [%r0], %rd0, %rd1, %r1, !%p0;",
        "tcgen05.mma.cta_group::1.kind::i8.ashift [%r0], [%r2], %rd1, %r1, %p0;",
    ]),
    (mma_mxf8f6f4, T05, None, [
        "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%r0], %rd0, %rd1, "
        "%r1, [%r2], [%r3], %p0;",
        "tcgen05.mma.cta_group::1.kind::mxf4.block_scale [%r0], %rd0, %rd1, %r1, [%r2], [%r3], "
        "%p0;",
        "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X [%r0], %rd0, %rd1, %r1, "
        "[%r2], [%r3], %p0;",
    ]),
    (mma_mxf4nvf4, A100, (8, 7), [
        "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X [%r0], [%r1], %rd0, "
        "%r2, [%r3], [%r4], %p0;",
    ]),
    (mma_block_n, T05, (9, 0), [
        "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16.collector::a::fill "
        "[%r0], %rd0, %rd1, %r1, [%r2], [%r3], %p0;",
    ]),
    (mma_sparse, T05, None, [
        "tcgen05.mma.sp.cta_group::1.kind::f16 [%r0], %rd0, %rd1, [%r2], %r1, %p0;",
        "tcgen05.mma.sp.cta_group::1.kind::tf32.ashift [%r0], [%r3], %rd1, [%r2], %r1, "
        "{%r4, %r5, %r6, %r7}, %p0;",
    ]),
    (mma_sparse_scaled, T05, (9, 0), [
        "tcgen05.mma.sp.cta_group::1.kind::mxf8f6f4.block_scale.block32.collector::a::fill "
        "[%r0], %rd0, %rd1, [%r2], %r1, [%r3], [%r4], 1;",
    ]),
    (mma_ws, T05, None, [
        "tcgen05.mma.ws.cta_group::1.kind::f16 [%r0], %rd0, %rd1, %r1, %p0;",
        "tcgen05.mma.ws.cta_group::1.kind::tf32.collector::b2::use [%r0], %rd0, %rd1, %r1, %p0;",
        "tcgen05.mma.ws.cta_group::1.kind::f8f6f4.collector::b0::fill [%r0], [%r2], %rd1, %r1, "
        "%p0, %rd2;",
        "tcgen05.mma.ws.sp.cta_group::1.kind::f16.collector::b3::lastuse [%r0], %rd0, %rd1, "
        "[%r3], %r1, %p0;",
    ]),
    (mma_ws_i8, NOT_103, None, [
        "tcgen05.mma.ws.cta_group::1.kind::i8.collector::b1::discard [%r0], %rd0, %rd1, %r1, 0;",
    ]),
    (ld_shapes, T05, None, [
        "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r0];",
        "tcgen05.ld.sync.aligned.16x64b.x4.pack::16b.b32 {%f0, %f1, %f2, %f3}, [%r0];",
        "tcgen05.ld.sync.aligned.16x128b.x2.b32 {%r3, %r4, %r5, %r6}, [%r0];",
        "tcgen05.ld.sync.aligned.16x256b.x1.b32 {%r7, %r8, %r9, %r10}, [%r0];",
        "tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {%r11, %r12}, [%r0+32], 16;",
        "tcgen05.wait::ld.sync.aligned;",
    ]),
    (ld_max, T05, None, [
        "tcgen05.ld.sync.aligned.16x256b.x32.b32 {"
        + ", ".join(f"%f{i}" for i in range(128))
        + "}, [%r0];",
        "tcgen05.ld.sync.aligned.32x32b.x128.b32 {"
        + ", ".join(f"%r{i}" for i in range(1, 129))
        + "}, [%r0];",
    ]),
    (st_shapes, T05, None, [
        "tcgen05.st.sync.aligned.16x64b.x4.b32 [%r0], {%r1, %r2, %r3, %r4};",
        "tcgen05.st.sync.aligned.16x128b.x1.unpack::16b.b32 [%r0], {%r5, %r6};",
        "tcgen05.st.sync.aligned.16x32bx2.x8.b32 [%r0], 64, "
        "{%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};",
        "tcgen05.st.sync.aligned.32x32b.x64.b32 [%r0], {"
        + ", ".join(f"%r{i}" for i in range(7, 71))
        + "};",
        "tcgen05.wait::st.sync.aligned;",
    ]),
    (cp_shapes, T05, None, [
        "tcgen05.cp.cta_group::1.128x256b [%r0], %rd0;",
        "tcgen05.cp.cta_group::1.4x256b [%r0], %rd0;",
        "tcgen05.cp.cta_group::1.128x128b.b8x16.b6x16_p32 [%r0], %rd0;",
        "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 [%r0], %rd0;",
        "tcgen05.cp.cta_group::1.64x128b.warpx2::01_23.b8x16.b4x16_p64 [%r0], %rd0;",
        "tcgen05.cp.cta_group::1.32x128b.warpx4 [%r0], %rd0;",
    ]),
    (cp_pair, T05, None, [
        "tcgen05.cp.cta_group::2.128x256b [%r0], %rd0;",
        "tcgen05.shift.cta_group::2.down [%r1];",
    ]),
    (shift_fence_wait, T05, None, [
        "tcgen05.shift.cta_group::1.down [%r0];",
        "tcgen05.fence::before_thread_sync;",
        "@%p0 tcgen05.fence::after_thread_sync;",
        "@!%p0 tcgen05.wait::ld.sync.aligned;",
        "tcgen05.wait::st.sync.aligned;",
    ]),
    (commit_forms, T05, None, [
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [mbar_0+8];",
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%rd0];",
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster"
        ".b64 [%r0], 3;",
        "@%p0 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster"
        ".multicast::cluster.b64 [mbar_0], %rs0;",
    ]),
    (commit_pair, T05, None, [
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster"
        ".b64 [mbar_0], %rs0;",
    ]),
]  # fmt: skip

CASE_IDS = [fn.__name__ for fn, *_ in CASES]
ASSEMBLE = [
    pytest.param(fn, arch, version, lines, id=f"{fn.__name__}-{arch}")
    for fn, archs, version, lines in CASES
    for arch in archs
]


def traced(
    fn: Callable[[], None], arch: str = "sm_100a", version: tuple[int, int] | None = None
) -> str:
    return kernel(arch=arch, version=version)(fn).ptx()


@pytest.mark.parametrize(("fn", "archs", "version", "lines"), CASES, ids=CASE_IDS)
def test_emits_exact_lines(
    fn: Callable[[], None], archs: tuple[str, ...], version: tuple[int, int] | None,
    lines: list[str],
) -> None:  # fmt: skip
    assert body(traced(fn, archs[0], version)) == [*lines, "ret;"]


@pytest.mark.parametrize(("fn", "arch", "version", "lines"), ASSEMBLE)
def test_assembles(
    fn: Callable[[], None], arch: str, version: tuple[int, int] | None, lines: list[str],
    assemble: Callable[[str], None],
) -> None:  # fmt: skip
    text = traced(fn, arch, version)
    assert body(text) == [*lines, "ret;"]
    assemble(text)


def test_block32_and_pair_on_sm_100a(assemble: Callable[[str], None]) -> None:
    def k() -> None:
        d, a, b, i = reg.scalar(u32), reg.scalar(u64), reg.scalar(u64), reg.scalar(u32)
        sa, sb = reg.scalar(u32), reg.scalar(u32)
        ptx.tcgen05.mma(
            d, a, b, i, kind="mxf8f6f4", enable_input_d=True, scale_a=sa, scale_b=sb,
            scale_vec="block32", cta_group=2, collector="lastuse",
        )  # fmt: skip

    text = traced(k, "sm_100a", (8, 8))
    assert body(text)[0] == (
        "tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.block32.collector::a::lastuse "
        "[%r0], %rd0, %rd1, %r1, [%r2], [%r3], 1;"
    )
    assemble(text)


def test_sm_101a_traces_like_sm_110a() -> None:
    """sm_101a (renamed sm_110a) emits the same tcgen05 text; ptxas 13.x has no sm_101a."""
    assert body(traced(mma_ws, "sm_101a")) == body(traced(mma_ws, "sm_110a"))


def test_one_instruction_per_call() -> None:
    text = traced(shift_fence_wait)
    assert len(body(text)) == 6  # five calls + the kernel's ret


def test_ptx_namespace_exports_tcgen05() -> None:
    assert "tcgen05" in ptx.__all__
    assert callable(ptx.tcgen05.mma) and callable(ptx.tcgen05.mma.ws)
    assert callable(ptx.tcgen05.mma.sp) and callable(ptx.tcgen05.mma.ws.sp)


PUBLIC_METHODS = [
    ptx.tcgen05.alloc, ptx.tcgen05.dealloc, ptx.tcgen05.relinquish_alloc_permit,
    ptx.tcgen05.ld, ptx.tcgen05.st, ptx.tcgen05.cp, ptx.tcgen05.commit,
    ptx.tcgen05.mma.__call__, ptx.tcgen05.mma.sp, ptx.tcgen05.mma.ws.__call__,
    ptx.tcgen05.mma.ws.sp, ptx.tcgen05.wait.ld, ptx.tcgen05.wait.st,
    ptx.tcgen05.fence.before_thread_sync, ptx.tcgen05.fence.after_thread_sync,
    ptx.tcgen05.shift.down,
]  # fmt: skip


@pytest.mark.parametrize("method", PUBLIC_METHODS, ids=lambda m: m.__qualname__)
def test_docstrings_link_the_isa_and_name_the_ptx(method: Callable[..., None]) -> None:
    doc = inspect.getdoc(method) or ""
    assert "https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen" in doc
    assert "tcgen05." in doc and "Emit" in doc


# --------------------------------------------------------------------------- targets


def test_wrappers_leave_target_checks_to_the_isa_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the ISA table the wrappers emit for any target: they never gate on arch."""
    import pyptx.dsl.validate as validate

    monkeypatch.setattr(validate, "check_instruction", lambda trace, insn: None)
    for arch in ("sm_90a", "sm_120a", "sm_80"):
        assert body(traced(shift_fence_wait, arch))[1] == "tcgen05.fence::before_thread_sync;"


def test_isa_table_rejects_tcgen05_before_blackwell() -> None:
    from pyptx.ir import isa

    if isa.lookup("tcgen05", ("fence::before_thread_sync",)) is None:
        pytest.skip("the ISA table has no tcgen05 entry yet")

    def k() -> None:
        ptx.tcgen05.fence.before_thread_sync()  # <- error

    err = _raises(k, "sm_90a")
    assert "sm_90a" in err.message


# --------------------------------------------------------------------------- errors


def _marked_line(fn: Callable[[], None]) -> int:
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, text in enumerate(lines) if "# <- error" in text)


def _raises(fn: Callable[[], None], arch: str = "sm_100a") -> PtxDslError:
    with pytest.raises(PtxDslError) as info:
        traced(fn, arch)
    err = info.value
    text = str(err)
    assert err.filename is not None and Path(err.filename).name == Path(__file__).name, text
    assert err.lineno == _marked_line(fn), text
    assert f"{Path(__file__).name}:{err.lineno}" in text
    assert "pyptx/dsl" not in text and "pyptx/ptx" not in text
    return err


def _dabi() -> tuple[Reg, Reg, Reg, Reg]:
    """D address, A descriptor, B descriptor, instruction descriptor registers."""
    return reg.scalar(u32), reg.scalar(u64), reg.scalar(u64), reg.scalar(u32)


def _ld_count() -> None:
    ptx.tcgen05.ld(reg.array(u32, 2), reg.scalar(u32), shape="32x32b", num=4)  # <- error


def _ld_too_many() -> None:
    ptx.tcgen05.ld(reg.array(u32, 128), reg.scalar(u32), shape="16x256b", num=64)  # <- error


def _ld_wide_register() -> None:
    ptx.tcgen05.ld([reg.scalar(u64)], reg.scalar(u32), shape="32x32b", num=1)  # <- error


def _ld_split_missing() -> None:
    ptx.tcgen05.ld(reg.array(u32, 1), reg.scalar(u32), shape="16x32bx2", num=1)  # <- error


def _st_split_extra() -> None:
    t = reg.scalar(u32)
    ptx.tcgen05.st(t, reg.array(u32, 1), shape="32x32b", num=1, half_split_offset=8)  # <- error


def _ld_bad_shape() -> None:
    ptx.tcgen05.ld(reg.array(u32, 1), reg.scalar(u32), shape="32x64b", num=1)  # <- error


def _st_bad_num() -> None:
    ptx.tcgen05.st(reg.scalar(u32), reg.array(u32, 3), shape="32x32b", num=3)  # <- error


def _ld_taddr_wide() -> None:
    ptx.tcgen05.ld(reg.array(u32, 1), reg.scalar(u64), shape="32x32b", num=1)  # <- error


def _pack_not_bool() -> None:
    ptx.tcgen05.ld(reg.array(u32, 1), reg.scalar(u32), shape="32x32b", num=1, pack=1)  # <- error


def _mixed_cta_group() -> None:
    ptx.tcgen05.relinquish_alloc_permit(cta_group=2)
    ptx.tcgen05.shift.down(reg.scalar(u32))  # <- error


def _bad_cta_group() -> None:
    ptx.tcgen05.fence.before_thread_sync()
    ptx.tcgen05.relinquish_alloc_permit(cta_group=4)  # <- error


def _ws_pair() -> None:
    ptx.tcgen05.mma.ws(*_dabi(), kind="f16", enable_input_d=True, cta_group=2)  # <- error


def _ws_scaled_kind() -> None:
    ptx.tcgen05.mma.ws(*_dabi(), kind="mxf4", enable_input_d=True)  # <- error


def _ws_buffer() -> None:
    kw = {"kind": "f16", "enable_input_d": True, "collector": "use"}
    ptx.tcgen05.mma.ws(*_dabi(), **kw, buffer=4)  # <- error


def _ws_buffer_alone() -> None:
    ptx.tcgen05.mma.ws(*_dabi(), kind="f16", enable_input_d=True, buffer=1)  # <- error


def _lanes_pair_count() -> None:
    kw = {"kind": "f16", "enable_input_d": True, "cta_group": 2}
    ptx.tcgen05.mma(*_dabi(), **kw, disable_output_lane=reg.array(u32, 4))  # <- error


def _scale_d_i8() -> None:
    ptx.tcgen05.mma(*_dabi(), kind="i8", enable_input_d=True, scale_input_d=1)  # <- error


def _scale_d_range() -> None:
    ptx.tcgen05.mma(*_dabi(), kind="f16", enable_input_d=True, scale_input_d=16)  # <- error


def _scaled_without_scales() -> None:
    ptx.tcgen05.mma(*_dabi(), kind="mxf8f6f4", enable_input_d=True)  # <- error


def _nvf4_without_vec() -> None:
    s = reg.scalar(u32)
    kw = {"kind": "mxf4nvf4", "enable_input_d": True}
    ptx.tcgen05.mma(*_dabi(), **kw, scale_a=s, scale_b=s)  # <- error


def _vec_wrong_kind() -> None:
    s = reg.scalar(u32)
    kw = {"kind": "mxf8f6f4", "enable_input_d": True, "scale_a": s, "scale_b": s}
    ptx.tcgen05.mma(*_dabi(), **kw, scale_vec="4X")  # <- error


def _scales_on_dense_kind() -> None:
    s = reg.scalar(u32)
    ptx.tcgen05.mma(*_dabi(), kind="f16", enable_input_d=True, scale_a=s, scale_b=s)  # <- error


def _lanes_on_scaled() -> None:
    s = reg.scalar(u32)
    kw = {"kind": "mxf4", "enable_input_d": True, "scale_a": s, "scale_b": s}
    ptx.tcgen05.mma(*_dabi(), **kw, disable_output_lane=reg.array(u32, 4))  # <- error


def _ashift_desc() -> None:
    ptx.tcgen05.mma(*_dabi(), kind="f16", enable_input_d=True, ashift=True)  # <- error


def _ashift_fill() -> None:
    d, a, b, i = reg.scalar(u32), reg.scalar(u32), reg.scalar(u64), reg.scalar(u32)
    kw = {"kind": "f16", "enable_input_d": True, "ashift": True}
    ptx.tcgen05.mma(d, a, b, i, **kw, collector="fill")  # <- error


def _bad_collector() -> None:
    ptx.tcgen05.mma(*_dabi(), kind="f16", enable_input_d=True, collector="keep")  # <- error


def _bad_kind() -> None:
    ptx.tcgen05.mma(*_dabi(), kind="bf16", enable_input_d=True)  # <- error


def _enable_not_pred() -> None:
    ptx.tcgen05.mma(*_dabi(), kind="f16", enable_input_d=reg.scalar(u32))  # <- error


def _a_float() -> None:
    d, b, i = reg.scalar(u32), reg.scalar(u64), reg.scalar(u32)
    ptx.tcgen05.mma(d, reg.scalar(f32), b, i, kind="f16", enable_input_d=True)  # <- error


def _d_wide() -> None:
    a, b, i = reg.scalar(u64), reg.scalar(u64), reg.scalar(u32)
    ptx.tcgen05.mma(reg.scalar(u64), a, b, i, kind="f16", enable_input_d=True)  # <- error


def _b_narrow() -> None:
    d, a, i = reg.scalar(u32), reg.scalar(u64), reg.scalar(u32)
    ptx.tcgen05.mma(d, a, reg.scalar(u32), i, kind="f16", enable_input_d=True)  # <- error


def _idesc_wide() -> None:
    d, a, b, _ = _dabi()
    ptx.tcgen05.mma(d, a, b, 1 << 32, kind="f16", enable_input_d=True)  # <- error


def _sp_meta_missing() -> None:
    d, a, b, i = _dabi()
    ptx.tcgen05.mma.sp(d, a, b, None, i, kind="f16", enable_input_d=True)  # <- error


def _alloc_cols() -> None:
    ptx.tcgen05.alloc(smem.alloc(u32, 1), 48)  # <- error


def _alloc_dst() -> None:
    ptx.tcgen05.alloc(reg.scalar(f32), 32)  # <- error


def _dealloc_wide() -> None:
    ptx.tcgen05.dealloc(reg.scalar(u64), 32)  # <- error


def _cp_needs_multicast() -> None:
    ptx.tcgen05.cp(reg.scalar(u32), reg.scalar(u64), shape="64x128b")  # <- error


def _cp_forbids_multicast() -> None:
    t, s = reg.scalar(u32), reg.scalar(u64)
    ptx.tcgen05.cp(t, s, shape="128x256b", multicast="warpx4")  # <- error


def _cp_bad_format() -> None:
    t, s = reg.scalar(u32), reg.scalar(u64)
    ptx.tcgen05.cp(t, s, shape="128x256b", src_fmt="b4x16")  # <- error


def _cp_dst_only() -> None:
    ptx.tcgen05.cp(reg.scalar(u32), reg.scalar(u64), shape="4x256b", dst_fmt="b8x16")  # <- error


def _commit_mask_range() -> None:
    ptx.tcgen05.commit(smem.mbarrier(1)[0], multicast_mask=0x10000)  # <- error


def _commit_mask_reg() -> None:
    ptx.tcgen05.commit(smem.mbarrier(1)[0], multicast_mask=reg.scalar(u32))  # <- error


def _commit_bad_target() -> None:
    ptx.tcgen05.commit(reg.scalar(u8))  # <- error


ERRORS: list[tuple[Callable[[], None], str]] = [
    # The ISA table's reasons (the validator prefixes the spelled mnemonic).
    (_ld_count, "operand 0 (r) expects a vector of 4 elements, but got 2"),
    (_ld_too_many, "modifier '.16x256b' is not valid for tcgen05.ld with .x64"),
    (_ld_wide_register, "operand 0 (r) expects a 32-bit register for .b32, but %rd0 is declared"),
    (_ld_split_missing, "expects 3 operands (r, taddr, immHalfSplitoff), but got 2"),
    (_st_split_extra, "expects 2 operands (taddr, r), but got 3"),
    (_ld_bad_shape, "unknown modifier '.32x64b' for tcgen05.ld"),
    (_st_bad_num, "unknown modifier '.x3' for tcgen05.st"),
    (_ld_taddr_wide, "operand 1 (taddr) expects a 32-bit register for .b32, but %rd0 is declared"),
    (_bad_cta_group, "unknown modifier '.cta_group::4' for tcgen05.relinquish_alloc_permit"),
    (_ws_pair, "unknown modifier '.cta_group::2' for tcgen05.mma.ws"),
    (_ws_scaled_kind, "unknown modifier '.kind::mxf4' for tcgen05.mma.ws"),
    (_ws_buffer, "unknown modifier '.collector::b4::use' for tcgen05.mma.ws"),
    (_lanes_pair_count, "operand 4 (disable-output-lane) expects a vector of 8 elements, but "
     "got 4"),
    (_scale_d_i8, "kind::i8 operand 4 (disable-output-lane) expects a vector, but got the "
     "immediate 1"),
    (_scale_d_range, "operand 5 (scale-input-d) must be one of 0, 1, 2"),
    (_scaled_without_scales, "expects 7 operands (d-tmem, a, b-desc, idesc, scale-A-tmem, "
     "scale-B-tmem, enable-input-d), but got 5"),
    (_nvf4_without_vec, "kind::mxf4nvf4.block_scale needs a .scale_vec modifier"),
    (_vec_wrong_kind, "modifier '.scale_vec::4X' is not valid for tcgen05.mma with "
     ".kind::mxf8f6f4"),
    (_scales_on_dense_kind, "kind::f16 operand 4 (disable-output-lane) expects a vector, but "
     "got the address [%r0]"),
    (_lanes_on_scaled, "kind::mxf4.block_scale expects 7 operands"),
    (_ashift_desc, "ashift operand 1 (a) expects an address, but got the register %rd0"),
    (_ashift_fill, "modifier '.ashift' is not valid for tcgen05.mma with .collector::a::fill"),
    (_bad_collector, "unknown modifier '.collector::a::keep' for tcgen05.mma"),
    (_bad_kind, "unknown modifier '.kind::bf16' for tcgen05.mma"),
    (_enable_not_pred, "operand 4 (enable-input-d) expects a .pred register"),
    (_a_float, "operand 1 (a) expects a 64-bit register for .b64, but %f0 is declared .f32"),
    (_d_wide, "operand 0 (d-tmem) expects a 32-bit register for .b32, but %rd2 is declared"),
    (_b_narrow, "operand 2 (b-desc) expects a 64-bit register for .b64, but %r2 is declared"),
    (_sp_meta_missing, "expects 6 to 8 operands (d-tmem, a, b-desc, sp-meta-tmem, idesc"),
    (_alloc_cols, "operand 1 (nCols) must be one of 32, 64, 128, 256, 512, but got 48"),
    (_dealloc_wide, "operand 0 (taddr) expects a 32-bit register for .b32, but %rd0 is declared"),
    (_cp_needs_multicast, "64x128b needs a .multicast modifier (one of .warpx2::02_13, "
     ".warpx2::01_23)"),
    (_cp_forbids_multicast, "modifier '.warpx4' is not valid for tcgen05.cp with .128x256b"),
    (_cp_bad_format, "unknown modifier '.b4x16' for tcgen05.cp"),
    (_cp_dst_only, "4x256b.b8x16 needs a .src_fmt modifier (one of .b6x16_p32, .b4x16_p64)"),
    (_commit_mask_reg, "operand 1 (ctaMask) expects a 16-bit register for .b16, but %r0 is "
     "declared"),
    # Python-level mistakes the wrappers still catch (no PTX to ask the table about).
    (_mixed_cta_group, "uses .cta_group::1, but this kernel already used .cta_group::2"),
    (_ws_buffer_alone, "buffer= needs collector="),
    (_idesc_wide, "idesc (the instruction descriptor) must fit in 32 unsigned bits"),
    (_alloc_dst, "dst must be a shared allocation, slice, mbarrier"),
    (_commit_mask_range, "multicast_mask must fit in 16 unsigned bits, got 0x10000"),
    (_commit_bad_target, "mbar must be a shared allocation, slice, mbarrier"),
    (_pack_not_bool, "pack must be True or False, got 1"),
]  # fmt: skip


@pytest.mark.parametrize(("fn", "fragment"), ERRORS, ids=[fn.__name__ for fn, _ in ERRORS])
def test_mistakes_raise_at_the_users_line(fn: Callable[[], None], fragment: str) -> None:
    err = _raises(fn)
    assert fragment in err.message, err.message


def test_mixed_cta_group_names_the_first_use() -> None:
    err = _raises(_mixed_cta_group)
    assert "tcgen05.relinquish_alloc_permit at " in err.message
    assert "pass cta_group=2" in err.message


def test_cta_group_is_per_kernel() -> None:
    """A second kernel may pick the other cta_group: the choice lives in the trace."""
    traced(alloc_pair)
    assert "cta_group::1" in traced(shift_fence_wait)
