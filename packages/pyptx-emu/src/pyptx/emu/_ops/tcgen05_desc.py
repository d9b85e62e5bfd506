"""tcgen05 descriptors: the 32-bit instruction descriptor and the 64-bit shared-memory descriptor.

**Instruction descriptor** (PTX ISA "Instruction descriptor format for .kind::tf32, .kind::f16,
.kind::f8f6f4 and .kind::i8"; the same fields as CUTLASS ``UMMA::InstrDescriptor`` in
``cute/arch/mma_sm100_desc.hpp``, checked field by field):

=====  ====  ===================================================================
bits   size  field
=====  ====  ===================================================================
0-1    2     sparsity selector (sparse forms only)
2      1     sparsity: 0 dense, 1 sparse
3      1     saturate (``.kind::i8`` only)
4-5    2     dtype: F16 = 0, F32 = 1, S32 = 2
6      1     reserved
7-9    3     atype: f16 0 / bf16 1; tf32 2; e4m3 0 / e5m2 1 / e2m3 3 / e3m2 4 / e2m1 5; u8 0 / s8 1
10-12  3     btype: as atype
13     1     negate A (not for ``.kind::i8``)
14     1     negate B (not for ``.kind::i8``)
15     1     transpose A: 0 K-major, 1 M-major
16     1     transpose B: 0 K-major, 1 N-major
17-22  6     N >> 3
23     1     reserved
24-28  5     M >> 4
29     1     reserved
30-31  2     maximum shift of B for ``.ws`` B reuse: 0 none, 1 8, 2 16, 3 32
=====  ====  ===================================================================

**Shared-memory descriptor** (PTX ISA "Shared Memory Descriptor" / "tcgen05 shared memory
descriptor layout"; CUTLASS ``UMMA::SmemDescriptor``): bits 0-13 start address, 16-29
leading-dimension byte offset (LBO), 32-45 stride-dimension byte offset (SBO), each stored as
``(x & 0x3FFFF) >> 4``; bits 46-48 the fixed value 0b001 (the sm_100 "version"; a Hopper
``wgmma`` descriptor has 0 there); 49-51 matrix base offset; 52 leading-dimension stride mode
(0 relative offset, 1 absolute address, sm_103a); 61-63 layout: 0 no swizzle, 1 128-byte
swizzle with 32-byte atoms, 2 128-byte, 4 64-byte, 6 32-byte swizzle (3, 5, 7 invalid).

**Canonical layouts.** In units of elements, with ``T`` elements per 16 bytes, a descriptor
describes (CUTLASS ``make_umma_desc`` comments, which mirror the ISA's canonical layout table):

* K-major, no swizzle: ``((8,m),(T,2k)):((1T,SBO),(1,LBO))`` -- 8-row x 16-byte core matrices,
  rows 16 bytes apart, 8-row groups SBO apart, 16-byte K chunks LBO apart.
* K-major, swizzle of ``S`` bytes: ``((8,m),(T,2)):((S/16*T,SBO),(1,T))`` -- rows ``S`` bytes
  apart, 8-row groups SBO apart, K contiguous within the row (LBO unused).
* MN-major, no swizzle: ``((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))`` -- ``T`` contiguous MN
  elements per 16 bytes, 16-byte MN chunks SBO apart, K rows 16 bytes apart, 8-row K groups LBO
  apart.
* MN-major, swizzle of ``S`` bytes: ``((T,S/16,m),(8,k)):((1,T,LBO),(S/16*T,SBO))`` -- MN
  contiguous over an ``S``-byte row, further rows of MN LBO apart, K rows ``S`` bytes apart,
  8-row K groups SBO apart.
* MN-major, 128-byte swizzle with 32-byte atoms: ``((T,8,m),(4,k)):((1,T,LBO),(8T,SBO))``.

The swizzle is applied to the shared-memory byte address (``Swizzle<B,4,3>``: address bits
7.. XORed into bits 4..; ``Swizzle<2,5,2>`` for the 32-byte-atom mode), so a start address
anywhere inside the pattern (the usual K advance of +32 bytes) works; the pattern itself must
start on its repeat boundary (base offset 0). A non-zero base offset and the absolute-address
LBO mode raise :class:`NotEmulated`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pyptx.ir import PtxType

from .._errors import EmuError, Fault, Misaligned, NotEmulated, OutOfBounds
from .._numeric import decode
from .._swizzle import swizzle

__all__ = [
    "KINDS",
    "InstrDesc",
    "SmemDesc",
    "decode_idesc",
    "decode_smem_desc",
    "decode_values",
    "desc_layouts",
    "operand_offsets",
    "read_operand",
]

# -------------------------------------------------------------------- instruction descriptor

_F8F6F4 = {0: PtxType.E4M3, 1: PtxType.E5M2, 3: PtxType.E2M3, 4: PtxType.E3M2, 5: PtxType.E2M1}

KINDS: dict[str, tuple[dict[int, PtxType], dict[int, PtxType], int]] = {
    "kind::f16": ({0: PtxType.F16, 1: PtxType.F32}, {0: PtxType.F16, 1: PtxType.BF16}, 16),
    "kind::tf32": ({1: PtxType.F32}, {2: PtxType.TF32}, 8),
    "kind::f8f6f4": ({0: PtxType.F16, 1: PtxType.F32}, _F8F6F4, 32),
    "kind::i8": ({2: PtxType.S32}, {0: PtxType.U8, 1: PtxType.S8}, 32),
}
"""``.kind`` -> (dtype codes, atype/btype codes, K of a dense MMA)."""


@dataclass(frozen=True)
class InstrDesc:
    """A decoded, validated instruction descriptor of a dense ``tcgen05.mma``.

    Attributes:
        raw: the 32-bit value.
        m: rows of A and D (the whole MMA; a ``.cta_group::2`` CTA holds half).
        n: columns of B and D.
        k: the reduction depth.
        dtype: the type of D.
        atype: the type of A.
        btype: the type of B.
        negate_a: A is negated.
        negate_b: B is negated.
        a_mn_major: A is M-major (transposed) rather than K-major.
        b_mn_major: B is N-major (transposed) rather than K-major.
        saturate: integer results saturate instead of wrapping.
        max_shift: the ``.ws`` B-reuse shift limit (a scheduling hint; no effect on values).
    """

    raw: int
    m: int
    n: int
    k: int
    dtype: PtxType
    atype: PtxType
    btype: PtxType
    negate_a: bool
    negate_b: bool
    a_mn_major: bool
    b_mn_major: bool
    saturate: bool
    max_shift: int


def _bits(value: int, lo: int, width: int) -> int:
    return (value >> lo) & ((1 << width) - 1)


def decode_idesc(raw: int, kind: str, *, cta_group: int, ws: bool) -> InstrDesc:
    """Decode and check an instruction descriptor for ``kind`` (``"kind::f16"``, ...).

    Args:
        raw: the 32-bit descriptor.
        kind: the instruction's ``.kind`` modifier.
        cta_group: 1 or 2.
        ws: whether the instruction is ``tcgen05.mma.ws``.

    Returns:
        The decoded descriptor.

    Raises:
        EmuError: a field holds a value the ISA does not allow for this kind and shape
            (raised as a :class:`Fault` for the machine to locate).
    """
    raw &= 0xFFFF_FFFF
    dtypes, abtypes, k = KINDS[kind]

    def bad(what: str) -> Fault:
        return Fault(EmuError, f"instruction descriptor {raw:#010x} for .{kind}: {what}")

    if _bits(raw, 2, 1):
        raise bad("bit 2 says sparse, but this is a dense tcgen05.mma (use tcgen05.mma.sp)")
    if _bits(raw, 0, 2):
        raise bad("the sparsity selector (bits 0-1) must be 0 for a dense MMA")
    for bit in (6, 23, 29):
        if _bits(raw, bit, 1):
            raise bad(f"reserved bit {bit} is set")
    dcode, acode, bcode = _bits(raw, 4, 2), _bits(raw, 7, 3), _bits(raw, 10, 3)
    if dcode not in dtypes:
        raise bad(f"dtype code {dcode} (bits 4-5) is not one of {_codes(dtypes)}")
    if acode not in abtypes or bcode not in abtypes:
        raise bad(f"atype/btype codes {acode}/{bcode} (bits 7-12) must be in {_codes(abtypes)}")
    dtype, atype, btype = dtypes[dcode], abtypes[acode], abtypes[bcode]
    if kind == "kind::f16" and atype is not btype:
        raise bad(f"A is .{atype.value} but B is .{btype.value}; .kind::f16 needs one type")
    if dtype is PtxType.F16 and kind == "kind::f16" and atype is not PtxType.F16:
        raise bad("an .f16 D needs .f16 A and B (bf16 accumulates into .f32 only)")
    saturate = bool(_bits(raw, 3, 1))
    if saturate and kind != "kind::i8":
        raise bad("saturate (bit 3) applies to .kind::i8 only")
    negate_a, negate_b = bool(_bits(raw, 13, 1)), bool(_bits(raw, 14, 1))
    if kind == "kind::i8" and (negate_a or negate_b):
        raise bad("negate A/B (bits 13-14) must be 0 for .kind::i8")
    a_mn, b_mn = bool(_bits(raw, 15, 1)), bool(_bits(raw, 16, 1))
    for mn, ty, name in ((a_mn, atype, "A"), (b_mn, btype, "B")):
        if mn and ty in (PtxType.E2M3, PtxType.E3M2, PtxType.E2M1):
            raise bad(f"{name} is .{ty.value}, which must be K-major (transpose bit 0)")
    n = _bits(raw, 17, 6) << 3
    m = _bits(raw, 24, 5) << 4
    max_shift = _bits(raw, 30, 2)
    _check_shape(m, n, cta_group, ws, bad)
    if max_shift and not ws:
        raise bad("the maximum shift (bits 30-31) applies to tcgen05.mma.ws only")
    return InstrDesc(
        raw, m, n, k, dtype, atype, btype, negate_a, negate_b, a_mn, b_mn, saturate, max_shift
    )


def _codes(table: dict[int, PtxType]) -> str:
    return ", ".join(f"{c} (.{t.value})" for c, t in table.items())


def _check_shape(m: int, n: int, cta_group: int, ws: bool, bad: Any) -> None:
    """PTX ISA "Various combinations of .kind and shapes" (dense rows)."""
    if ws:
        if m not in (32, 64, 128) or n not in (64, 128, 256):
            raise bad(f"M={m}, N={n}: .ws needs M in 32/64/128 and N in 64/128/256")
        return
    if cta_group == 1:
        ms, step = (64, 128), 8
    else:
        ms, step = (128, 256), 16
    if m not in ms:
        raise bad(f"M={m} (bits 24-28 hold M >> 4): .cta_group::{cta_group} needs M in {ms}")
    if n < step or n > 256 or n % step:
        raise bad(f"N={n} (bits 17-22 hold N >> 3) must be a multiple of {step} up to 256")


# -------------------------------------------------------------------- shared-memory descriptor

SWIZZLE_NONE, SWIZZLE_128B_BASE32B, SWIZZLE_128B, SWIZZLE_64B, SWIZZLE_32B = 0, 1, 2, 4, 6
_SPAN = {SWIZZLE_NONE: 0, SWIZZLE_128B_BASE32B: 128, SWIZZLE_128B: 128, SWIZZLE_64B: 64}
_SPAN[SWIZZLE_32B] = 32


@dataclass(frozen=True)
class SmemDesc:
    """Shared-memory descriptors of several lanes that share one layout type.

    Attributes:
        start: byte address of the matrix, per lane (``int64``).
        lbo: leading-dimension byte offset, per lane.
        sbo: stride-dimension byte offset, per lane.
        layout: the swizzle mode (bits 61-63), the same for all lanes.
    """

    start: np.ndarray
    lbo: np.ndarray
    sbo: np.ndarray
    layout: int


def desc_layouts(desc: np.ndarray) -> np.ndarray:
    """The layout-type field (bits 61-63) of each descriptor."""
    return (desc.astype(np.uint64) >> np.uint64(61)).astype(np.int64)


def decode_smem_desc(desc: np.ndarray, lanes: np.ndarray) -> SmemDesc:
    """Decode descriptors that share one layout type, checking the fixed fields.

    Args:
        desc: the 64-bit descriptors (``uint64``).
        lanes: the wave lane of each (for error messages).

    Raises:
        EmuError: the version bits are not 0b001 or the layout type is invalid.
        NotEmulated: a non-zero base offset or the absolute LBO mode.
    """
    d = desc.astype(np.uint64)

    def field(lo: int, width: int) -> np.ndarray:
        return ((d >> np.uint64(lo)) & np.uint64((1 << width) - 1)).astype(np.int64)

    version = field(46, 3)
    if (version != 1).any():
        i = int(np.argmax(version != 1))
        raise Fault(
            EmuError,
            f"shared-memory descriptor {int(d[i]):#018x}: bits 46-48 must be 0b001 for tcgen05"
            f" (sm_100 format), got {int(version[i]):#05b}; a wgmma-style descriptor lacks them",
            lane=int(lanes[i]),
        )
    layout = field(61, 3)
    if (layout != layout[0]).any() or int(layout[0]) not in _SPAN:
        i = int(np.argmax(layout != layout[0])) if (layout != layout[0]).any() else 0
        raise Fault(
            EmuError,
            f"shared-memory descriptor {int(d[i]):#018x}: layout type {int(layout[i])}"
            " (bits 61-63) is not one of 0, 1, 2, 4, 6",
            lane=int(lanes[i]),
        )
    base = field(49, 3)
    if base.any():
        i = int(np.argmax(base != 0))
        raise Fault(
            NotEmulated,
            f"shared-memory descriptor {int(d[i]):#018x}: a non-zero matrix base offset"
            " (bits 49-51) is not emulated; start the swizzle pattern on its repeat boundary",
            lane=int(lanes[i]),
        )
    if field(52, 1).any():
        i = int(np.argmax(field(52, 1) != 0))
        raise Fault(
            NotEmulated,
            f"shared-memory descriptor {int(d[i]):#018x}: the absolute-address LBO mode"
            " (bit 52, sm_103a) is not emulated",
            lane=int(lanes[i]),
        )
    return SmemDesc(field(0, 14) << 4, field(16, 14) << 4, field(32, 14) << 4, int(layout[0]))


def _swizzle32_atoms(offsets: np.ndarray) -> np.ndarray:
    """``Swizzle<2,5,2>``: address bits 7-8 XORed into bits 5-6 (128 B rows of 32 B atoms)."""
    return offsets ^ (((offsets >> 7) & 3) << 5)


def operand_offsets(desc: SmemDesc, rows: int, kdim: int, ebits: int, mn_major: bool) -> np.ndarray:
    """Shared-memory byte addresses of a ``rows x kdim`` operand, per lane.

    Args:
        desc: the decoded descriptors of ``L`` lanes.
        rows: the M (or N) extent.
        kdim: the K extent in elements.
        ebits: bits per element (8, 16 or 32).
        mn_major: whether the operand is MN-major (else K-major).

    Returns:
        ``(L, rows, kdim)`` ``int64`` addresses of each element's first byte.

    Raises:
        EmuError: the layout type does not exist for this major-ness.
    """
    r = np.arange(rows, dtype=np.int64)[:, None]
    k = np.arange(kdim, dtype=np.int64)[None, :]
    start = desc.start[:, None, None]
    lbo = desc.lbo[:, None, None]
    sbo = desc.sbo[:, None, None]
    ebytes = ebits // 8
    layout = desc.layout
    span = _SPAN[layout]
    if not mn_major:
        kb = k * ebytes
        chunk, within = kb // 16, kb % 16
        if layout == SWIZZLE_128B_BASE32B:
            raise Fault(EmuError, "the 128-byte swizzle with 32-byte atoms is MN-major only")
        if layout == SWIZZLE_NONE:
            off = start + (r // 8) * sbo + (r % 8) * 16 + chunk * lbo + within
        else:
            off = start + (r // 8) * sbo + (r % 8) * span + chunk * 16 + within
    else:
        per = 16 // ebytes
        c, within = r // per, (r % per) * ebytes
        if layout == SWIZZLE_NONE:
            off = start + c * sbo + (k % 8) * 16 + (k // 8) * lbo + within
        elif layout == SWIZZLE_128B_BASE32B:
            off = start + (c // 8) * lbo + (c % 8) * 16 + (k % 4) * 128 + (k // 4) * sbo + within
        else:
            atoms = span // 16
            off = start + (c // atoms) * lbo + (c % atoms) * 16 + (k % 8) * span
            off = off + (k // 8) * sbo + within
    if layout == SWIZZLE_NONE:
        return off
    if layout == SWIZZLE_128B_BASE32B:
        return _swizzle32_atoms(off)
    return swizzle(off, span)


def read_operand(
    m: Any, ctas: np.ndarray, offsets: np.ndarray, ebits: int, lanes: np.ndarray, what: str
) -> np.ndarray:
    """Read elements of ``ebits`` bits at shared-memory ``offsets`` of each lane's CTA.

    Args:
        m: the machine.
        ctas: the wave CTA index of each of ``L`` lanes.
        offsets: ``(L, ...)`` byte addresses (CTA-relative).
        ebits: 8, 16 or 32.
        lanes: the wave lane of each (for errors).
        what: the operand, for messages ("matrix A").

    Returns:
        The raw element codes, unsigned, shaped like ``offsets``.
    """
    nbytes = ebits // 8
    size = m.mem.shared_size
    flat_off = offsets.reshape(offsets.shape[0], -1)
    bad = (flat_off < 0) | (flat_off + nbytes > size)
    if bad.any():
        li, ei = np.unravel_index(int(np.argmax(bad)), bad.shape)
        address = int(flat_off[li, ei])
        raise Fault(
            OutOfBounds,
            f"{what}: its shared-memory descriptor reaches byte {address:#x}, outside the"
            f" {size} bytes of shared memory of the CTA",
            lane=int(lanes[li]),
            address=address,
            space="shared",
        )
    if nbytes > 1 and (flat_off % nbytes).any():
        li, ei = np.unravel_index(int(np.argmax(flat_off % nbytes != 0)), bad.shape)
        raise Fault(
            Misaligned,
            f"{what}: a {nbytes}-byte element at shared byte {int(flat_off[li, ei]):#x} is not"
            f" {nbytes}-byte aligned; check the descriptor's start address and offsets",
            lane=int(lanes[li]),
            space="shared",
        )
    base = ctas.astype(np.int64).reshape((-1,) + (1,) * (offsets.ndim - 1))
    flat = base * m.mem.shared_row + offsets
    buffer = m.mem.shared
    dtype = {1: np.uint8, 2: np.uint16, 4: np.uint32}[nbytes]
    return buffer.view(dtype)[flat // nbytes]


def decode_values(codes: np.ndarray, ty: PtxType) -> np.ndarray:
    """Element codes of an MMA operand as exact ``float64`` (floats) or ``int64`` (integers).

    ``.tf32`` operands are ``.f32`` bit patterns of which the MMA uses the upper 19 bits (sign,
    exponent and 10 mantissa bits); the low 13 bits are ignored.
    """
    if ty is PtxType.U8:
        return codes.astype(np.int64)
    if ty is PtxType.S8:
        return codes.astype(np.uint8).view(np.int8).astype(np.int64)
    if ty is PtxType.TF32:
        codes = codes.astype(np.uint32) & np.uint32(0xFFFF_E000)
    with np.errstate(all="ignore"):
        return np.asarray(decode(codes, ty), dtype=np.float64)
