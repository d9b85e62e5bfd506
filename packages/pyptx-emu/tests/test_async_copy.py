"""Asynchronous copies: cp.async groups, bulk copies and reductions, st/red.async, st.bulk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from emu_testing import checked_module
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from reduce_reference import FORMATS, ref_float, ref_int

from pyptx.emu import EmuError, OutOfBounds, launch

DATA = Path(__file__).parent / "data" / "async"


def _checked(body: str, params: tuple[str, ...], target: str = "sm_90a", **kw: Any) -> str:
    return checked_module(body, params, target, **kw)


IO = (".param .u64 src", ".param .u64 out")

HEAD = """
	.reg .pred %p<8>;
	.reg .b16 %rs<4>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<20>;
	ld.param.u64 %rd1, [src];
	ld.param.u64 %rd2, [out];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r1, %tid.x;
"""

# --------------------------------------------------------------------------------- cp.async


@pytest.mark.parametrize(("cop", "size"), [("ca", 4), ("ca", 8), ("ca", 16), ("cg", 16)])
def test_cp_async_lands_at_the_wait_not_before(cop: str, size: int) -> None:
    # Each thread fills its slot with 0xAB bytes, issues a copy over it, reads the slot
    # before waiting (the old bytes), waits, and reads it again (the copied bytes).
    words = size // 4
    body = (
        HEAD
        + f"""
	.shared .align 16 .b8 buf[{32 * size}];
	mov.u32 %r2, buf;
	mad.lo.u32 %r3, %r1, {size}, %r2;
	mul.wide.u32 %rd3, %r1, {size};
	add.s64 %rd4, %rd1, %rd3;
	mov.u32 %r4, 0xABABABAB;
"""
        + "".join(f"\tst.shared.u32 [%r3+{4 * w}], %r4;\n" for w in range(words))
        + f"""
	cp.async.{cop}.shared.global [%r3], [%rd4], {size};
	ld.shared.u32 %r5, [%r3];
	cp.async.commit_group;
	cp.async.wait_group 0;
	ld.shared.u32 %r6, [%r3];
	mul.wide.u32 %rd5, %r1, 8;
	add.s64 %rd6, %rd2, %rd5;
	st.global.v2.u32 [%rd6], {{%r5, %r6}};
	ret;
"""
    )
    src = (np.arange(32 * words, dtype=np.uint64) * 2654435761 % 2**32).astype(np.uint32)
    out = np.zeros((32, 2), np.uint32)
    launch(_checked(body, IO), grid=1, block=32, args=[src.astype(np.uint32), out])
    np.testing.assert_array_equal(out[:, 0], 0xABABABAB)
    np.testing.assert_array_equal(out[:, 1], src.reshape(32, words)[:, 0])


def test_wait_group_n_completes_all_but_the_newest_groups() -> None:
    body = (
        HEAD
        + """
	.shared .align 16 .b32 buf[4];
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	mov.u32 %r2, buf;
	st.shared.v4.u32 [%r2], {%r1, %r1, %r1, %r1};
	cp.async.ca.shared.global [%r2], [%rd1], 4;
	cp.async.commit_group;
	cp.async.ca.shared.global [%r2+4], [%rd1+4], 4;
	cp.async.commit_group;
	cp.async.ca.shared.global [%r2+8], [%rd1+8], 4;
	cp.async.commit_group;
	cp.async.ca.shared.global [%r2+12], [%rd1+12], 4;
	cp.async.wait_group 1;
	ld.shared.v4.u32 {%r3, %r4, %r5, %r6}, [%r2];
	st.global.v4.u32 [%rd2], {%r3, %r4, %r5, %r6};
	cp.async.wait_all;
	ld.shared.v4.u32 {%r3, %r4, %r5, %r6}, [%r2];
	st.global.v4.u32 [%rd2+16], {%r3, %r4, %r5, %r6};
DONE:
	ret;
