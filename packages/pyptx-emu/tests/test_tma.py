"""TMA: tensor copies in tile mode, swizzles, reductions, pipelines, and editing maps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from emu_testing import checked_module
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from reduce_reference import ref_float, ref_int

from pyptx.emu import (
    Deadlock,
    EmuError,
    LaunchError,
    Misaligned,
    NotEmulated,
    OutOfBounds,
    launch,
    tensor_map,
)
from pyptx.emu._tensor_map import Descriptor, decode, encode_inline
from pyptx.ir import PtxType

DATA = Path(__file__).parent / "data" / "async"


def _checked(body: str, params: tuple[str, ...], target: str = "sm_90a", **kw: Any) -> str:
    return checked_module(body, params, target, **kw)


MAP_OUT = (".param .align 64 .b8 tmap[128]", ".param .u64 out")

# One thread loads a box at the coordinates given, everyone waits on the mbarrier, then the
# CTA writes the box's shared-memory bytes out as they lie.
LOAD = """
	.reg .pred %p<8>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<20>;
	.shared .align 1024 .b8 box[{nbytes}];
	.shared .align 8 .b64 bar;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.b64 %rd2, tmap;
	cvta.param.u64 %rd3, %rd2;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, box;
	add.u32 %r2, %r2, {offset};
	mov.u32 %r3, bar;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [%r3], 1;
	bar.sync 0;
	@!%p1 bra WAIT;
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], {tx};
	cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
		[%r2], [%rd3, {{{coords}}}], [%r3];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], 0;
	@!%p2 bra WAIT;
	mov.u32 %r10, %r1;
	setp.ge.u32 %p3, %r10, {words};
	@%p3 bra END;
COPY:
	shl.b32 %r11, %r10, 2;
	add.u32 %r12, %r2, %r11;
	ld.shared.u32 %r13, [%r12];
	cvt.u64.u32 %rd4, %r11;
	add.s64 %rd5, %rd1, %rd4;
	st.global.u32 [%rd5], %r13;
	add.u32 %r10, %r10, 32;
	setp.lt.u32 %p3, %r10, {words};
	@%p3 bra COPY;
END:
	ret;
