"""tcgen05 (Blackwell tensor cores): tensor memory, ld/st, cp, mma, commit.

Expected values come from outside the emulator: numpy matmuls of the operands, the register
<-> tensor-memory maps of CUTLASS's ``SM100_TMEM_LOAD_*`` copy traits (evaluated here as CuTe
layouts), the canonical shared-memory layouts spelled as CuTe layouts with CUTLASS's
``Swizzle<B,M,S>``, and the data-path layouts of ``UMMA::tmem_frg``. Every kernel form is
assembled with ptxas for sm_100a.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from emu_testing import module, ptxas_accepts

from pyptx.emu import Deadlock, EmuError, NotEmulated, OutOfBounds, launch

TARGET = "sm_100a"
VERSION = "8.7"

_checked: set[str] = set()


def _launch(
    body: str,
    args: Sequence[Any],
    *,
    params: Sequence[str] = (".param .u64 out",),
    block: int = 128,
    grid: Any = 1,
    cluster: Any = (1, 1, 1),
    assemble: bool = True,
) -> None:
    """Assemble the kernel with ptxas (once per distinct text) and run it."""
    text = module(body, params=params, target=TARGET, version=VERSION)
    if assemble and text not in _checked:
        ok, message = ptxas_accepts(text, TARGET)
        assert ok, message
        _checked.add(text)
    launch(text, grid=grid, block=block, args=args, cluster=cluster)


REGS = """
	.reg .b32 %r<200>;
	.reg .b64 %rd<40>;
	.reg .pred %p<10>;
	.shared .align 16 .b32 slot;
	.shared .align 8 .b64 bar;
"""


def _head(ncols: int, group: int = 1) -> str:
    """Warp 0 allocates ``ncols`` columns; every thread gets the address in %r5.

    %r1 tid, %r2 warp, %r3 lane, %p1 warp 0, %p2 thread 0, %rd1 the ``out`` pointer.
    """
    return f"""
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	and.b32 %r3, %r1, 31;
	setp.eq.u32 %p1, %r2, 0;
	setp.eq.u32 %p2, %r1, 0;
	@!%p1 bra ALLOCATED;
	mov.u32 %r4, slot;
	tcgen05.alloc.cta_group::{group}.sync.aligned.shared::cta.b32 [%r4], {ncols};
ALLOCATED:
	tcgen05.fence::before_thread_sync;
	bar.sync 0;
	tcgen05.fence::after_thread_sync;
	ld.shared.b32 %r5, [slot];
	shl.b32 %r6, %r2, 21;
	add.u32 %r7, %r5, %r6;
"""


def _tail(ncols: int, group: int = 1) -> str:
    """Warp 0 frees the columns and gives up the allocation permit."""
    return f"""
	tcgen05.fence::before_thread_sync;
	bar.sync 0;
	@!%p1 bra FREED;
	tcgen05.dealloc.cta_group::{group}.sync.aligned.b32 %r5, {ncols};
	tcgen05.relinquish_alloc_permit.cta_group::{group}.sync.aligned;
FREED:
	ret;