"""
    )
    src = np.array([11, 22, 33, 44], np.uint32)
    out = np.full(8, 99, np.uint32)
    launch(_checked(body, IO), grid=1, block=32, args=[src, out])
    # wait_group 1: groups 1 and 2 done, group 3 (newest committed) and the uncommitted
    # fourth copy still pending; wait_all: everything.
    np.testing.assert_array_equal(out, [11, 22, 0, 0, 11, 22, 33, 44])


@pytest.mark.parametrize("form", ["src-size", "ignore-src"])
def test_zero_fill_reads_only_the_source_bytes_asked_for(form: str) -> None:
    # Thread t reads min(t, 16) bytes; thread 0 reads nothing from an address past the end
    # (legal, since no byte is read) and gets zeros.
    if form == "src-size":
        size_setup = """
	min.u32 %r5, %r1, 16;
	setp.eq.u32 %p2, %r1, 0;
	@%p2 add.s64 %rd4, %rd1, 4096;
	cp.async.cg.shared.global [%r3], [%rd4], 16, %r5;"""
    else:
        size_setup = """
	and.b32 %r5, %r1, 1;
	setp.eq.u32 %p2, %r5, 1;
	cp.async.ca.shared.global [%r3], [%rd4], 16, %p2;"""
    body = (
        HEAD
        + f"""
	.shared .align 16 .b8 buf[512];
	mov.u32 %r2, buf;
	mad.lo.u32 %r3, %r1, 16, %r2;
	mul.wide.u32 %rd3, %r1, 16;
	add.s64 %rd4, %rd1, %rd3;
	mov.u32 %r4, 0xFFFFFFFF;
	st.shared.v4.u32 [%r3], {{%r4, %r4, %r4, %r4}};
{size_setup}
	cp.async.wait_all;
	ld.shared.v4.u32 {{%r6, %r7, %r8, %r9}}, [%r3];
	add.s64 %rd5, %rd2, %rd3;
	st.global.v4.u32 [%rd5], {{%r6, %r7, %r8, %r9}};
	ret;
"""
    )
    src = (np.arange(512) % 251 + 1).astype(np.uint8)
    out = np.zeros(512, np.uint8)
    launch(_checked(body, IO), grid=1, block=32, args=[src, out])
    want = src.reshape(32, 16).copy()
    t = np.arange(32)
    if form == "src-size":
        keep = np.minimum(t, 16)
        want[np.arange(16)[None, :] >= keep[:, None]] = 0
    else:
        want[t % 2 == 1] = 0
    np.testing.assert_array_equal(out.reshape(32, 16), want)


def test_cache_hints_and_prefetch_sizes_change_nothing() -> None:
    body = (
        HEAD
        + """
	.shared .align 16 .b8 buf[512];
	mov.u32 %r2, buf;
	mad.lo.u32 %r3, %r1, 16, %r2;
	mul.wide.u32 %rd3, %r1, 16;
	add.s64 %rd4, %rd1, %rd3;
	createpolicy.fractional.L2::evict_last.b64 %rd7, 1.0;
	cp.async.cg.shared.global.L2::cache_hint.L2::256B [%r3], [%rd4], 16, %rd7;
	cp.async.ca.shared.global.L2::128B [%r3+8], [%rd4+8], 8;
	cp.async.wait_all;
	ld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r3];
	add.s64 %rd5, %rd2, %rd3;
	st.global.v4.u32 [%rd5], {%r6, %r7, %r8, %r9};
	ret;
"""
    )
    src = np.arange(128, dtype=np.uint32) * 5
    out = np.zeros(128, np.uint32)
    launch(_checked(body, IO), grid=1, block=32, args=[src, out])
    np.testing.assert_array_equal(out, src)


def test_a_cp_async_source_outside_memory_faults_at_issue() -> None:
    body = (
        HEAD
        + """
	.shared .align 16 .b8 buf[16];
	mov.u32 %r2, buf;
	add.s64 %rd4, %rd1, 64;
	cp.async.ca.shared.global [%r2], [%rd4], 4, 4;
	cp.async.wait_all;
	ret;