"""


def _load(
    array: np.ndarray,
    corner: tuple[int, ...],
    *,
    offset: int = 0,
    tx: int | None = None,
    **map_args: Any,
) -> np.ndarray:
    """Run LOAD; returns the shared-memory bytes of the box. ``corner`` is numpy order."""
    tm = tensor_map(array, **map_args)
    nbytes = tm.box_bytes
    coords = ", ".join(str(c) for c in reversed(corner))
    body = LOAD.format(
        nbytes=nbytes + offset,
        offset=offset,
        tx=nbytes if tx is None else tx,
        rank=array.ndim,
        coords=coords,
        words=nbytes // 4,
    )
    out = np.zeros(nbytes, np.uint8)
    launch(_checked(body, MAP_OUT), grid=1, block=32, args=[tm, out])
    return out


def _window(
    array: np.ndarray,
    corner: tuple[int, ...],
    box: tuple[int, ...],
    strides: tuple[int, ...],
    fill: Any,
) -> np.ndarray:
    """The box as numpy sees it: element (i...) = array[corner + i * stride], or ``fill``."""
    ext = [-(-b // s) for b, s in zip(box, strides, strict=True)]
    out = np.full(ext, fill, dtype=array.dtype)
    for idx in np.ndindex(*ext):
        src = tuple(c + i * s for c, i, s in zip(corner, idx, strides, strict=True))
        if all(0 <= x < n for x, n in zip(src, array.shape, strict=True)):
            out[idx] = array[src]
    return out


CASES = [
    ((40,), (8,), (-3,), np.float32),
    ((40,), (16,), (30,), np.int8),
    ((6, 24), (4, 8), (-2, 20), np.float16),
    ((5, 6, 16), (2, 4, 8), (4, -1, 12), np.float32),
    ((3, 4, 5, 8), (2, 2, 2, 4), (2, 3, -1, 6), np.int32),
    ((2, 3, 3, 4, 16), (2, 2, 2, 2, 16), (1, -1, 2, 3, 0), np.uint8),
    ((4, 2, 2, 2, 4), (2, 2, 2, 2, 2), (-1, 1, -1, 1, 3), np.float64),
]


@pytest.mark.parametrize(("shape", "box", "corner", "dtype"), CASES)
def test_tile_loads_of_every_rank_fill_out_of_bounds_with_zero(
    shape: tuple[int, ...], box: tuple[int, ...], corner: tuple[int, ...], dtype: Any
) -> None:
    n = int(np.prod(shape))
    array = (np.arange(n) % 113 + 1).astype(dtype).reshape(shape)
    got = _load(array, corner, box=box)
    want = _window(array, corner, box, (1,) * len(box), 0)
    np.testing.assert_array_equal(got.view(dtype).reshape(want.shape), want)


@pytest.mark.parametrize(
    ("dtype", "name", "nan"),
    [(np.float32, None, 0x7FFFFFFF), (np.float16, None, 0x7FFF), (np.uint16, "bf16", 0x7FFF)],
)
def test_nan_fill_writes_the_canonical_nan(dtype: Any, name: str | None, nan: int) -> None:
    array = np.arange(8 * 16).astype(dtype).reshape(8, 16)
    got = _load(array, (5, -8), box=(4, 16), oob_fill="nan", dtype=name)
    bits = got.view(np.dtype(f"u{np.dtype(dtype).itemsize}")).reshape(4, 16)
    raw = array.view(bits.dtype)
    want = _window(raw, (5, -8), (4, 16), (1, 1), nan)
    np.testing.assert_array_equal(bits, want)


def test_element_strides_skip_elements_of_outer_dimensions() -> None:
    array = np.arange(9 * 7 * 8, dtype=np.int32).reshape(9, 7, 8)
    got = _load(array, (1, 2, 0), box=(5, 4, 8), elem_strides=(2, 3, 1))
    want = _window(array, (1, 2, 0), (5, 4, 8), (2, 3, 1), 0)
    np.testing.assert_array_equal(got.view(np.int32).reshape(want.shape), want)


# The PTX ISA's swizzle tables: row L (the 128-byte line, repeating) gives the 16-byte
# chunk stored at each position of the line.
SWIZZLE_TABLES = {
    32: [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6]],
    64: [
        [0, 1, 2, 3, 4, 5, 6, 7],
        [1, 0, 3, 2, 5, 4, 7, 6],
        [2, 3, 0, 1, 6, 7, 4, 5],
        [3, 2, 1, 0, 7, 6, 5, 4],
    ],
    128: [
        [0, 1, 2, 3, 4, 5, 6, 7],
        [1, 0, 3, 2, 5, 4, 7, 6],
        [2, 3, 0, 1, 6, 7, 4, 5],
        [3, 2, 1, 0, 7, 6, 5, 4],
        [4, 5, 6, 7, 0, 1, 2, 3],
        [5, 4, 7, 6, 1, 0, 3, 2],
        [6, 7, 4, 5, 2, 3, 0, 1],
        [7, 6, 5, 4, 3, 2, 1, 0],
    ],
}


def _swizzled(dense: np.ndarray, span: int, base: int) -> np.ndarray:
    """The bytes of a box as the tables place them, the box starting at offset ``base``."""
    table = SWIZZLE_TABLES[span]
    out = np.zeros_like(dense)
    for pos in range(dense.size // 16):
        line = (base + pos * 16) // 128  # the line the chunk's slot is in
        slot = pos % 8 if base % 128 == 0 else None
        assert slot is not None
        chunk = table[line % len(table)][slot]
        src = (pos // 8) * 8 + chunk
        out[pos * 16 : pos * 16 + 16] = dense[src * 16 : src * 16 + 16]
    return out


@pytest.mark.parametrize("span", [32, 64, 128])
@pytest.mark.parametrize("offset", [0, 384])
def test_swizzled_loads_place_16_byte_chunks_as_the_isa_tables(span: int, offset: int) -> None:
    rows = 16
    cols = span // 2  # f16: one row of the box is one swizzle span
    array = np.arange(40 * 2 * cols).astype(np.float16).reshape(40, 2 * cols)
    corner = (3, cols // 2)
    got = _load(array, corner, offset=offset, box=(rows, cols), swizzle=span)
    dense = _window(array, corner, (rows, cols), (1, 1), 0).view(np.uint8).reshape(-1)
    np.testing.assert_array_equal(got, _swizzled(dense, span, offset))


def test_nvcc_programming_guide_round_trip() -> None:
    ptx = (DATA / "tma_2d.ptx").read_text()
    src = np.arange(24 * 64, dtype=np.int32).reshape(24, 64)
    for x, y in [(32, 8), (48, 20), (0, 20)]:
        array = src.copy()
        launch(
            ptx,
            "_Z13tma_roundtrip14CUtensorMap_stii",
            grid=1,
            block=32,
            args=[tensor_map(array, box=(8, 32)), x, y],
        )
        box = _window(src, (y, x), (8, 32), (1, 1), 0)
        box[0] += np.arange(32, dtype=np.int32)
        want = src.copy()
        rows, cols = min(8, 24 - y), min(32, 64 - x)
        want[y : y + rows, x : x + cols] = box[:rows, :cols]
        np.testing.assert_array_equal(array, want)


def test_nvcc_programming_guide_swizzle_transpose() -> None:
    # The guide's 128-byte swizzle example: transposing 8x8 int4 through swizzled indices
    # only gives the transpose if TMA swizzles exactly as the guide says.
    ptx = (DATA / "tma_2d.ptx").read_text()
    src = np.arange(8 * 32, dtype=np.int32).reshape(8, 32)
    array = src.copy()
    launch(
        ptx,
        "_Z21tma_swizzle_transpose14CUtensorMap_st",
        grid=1,
        block=8,
        args=[tensor_map(array, box=(8, 32), swizzle=128)],
    )
    np.testing.assert_array_equal(array, src.reshape(8, 8, 4).transpose(1, 0, 2).reshape(8, 32))


# --------------------------------------------------------------------------------- stores

STORE = """
	.reg .pred %p<8>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<20>;
	.shared .align 1024 .b8 box[{nbytes}];
	ld.param.u64 %rd1, [src];
	cvta.to.global.u64 %rd1, %rd1;
	mov.b64 %rd2, tmap;
	cvta.param.u64 %rd3, %rd2;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, box;
	mov.u32 %r10, %r1;
	setp.ge.u32 %p3, %r10, {words};
	@%p3 bra FILLED;
