"""Epilogue stores of accumulator fragments: ``ptx.stmatrix_x4_trans_f32_bf16``.

The helper converts a warpgroup's f32 ``wgmma`` accumulator to bf16 and writes it to shared
memory *transposed* with ``stmatrix.x4.trans``: element ``(m, n)`` of the 64 x N tile lands
at ``smem[n * row_stride + m]``, the layout a TMA store of the transposed output (``C^T``
row-major, i.e. ``C`` column-major) reads. Every instruction goes through a ``ptx.*``
wrapper; the sequence is in :data:`MULTI_INSTRUCTION`.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyptx.ir import PtxType

from ..dsl.errors import PtxDslError
from ..dsl.operands import addr
from ..dsl.regs import Reg, _new
from ..dsl.shared import SharedAlloc, SharedSlice, base
from ._arith import mad
from ._convert import cvt
from ._matrix import stmatrix

__all__ = ["stmatrix_x4_trans_f32_bf16"]


def _base_reg(smem_base: object) -> Reg:
    if isinstance(smem_base, Reg) and smem_base.type.bits == 32:
        return smem_base
    if isinstance(smem_base, SharedSlice):
        start = base(smem_base.alloc)
        return start + smem_base.offset if smem_base.offset else start
    if isinstance(smem_base, SharedAlloc):
        return base(smem_base)
    raise PtxDslError(
        "ptx.stmatrix_x4_trans_f32_bf16 smem_base must be a u32 shared address register or "
        f"a shared allocation, got {smem_base!r}"
    )


def stmatrix_x4_trans_f32_bf16(
    *,
    frag: Sequence[Reg],
    smem_base: object,
    lane: Reg,
    row_stride: int,
    tmp_pack: Sequence[Reg] | None = None,
) -> None:
    """Store an f32 wgmma accumulator as bf16, transposed: ``smem[n*row_stride + m] = d(m, n)``.

    ``frag`` is the accumulator of an m64nN ``wgmma`` (``reg.wgmma_frag(N)``, N/2 ``f32``
    registers in the order of ``ptx.wgmma_acc_coords``); every thread of the warpgroup calls
    it. Each group of 8 registers (16 columns) is one ``stmatrix.x4.trans``. Emits::

        and.b32 l, lane, 31;  shr.u32 h, l, 4;  and.b32 e, lane, 8;
        mad.lo.u32 o, h, 8*row_stride, e;      // lanes 16..31 address the second 8 columns
        and.b32 r, lane, 7;  mad.lo.u32 o, r, row_stride, o;
        shr.u32 w, lane, 5;  mad.lo.u32 o, w, 16, o;   // warp w: rows 16w..16w+15
        mad.lo.u32 a, o, 2, smem_base;
        per group g: 4 x cvt.rn.bf16x2.f32 p, d[2k+1], d[2k];
                     stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [a+32*row_stride*g], {p};

    Args:
        frag: the N/2 accumulator registers (N a multiple of 16).
        smem_base: the tile's start: a ``u32`` shared address register, an allocation or a
            stage of one; 16-byte aligned.
        lane: the thread's index in the warpgroup (0..127), a ``u32`` register.
        row_stride: elements from one stored row (one ``n``) to the next, >= 64 and a
            multiple of 8 (each row address must be 16-byte aligned); pad it (72 for 64
            rows) to spread the rows over banks.
        tmp_pack: four 32-bit registers to reuse for the packed pairs (default: fresh
            ``bf16x2`` registers per group).

    Raises:
        PtxDslError: a fragment that is not a multiple of 8 ``f32`` registers, a bad
            ``row_stride`` or ``tmp_pack``.

    See: https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-stmatrix
    """
    regs = list(frag)
    if (
        not regs
        or len(regs) % 8
        or any(not isinstance(r, Reg) or r.type is not PtxType.F32 for r in regs)
    ):
        raise PtxDslError(
            "ptx.stmatrix_x4_trans_f32_bf16 needs frag= a multiple of 8 f32 registers "
            f"(an m64nN accumulator with N a multiple of 16), got {len(regs)}"
        )
    if (
        isinstance(row_stride, bool)
        or not isinstance(row_stride, int)
        or row_stride < 64
        or row_stride % 8
    ):
        raise PtxDslError(
            "row_stride must be an int >= 64 and a multiple of 8 (16-byte rows), "
            f"got {row_stride!r}"
        )
    if tmp_pack is not None and (len(tmp_pack) != 4 or any(r.type.bits != 32 for r in tmp_pack)):
        raise PtxDslError("tmp_pack must be four 32-bit registers")
    offset = _new(PtxType.U32)
    mad(offset, (lane & 31) >> 4, 8 * row_stride, lane & 8, mode="lo")
    mad(offset, lane & 7, row_stride, offset, mode="lo")
    mad(offset, lane >> 5, 16, offset, mode="lo")
    start = _base_reg(smem_base)
    address = _new(PtxType.U32)
    mad(address, offset, 2, start, mode="lo")
    for g in range(len(regs) // 8):
        group = regs[8 * g : 8 * g + 8]
        packs = list(tmp_pack) if tmp_pack is not None else [_new(PtxType.BF16X2) for _ in range(4)]
        for k in range(4):
            cvt(packs[k], group[2 * k + 1], group[2 * k], dtype=PtxType.BF16X2, rnd="rn")
        stmatrix(addr(address, 32 * row_stride * g), packs, trans=True)


MULTI_INSTRUCTION: dict[str, str] = {
    "ptx.stmatrix_x4_trans_f32_bf16": "and.b32 l, lane, 31; shr.u32 h, l, 4; and.b32 e, lane, 8; "
    "mad.lo.u32 o, h, 8*row_stride, e; and.b32 r, lane, 7; mad.lo.u32 o, r, row_stride, o; "
    "shr.u32 w, lane, 5; mad.lo.u32 o, w, 16, o; [mov.u32 s, symbol;] mad.lo.u32 a, o, 2, s; "
    "per 8 registers g: 4 x cvt.rn.bf16x2.f32 p, hi, lo; "
    "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [a+32*row_stride*g], {p0, p1, p2, p3}",
}
"""The epilogue helpers and the exact instructions each emits."""