"""
    )
    with pytest.raises(OutOfBounds) as info:
        launch(_checked(body, IO), grid=1, block=32, args=[np.zeros(4, np.uint32), np.zeros(1)])
    assert "cp.async.ca" in (info.value.instruction or "")


# --------------------------------------------------------------------------------- nvcc


def _kernels(name: str) -> str:
    return (DATA / name).read_text()


def test_nvcc_pipeline_primitives_double_buffer() -> None:
    tiles = 5
    x = np.arange(256 * tiles, dtype=np.float32) * 1.5
    out = np.zeros_like(x)
    launch(
        _kernels("async_copy.ptx"),
        "_Z14pipelined_copyPKfPfi",
        grid=1,
        block=256,
        args=[x, out, tiles],
    )
    tile = x.reshape(tiles, 256)
    np.testing.assert_array_equal(out, (tile + tile[:, np.arange(256) ^ 1]).reshape(-1))


def test_nvcc_cp_async_with_source_size_zero_fills() -> None:
    src = np.arange(64 * 4, dtype=np.int32).reshape(64, 4) + 1
    out = np.zeros_like(src)
    valid = 37 * 16 + 6
    launch(
        _kernels("async_copy.ptx"),
        "_Z9zero_fillPK4int4PS_i",
        grid=1,
        block=64,
        args=[src, out, valid],
    )
    want = src.copy().view(np.uint8).reshape(-1)
    want[valid:] = 0
    np.testing.assert_array_equal(out, want.view(np.int32).reshape(64, 4)[::-1])


def test_nvcc_memcpy_async_with_a_block_barrier() -> None:
    x = np.arange(512 * 3, dtype=np.int32) * 7 - 1000
    out = np.zeros_like(x)
    launch(_kernels("async_copy.ptx"), "_Z12barrier_copyPKiPi", grid=3, block=256, args=[x, out])
    np.testing.assert_array_equal(out, (x.reshape(3, 2, 256)[:, ::-1, ::-1] * 3).reshape(-1))


def test_nvcc_cp_async_mbarrier_arrive_noinc() -> None:
    x = np.arange(128, dtype=np.float32) ** 2
    out = np.zeros_like(x)
    launch(_kernels("async_copy.ptx"), "_Z12arrive_noincPKfPf", grid=1, block=128, args=[x, out])
    np.testing.assert_array_equal(out, np.roll(x, -1) - x)


# --------------------------------------------------------------------------------- bulk copies

BULK = """
	.reg .pred %p<8>;
	.reg .b16 %rs<4>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<20>;
	.shared .align 128 .b8 buf[{n}];
	.shared .align 8 .b64 bar;
	ld.param.u64 %rd1, [src];
	ld.param.u64 %rd2, [out];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, buf;
	mov.u32 %r3, bar;
	mov.u32 %r20, %cluster_ctarank;
	mov.u32 %r21, %ctaid.x;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [%r3], 1;
	fence.mbarrier_init.release.cluster;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	@!%p1 bra WAIT;
{issue}
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], 0;
	@!%p2 bra WAIT;
	// write the buffer back out, 4 bytes a thread, at out + ctaid * n
	mul.wide.u32 %rd8, %r21, {n};
	add.s64 %rd9, %rd2, %rd8;
	mov.u32 %r10, %r1;
COPY:
	shl.b32 %r11, %r10, 2;
	add.u32 %r12, %r2, %r11;
	ld.shared.u32 %r13, [%r12];
	cvt.u64.u32 %rd10, %r11;
	add.s64 %rd11, %rd9, %rd10;
	st.global.u32 [%rd11], %r13;
	add.u32 %r10, %r10, 32;
	setp.lt.u32 %p3, %r10, {words};
	@%p3 bra COPY;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ret;