FILL:
	shl.b32 %r11, %r10, 2;
	cvt.u64.u32 %rd4, %r11;
	add.s64 %rd5, %rd1, %rd4;
	ld.global.u32 %r13, [%rd5];
	add.u32 %r12, %r2, %r11;
	st.shared.u32 [%r12], %r13;
	add.u32 %r10, %r10, 32;
	setp.lt.u32 %p3, %r10, {words};
	@%p3 bra FILL;
FILLED:
	fence.proxy.async.shared::cta;
	bar.sync 0;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	{instr}.{rank}d.global.shared::cta{op}.tile.bulk_group [%rd3, {{{coords}}}], [%r2];
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group.read 0;
DONE:
	ret;
"""
SRC_MAP = (".param .align 64 .b8 tmap[128]", ".param .u64 src")


def _store(tm: Any, smem: np.ndarray, corner: tuple[int, ...], op: str | None = None) -> None:
    instr = "cp.async.bulk.tensor" if op is None else "cp.reduce.async.bulk.tensor"
    body = STORE.format(
        nbytes=smem.size,
        words=smem.size // 4,
        rank=len(corner),
        coords=", ".join(str(c) for c in reversed(corner)),
        instr=instr,
        op="" if op is None else f".{op}",
    )
    launch(_checked(body, SRC_MAP), grid=1, block=32, args=[tm, smem])


@pytest.mark.parametrize("swizzle", [None, 64])
def test_tile_store_writes_only_the_in_bounds_part(swizzle: int | None) -> None:
    array = np.full((10, 40), -1, np.float16)
    box = (8, 32)
    values = np.arange(8 * 32).astype(np.float16).reshape(box)
    smem = values.view(np.uint8).reshape(-1)
    if swizzle:
        box = (16, 32)
        values = np.arange(16 * 32).astype(np.float16).reshape(16, 32)
        dense = values.view(np.uint8).reshape(-1)
        smem = _swizzled(dense, swizzle, 0)
        array = np.full((20, 40), -1, np.float16)
    tm = tensor_map(array, box=box, swizzle=swizzle)
    corner = (array.shape[0] - 5, 20)
    _store(tm, smem.copy(), corner)
    want = np.full(array.shape, -1, np.float16)
    rows, cols = 5, 20
    want[corner[0] :, 20:] = values[:rows, :cols]
    np.testing.assert_array_equal(array, want)


def test_a_store_box_may_not_start_at_a_negative_coordinate() -> None:
    array = np.zeros((8, 32), np.float32)
    with pytest.raises(OutOfBounds, match="negative"):
        _store(tensor_map(array, box=(8, 32)), np.zeros(1024, np.uint8), (-1, 0))


REDUCTIONS = [
    ("add", "s32"),
    ("add", "f32"),
    ("add", "f16"),
    ("add", "bf16"),
    ("add", "u64"),
    ("min", "s32"),
    ("max", "u64"),
    ("min", "bf16"),
    ("max", "s64"),
    ("inc", "u32"),
    ("dec", "u32"),
    ("and", "u32"),
    ("or", "u64"),
    ("xor", "s32"),
]
_DTYPES = {
    "s32": np.int32,
    "u32": np.uint32,
    "f32": np.float32,
    "f16": np.float16,
    "bf16": np.uint16,
    "u64": np.uint64,
    "s64": np.int64,
}


@pytest.mark.parametrize(("op", "ty"), REDUCTIONS)
def test_tensor_reductions_combine_in_bounds_elements(op: str, ty: str) -> None:
    rng = np.random.default_rng(len(op) * 31 + len(ty))
    dtype = np.dtype(_DTYPES[ty])
    unsigned = np.dtype(f"u{dtype.itemsize}")
    cols = 64 // dtype.itemsize
    dst = rng.integers(0, 2 ** (8 * dtype.itemsize), (6, cols), dtype=np.uint64)
    src = rng.integers(0, 2 ** (8 * dtype.itemsize), (4, cols), dtype=np.uint64)
    if ty in ("f32", "f16", "bf16"):
        # Ordinary magnitudes: the rational reference handles every value, but random bits
        # are mostly NaN or huge for the narrow formats.
        vals = rng.standard_normal((6, cols)) * 4
        svals = rng.standard_normal((4, cols)) * 4
        if ty == "bf16":
            dst = (vals.astype(np.float32).view(np.uint32) >> 16).astype(np.uint64)
            src = (svals.astype(np.float32).view(np.uint32) >> 16).astype(np.uint64)
        else:
            dst = vals.astype(dtype).view(unsigned).astype(np.uint64)
            src = svals.astype(dtype).view(unsigned).astype(np.uint64)
    if op in ("inc", "dec"):
        dst[:, : cols // 2] %= 5
        src %= 7
    array = dst.astype(unsigned).view(dtype).copy()
    tm = tensor_map(array, box=(4, cols), dtype="bf16" if ty == "bf16" else None)
    corner = (3, 0)
    _store(tm, src.astype(unsigned).view(np.uint8).reshape(-1).copy(), corner, op)
    want = dst.copy()
    for r in range(3):
        for c in range(cols):
            a, b = int(dst[3 + r, c]), int(src[r, c])
            if ty in ("f32", "f16", "bf16"):
                want[3 + r, c] = ref_float(op, ty, a, b, ftz=False)
            else:
                want[3 + r, c] = ref_int(
                    op, ty if op not in ("and", "or", "xor") else "b" + ty[1:], a, b
                )
    np.testing.assert_array_equal(array.view(unsigned), want.astype(unsigned))


def test_a_reduction_the_isa_does_not_define_is_an_error() -> None:
    array = np.zeros((4, 16), np.float32)
    with pytest.raises(EmuError, match=r"\.min is not defined for \.f32"):
        _store(tensor_map(array, box=(4, 16)), np.zeros(256, np.uint8), (0, 0), "min")


# --------------------------------------------------------------------------------- pipelines


def pipeline(stages: int, ktiles: int, cs: int, bm: int = 16, bk: int = 32) -> str:
    """A warp-specialized TMA pipeline: warp 0 lane 0 produces, warps 1-2 consume.

    Stage ``s`` of the ring is guarded by ``full[s]`` (the producer's expect-tx arrive plus
    the TMA bytes) and ``empty[s]`` (one arrival per consumer thread of every CTA of the
    cluster). In a cluster each CTA loads ``bm / cs`` rows of the shared tile and multicasts
    them to all; consumers release a stage in every CTA. Consumers add each 16x32 f32 tile
    (128-byte swizzled) into ``out`` of their CTA.
    """
    tile = bm * bk * 4
    part_rows = bm // cs
    part = part_rows * bk * 4
    mc = ".multicast::cluster" if cs > 1 else ""
    mc_arg = ", %rs1" if cs > 1 else ""
    consume = []
    for j in range(bm * bk // 64):
        consume.append(f"""
	add.u32 %r40, %r30, {j * 64};
	shr.u32 %r41, %r40, 5;
	and.b32 %r42, %r40, 31;
	shr.u32 %r43, %r42, 2;
	and.b32 %r44, %r41, 7;
	xor.b32 %r43, %r43, %r44;
	shl.b32 %r43, %r43, 4;
	and.b32 %r45, %r42, 3;
	shl.b32 %r45, %r45, 2;
	or.b32 %r43, %r43, %r45;
	shl.b32 %r46, %r41, 7;
	add.u32 %r46, %r46, %r43;
	add.u32 %r46, %r46, %r22;
	ld.shared.f32 %f1, [%r46];
	mul.wide.u32 %rd10, %r40, 4;
	add.s64 %rd11, %rd5, %rd10;
	ld.global.f32 %f2, [%rd11];
	add.f32 %f2, %f2, %f1;
	st.global.f32 [%rd11], %f2;""")
    release = "".join(
        f"""
	mapa.shared::cluster.u32 %r50, %r23, {q};
	mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r50];"""
        for q in range(cs)
    )
    return f"""
	.reg .pred %p<8>;
	.reg .b16 %rs<3>;
	.reg .b32 %r<60>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<16>;
	.shared .align 1024 .b8 stages[{stages * tile}];
	.shared .align 8 .b64 full[{stages}];
	.shared .align 8 .b64 empty[{stages}];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.b64 %rd2, tmap;
	cvta.param.u64 %rd3, %rd2;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	mov.u32 %r3, %clusterid.x;
	mov.u32 %r4, %ctaid.x;
	mov.u32 %r5, stages;
	mov.u32 %r6, full;
	mov.u32 %r7, empty;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra SYNC;
	mov.u32 %r8, 0;