"""


def _readout(ncols: int) -> str:
    """Each thread copies its TMEM lane (= its tid, via its warp's quarter) to out row tid."""
    regs = ", ".join(f"%r{i}" for i in range(60, 68))
    return f"""
	mul.wide.u32 %rd2, %r1, {ncols * 4};
	add.s64 %rd3, %rd1, %rd2;
	mov.u32 %r9, 0;
READ:
	add.u32 %r10, %r7, %r9;
	tcgen05.ld.sync.aligned.32x32b.x8.b32 {{{regs}}}, [%r10];
	tcgen05.wait::ld.sync.aligned;
	mul.wide.u32 %rd4, %r9, 4;
	add.s64 %rd5, %rd3, %rd4;
	st.global.v4.u32 [%rd5], {{%r60, %r61, %r62, %r63}};
	st.global.v4.u32 [%rd5+16], {{%r64, %r65, %r66, %r67}};
	add.u32 %r9, %r9, 8;
	setp.lt.u32 %p3, %r9, {ncols};
	@%p3 bra READ;
"""


def _fill(ncols: int, base: int = 0xAB000000) -> str:
    """Each thread writes ``base | lane * 512 + column`` to its lane, every column."""
    regs = ", ".join(f"%r{i}" for i in range(60, 68))
    adds = "\n".join(f"\tadd.u32 %r{60 + i}, %r11, {i};" for i in range(8))
    return f"""
	mov.u32 %r9, 0;
FILL:
	mad.lo.u32 %r11, %r1, 512, %r9;
	or.b32 %r11, %r11, {base:#x};
{adds}
	add.u32 %r10, %r7, %r9;
	tcgen05.st.sync.aligned.32x32b.x8.b32 [%r10], {{{regs}}};
	add.u32 %r9, %r9, 8;
	setp.lt.u32 %p3, %r9, {ncols};
	@%p3 bra FILL;
	tcgen05.wait::st.sync.aligned;
"""


def _filled(ncols: int, base: int = 0xAB000000) -> np.ndarray:
    lane = np.arange(128, dtype=np.uint32)[:, None]
    col = np.arange(ncols, dtype=np.uint32)[None, :]
    return np.uint32(base) | (lane * np.uint32(512) + col)


# ------------------------------------------------------------------ allocation


def test_alloc_writes_the_address_and_dealloc_makes_room_again() -> None:
    body = (
        REGS
        + """
	.shared .align 16 .b32 slots[3];
	ld.param.u64 %rd1, [out];
	mov.u32 %r4, slots;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 256;
	mov.u64 %rd3, slots;
	cvta.shared.u64 %rd2, %rd3;
	add.s64 %rd2, %rd2, 4;
	tcgen05.alloc.cta_group::1.sync.aligned.b32 [%rd2], 128;
	ld.shared.b32 %r5, [slots];
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r5, 256;
	add.u32 %r9, %r4, 8;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r9], 256;
	ld.shared.v2.b32 {%r10, %r11}, [slots];
	ld.shared.b32 %r12, [slots+8];
	st.global.v2.u32 [%rd1], {%r10, %r11};
	st.global.u32 [%rd1+8], %r12;
	ld.shared.b32 %r13, [slots+4];
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r13, 128;
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r12, 256;
	tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
	ret;
"""
    )
    out = np.zeros(3, np.uint32)
    _launch(body, [out], block=32)
    first, second, third = (int(v) for v in out)
    # Lane 0 in bits 31-16, a column in 15-0, columns disjoint, all within 512.
    assert first >> 16 == second >> 16 == third >> 16 == 0
    assert first + 256 <= 512 and second + 128 <= 512
    assert not (first <= second < first + 256)
    # The freed 256 columns are found again (nothing else fits 256 beside the 128).
    assert third == first


def _alloc_body(steps: str, ncols: int = 32) -> str:
    return (
        REGS
        + f"""
	mov.u32 %r4, slot;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], {ncols};
	ld.shared.b32 %r5, [slot];
{steps}
	ret;
"""
    )


@pytest.mark.parametrize(
    ("steps", "ncols", "match"),
    [
        ("", 48, "power of two"),
        ("", 16, "power of two"),
        ("\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r5, 64;", 32, "no allocation|64"),
        (
            "\ttcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n"
            "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 32;",
            32,
            "relinquish",
        ),
    ],
    ids=["ncols-48", "ncols-16", "dealloc-mismatch", "alloc-after-relinquish"],
)
def test_allocation_misuse_is_an_error(steps: str, ncols: int, match: str) -> None:
    # ptxas itself rejects a constant nCols that is not a power of two in [32, 512]; the
    # emulator must also catch one computed at run time.
    valid = ncols in (32, 64, 128, 256, 512)
    with pytest.raises(EmuError, match=match):
        _launch(_alloc_body(steps, ncols), [np.zeros(1, np.uint32)], block=32, assemble=valid)


def test_running_out_of_tensor_memory_blocks_until_deadlock_is_reported() -> None:
    steps = "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 512;"
    with pytest.raises(Deadlock, match="512 columns"):
        _launch(_alloc_body(steps, 512), [np.zeros(1, np.uint32)], block=32)


def test_alloc_waits_for_another_warp_to_free_columns() -> None:
    # Warp 1 allocates all 512 columns and frees them after a barrier that warp 0 reaches
    # only after its own allocation has been requested (it blocks until warp 1 frees).
    body = (
        REGS
        + """
	.shared .align 16 .b32 slots[2];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	mov.u32 %r4, slots;
	setp.eq.u32 %p1, %r2, 1;
	@!%p1 bra WARP0;
	add.u32 %r8, %r4, 4;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r8], 512;
	bar.arrive 1, 64;
	ld.shared.b32 %r5, [slots+4];
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r5, 512;
	bra END;
WARP0:
	bar.sync 1, 64;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 512;
	ld.shared.b32 %r5, [slots];
	st.global.u32 [%rd1], %r5;
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r5, 512;
END:
	ret;
"""
    )
    out = np.full(1, 7, np.uint32)
    _launch(body, [out], block=64)
    assert out[0] == 0


# ------------------------------------------------------------------ ld / st maps

# CUTLASS SM100_TMEM_LOAD_<shape><num>x copy traits: the logical bits per TMEM lane of one
# instruction (ValID) and the (thread, value bit) -> logical bit map (DstLayout), as CuTe
# (shape, stride). The logical bit b lies in lane b // bits, bit b % bits of that lane; with
# .pack::16b a logical 32-bit unit holds the low halves of two adjacent physical columns.
CUTLASS = {
    ("32x32b", 1): (32, (32, 32), (32, 1)),
    ("32x32b", 2): (64, (32, 64), (64, 1)),
    ("32x32b", 4): (128, (32, 128), (128, 1)),
    ("16x64b", 1): (64, ((2, 2, 8), 32), ((512, 32, 64), 1)),
    ("16x64b", 2): (128, ((2, 2, 8), (32, 2)), ((1024, 32, 128), (1, 64))),
    ("16x64b", 4): (256, ((2, 2, 8), (32, 4)), ((2048, 32, 256), (1, 64))),
    ("16x128b", 1): (128, ((4, 8), (32, 2)), ((32, 128), (1, 1024))),
    ("16x128b", 2): (256, ((4, 8), (32, 2, 2)), ((32, 256), (1, 2048, 128))),
    ("16x128b", 4): (512, ((4, 8), (32, 2, 4)), ((32, 512), (1, 4096, 128))),
    ("16x256b", 1): (256, ((4, 8), (64, 2)), ((64, 256), (1, 2048))),
    ("16x256b", 2): (512, ((4, 8), (64, 2, 2)), ((64, 512), (1, 4096, 256))),
    ("16x256b", 4): (1024, ((4, 8), (64, 2, 4)), ((64, 1024), (1, 8192, 256))),
    # 16x32bx2: the two 16-lane halves side by side; CUTLASS passes immHalfSplitoff = num.
    ("16x32bx2", 1): (64, ((16, 2), 32), ((64, 32), 1)),
    ("16x32bx2", 2): (128, ((16, 2), 64), ((128, 64), 1)),
    ("16x32bx2", 4): (256, ((16, 2), 128), ((256, 128), 1)),
}
REGS_PER_NUM = {"32x32b": 1, "16x64b": 1, "16x128b": 2, "16x256b": 4, "16x32bx2": 1}


def _flatten(shape: Any, stride: Any) -> list[tuple[int, int]]:
    if isinstance(shape, int):
        return [(shape, stride)]
    return [m for s, d in zip(shape, stride, strict=True) for m in _flatten(s, d)]


def _cute(shape: Any, stride: Any, index: int) -> int:
    """A CuTe layout applied to a 1-D index (colexicographic coordinates)."""
    out = 0
    for size, step in _flatten(shape, stride):
        out += (index % size) * step
        index //= size
    return out


def _cutlass_map(shape: str, num: int) -> tuple[np.ndarray, np.ndarray]:
    """``lane[t, j]`` and logical ``col[t, j]`` of each thread's register, from CUTLASS."""
    bits, (tshape, vshape), (tstride, vstride) = CUTLASS[(shape, num)]
    regs = REGS_PER_NUM[shape] * num
    lane = np.zeros((32, regs), np.int64)
    col = np.zeros((32, regs), np.int64)
    for t in range(32):
        for j in range(regs):
            b = _cute(tshape, tstride, t) + _cute(vshape, vstride, 32 * j)
            lane[t, j], col[t, j] = b // bits, (b % bits) // 32
    return lane, col


def _phys(shape: str, num: int, col: np.ndarray, packed: bool) -> tuple[np.ndarray, ...]:
    """Physical columns of logical columns (16x32bx2: the second half starts at column
    ``split``, which these tests set to 2 * num columns of logical width; packing doubles)."""
    width = 2 if packed else 1
    cols = [col * width + i for i in range(width)]
    if shape == "16x32bx2":
        per_half = num * width
        split = 2 * per_half
        cols = [np.where(c >= per_half, c - per_half + split, c) for c in cols]
    return tuple(cols)


def _ldst_kernel(shape: str, num: int, packed: bool, store: bool, upper: int) -> str:
    regs = REGS_PER_NUM[shape] * num
    names = ", ".join(f"%r{100 + j}" for j in range(regs))
    split = f", {2 * num * (2 if packed else 1)}" if shape == "16x32bx2" else ""
    mod = (".unpack::16b" if store else ".pack::16b") if packed else ""
    lane_off = 16 if upper else 0
    if store:
        values = "\n".join(
            f"\tmad.lo.u32 %r{100 + j}, %r3, 0x10001, {(0x4000 + 2 * j) | (2 * j + 1) << 16};"
            if packed
            else f"\tmad.lo.u32 %r{100 + j}, %r3, 256, {j | 0x5A000000};"
            for j in range(regs)
        )
        move = f"""
{values}
	add.u32 %r12, %r7, {lane_off << 16};
	tcgen05.st.sync.aligned.{shape}.x{num}{mod}.b32 [%r12]{split}, {{{names}}};
	tcgen05.wait::st.sync.aligned;
{_readout(64)}"""
    else:
        stores = "\n".join(f"\tst.global.u32 [%rd5+{4 * j}], %r{100 + j};" for j in range(regs))
        move = f"""
	add.u32 %r12, %r7, {lane_off << 16};
	tcgen05.ld.sync.aligned.{shape}.x{num}{mod}.b32 {{{names}}}, [%r12]{split};
	tcgen05.wait::ld.sync.aligned;
	mul.wide.u32 %rd4, %r1, {4 * regs};
	add.s64 %rd5, %rd1, %rd4;
{stores}"""
    return REGS + _head(64) + _fill(64) + move + _tail(64)


LDST_CASES = [
    (shape, num, packed)
    for shape in ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2")
    for num in (1, 2, 4)
    for packed in (False, True)
    if not (packed and REGS_PER_NUM[shape] * num * 2 * 32 > 64 * 32 * 4)
]


def _expected_lanes(lane: np.ndarray, upper: int) -> np.ndarray:
    warp = np.arange(128)[:, None] // 32
    return 32 * warp + 16 * upper + np.tile(lane, (4, 1))


@pytest.mark.parametrize(("shape", "num", "packed"), LDST_CASES)
def test_ld_maps_registers_to_lanes_and_columns_as_cutlass(
    shape: str, num: int, packed: bool
) -> None:
    upper = 1 if shape != "32x32b" else 0
    lane, col = _cutlass_map(shape, num)
    regs = lane.shape[1]
    out = np.zeros((128, regs), np.uint32)
    _launch(_ldst_kernel(shape, num, packed, store=False, upper=upper), [out])
    lanes = _expected_lanes(lane, upper)
    cols = [np.tile(c, (4, 1)) for c in _phys(shape, num, col, packed)]
    cells = _filled(64)
    if packed:
        want = (cells[lanes, cols[0]] & 0xFFFF) | ((cells[lanes, cols[1]] & 0xFFFF) << 16)
    else:
        want = cells[lanes, cols[0]]
    np.testing.assert_array_equal(out, want.astype(np.uint32))


@pytest.mark.parametrize(("shape", "num", "packed"), LDST_CASES)
def test_st_writes_registers_to_lanes_and_columns_as_cutlass(
    shape: str, num: int, packed: bool
) -> None:
    upper = 1 if shape != "32x32b" else 0
    lane, col = _cutlass_map(shape, num)
    regs = lane.shape[1]
    out = np.zeros((128, 64), np.uint32)
    _launch(_ldst_kernel(shape, num, packed, store=True, upper=upper), [out])
    want = _filled(64).copy()
    lanes = _expected_lanes(lane, upper)
    t = np.tile(np.arange(32)[:, None], (4, regs))
    j = np.tile(np.arange(regs)[None, :], (128, 1))
    cols = [np.tile(c, (4, 1)) for c in _phys(shape, num, col, packed)]
    if packed:
        # The registers hold t * 0x10001 + (0x4000 + 2j | (2j + 1) << 16): one 16-bit half
        # per column, the low half in the lower column, the upper 16 bits of the cells zero.
        value = (t * 0x10001 + ((0x4000 + 2 * j) | (2 * j + 1) << 16)) & 0xFFFF_FFFF
        want[lanes, cols[0]] = value & 0xFFFF
        want[lanes, cols[1]] = value >> 16
    else:
        want[lanes, cols[0]] = 0x5A000000 + t * 256 + j
    np.testing.assert_array_equal(out, want)


def test_ld_outside_the_warps_quarter_of_lanes_is_an_error() -> None:
    body = (
        REGS
        + _head(32)
        + """
	tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r20}, [%r5];
	tcgen05.wait::ld.sync.aligned;
"""
        + _tail(32)
    )
    with pytest.raises(OutOfBounds, match="lanes 32-63"):
        _launch(body, [np.zeros(1, np.uint32)])


def test_st_to_a_column_that_is_not_allocated_is_an_error() -> None:
    body = (
        REGS
        + _head(32)
        + """
	add.u32 %r8, %r7, 32;
	tcgen05.st.sync.aligned.32x32b.x1.b32 [%r8], {%r1};
	tcgen05.wait::st.sync.aligned;
"""
        + _tail(32)
    )
    with pytest.raises(OutOfBounds, match="not allocated"):
        _launch(body, [np.zeros(1, np.uint32)])


# ------------------------------------------------------------------ shared-memory operands

# CUTLASS Swizzle<B, M, S> of each layout type: address bits [M+S, M+S+B) XOR into [M, M+B).
SWIZZLE = {"none": (0, 4, 3), "32b": (1, 4, 3), "64b": (2, 4, 3), "128b": (3, 4, 3)}
SWIZZLE["128b_base32b"] = (2, 5, 2)
LAYOUT_TYPE = {"none": 0, "128b_base32b": 1, "128b": 2, "64b": 4, "32b": 6}
SPAN = {"none": 16, "32b": 32, "64b": 64, "128b": 128, "128b_base32b": 128}


def _swizzled(address: int, mode: str) -> int:
    b, m, s = SWIZZLE[mode]
    return address ^ (((address >> (m + s)) & ((1 << b) - 1)) << m)


def _layout(rows: int, kdim: int, ebytes: int, major: str, mode: str) -> tuple[int, int, Any]:
    """(LBO, SBO, offset(r, k)) of a canonical tile (CUTLASS make_umma_desc forms).

    K-major:  none ((8,m),(T,2k)):((1T,SBO),(1,LBO)); swizzled ((8,m),(T,2)):((S/16 T,SBO),(1,T)).
    MN-major: none ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)); swizzled
    ((T,S/16,m),(8,k)):((1,T,LBO),(S/16 T,SBO)); 32B-atom ((T,8,m),(4,k)):((1,T,LBO),(8T,SBO)).
    Tiles are packed densely: K chunks (or MN atoms) innermost.
    """
    t = 16 // ebytes
    span = SPAN[mode]
    if major == "K":
        if mode == "none":
            lbo, sbo = 128, 128 * (kdim // t)
            return (
                lbo,
                sbo,
                lambda r, k: (r // 8) * sbo + (r % 8) * 16 + (k // t) * lbo + (k % t) * ebytes,
            )
        sbo = 8 * span
        return 16, sbo, lambda r, k: (r // 8) * sbo + (r % 8) * span + k * ebytes
    if mode == "none":
        sbo, lbo = 128, 128 * (rows // t)
        return (
            lbo,
            sbo,
            lambda r, k: (r // t) * sbo + (r % t) * ebytes + (k % 8) * 16 + (k // 8) * lbo,
        )
    krows = 4 if mode == "128b_base32b" else 8
    atom = span // ebytes
    lbo, sbo = krows * span, krows * span * (rows // atom)
    return (
        lbo,
        sbo,
        lambda r, k: (
            (r // atom) * lbo + (r % atom) * ebytes + (k % krows) * span + (k // krows) * sbo
        ),
    )


def _image(codes: np.ndarray, ebytes: int, major: str, mode: str) -> tuple[np.ndarray, int]:
    """The shared-memory bytes of ``codes`` (rows x K) and the descriptor's high bits."""
    rows, kdim = codes.shape
    lbo, sbo, offset = _layout(rows, kdim, ebytes, major, mode)
    end = max(offset(r, k) for r in range(rows) for k in range(kdim)) + ebytes
    image = np.zeros(1024 * -(-end // 1024), np.uint8)
    for r in range(rows):
        for k in range(kdim):
            at = _swizzled(offset(r, k), mode)
            image[at : at + ebytes] = np.frombuffer(
                int(codes[r, k]).to_bytes(ebytes, "little"), np.uint8
            )
    hi = (lbo >> 4) << 16 | (sbo >> 4) << 32 | 1 << 46 | LAYOUT_TYPE[mode] << 61
    return image, hi


# ------------------------------------------------------------------ operand values


def _minifloat(codes: np.ndarray, ebits: int, mbits: int, bias: int) -> np.ndarray:
    c = codes.astype(np.int64)
    e = (c >> mbits) & ((1 << ebits) - 1)
    m = c & ((1 << mbits) - 1)
    mag = np.where(e == 0, m / 2**mbits * 2.0 ** (1 - bias), (1 + m / 2**mbits) * 2.0 ** (e - bias))
    return np.where(c >> (ebits + mbits), -mag, mag)


def _operand(rng: np.random.Generator, ty: str, shape: tuple[int, int]) -> tuple[np.ndarray, ...]:
    """(codes, exact values) of a random operand whose products and sums are exact."""
    if ty in ("f16", "bf16", "tf32"):
        values = rng.integers(-8, 9, shape) / 4.0
        if ty == "f16":
            return values.astype(np.float16).view(np.uint16), values
        bits = values.astype(np.float32).view(np.uint32)
        return (bits >> 16 if ty == "bf16" else bits), values
    if ty in ("e4m3", "e5m2"):
        ebits, mbits, bias = (4, 3, 7) if ty == "e4m3" else (5, 2, 15)
        exp = rng.integers(bias - 2, bias + 3, shape)
        codes = rng.integers(0, 2, shape) << 7 | exp << mbits | rng.integers(0, 1 << mbits, shape)
        return codes.astype(np.uint8), _minifloat(codes, ebits, mbits, bias)
    if ty == "s8":
        values = rng.integers(-128, 128, shape)
        return values.astype(np.int8).view(np.uint8), values
    values = rng.integers(0, 256, shape)
    return values.astype(np.uint8), values


EBYTES = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1, "s8": 1, "u8": 1}
KIND_K = {"f16": 16, "tf32": 8, "f8f6f4": 32, "i8": 32}
FORMAT = {"f16": 0, "bf16": 1, "tf32": 2, "e4m3": 0, "e5m2": 1, "u8": 0, "s8": 1}
DFORMAT = {"f16": 0, "f32": 1, "s32": 2}


def _idesc(
    atype: str,
    btype: str,
    dtype: str,
    m: int,
    n: int,
    *,
    a_mn: bool = False,
    b_mn: bool = False,
    neg_a: bool = False,
    neg_b: bool = False,
    saturate: bool = False,
) -> int:
    """The instruction descriptor, field by field from the ISA table."""
    return (
        int(saturate) << 3
        | DFORMAT[dtype] << 4
        | FORMAT[atype] << 7
        | FORMAT[btype] << 10
        | int(neg_a) << 13
        | int(neg_b) << 14
        | int(a_mn) << 15
        | int(b_mn) << 16
        | (n >> 3) << 17
        | (m >> 4) << 24
    )


# CUTLASS UMMA::tmem_frg / tmem_frg_ws accumulator atoms, (rows, N) -> DP + 128 * column.
def _datapath_atom(rows: int, n: int, group: int, ws: bool) -> tuple[Any, Any]:
    if rows == 128:
        return (128, n), (1, 128)
    if rows == 64 and group == 1 and not ws:
        return ((16, 4), n), ((1, 32), 128)
    if rows == 64:
        return (64, (n // 2, 2)), (1, (128, 64))
    return (32, (n // 4, 4)), (1, (128, 32))


def _place(d: np.ndarray, grid: np.ndarray, group: int, ws: bool, lane0: int = 0) -> None:
    """Write a CTA's rows of D into a (128 lanes x columns) TMEM image."""
    rows, n = d.shape
    (ms, ns), (md, nd) = _datapath_atom(rows, n, group, ws)
    for r in range(rows):
        for c in range(n):
            v = _cute(ms, md, r) + _cute(ns, nd, c)
            grid[lane0 + v % 128, v // 128] = d[r, c]


def _lanes_of_rows(rows: int, n: int, group: int, ws: bool) -> dict[int, int]:
    """TMEM lane -> the D row it computes (every lane a D cell of that row lives in)."""
    (ms, ns), (md, nd) = _datapath_atom(rows, n, group, ws)
    return {(_cute(ms, md, r) + _cute(ns, nd, c)) % 128: r for r in range(rows) for c in range(n)}


# ------------------------------------------------------------------ mma kernels


def _copy_to_shared(var: str, param: str, size: int, tag: str) -> str:
    """All 128 threads copy ``size`` bytes from global ``param`` to shared ``var``."""
    return f"""
	ld.param.u64 %rd20, [{param}];
	mov.u32 %r20, {var};
	shl.b32 %r21, %r1, 4;
COPY_{tag}:
	setp.ge.u32 %p4, %r21, {size};
	@%p4 bra COPIED_{tag};
	mul.wide.u32 %rd21, %r21, 1;
	add.s64 %rd22, %rd20, %rd21;
	ld.global.v4.u32 {{%r22, %r23, %r24, %r25}}, [%rd22];
	add.u32 %r26, %r20, %r21;
	st.shared.v4.u32 [%r26], {{%r22, %r23, %r24, %r25}};
	add.u32 %r21, %r21, 2048;
	bra COPY_{tag};
COPIED_{tag}:
"""


def _desc(var: str, hi: int, reg: str) -> str:
    return f"""
	mov.u64 {reg}, {var};
	shr.u64 {reg}, {reg}, 4;
	and.b64 {reg}, {reg}, 0x3FFF;
	or.b64 {reg}, {reg}, {hi:#x};
"""


def _tmem_a(col: int) -> str:
    """Each thread stores 8 words (its lane's A data) from ``pa`` to TMEM columns ``col``+."""
    regs = ", ".join(f"%r{i}" for i in range(60, 68))
    return f"""
	ld.param.u64 %rd20, [pa];
	mul.wide.u32 %rd21, %r1, 32;
	add.s64 %rd22, %rd20, %rd21;
	ld.global.v4.u32 {{%r60, %r61, %r62, %r63}}, [%rd22];
	ld.global.v4.u32 {{%r64, %r65, %r66, %r67}}, [%rd22+16];
	add.u32 %r10, %r7, {col};
	tcgen05.st.sync.aligned.32x32b.x8.b32 [%r10], {{{regs}}};
	tcgen05.wait::st.sync.aligned;
"""


def _mma_kernel(
    issues: list[str],
    *,
    ncols: int,
    size_a: int,
    size_b: int,
    hi_a: int,
    hi_b: int,
    a_tmem_col: int | None = None,
    base: int = 0xAB000000,
) -> str:
    """Load the A/B images, fill TMEM with the background, run ``issues`` in thread 0, commit,
    wait on the mbarrier, read every lane and ``ncols`` columns out.

    In ``issues``, ``{A}``/``{B}`` are the A operand and B descriptor, ``{D}`` the TMEM address
    of D, ``%p5``/``%p6`` false/true.
    """
    decls = f"""
	.shared .align 1024 .b8 sA[{size_a}];
	.shared .align 1024 .b8 sB[{size_b}];
"""
    a_arg = "[%r13]" if a_tmem_col is not None else "%rd11"
    lines = "\n".join("\t" + i.format(A=a_arg, B="%rd13", D="%r5") + ";" for i in issues)
    if a_tmem_col is not None:
        prep_a, desc_a = _tmem_a(a_tmem_col), f"\tadd.u32 %r13, %r5, {a_tmem_col};"
    else:
        prep_a, desc_a = _copy_to_shared("sA", "pa", size_a, "A"), _desc("sA", hi_a, "%rd11")
    return (
        REGS
        + decls
        + _head(ncols)
        + _fill(ncols, base)
        + prep_a
        + _copy_to_shared("sB", "pb", size_b, "B")
        + f"""
	mov.u32 %r40, bar;
	@!%p2 bra INITED;
	mbarrier.init.shared::cta.b64 [%r40], 1;
INITED:
	fence.proxy.async.shared::cta;
	tcgen05.fence::before_thread_sync;
	bar.sync 0;
	tcgen05.fence::after_thread_sync;
	@!%p2 bra ISSUED;
	setp.ne.u32 %p5, %r1, %r1;
	setp.eq.u32 %p6, %r1, %r1;
{desc_a}
{_desc("sB", hi_b, "%rd13")}
{lines}
	tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r40];
ISSUED:
	mov.u32 %r41, 0;
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p7, [%r40], %r41;
	@!%p7 bra WAIT;
	tcgen05.fence::after_thread_sync;
"""
        + _readout(ncols)
        + _tail(ncols)
    )


MMA_PARAMS = (".param .u64 out", ".param .u64 pa", ".param .u64 pb")


def _cols(n: int) -> int:
    return max(32, 1 << (n - 1).bit_length())


def _encode(values: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "f32":
        return values.astype(np.float32).view(np.uint32)
    if dtype == "f16":
        return values.astype(np.float16).view(np.uint16).astype(np.uint32)
    return (values.astype(np.int64) & 0xFFFF_FFFF).astype(np.uint32)


class Case:
    """One MMA configuration: random operands, their shared-memory images, the idesc."""

    def __init__(
        self,
        kind: str,
        atype: str,
        btype: str,
        dtype: str,
        m: int,
        n: int,
        a_major: str = "K",
        b_major: str = "K",
        a_mode: str = "none",
        b_mode: str = "none",
        *,
        seed: int = 0,
        **fields: bool,
    ) -> None:
        rng = np.random.default_rng(seed)
        k = KIND_K[kind]
        self.kind, self.dtype, self.m, self.n, self.k = kind, dtype, m, n, k
        self.atype = atype
        self.a_codes, self.a = _operand(rng, atype, (m, k))
        self.b_codes, self.b = _operand(rng, btype, (n, k))
        self.a_image, self.hi_a = _image(self.a_codes, EBYTES[atype], a_major, a_mode)
        self.b_image, self.hi_b = _image(self.b_codes, EBYTES[btype], b_major, b_mode)
        self.idesc = _idesc(
            atype, btype, dtype, m, n, a_mn=a_major == "MN", b_mn=b_major == "MN", **fields
        )
        self.ncols = _cols(n)

    def product(self) -> np.ndarray:
        return self.a @ self.b.T

    def run(self, issues: list[str], **kw: Any) -> np.ndarray:
        out = np.zeros((128, kw.pop("ncols", self.ncols)), np.uint32)
        pa = kw.pop("pa", self.a_image)
        body = _mma_kernel(
            issues,
            ncols=out.shape[1],
            size_a=self.a_image.size,
            size_b=self.b_image.size,
            hi_a=self.hi_a,
            hi_b=self.hi_b,
            **kw,
        )
        _launch(body, [out, pa, self.b_image], params=MMA_PARAMS)
        return out

    def expect(
        self, d: np.ndarray, ncols: int | None = None, ws: bool = False, base: int = 0xAB000000
    ) -> np.ndarray:
        grid = _filled(ncols or self.ncols, base)
        _place(_encode(d, self.dtype), grid, 1, ws)
        return grid


def _issue(kind: str, enable: str, extra: str = "", mods: str = "", idesc: int = 0) -> list[str]:
    return [
        f"mov.u32 %r31, {idesc:#x}",
        f"tcgen05.mma.cta_group::1.kind::{kind}{mods} [{{D}}], {{A}}, {{B}}, %r31{extra}, {enable}",
    ]


MMA_CASES = [
    ("f16", "f16", "f16", "f32", 128, 64, "K", "K", "none", "none"),
    ("f16", "f16", "f16", "f32", 128, 64, "K", "K", "32b", "64b"),
    ("f16", "bf16", "bf16", "f32", 128, 128, "K", "K", "128b", "128b"),
    ("f16", "f16", "f16", "f16", 128, 64, "MN", "MN", "128b", "64b"),
    ("f16", "bf16", "bf16", "f32", 128, 64, "MN", "MN", "none", "32b"),
    ("f16", "bf16", "bf16", "f32", 128, 256, "K", "MN", "64b", "128b"),
    ("f16", "f16", "f16", "f32", 64, 64, "K", "K", "128b", "32b"),
    ("f16", "f16", "f16", "f16", 64, 8, "MN", "K", "none", "none"),
    ("tf32", "tf32", "tf32", "f32", 128, 64, "K", "K", "128b", "none"),
    ("tf32", "tf32", "tf32", "f32", 128, 64, "MN", "MN", "128b_base32b", "128b"),
    ("tf32", "tf32", "tf32", "f32", 64, 32, "MN", "MN", "none", "128b_base32b"),
    ("f8f6f4", "e4m3", "e5m2", "f32", 128, 64, "K", "K", "64b", "128b"),
    ("f8f6f4", "e5m2", "e4m3", "f32", 128, 32, "MN", "K", "128b", "none"),
    ("f8f6f4", "e4m3", "e4m3", "f16", 64, 64, "K", "MN", "32b", "64b"),
    ("i8", "s8", "u8", "s32", 128, 128, "K", "MN", "none", "128b"),
    ("i8", "u8", "s8", "s32", 128, 32, "MN", "K", "64b", "32b"),
    ("i8", "s8", "s8", "s32", 64, 16, "K", "K", "128b", "none"),
]


@pytest.mark.parametrize("config", MMA_CASES, ids=lambda c: "-".join(map(str, c)))
def test_mma_accumulates_a_times_b_like_numpy(config: tuple[Any, ...]) -> None:
    case = Case(*config)
    issues = _issue(case.kind, "%p5", idesc=case.idesc) + _issue(case.kind, "%p6", idesc=case.idesc)
    out = case.run(issues)
    np.testing.assert_array_equal(out, case.expect(2 * case.product()))


def test_negate_scale_input_d_and_disable_output_lane() -> None:
    case = Case("f16", "f16", "f16", "f32", 128, 32, seed=1, neg_a=True)
    mask = {3, 40, 77, 127}
    words = [sum(1 << (lane - 32 * w) for lane in mask if lane // 32 == w) for w in range(4)]
    issues = [
        *_issue("f16", "%p5", idesc=case.idesc),
        *[f"mov.u32 %r{50 + w}, {v:#x}" for w, v in enumerate(words)],
        *_issue("f16", "%p6", ", {{%r50, %r51, %r52, %r53}}", idesc=case.idesc),
        "tcgen05.mma.cta_group::1.kind::f16 [{D}], {A}, {B}, %r31, %p6, 2",
    ]
    out = case.run(issues)
    ab = (-case.a) @ case.b.T
    second = np.where(np.isin(np.arange(128), list(mask))[:, None], ab, 2 * ab)
    np.testing.assert_array_equal(out, case.expect(ab + second / 4))


@pytest.mark.parametrize("saturate", [False, True])
def test_i8_accumulation_wraps_or_saturates(saturate: bool) -> None:
    case = Case("i8", "s8", "u8", "s32", 128, 32, saturate=saturate)
    case.a_codes[:] = 127
    case.b_codes[:] = 255
    case.a_image, _ = _image(case.a_codes, 1, "K", "none")
    case.b_image, _ = _image(case.b_codes, 1, "K", "none")
    base = 0x7FF00000
    out = case.run(_issue("i8", "%p6", idesc=case.idesc), base=base)
    old = _filled(case.ncols, base).astype(np.int64)[:, :32]
    total = old + 127 * 255 * 32
    want = np.clip(total, None, 2**31 - 1) if saturate else total
    expected = _filled(case.ncols, base)
    expected[:, :32] = (want & 0xFFFF_FFFF).astype(np.uint32)
    np.testing.assert_array_equal(out, expected)


def _a_words(case: Case, group: int = 1, ws: bool = False) -> np.ndarray:
    """A per TMEM lane, packed 32 bits per column (element k of a lane in column k*bits//32,
    low bits first); lanes no data-path lane reads hold junk."""
    ebytes = EBYTES[case.atype]
    words = np.random.default_rng(9).integers(0, 2**32, (128, 8), dtype=np.uint64)
    words = words.astype(np.uint32)
    for lane, row in _lanes_of_rows(case.m // group, case.n, group, ws).items():
        packed = case.a_codes[row].astype(f"<u{ebytes}").tobytes()
        words[lane] = np.frombuffer(packed, np.uint32)
    return words


@pytest.mark.parametrize(
    "config",
    [
        ("f16", "bf16", "bf16", "f32", 128, 64),
        ("f16", "f16", "f16", "f32", 64, 32),
        ("tf32", "tf32", "tf32", "f32", 128, 32),
        ("i8", "s8", "s8", "s32", 64, 16),
    ],
    ids=lambda c: "-".join(map(str, c)),
)
def test_mma_with_a_in_tensor_memory(config: tuple[Any, ...]) -> None:
    case = Case(*config, seed=3)
    ncols = 2 * case.ncols
    words = _a_words(case)
    out = case.run(
        _issue(case.kind, "%p5", idesc=case.idesc), ncols=ncols, a_tmem_col=case.ncols, pa=words
    )
    want = case.expect(case.product(), ncols)
    want[:, case.ncols : case.ncols + 8] = words
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("m", [32, 64, 128])
def test_weight_stationary_mma_data_paths(m: int) -> None:
    case = Case("f16", "f16", "f16", "f32", m, 64, "K", "MN", "none", "128b", seed=m)
    issue = "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::fill [{D}], {A}, {B}, %r31, %p5"
    out = case.run([f"mov.u32 %r31, {case.idesc:#x}", issue])
    np.testing.assert_array_equal(out, case.expect(case.product(), ws=True))


def test_collector_use_takes_a_from_the_buffer_not_from_memory() -> None:
    case = Case("f16", "f16", "f16", "f32", 128, 64, "K", "K", "128b", "none", seed=5)
    issues = [
        f"mov.u32 %r31, {case.idesc:#x}",
        "tcgen05.mma.cta_group::1.kind::f16.collector::a::fill [{D}], {A}, {B}, %r31, %p5",
        # A now names B's bytes, but ::use multiplies the A kept in the collector.
        "mov.b64 %rd11, %rd13",
        "tcgen05.mma.cta_group::1.kind::f16.collector::a::lastuse [{D}], {A}, {B}, %r31, %p6",
    ]
    out = case.run(issues)
    np.testing.assert_array_equal(out, case.expect(2 * case.product()))


def test_collector_use_without_fill_is_an_error() -> None:
    case = Case("f16", "f16", "f16", "f32", 128, 32)
    issues = _issue("f16", "%p5", mods=".collector::a::use", idesc=case.idesc)
    with pytest.raises(EmuError, match="collector"):
        case.run(issues)


@pytest.mark.parametrize(
    ("idesc", "match"),
    [
        (_idesc("f16", "f16", "f32", 96, 64), "M=96"),
        (_idesc("f16", "f16", "f32", 128, 0), "N=0"),
        (_idesc("f16", "f16", "f32", 128, 64) | 1 << 2, "sparse"),
        (_idesc("f16", "bf16", "f32", 128, 64), "one type"),
        (_idesc("bf16", "bf16", "f16", 128, 64), "bf16"),
        (_idesc("f16", "f16", "s32", 128, 64), "dtype"),
        (_idesc("f16", "f16", "f32", 128, 64) | 1 << 23, "reserved"),
    ],
    ids=["m96", "n0", "sparse-bit", "mixed-types", "bf16-into-f16", "s32-d", "reserved"],
)
def test_bad_instruction_descriptors_are_errors(idesc: int, match: str) -> None:
    case = Case("f16", "f16", "f16", "f32", 128, 64)
    with pytest.raises(EmuError, match=match):
        case.run(_issue("f16", "%p5", idesc=idesc))


def test_a_hopper_style_descriptor_without_version_bits_is_an_error() -> None:
    case = Case("f16", "f16", "f16", "f32", 128, 32)
    case.hi_a &= ~(1 << 46)
    with pytest.raises(EmuError, match="bits 46-48"):
        case.run(_issue("f16", "%p5", idesc=case.idesc))


def test_mma_into_unallocated_columns_is_an_error() -> None:
    case = Case("f16", "f16", "f16", "f32", 128, 64)
    issues = [
        f"mov.u32 %r31, {case.idesc:#x}",
        "add.u32 %r14, %r5, 32",
        "tcgen05.mma.cta_group::1.kind::f16 [%r14], {A}, {B}, %r31, %p5",
    ]
    with pytest.raises(OutOfBounds, match="column 64, which is not allocated"):
        case.run(issues)


# ------------------------------------------------------------------ tcgen05.cp / shift

# Source row -> TMEM lanes (from taddr's), from CUTLASS SM100_UTCCP_* ValID/SrcLayout.
CP_LANES = {
    ("128x256b", ""): lambda r: [r],
    ("128x128b", ""): lambda r: [r],
    ("4x256b", ""): lambda r: [32 * r],
    ("32x128b", ".warpx4"): lambda r: [r + 32 * q for q in range(4)],
    ("64x128b", ".warpx2::02_13"): lambda r: [r, r + 64],
    ("64x128b", ".warpx2::01_23"): lambda r: [r % 32 + 64 * (r // 32) + 32 * b for b in (0, 1)],
}


@pytest.mark.parametrize(("shape", "multicast"), list(CP_LANES), ids=lambda v: v or "plain")
@pytest.mark.parametrize("mode", ["none", "128b"])
def test_cp_copies_shared_rows_to_tensor_memory_lanes(
    shape: str, multicast: str, mode: str
) -> None:
    rows = int(shape.split("x")[0])
    cols = int(shape.split("x")[1][:-1]) // 32
    rng = np.random.default_rng(rows + cols)
    words = rng.integers(0, 2**32, (rows, cols), dtype=np.uint64).astype(np.uint32)
    image, hi = _image(words, 4, "K", mode)
    issues = ["add.u32 %r14, {D}, 16", f"tcgen05.cp.cta_group::1.{shape}{multicast} [%r14], {{A}}"]
    out = np.zeros((128, 32), np.uint32)
    dummy = np.zeros(1024, np.uint8)
    body = _mma_kernel(issues, ncols=32, size_a=image.size, size_b=1024, hi_a=hi, hi_b=1 << 46)
    _launch(body, [out, image, dummy], params=MMA_PARAMS)
    want = _filled(32)
    for r in range(rows):
        for lane in CP_LANES[(shape, multicast)](r):
            want[lane, 16 : 16 + cols] = words[r]
    np.testing.assert_array_equal(out, want)


def test_shift_moves_rows_down_within_the_32_lanes() -> None:
    issues = ["add.u32 %r14, {D}, 0x200008", "tcgen05.shift.cta_group::1.down [%r14]"]
    out = np.zeros((128, 32), np.uint32)
    dummy = np.zeros(1024, np.uint8)
    body = _mma_kernel(issues, ncols=32, size_a=1024, size_b=1024, hi_a=1 << 46, hi_b=1 << 46)
    _launch(body, [out, dummy, dummy], params=MMA_PARAMS)
    want = _filled(32)
    want[33:64, 8:16] = _filled(32)[32:63, 8:16]
    np.testing.assert_array_equal(out, want)


# ------------------------------------------------------------------ commit


def _commit_body(count: int, committers: int) -> str:
    return (
        REGS
        + f"""
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r40, bar;
	setp.eq.u32 %p2, %r1, 0;
	@!%p2 bra INITED;
	mbarrier.init.shared::cta.b64 [%r40], {count};
INITED:
	bar.sync 0;
	setp.lt.u32 %p3, %r1, {committers};
	@!%p3 bra WAIT;
	tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r40];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p7, [%r40], 0;
	@!%p7 bra WAIT;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], 1;
	ret;
"""
    )


def test_each_committing_thread_arrives_once_and_waiters_proceed() -> None:
    out = np.zeros(64, np.uint32)
    _launch(_commit_body(count=3, committers=3), [out], block=64)
    assert (out == 1).all()


def test_too_few_commits_leave_the_waiters_deadlocked() -> None:
    with pytest.raises(Deadlock, match="mbarrier"):
        _launch(_commit_body(count=3, committers=2), [np.zeros(64, np.uint32)], block=64)


# ------------------------------------------------------------------ cta_group::2


def _pair_kernel(issue: str, ncols: int, size_a: int, size_b: int, hi_a: int, hi_b: int) -> str:
    """Two CTAs of a cluster: each loads its half of A and B, rank 0 issues, both wait on
    their own mbarrier (the commit multicasts to both) and read their TMEM out."""
    return (
        REGS
        + f"""
	.reg .b16 %rs<4>;
	.shared .align 1024 .b8 sA[{size_a}];
	.shared .align 1024 .b8 sB[{size_b}];
	mov.u32 %r30, %cluster_ctarank;
"""
        + _head(ncols, group=2)
        + _fill(ncols)
        + _pair_loads(size_a, size_b)
        + f"""
	mov.u32 %r40, bar;
	@!%p2 bra INITED;
	mbarrier.init.shared::cta.b64 [%r40], 1;
INITED:
	fence.proxy.async.shared::cta;
	fence.mbarrier_init.release.cluster;
	tcgen05.fence::before_thread_sync;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	tcgen05.fence::after_thread_sync;
	setp.eq.u32 %p8, %r30, 0;
	and.pred %p9, %p8, %p2;
	@!%p9 bra ISSUED;
	setp.ne.u32 %p5, %r1, %r1;
{_desc("sA", hi_a, "%rd11")}
{_desc("sB", hi_b, "%rd13")}
	{issue};
	mov.b16 %rs1, 3;
	tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64
		[%r40], %rs1;
ISSUED:
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p7, [%r40], 0;
	@!%p7 bra WAIT;
	tcgen05.fence::after_thread_sync;
	mul.wide.u32 %rd26, %r30, {128 * ncols * 4};
	add.s64 %rd1, %rd1, %rd26;
"""
        + _readout(ncols)
        + f"""
	tcgen05.fence::before_thread_sync;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	@!%p1 bra FREED;
	tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r5, {ncols};
	tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;
FREED:
	ret;
"""
    )


def _pair_loads(size_a: int, size_b: int) -> str:
    """Copy this CTA's images (rank r reads ``pa + r * size_a`` and ``pb + r * size_b``)."""
    out = []
    for var, param, size, tag in (("sA", "pa", size_a, "A"), ("sB", "pb", size_b, "B")):
        out.append(
            _copy_to_shared(var, param, size, tag).replace(
                f"\tld.param.u64 %rd20, [{param}];",
                f"\tld.param.u64 %rd20, [{param}];\n\tmul.wide.u32 %rd23, %r30, {size};"
                "\n\tadd.s64 %rd20, %rd20, %rd23;",
            )
        )
    return "".join(out)


@pytest.mark.parametrize(("m", "n"), [(256, 64), (128, 64)])
def test_cta_pair_mma_splits_a_b_and_d_across_the_two_ctas(m: int, n: int) -> None:
    rng = np.random.default_rng(m)
    a_codes, a = _operand(rng, "bf16", (m, 16))
    b_codes, b = _operand(rng, "bf16", (n, 16))
    halves_a = [_image(a_codes[p * m // 2 : (p + 1) * m // 2], 2, "K", "128b") for p in (0, 1)]
    halves_b = [_image(b_codes[p * n // 2 : (p + 1) * n // 2], 2, "MN", "none") for p in (0, 1)]
    size_a, size_b = halves_a[0][0].size, halves_b[0][0].size
    idesc = _idesc("bf16", "bf16", "f32", m, n, b_mn=True)
    issue = (
        f"mov.u32 %r31, {idesc:#x};\n\t"
        "tcgen05.mma.cta_group::2.kind::f16 [%r5], %rd11, %rd13, %r31, %p5"
    )
    ncols = _cols(n)
    body = _pair_kernel(issue, ncols, size_a, size_b, halves_a[0][1], halves_b[0][1])
    out = np.zeros((2, 128, ncols), np.uint32)
    pa = np.concatenate([h[0] for h in halves_a])
    pb = np.concatenate([h[0] for h in halves_b])
    _launch(body, [out, pa, pb], params=MMA_PARAMS, grid=2, cluster=(2, 1, 1))
    d = a @ b.T
    for p in (0, 1):
        want = _filled(ncols)
        _place(_encode(d[p * m // 2 : (p + 1) * m // 2], "f32"), want, 2, False)
        np.testing.assert_array_equal(out[p], want, err_msg=f"CTA rank {p}")


# ------------------------------------------------------------------ not emulated


@pytest.mark.parametrize(
    ("issues", "match"),
    [
        (
            [
                "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [{D}], {A}, {B}, %r31, [%r5],"
                " [%r5], %p5"
            ],
            "block-scaled",
        ),
        (["tcgen05.mma.sp.cta_group::1.kind::f16 [{D}], {A}, {B}, [%r5], %r31, %p5"], "sparse"),
        (["tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32 [{D}], {A}"], "decompression"),
        (
            [
                f"mov.u32 %r31, {_idesc('e4m3', 'e4m3', 'f32', 128, 32) | 5 << 7:#x}",
                "tcgen05.mma.cta_group::1.kind::f8f6f4 [{D}], {A}, {B}, %r31, %p5",
            ],
            "e2m1",
        ),
    ],
    ids=["block-scale", "sparse", "cp-decompress", "f8f6f4-e2m1"],
)
def test_forms_that_are_not_emulated_say_so(issues: list[str], match: str) -> None:
    case = Case("f16", "f16", "f16", "f32", 128, 32)
    with pytest.raises(NotEmulated, match=match):
        case.run(["mov.u32 %r31, 0", *issues])


# ------------------------------------------------------------------ descriptor decoding


def test_instruction_descriptor_fields_decode_per_the_isa_table() -> None:
    from pyptx.emu._ops.tcgen05_desc import decode_idesc
    from pyptx.ir import PtxType

    # pyptx.dsl.umma's documented example: f16 kind, M=128, N=256, bf16 x bf16 -> f32.
    d = decode_idesc(0x08400490, "kind::f16", cta_group=1, ws=False)
    assert (d.m, d.n, d.k) == (128, 256, 16)
    assert (d.dtype, d.atype, d.btype) == (PtxType.F32, PtxType.BF16, PtxType.BF16)
    assert not (d.negate_a or d.negate_b or d.a_mn_major or d.b_mn_major or d.saturate)
    raw = _idesc("s8", "u8", "s32", 64, 24, a_mn=True, saturate=True)
    d = decode_idesc(raw, "kind::i8", cta_group=1, ws=False)
    assert (d.m, d.n, d.k, d.atype, d.btype) == (64, 24, 32, PtxType.S8, PtxType.U8)
    assert d.a_mn_major and not d.b_mn_major and d.saturate
    raw = _idesc("e5m2", "e4m3", "f32", 32, 256, neg_b=True) | 2 << 30
    d = decode_idesc(raw, "kind::f8f6f4", cta_group=1, ws=True)
    assert (d.m, d.n, d.atype, d.btype, d.negate_b, d.max_shift) == (
        32,
        256,
        PtxType.E5M2,
        PtxType.E4M3,
        True,
        2,
    )


def test_shared_memory_descriptor_fields_decode_per_the_isa_table() -> None:
    from pyptx.emu._ops.tcgen05_desc import decode_smem_desc

    # pyptx.dsl.umma's documented example: start 0x400, LBO 16, SBO 1024, 128-byte swizzle.
    d = decode_smem_desc(np.array([0x4000404000010040], np.uint64), np.zeros(1, np.int64))
    assert (int(d.start[0]), int(d.lbo[0]), int(d.sbo[0]), d.layout) == (0x400, 16, 1024, 2)
    raw = 0x3FFF | 0x1234 << 16 | 0x0ABC << 32 | 1 << 46 | 6 << 61
    d = decode_smem_desc(np.array([raw], np.uint64), np.zeros(1, np.int64))
    assert (int(d.start[0]), int(d.lbo[0]), int(d.sbo[0]), d.layout) == (
        0x3FFF0,
        0x12340,
        0xABC0,
        6,
    )


# ------------------------------------------------------------------ nvcc output

DATA = __import__("pathlib").Path(__file__).parent / "data" / "tcgen05"


def test_nvcc_compiled_gemm_tile_matches_numpy() -> None:
    # data/tcgen05/gemm_tile.cu, compiled by nvcc 13.0 for sm_100a (see the .cu header):
    # swizzled K-major bf16 tiles, four K steps, commit, try_wait, 32x32b loads.
    text = (DATA / "gemm_tile.ptx").read_text()
    ok, message = ptxas_accepts(text, TARGET)
    assert ok, message
    rng = np.random.default_rng(11)
    a_codes, a = _operand(rng, "bf16", (128, 64))
    b_codes, b = _operand(rng, "bf16", (64, 64))
    c = np.zeros((128, 64), np.float32)
    launch(
        text,
        grid=1,
        block=128,
        args=[a_codes.astype(np.uint16), b_codes.astype(np.uint16), c],
    )
    np.testing.assert_array_equal(c, (a @ b.T).astype(np.float32))