"""


def _bulk(issue: str, n: int) -> str:
    return BULK.format(issue=issue, n=n, words=n // 4)


def test_bulk_copy_global_to_shared_with_expect_tx() -> None:
    issue = """
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 256;
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], 256, [%r3];"""
    src = np.arange(64, dtype=np.uint32) * 3 + 5
    out = np.zeros(64, np.uint32)
    launch(_checked(_bulk(issue, 256), IO), grid=1, block=32, args=[src, out])
    np.testing.assert_array_equal(out, src)


def test_bulk_copy_multicast_to_every_cta_of_the_mask() -> None:
    # CTA rank r copies half r of the source into both CTAs (mask 0b11); each CTA's mbarrier
    # expects the whole buffer and receives one complete-tx per half.
    issue = """
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 256;
	mul.lo.u32 %r4, %r20, 128;
	add.u32 %r5, %r2, %r4;
	cvt.u64.u32 %rd3, %r4;
	add.s64 %rd4, %rd1, %rd3;
	mov.u16 %rs1, 3;
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
		[%r5], [%rd4], 128, [%r3], %rs1;"""
    src = np.arange(64, dtype=np.uint32) * 7 + 1
    out = np.zeros(128, np.uint32)
    launch(_checked(_bulk(issue, 256), IO), grid=2, block=32, cluster=(2, 1, 1), args=[src, out])
    np.testing.assert_array_equal(out, np.concatenate([src, src]))


def test_bulk_copy_shared_to_the_shared_memory_of_another_cta() -> None:
    # Each CTA loads its half locally, then pushes it into the peer's buffer: the peer's
    # mbarrier counts the bytes (its own thread 0 expects them).
    issue = """
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 128;
	mul.wide.u32 %rd3, %r20, 128;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.v4.u32 {%r30, %r31, %r32, %r33}, [%rd4];
	st.shared.v4.u32 [%r2+128], {%r30, %r31, %r32, %r33};
	mov.u32 %r6, 16;
FILL:
	cvt.u64.u32 %rd5, %r6;
	add.s64 %rd6, %rd4, %rd5;
	ld.global.v4.u32 {%r30, %r31, %r32, %r33}, [%rd6];
	add.u32 %r7, %r2, 128;
	add.u32 %r7, %r7, %r6;
	st.shared.v4.u32 [%r7], {%r30, %r31, %r32, %r33};
	add.u32 %r6, %r6, 16;
	setp.lt.u32 %p4, %r6, 128;
	@%p4 bra FILL;
	fence.proxy.async.shared::cta;
	xor.b32 %r8, %r20, 1;
	mapa.shared::cluster.u32 %r9, %r2, %r8;
	mapa.shared::cluster.u32 %r10, %r3, %r8;
	add.u32 %r11, %r2, 128;
	cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes
		[%r9], [%r11], 128, [%r10];"""
    src = np.arange(64, dtype=np.uint32) + 1000
    out = np.zeros(128, np.uint32)
    launch(_checked(_bulk(issue, 256), IO), grid=2, block=32, cluster=(2, 1, 1), args=[src, out])
    # CTA r's first half holds the peer's half of the source, its second half its own.
    halves = src.reshape(2, 32)
    np.testing.assert_array_equal(out[:64], np.concatenate([halves[1], halves[0]]))
    np.testing.assert_array_equal(out[64:], np.concatenate([halves[0], halves[1]]))


STORE = (
    HEAD
    + """
	.shared .align 128 .b32 buf[64];
	mov.u32 %r2, buf;
	shl.b32 %r3, %r1, 2;
	add.u32 %r3, %r2, %r3;
	mul.lo.u32 %r4, %r1, 5;
	st.shared.u32 [%r3], %r4;
	st.shared.u32 [%r3+128], %r1;
	fence.proxy.async.shared::cta;
	bar.sync 0;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	cp.async.bulk.global.shared::cta.bulk_group [%rd2], [%r2], 256;
	cp.async.bulk.commit_group;
	{between}
	cp.async.bulk.wait_group.read 0;
	cp.async.bulk.wait_group 0;
DONE:
	ret;