INIT:
	shl.b32 %r9, %r8, 3;
	add.u32 %r10, %r6, %r9;
	mbarrier.init.shared::cta.b64 [%r10], 1;
	add.u32 %r10, %r7, %r9;
	mbarrier.init.shared::cta.b64 [%r10], {64 * cs};
	add.u32 %r8, %r8, 1;
	setp.lt.u32 %p2, %r8, {stages};
	@%p2 bra INIT;
	fence.mbarrier_init.release.cluster;
SYNC:
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	setp.ge.u32 %p1, %r1, 32;
	@%p1 bra CONSUMER;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	mov.u16 %rs1, {(1 << cs) - 1};
	mov.u32 %r11, 0;
PLOOP:
	rem.u32 %r12, %r11, {stages};
	div.u32 %r13, %r11, {stages};
	and.b32 %r13, %r13, 1;
	xor.b32 %r14, %r13, 1;
	shl.b32 %r15, %r12, 3;
	add.u32 %r16, %r7, %r15;
	add.u32 %r17, %r6, %r15;
PWAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r16], %r14;
	@!%p3 bra PWAIT;
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r17], {tile};
	mul.lo.u32 %r18, %r12, {tile};
	add.u32 %r18, %r18, %r5;
	mad.lo.u32 %r18, %r2, {part}, %r18;
	mul.lo.u32 %r19, %r11, {bk};
	mul.lo.u32 %r20, %r3, {bm};
	mad.lo.u32 %r20, %r2, {part_rows}, %r20;
	cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes{mc}
		[%r18], [%rd3, {{%r19, %r20}}], [%r17]{mc_arg};
	add.u32 %r11, %r11, 1;
	setp.lt.u32 %p4, %r11, {ktiles};
	@%p4 bra PLOOP;
	bra DONE;
