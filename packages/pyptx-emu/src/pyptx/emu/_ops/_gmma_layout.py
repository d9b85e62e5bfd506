"""Where ``wgmma.mma_async`` finds its operands: descriptors, shared-memory layouts, fragments.

Matrix descriptor (PTX ISA 9.7.15.5.1.2.2, "Matrix Descriptor Format"), one 64-bit value:

======  =================================================================================
bits    field
======  =================================================================================
0-13    matrix start address, encoded as ``(address & 0x3FFFF) >> 4``
16-29   leading dimension byte offset (LBO), same encoding
32-45   stride dimension byte offset (SBO), same encoding
49-51   matrix base offset (swizzled modes only; 0 when the swizzle pattern starts on its
        own repeat boundary: 1024 bytes for 128B, 512 for 64B, 256 for 32B)
62-63   swizzle mode: 0 none ("interleave"), 1 128-byte, 2 64-byte, 3 32-byte
======  =================================================================================

CUTLASS's ``GmmaDescriptor`` bitfield (``cute/arch/mma_sm90_desc.hpp``: 14-bit start address,
14-bit leading and stride byte offsets, 3-bit base offset at bit 49, 2-bit ``LayoutType`` at
bit 62 with ``INTERLEAVE = 0, B128 = 1, B64 = 2, B32 = 3``) agrees field for field.

Canonical layouts (ISA 9.7.15.5.1.2.1.3, "Canonical Layouts"), in CuTe notation with ``T =
128 / element bits`` elements per 16-byte unit; the swizzle is applied to the resulting
shared-memory byte address:

=====  =======  ==========================================  ==================
major  swizzle  layout (elements)                           swizzle
=====  =======  ==========================================  ==================
MN     none     ``((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))``    ``Swizzle<0,4,3>``
MN     32B      ``((T,2,m),(8,k)):((1,T,LBO),(2T,SBO))``    ``Swizzle<1,4,3>``
MN     64B      ``((T,4,m),(8,k)):((1,T,LBO),(4T,SBO))``    ``Swizzle<2,4,3>``
MN     128B     ``((T,8,m),(8,k)):((1,T,LBO),(8T,SBO))``    ``Swizzle<3,4,3>``
K      none     ``((8,m),(T,2k)):((1T,SBO),(1,LBO))``       ``Swizzle<0,4,3>``
K      32B      ``((8,m),(T,2k)):((2T,SBO),(1,T))``         ``Swizzle<1,4,3>``
K      64B      ``((8,m),(T,2k)):((4T,SBO),(1,T))``         ``Swizzle<2,4,3>``
K      128B     ``((8,m),(T,2k)):((8T,SBO),(1,T))``         ``Swizzle<3,4,3>``
=====  =======  ==========================================  ==================

The first mode is the M (or N) index, the second the K index. The table is the one in the
comments of CUTLASS's ``make_gmma_desc`` (``cute/atom/mma_traits_sm90_gmma.hpp``), which also
shows which stride lands in which field: for K-major, SBO is the stride of 8-row groups and
LBO the stride between the two 16-byte K columns (no-swizzle only; the ISA's LBO table says
"not used, assumed to be 1" for swizzled K-major); for MN-major, LBO is the stride between
swizzle-atom-wide MN blocks and SBO between groups of 8 K rows, except in the no-swizzle
layout, where the two swap roles (SBO steps 16 bytes of MN, LBO steps 8 K rows). That is
also what the ISA's "Leading/Stride Dimension Byte Offset" tables say, and its worked
examples check out against :func:`operand_offsets` (see the tests). ``Swizzle<B,4,3>`` XORs
address bits ``[4, 4+B)`` with bits ``[7, 7+B)``: :func:`pyptx.emu._swizzle.swizzle` with
spans 32, 64 and 128, the pattern TMA writes.

One wgmma reads 32 bytes of K per row of A (64 rows) and of B (N rows): two 16-byte columns
(K = 16 halves, 8 tf32, 32 bytes, 256 bits). MN-major operands exist only for ``.f16`` /
``.bf16`` (``imm-trans-a``/``imm-trans-b``), where those 32 bytes are 16 K rows.

Register fragments (ISA 9.7.15.5.1.1, figures for ``.m64nNk{8,16,32,256}``; CUTLASS
``CLayout_64xN`` and ``ALayout_64x{8,16,32}``): warp ``w`` of the warpgroup owns rows ``16w ..
16w + 15``; lane ``l`` has ``g = l / 4``, ``q = l % 4``.

* Accumulator element ``i`` (``N/2`` per thread; ``.f16`` packs elements ``2j, 2j+1`` into
  register ``j``, low half first): row ``16w + g + 8 * ((i >> 1) & 1)``, column ``8 * (i >>
  2) + 2q + (i & 1)``.
* A in registers (four ``.b32`` registers): register ``j`` holds the 4 bytes of row ``16w + g
  + 8 * (j & 1)`` starting at K byte ``4q + 16 * (j >> 1)`` (element order low to high: two
  halves, one tf32, four bytes, or 32 bits for ``.b1``). For 16-bit, tf32 and 8-bit types
  this is CUTLASS's ``ALayout``; for ``.b1``, which CUTLASS does not cover and the ISA shows
  only as a figure, it is the same byte pattern with 32 one-bit elements per register, the
  way ``mma.m16n8k256`` distributes ``.b1`` A.
"""

from __future__ import annotations

from functools import cache, lru_cache

import numpy as np