"""
)


def test_bulk_copy_shared_to_global_with_a_bulk_group() -> None:
    out = np.zeros(64, np.uint32)
    text = _checked(STORE.format(between=""), IO)
    launch(text, grid=1, block=32, args=[np.zeros(1, np.uint32), out])
    t = np.arange(32)
    np.testing.assert_array_equal(out, np.concatenate([t * 5, t]))


def test_overwriting_a_bulk_source_before_the_wait_is_reported() -> None:
    text = _checked(STORE.format(between="st.shared.u32 [%r2+8], %r1;"), IO)
    with pytest.raises(EmuError, match="overwritten before") as info:
        launch(text, grid=1, block=32, args=[np.zeros(1, np.uint32), np.zeros(64, np.uint32)])
    assert "wait_group.read" in (info.value.instruction or "")


# --------------------------------------------------------------------------------- reductions


GLOBAL_REDUCTIONS = (
    [("add", t) for t in ("u32", "s32", "u64", "f32", "f64")]
    + [(op, t) for op in ("min", "max") for t in ("u32", "s32", "u64", "s64")]
    + [("inc", "u32"), ("dec", "u32")]
    + [(op, t) for op in ("and", "or", "xor") for t in ("b32", "b64")]
    + [("min", "f16"), ("max", "bf16"), ("add.noftz", "f16"), ("add.noftz", "bf16")]
)

REDUCE = (
    HEAD
    + """
	.reg .b64 %dst;
	.shared .align 128 .b8 buf[{nbytes}];
	mov.u32 %r2, buf;
	ld.param.u64 %dst, [dst];
	cvta.to.global.u64 %dst, %dst;
	mov.u32 %r10, %r1;
COPY:
	shl.b32 %r11, %r10, 2;
	cvt.u64.u32 %rd3, %r11;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.u32 %r12, [%rd4];
	add.u32 %r13, %r2, %r11;
	st.shared.u32 [%r13], %r12;
	add.u32 %r10, %r10, 32;
	setp.lt.u32 %p3, %r10, {words};
	@%p3 bra COPY;
	fence.proxy.async.shared::cta;
	bar.sync 0;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	cp.reduce.async.bulk.global.shared::cta.bulk_group.{op}.{ty} [%dst], [%r2], {nbytes};
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group 0;
DONE:
	ret;