CONSUMER:
	sub.u32 %r30, %r1, 32;
	mul.wide.u32 %rd4, %r4, {tile};
	add.s64 %rd5, %rd1, %rd4;
	mov.u32 %r21, 0;
CLOOP:
	rem.u32 %r12, %r21, {stages};
	div.u32 %r13, %r21, {stages};
	and.b32 %r13, %r13, 1;
	shl.b32 %r15, %r12, 3;
	add.u32 %r17, %r6, %r15;
	add.u32 %r23, %r7, %r15;
	mul.lo.u32 %r22, %r12, {tile};
	add.u32 %r22, %r22, %r5;
CWAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r17], %r13;
	@!%p5 bra CWAIT;
{"".join(consume)}
{release}
	add.u32 %r21, %r21, 1;
	setp.lt.u32 %p6, %r21, {ktiles};
	@%p6 bra CLOOP;
DONE:
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	ret;
"""


@pytest.mark.parametrize(("stages", "ktiles", "cs"), [(3, 8, 1), (2, 7, 1), (3, 8, 2), (4, 9, 2)])
def test_warp_specialized_pipeline_runs_to_completion(stages: int, ktiles: int, cs: int) -> None:
    bm, bk, clusters = 16, 32, 2
    text = _checked(
        pipeline(stages, ktiles, cs), (".param .align 64 .b8 tmap[128]", ".param .u64 out")
    )
    a = (
        (np.arange(clusters * bm * ktiles * bk) % 97)
        .astype(np.float32)
        .reshape(clusters * bm, ktiles * bk)
    )
    out = np.zeros((clusters * cs, bm * bk), np.float32)
    stats = launch(
        text,
        grid=clusters * cs,
        block=96,
        cluster=(cs, 1, 1),
        args=[tensor_map(a, box=(bm // cs, bk), swizzle=128), out],
    )
    want = a.reshape(clusters, bm, ktiles, bk).sum(axis=2).reshape(clusters, bm * bk)
    np.testing.assert_array_equal(out, np.repeat(want, cs, axis=0))
    # The waits block: about one wait per k-iteration per warp (3 warps a CTA), never a
    # spin at Python speed.
    waits = stats.by_mnemonic["mbarrier.try_wait.parity.shared::cta.b64"]
    assert waits <= 2 * 3 * ktiles * clusters * cs


@pytest.mark.parametrize(
    ("cs", "kernel"),
    [(1, "_Z13pipeline_1cta14CUtensorMap_stPfi"), (2, "_Z13pipeline_2cta14CUtensorMap_stPfi")],
)
def test_nvcc_warp_specialized_pipeline(cs: int, kernel: str) -> None:
    # The same ring written with cuda::ptx wrappers and compiled by nvcc (.reqnctapercluster
    # sets the cluster; remote arrivals go through mapa and cvta.to.shared).
    bm, bk, ktiles, clusters = 16, 32, 8, 2
    a = (
        (np.arange(clusters * bm * ktiles * bk) % 89)
        .astype(np.float32)
        .reshape(clusters * bm, ktiles * bk)
    )
    out = np.zeros((clusters * cs, bm * bk), np.float32)
    launch(
        (DATA / "tma_pipeline.ptx").read_text(),
        kernel,
        grid=clusters * cs,
        block=96,
        args=[tensor_map(a, box=(bm // cs, bk)), out, ktiles],
    )
    want = a.reshape(clusters, bm, ktiles, bk).sum(axis=2).reshape(clusters, bm * bk)
    np.testing.assert_array_equal(out, np.repeat(want, cs, axis=0))


def test_a_pipeline_expecting_too_many_bytes_deadlocks() -> None:
    body = pipeline(2, 3, 1)
    assert "_, [%r17], 2048;" in body
    text = _checked(body.replace("_, [%r17], 2048;", "_, [%r17], 2064;"), MAP_OUT)
    a = np.zeros((32, 96), np.float32)
    with pytest.raises(Deadlock) as info:
        launch(text, grid=2, block=96, args=[tensor_map(a, box=(16, 32), swizzle=128), a])
    text = "\n".join(info.value.waiting)
    assert "mbarrier.try_wait.parity" in text and "tx-count 16" in text


def test_cta_pair_multicast_signals_the_mbarrier_of_the_even_cta() -> None:
    # .cta_group::2: CTA 0 multicasts a box to both CTAs of the pair; both signals go to
    # CTA 0's mbarrier (its rank is even), which must expect two boxes.
    body = """
	.reg .pred %p<8>;
	.reg .b16 %rs<3>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<20>;
	.shared .align 128 .b8 box[512];
	.shared .align 8 .b64 bar;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.b64 %rd2, tmap;
	cvta.param.u64 %rd3, %rd2;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, box;
	mov.u32 %r3, bar;
	mov.u32 %r4, %cluster_ctarank;
	setp.eq.u32 %p1, %r1, 0;
	setp.eq.u32 %p2, %r4, 0;
	and.pred %p3, %p1, %p2;
	@%p1 mbarrier.init.shared::cta.b64 [%r3], 1;
	@%p3 mbarrier.expect_tx.shared::cta.b64 [%r3], 1024;
	fence.mbarrier_init.release.cluster;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	mov.u16 %rs1, 3;
	mov.u32 %r5, 0;
	@%p3 PAIR_LOAD
		[%r2], [%rd3, {%r5, %r5}], [%r3], %rs1;
	@!%p2 bra SYNC;
	@%p1 mbarrier.arrive.shared::cta.b64 _, [%r3];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p4, [%r3], 0;
	@!%p4 bra WAIT;