from .._swizzle import swizzle

__all__ = [
    "K_BYTES",
    "SPANS",
    "a_fragment_coords",
    "accumulator_coords",
    "fields",
    "operand_offsets",
    "physical",
]

K_BYTES = 32
"""Bytes of K one ``wgmma.mma_async`` reads per row of A and B."""

SPANS: dict[int, int | None] = {0: None, 1: 128, 2: 64, 3: 32}
"""Swizzle span in bytes by the descriptor's 2-bit mode (``None``: no swizzle)."""

_MASK14 = np.uint64(0x3FFF)


def fields(desc: np.ndarray) -> tuple[np.ndarray, ...]:
    """Decode matrix descriptors.

    Args:
        desc: ``uint64`` descriptors (any shape).

    Returns:
        ``(start, lbo, sbo, base_offset, mode)`` as ``int64`` arrays: start address, leading
        and stride byte offsets in bytes, the 3-bit base offset and the 2-bit swizzle mode.
    """
    d = desc.astype(np.uint64)
    start = ((d & _MASK14) << np.uint64(4)).astype(np.int64)
    lbo = (((d >> np.uint64(16)) & _MASK14) << np.uint64(4)).astype(np.int64)
    sbo = (((d >> np.uint64(32)) & _MASK14) << np.uint64(4)).astype(np.int64)
    base = ((d >> np.uint64(49)) & np.uint64(7)).astype(np.int64)
    mode = (d >> np.uint64(62)).astype(np.int64)
    return start, lbo, sbo, base, mode


@lru_cache(maxsize=64)
def _offsets(rows: int, mn_major: bool, mode: int, lbo: int, sbo: int, width: int) -> np.ndarray:
    span = SPANS[mode]
    units = 1 if span is None else span // 16  # 16-byte units per swizzle row
    if not mn_major:
        r = np.arange(rows)[:, None]
        kb = np.arange(K_BYTES)[None, :]
        column, byte = kb // 16, kb % 16
        if span is None:
            off = (r % 8) * 16 + (r // 8) * sbo + column * lbo + byte
        else:
            off = (r % 8) * 16 * units + (r // 8) * sbo + column * 16 + byte
        return _frozen(off)
    # MN-major: element (r, k) of a row-major "rows x K" view; bytes of K laid out in K order.
    per_unit = 16 // width  # elements per 16-byte unit along MN
    k_count = K_BYTES // width
    r = np.arange(rows)[:, None, None]
    k = np.arange(k_count)[None, :, None]
    byte = np.arange(width)[None, None, :]
    unit, within = r // per_unit, r % per_unit
    if span is None:
        off = unit * sbo + (k % 8) * 16 + (k // 8) * lbo
    else:
        off = (unit % units) * 16 + (unit // units) * lbo + (k % 8) * 16 * units + (k // 8) * sbo
    off = off + within * width + byte
    return _frozen(off.reshape(rows, K_BYTES))


def operand_offsets(
    rows: int, mn_major: bool, mode: int, lbo: int, sbo: int, width: int
) -> np.ndarray:
    """Unswizzled byte offsets (from the start address) of one wgmma operand.

    Args:
        rows: M (64) for A, N for B.
        mn_major: the MN-major layout (``imm-trans`` 1) instead of K-major.
        mode: the descriptor's swizzle mode (0-3).
        lbo: leading dimension byte offset.
        sbo: stride dimension byte offset.
        width: element size in bytes (1, 2 or 4; ``.b1`` rows count as bytes).

    Returns:
        A read-only ``(rows, 32)`` ``int64`` array: entry ``[r, b]`` is where byte ``b`` of
        row ``r``'s 32 K bytes lives (K element ``b // width``, its byte ``b % width``).
    """
    return _offsets(rows, mn_major, mode, lbo, sbo, width)


def physical(addresses: np.ndarray, mode: int) -> np.ndarray:
    """Shared-memory addresses after the descriptor's swizzle (on the full address)."""
    return swizzle(addresses, SPANS[mode])


@cache
def accumulator_coords(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column of accumulator element ``i`` of warpgroup thread ``t``.

    Args:
        n: the N of the shape.

    Returns:
        Two ``(128, n // 2)`` ``int64`` arrays (rows, columns).
    """
    t = np.arange(128)[:, None]
    i = np.arange(n // 2)[None, :]
    lane = t % 32
    row = 16 * (t // 32) + lane // 4 + 8 * ((i >> 1) & 1)
    col = 8 * (i >> 2) + 2 * (lane % 4) + (i & 1)
    return _frozen(row), _frozen(col)


@cache
def a_fragment_coords() -> tuple[np.ndarray, np.ndarray]:
    """Where the bytes of the four A registers of each warpgroup thread go.

    Returns:
        Two ``(128, 4, 4)`` ``int64`` arrays: row of A and K byte of byte ``b`` (low to high)
        of register ``j`` of thread ``t``.
    """
    t = np.arange(128)[:, None, None]
    j = np.arange(4)[None, :, None]
    b = np.arange(4)[None, None, :]
    lane = t % 32
    row = 16 * (t // 32) + lane // 4 + 8 * (j & 1)
    kbyte = 4 * (lane % 4) + 16 * (j >> 1) + b
    return _frozen(row + 0 * b), _frozen(kbyte + 0 * row)


def _frozen(values: np.ndarray) -> np.ndarray:
    out = np.ascontiguousarray(values, dtype=np.int64)
    out.flags.writeable = False
    return out