"""
)


def _elements(rng: np.random.Generator, ty: str, n: int) -> np.ndarray:
    width = {"16": np.uint16, "32": np.uint32, "64": np.uint64}[ty[-2:]]
    bits = rng.integers(0, 2 ** (8 * np.dtype(width).itemsize), n, dtype=np.uint64)
    out = bits.astype(width)
    if ty in ("u32", "u64") or ty[0] in "sb":
        # Small values too, so min/max/inc/dec see both orders and equal values.
        out[: n // 2] = rng.integers(0, 6, n // 2).astype(width)
    if ty[0] in "fb" and ty != "b32" and ty != "b64":
        special = {
            "f16": [0x7C00, 0xFC00, 0x7E00, 0x0001, 0x8000, 0x0000, 0x3C00, 0x7BFF],
            "bf16": [0x7F80, 0xFF80, 0x7FC0, 0x0001, 0x8000, 0x0000, 0x3F80, 0x7F7F],
            "f32": [
                0x7F800000,
                0x00000001,
                0x80000000,
                0x3F800000,
                0x007FFFFF,
                0x7F7FFFFF,
                0x7FC00000,
                0xFF800000,
            ],
            "f64": [
                0x7FF0000000000000,
                0x0000000000000001,
                0x3FF0000000000000,
                0x8000000000000000,
                0x7FF8000000000000,
                0x7FEFFFFFFFFFFFFF,
                0xFFF0000000000000,
                0x0010000000000000,
            ],
        }[ty]
        out[: len(special)] = np.array(special, dtype=np.uint64).astype(width)
        # Near-equal magnitudes exercise rounding carries and cancellation.
        out[8:16] = out[16:24] ^ width(1)
    return out


@pytest.mark.parametrize(("op", "ty"), GLOBAL_REDUCTIONS)
def test_bulk_reduction_into_global_memory(op: str, ty: str) -> None:
    rng = np.random.default_rng(abs(hash((op, ty))) % 2**32)
    esize = int(ty[-2:]) // 8
    nbytes = 256
    n = nbytes // esize
    dst = _elements(rng, ty, n)
    src = _elements(rng, ty, n)
    rng.shuffle(src)
    body = REDUCE.format(op=op, ty=ty, nbytes=nbytes, words=nbytes // 4)
    params = (".param .u64 src", ".param .u64 out", ".param .u64 dst")
    got = dst.copy()
    launch(_checked(body, params), grid=1, block=32, args=[src, np.zeros(1, np.uint32), got])
    name = op.split(".")[0]
    if ty in FORMATS:
        want = [
            ref_float(name, ty, int(a), int(b), ftz=ty == "f32")
            for a, b in zip(dst, src, strict=True)
        ]
    else:
        want = [ref_int(name, ty, int(a), int(b)) for a, b in zip(dst, src, strict=True)]
    np.testing.assert_array_equal(got, np.array(want, dtype=np.uint64).astype(dst.dtype))


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(0, 0xFFFF), st.integers(0, 0xFFFF))
def test_bf16_addition_rounds_once(a: int, b: int) -> None:
    # The helper the reductions use, against exact rational arithmetic.
    from pyptx.emu._ops.async_copy import combine
    from pyptx.ir import PtxType

    got = combine(
        "add", PtxType.BF16, np.array([a], np.uint16), np.array([b], np.uint16), ftz=False
    )
    assert int(got[0]) == ref_float("add", "bf16", a, b, ftz=False)


def test_bulk_reduction_into_another_ctas_shared_memory() -> None:
    # CTA 1 adds its buffer into CTA 0's; CTA 0 expects the bytes on its mbarrier.
    issue = """
	setp.eq.u32 %p5, %r20, 0;
	@%p5 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 256;
	@%p5 bra WAIT;
	mapa.shared::cluster.u32 %r9, %r2, 0;
	mapa.shared::cluster.u32 %r10, %r3, 0;
	cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32
		[%r9], [%r2], 256, [%r10];
	mbarrier.arrive.shared::cta.b64 _, [%r3];"""
    fill = """
	mul.lo.u32 %r30, %r1, 4;
	add.u32 %r31, %r2, %r30;
	mad.lo.u32 %r32, %r21, 1000, %r1;
	st.shared.u32 [%r31], %r32;
	st.shared.u32 [%r31+128], %r32;
	fence.proxy.async.shared::cta;
	barrier.cluster.arrive;
	barrier.cluster.wait;"""
    body = _bulk(issue, 256).replace(
        "\tsetp.eq.u32 %p1, %r1, 0;", fill + "\n\tsetp.eq.u32 %p1, %r1, 0;"
    )
    out = np.zeros(128, np.uint32)
    launch(_checked(body, IO), grid=2, block=32, cluster=(2, 1, 1), args=[np.zeros(1), out])
    t = np.arange(32, dtype=np.uint32)
    cta0 = np.concatenate([t + (t + 1000), t + (t + 1000)])
    np.testing.assert_array_equal(out[:64], cta0)


# --------------------------------------------------------------------------------- st/red.async

ASYNC = """
	.reg .pred %p<8>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<20>;
	.shared .align 16 .b32 buf[64];
	.shared .align 8 .b64 bar;
	ld.param.u64 %rd2, [out];
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, buf;
	mov.u32 %r3, bar;
	mov.u32 %r20, %cluster_ctarank;
	shl.b32 %r4, %r1, 3;
	add.u32 %r5, %r2, %r4;
	mov.u32 %r6, 100;
	st.shared.v2.u32 [%r5], {{%r6, %r6}};
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [%r3], 1;
	@%p1 mbarrier.expect_tx.shared::cta.b64 [%r3], {bytes};
	@%p1 mbarrier.arrive.shared::cta.b64 _, [%r3];
	fence.mbarrier_init.release.cluster;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	xor.b32 %r7, %r20, 1;
	mapa.shared::cluster.u32 %r8, %r5, %r7;
	mapa.shared::cluster.u32 %r9, %r3, %r7;
	mad.lo.u32 %r10, %r20, 1000, %r1;
	{op}
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], 0;
	@!%p2 bra WAIT;
	ld.shared.v2.u32 {{%r11, %r12}}, [%r5];
	mov.u32 %r13, %ctaid.x;
	mad.lo.u32 %r14, %r13, 32, %r1;
	mul.wide.u32 %rd3, %r14, 8;
	add.s64 %rd4, %rd2, %rd3;
	st.global.v2.u32 [%rd4], {{%r11, %r12}};
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ret;
"""


def test_st_async_writes_into_the_peer_and_signals_its_mbarrier() -> None:
    op = "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.u32 [%r8], {%r10, %r1}, [%r9];"
    out = np.zeros((2, 32, 2), np.uint32)
    text = _checked(ASYNC.format(op=op, bytes=256), (".param .u64 out",))
    launch(text, grid=2, block=32, cluster=(2, 1, 1), args=[out])
    t = np.arange(32)
    for cta in (0, 1):
        peer = 1 - cta
        np.testing.assert_array_equal(out[cta, :, 0], peer * 1000 + t)
        np.testing.assert_array_equal(out[cta, :, 1], t)


@pytest.mark.parametrize(("op", "want"), [("add.u32", 100 + 1), ("max.u32", 100), ("min.s32", 1)])
def test_red_async_reduces_into_the_peer(op: str, want: int) -> None:
    instr = (
        f"red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.{op}"
        " [%r8], %r11, [%r9];"
    )
    setup = "mov.u32 %r11, 1;\n\t"
    out = np.zeros((2, 32, 2), np.uint32)
    text = _checked(ASYNC.format(op=setup + instr, bytes=128), (".param .u64 out",))
    launch(text, grid=2, block=32, cluster=(2, 1, 1), args=[out])
    np.testing.assert_array_equal(out[:, :, 0], want)
    np.testing.assert_array_equal(out[:, :, 1], 100)


def test_release_forms_into_global_memory() -> None:
    body = (
        HEAD
        + """
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	add.u32 %r2, %r1, 7;
	st.async.release.gpu.global.u32 [%rd4], %r2;
	red.async.release.gpu.global.add.u32 [%rd2+128], %r1;
	ret;