SYNC:
	barrier.cluster.arrive;
	barrier.cluster.wait;
	mov.u32 %r10, %r1;
COPY:
	shl.b32 %r11, %r10, 2;
	add.u32 %r12, %r2, %r11;
	ld.shared.u32 %r13, [%r12];
	mad.lo.u32 %r14, %r4, 512, %r11;
	cvt.u64.u32 %rd4, %r14;
	add.s64 %rd5, %rd1, %rd4;
	st.global.u32 [%rd5], %r13;
	add.u32 %r10, %r10, 32;
	setp.lt.u32 %p6, %r10, 128;
	@%p6 bra COPY;
	ret;
"""
    pair_load = (
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        ".multicast::cluster.cta_group::2"
    )
    text = _checked(body.replace("PAIR_LOAD", pair_load), MAP_OUT, "sm_100a", version="8.8")
    a = np.arange(8 * 16, dtype=np.float32).reshape(8, 16) + 1
    out = np.zeros((2, 128), np.float32)
    launch(text, grid=2, block=32, cluster=(2, 1, 1), args=[tensor_map(a, box=(8, 16)), out])
    np.testing.assert_array_equal(out, np.stack([a.reshape(-1)] * 2))


# --------------------------------------------------------------------------------- editing maps

REPLACE = """
	.reg .pred %p<8>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<20>;
	.shared .align 128 .b8 desc[128];
	.shared .align 128 .b8 box[1024];
	.shared .align 8 .b64 bar;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	ld.param.u64 %rd6, [other];
	ld.param.u64 %rd7, [ws];
	cvta.to.global.u64 %rd7, %rd7;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, box;
	mov.u32 %r3, bar;
	mov.u32 %r4, desc;
	setp.lt.u32 %p1, %r1, 8;
	@!%p1 bra COPIED;
	shl.b32 %r5, %r1, 4;
	mov.u64 %rd2, tmap;
	cvt.u64.u32 %rd3, %r5;
	add.s64 %rd4, %rd2, %rd3;
	ld.param.v4.u32 {%r6, %r7, %r8, %r9}, [%rd4];
	add.u32 %r10, %r4, %r5;
	st.shared.v4.u32 [%r10], {%r6, %r7, %r8, %r9};