"""
    )
    out = np.zeros(33, np.uint32)
    launch(
        _checked(body, IO, target="sm_100a", version="8.8"),
        grid=1,
        block=32,
        args=[np.zeros(1), out],
    )
    t = np.arange(32)
    np.testing.assert_array_equal(out[:32], t + 7)
    assert out[32] == t.sum()


def test_st_bulk_zeroes_shared_memory() -> None:
    body = (
        HEAD
        + """
	.shared .align 16 .b32 buf[64];
	mov.u32 %r2, buf;
	shl.b32 %r3, %r1, 3;
	add.u32 %r3, %r2, %r3;
	st.shared.v2.u32 [%r3], {%r1, %r1};
	bar.sync 0;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 st.bulk.weak.shared::cta [%r2+64], 128, 0;
	bar.sync 0;
	ld.shared.v2.u32 {%r4, %r5}, [%r3];
	mul.wide.u32 %rd3, %r1, 8;
	add.s64 %rd4, %rd2, %rd3;
	st.global.v2.u32 [%rd4], {%r4, %r5};
	ret;
"""
    )
    out = np.zeros((32, 2), np.uint32)
    launch(
        _checked(body, IO, target="sm_100a", version="8.8"),
        grid=1,
        block=32,
        args=[np.zeros(1), out],
    )
    t = np.arange(32)
    want = np.where((t >= 8) & (t < 24), 0, t)
    np.testing.assert_array_equal(out, np.stack([want, want], axis=1))


def test_bulk_prefetch_is_a_hint() -> None:
    body = HEAD + "\tcp.async.bulk.prefetch.L2.global [%rd1], 256;\n\tret;\n"
    launch(_checked(body, IO), grid=1, block=32, args=[np.zeros(64, np.uint32), np.zeros(1)])