COPIED:
	bar.sync 0;
	setp.eq.u32 %p2, %r1, 0;
	@%p2 tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r4], %rd6;
	@%p2 tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r4], 1, 3;
	@%p2 tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r4], 0, 4;
	@%p2 tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%r4], 0, 32;
	bar.sync 0;
	tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned
		[%rd7], [%r4], 128;
	fence.proxy.tensormap::generic.acquire.gpu [%rd7], 128;
	@%p2 mbarrier.init.shared::cta.b64 [%r3], 1;
	bar.sync 0;
	@!%p2 bra WAIT;
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 64;
	cvta.global.u64 %rd8, %rd7;
	mov.u32 %r11, 2;
	mov.u32 %r12, 0;
	cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
		[%r2], [%rd8, {%r12, %r11}], [%r3];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r3], 0;
	@!%p3 bra WAIT;
	setp.lt.u32 %p4, %r1, 16;
	@!%p4 bra DONE;
	shl.b32 %r13, %r1, 2;
	add.u32 %r14, %r2, %r13;
	ld.shared.u32 %r15, [%r14];
	mul.wide.u32 %rd9, %r1, 4;
	add.s64 %rd10, %rd1, %rd9;
	st.global.u32 [%rd10], %r15;
DONE:
	ret;
"""


def test_tensormap_replace_then_load_through_the_edited_copy() -> None:
    # The map describes `a`; the kernel points it at `other` (an 8-column int32 matrix, 32
    # bytes a row), with 3 rows and a 4-wide box, copies it to global memory and loads the
    # box at (row 2, column 0) through it: row 2 of `other`, then zeros (rows 3+ are out).
    a = np.zeros((16, 16), np.int32)
    other = np.arange(10 * 8, dtype=np.int32).reshape(10, 8) + 100
    ws = np.zeros(128, np.uint8)
    out = np.full(16, -1, np.int32)
    params = (
        ".param .align 64 .b8 tmap[128]",
        ".param .u64 other",
        ".param .u64 ws",
        ".param .u64 out",
    )
    launch(
        _checked(REPLACE, params),
        grid=1,
        block=32,
        args=[tensor_map(a, box=(4, 16)), other, ws, out],
    )
    want = np.zeros((4, 4), np.int32)
    want[0] = other[2, :4]
    np.testing.assert_array_equal(out, want.reshape(-1))


@settings(max_examples=examples(50), deadline=None)
@given(
    rank=st.integers(1, 5),
    dims=st.lists(st.integers(1, 2**32 - 1), min_size=5, max_size=5),
    box=st.lists(st.integers(1, 256), min_size=5, max_size=5),
    swizzle=st.sampled_from([None, 32, 64, 96, 128]),
    nan=st.booleans(),
    address=st.integers(0, 2**64 - 1),
)
def test_inline_tensor_maps_round_trip(
    rank: int, dims: list[int], box: list[int], swizzle: int | None, nan: bool, address: int
) -> None:
    desc = Descriptor(
        address=address,
        rank=rank,
        dtype=PtxType.BF16,
        dims=tuple(dims),
        strides=(2, 16, 32, 48, 2**40 - 16),
        box=tuple(box),
        elem_strides=(1, 2, 3, 4, 8),
        swizzle=swizzle,
        oob_nan=nan,
    )
    assert decode(encode_inline(desc)) == desc


def test_descriptor_fields_follow_the_replace_table() -> None:
    a = np.zeros((4, 8, 16), np.float32)
    desc = tensor_map(a, box=(2, 4, 8)).descriptor(0x1000)
    assert desc.dims[:3] == (16, 8, 4) and desc.box[:3] == (8, 4, 2)
    assert desc.with_field("elemtype", 10).dtype is PtxType.BF16
    assert desc.with_field("elemtype", 8).ftz
    assert desc.with_field("swizzle_mode", 3).swizzle == 128
    assert desc.with_field("fill_mode", 1).oob_nan
    assert desc.with_field("rank", 1).rank == 2
    assert desc.with_field("element_stride", 2, 1).elem_strides[1] == 2
    with pytest.raises(ValueError, match="swizzle_mode"):
        desc.with_field("swizzle_mode", 9)


# --------------------------------------------------------------------------------- errors


def test_an_address_without_a_tensor_map_is_an_error() -> None:
    body = LOAD.format(nbytes=256, offset=0, tx=256, rank=1, coords="0", words=64)
    body = body.replace(
        "mov.b64 %rd2, tmap;\n\tcvta.param.u64 %rd3, %rd2;", "ld.param.u64 %rd3, [fake];"
    )
    params = (".param .u64 fake", ".param .u64 out")
    with pytest.raises(
        EmuError, match=r"does not hold a tensor map made by pyptx\.emu\.tensor_map"
    ):
        launch(
            _checked(body, params),
            grid=1,
            block=32,
            args=[np.zeros(32, np.uint32), np.zeros(256, np.uint8)],
        )


def test_the_instruction_rank_must_match_the_map() -> None:
    a = np.zeros((8, 16), np.float32)
    body = LOAD.format(nbytes=512, offset=0, tx=512, rank=3, coords="0, 0, 0", words=128)
    with pytest.raises(EmuError, match=r"\.3d but the tensor map has rank 2"):
        launch(
            _checked(body, MAP_OUT),
            grid=1,
            block=32,
            args=[tensor_map(a, box=(8, 16)), np.zeros(512, np.uint8)],
        )


def test_a_box_not_128_byte_aligned_is_reported() -> None:
    a = np.zeros((8, 16), np.float32)
    with pytest.raises(Misaligned):
        _load(a, (0, 0), offset=64, box=(8, 16))


def test_a_swizzle_wider_than_the_box_row_is_not_emulated() -> None:
    a = np.zeros((8, 16), np.float32)
    with pytest.raises(NotEmulated, match="64-byte inner box side"):
        _load(a, (0, 0), box=(8, 16), swizzle=128)


def test_im2col_is_not_emulated() -> None:
    a = np.zeros((2, 4, 4, 8), np.float32)
    body = LOAD.format(nbytes=512, offset=0, tx=512, rank=4, coords="0, 0, 0, 0", words=128)
    body = (
        body.replace(".global.tile.mbarrier", ".global.im2col.mbarrier")
        .replace("[%r3];\nWAIT", "[%r3], {%rs1, %rs1};\nWAIT")
        .replace(".reg .pred %p<8>;", ".reg .pred %p<8>;\n\t.reg .b16 %rs<2>;\n\tmov.u16 %rs1, 0;")
    )
    with pytest.raises(NotEmulated, match="im2col"):
        launch(
            _checked(body, MAP_OUT),
            grid=1,
            block=32,
            args=[tensor_map(a, box=(1, 2, 2, 8)), np.zeros(512, np.uint8)],
        )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"box": (4, 8), "elem_strides": (1, 2)}, "innermost element stride must be 1"),
        ({"box": (4, 8), "oob_fill": "nan"}, "oob_fill='nan' needs"),
        ({"box": (4, 3)}, "multiple of 16 bytes"),
        ({"box": (4, 64), "swizzle": 128}, "at most 128 bytes"),
    ],
)
def test_tensor_map_refuses_what_the_driver_refuses(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(LaunchError, match=message):
        tensor_map(np.zeros((8, 64), np.int32), **kwargs)
