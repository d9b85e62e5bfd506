"""Hopper warpgroup MMA: ``wgmma.mma_async``, ``.fence``, ``.commit_group``, ``.wait_group``.

PTX ISA 9.7.15, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions".

Warpgroups. A warpgroup is four contiguous warps of a CTA whose first warp rank (linear thread
index / 32) is a multiple of 4 (ISA 9.7.15.1). All four instructions are ``.sync.aligned``
over the warpgroup: an executor first waits (:func:`pyptx.emu._warp.warpgroup_converged`, merge key
``("warpgroup-sync", pc)``) until every thread of each warpgroup among its lanes is at the
instruction or has exited, then runs once for all those warpgroups (many CTAs at once).
``wgmma.mma_async`` also needs all 128 threads alive: their registers hold the fragments.

Execution model (ISA 9.7.15.5.2 and 9.7.15.7):

* At issue, ``wgmma.mma_async`` reads its register operands (descriptors, the A fragments,
  ``scale-d``) and the A and B bytes of shared memory, checking bounds there and then. It
  writes nothing: the operation joins the warpgroup's uncommitted batch.
* ``wgmma.commit_group`` closes the batch into a wgmma-group (an empty one when nothing is
  pending).
* ``wgmma.wait_group N`` completes, in issue order, every pending operation of the
  warpgroup's groups except the ``N`` most recent ones: it reads the accumulator (only when
  ``scale-d`` is true, so ``D = A * B`` never reads, and never faults on, uninitialized
  registers), multiplies and writes ``D``. Chained operations on one accumulator therefore
  see each other's results, as the ISA guarantees for same-shape accumulators. Reading the
  accumulators before the wait sees their old values, as a GPU would show (the ISA makes
  it undefined).
* The ISA makes changing the A registers or the operands' shared memory before the wait
  undefined. At completion the A registers are read again and must be unchanged (else an
  :class:`~pyptx.emu.EmuError`); with ``check_races=True`` so must the shared-memory bytes
  (else a :class:`~pyptx.emu.DataRace`). Otherwise the bytes read at issue are used.
* Operations never waited for (never committed, or pending when their threads exit) are
  dropped: their results could only reach registers that nothing reads any more, and their
  operand reads were checked at issue.
* ``wgmma.fence`` orders register accesses; the emulator's are already in order, so it only
  synchronizes the warpgroup.

Arithmetic. Inputs are decoded exactly (``.tf32`` first drops the low 13 bits of each 32-bit
input, as the ISA says); ``imm-scale-a``/``imm-scale-b`` of -1 negate A or B. Floating-point
products are exact in ``float64``; they are summed in ``float64`` in increasing K order, the
accumulator is added last, and the sum is rounded once (to nearest even) to ``.f32`` or
``.f16``; a NaN result is the canonical NaN (``0x7fffffff``, ``0x7fff``). The ISA leaves the
accumulation order, its intermediate rounding and subnormal handling unspecified and only
asks for at least single (``.f16``: half) precision, so hardware results can differ in the
last bits (Hopper's fp8 path, for one, keeps fewer bits); sums of exactly representable
values agree bit for bit. Integer products and sums are exact; ``.s32`` results wrap modulo
2**32, or clamp to the ``.s32`` range with ``.satfinite``. ``.b1`` computes
``popc(a AND b)`` sums.

``wgmma.mma_async.sp`` (sparse A) is not emulated. Shared-memory reads of wgmma are not
reported to the race checker (they belong to the async proxy, ordered by
``fence.proxy.async`` and mbarriers rather than by the barriers the checker tracks).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyptx.ir import PtxType, VectorOperand

from .._errors import DataRace, EmuError, Fault, NotEmulated, OutOfBounds
from .._lanes import Lanes
from .._machine import YIELD, Executor
from .._numeric import decode
from .._site import Site
from .._warp import WARPGROUP, warpgroup_converged
from . import _gmma_layout as layout

__all__ = ["SEMANTICS"]

_WIDTH = {
    PtxType.F16: 2,
    PtxType.BF16: 2,
    PtxType.TF32: 4,
    PtxType.E4M3: 1,
    PtxType.E5M2: 1,
    PtxType.S8: 1,
    PtxType.U8: 1,
    PtxType.B1: 1,
}
"""Bytes per element as stored (``.b1``: eight elements per byte, counted as bytes)."""

_SWIZZLE_NAME = {0: "none", 1: "128B", 2: "64B", 3: "32B"}


class _Warpgroups:
    """The warpgroups of one wave, their wgmma-group counters and pending operations."""

    def __init__(self, m: Any) -> None:
        per_cta = -(-m.padded // WARPGROUP)
        self.count = m.ctas * per_cta
        self.of_lane = m.cta_of * per_cta + m.tid_linear // WARPGROUP
        self.size = np.bincount(self.of_lane, minlength=self.count)
        group = np.arange(self.count)
        self.cta = group // per_cta
        self.first = self.cta * m.padded + (group % per_cta) * WARPGROUP
        self.committed = np.zeros(self.count, dtype=np.int64)
        self.pending: list[_Issued] = []

    def lanes_of(self, wgs: np.ndarray) -> np.ndarray:
        """The wave lanes of whole warpgroups ``wgs`` (ascending), in order."""
        return (self.first[wgs][:, None] + np.arange(WARPGROUP)).reshape(-1)

    def complete(self, m: Any, wgs: np.ndarray, below: np.ndarray) -> None:
        """Complete, in issue order, the operations of ``wgs`` in groups before ``below``."""
        limit = np.full(self.count, -1, dtype=np.int64)
        limit[wgs] = below
        keep: list[_Issued] = []
        for op in self.pending:
            due = ~op.done & (op.group < limit[op.wgs])
            if due.any():
                op.finish(m, self, due)
                op.done |= due
            if not op.done.all():
                keep.append(op)
        self.pending = keep


def _state(m: Any) -> _Warpgroups:
    state = m.ext.get("wgmma")
    if state is None:
        state = m.ext["wgmma"] = _Warpgroups(m)
    return state


def _shape(site: Site) -> tuple[int, int]:
    shape = site.slot("shape")
    if shape is None:
        raise site.not_emulated(f"{site.mnemonic} without a shape")
    n_at, k_at = shape.index("n"), shape.index("k")
    return int(shape[n_at + 1 : k_at]), int(shape[k_at + 1 :])


def _types(site: Site) -> tuple[PtxType, PtxType, PtxType]:
    """``.dtype``, ``.atype``, ``.btype`` (the table fills type slots in spelling order)."""
    return site.type("dtype"), site.type("atype"), site.type("btype")


def _immediate(site: Site, name: str, allowed: tuple[int, ...], default: int) -> int:
    if site.operand(name) is None:
        return default
    value = site.imm(name)
    if value not in allowed:
        raise site.not_emulated(f"{name} = {value} (PTX allows {' or '.join(map(str, allowed))})")
    return int(value)


class _Mma:
    """One decoded ``wgmma.mma_async``: its shape, types, operands and arithmetic."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self.n, self.k = _shape(site)
        self.dtype, self.atype, self.btype = _types(site)
        self.width = _WIDTH[self.atype]
        self.halves = self.dtype is PtxType.F16
        self.regs = self.n // 4 if self.halves else self.n // 2
        if site.width("d") != self.regs:
            raise site.not_emulated(
                f"{site.mnemonic} with {site.width('d')} accumulator registers (the shape"
                f" needs {self.regs})"
            )
        self.floating = self.dtype is not PtxType.S32
        self.satfinite = site.has("satfinite")
        self.scale_a = _immediate(site, "imm-scale-a", (1, -1), 1)
        self.scale_b = _immediate(site, "imm-scale-b", (1, -1), 1)
        self.trans_a = bool(_immediate(site, "imm-trans-a", (0, 1), 0))
        self.trans_b = bool(_immediate(site, "imm-trans-b", (0, 1), 0))
        self.register_a = isinstance(site.require("a"), VectorOperand)
        if self.register_a:
            if site.width("a") != 4:
                raise site.not_emulated(
                    f"{site.mnemonic} with {site.width('a')} A registers (PTX needs four)"
                )
            if site.operand("imm-trans-a") is not None:
                raise site.not_emulated(
                    "imm-trans-a with A in registers (PTX transposes only a descriptor A)"
                )
            self.read_a = site.vec_src("a", PtxType.B32)
        else:
            self.read_a = site.src("a", PtxType.B64)
        self.read_b = site.src("b-desc", PtxType.B64)
        self.read_scale_d = site.src("scale-d", PtxType.PRED)
        self.read_d = site.vec_src("d", PtxType.B32)
        self.write_d = site.vec_dst("d", PtxType.B32)

    # ----------------------------------------------------------------- issue

    def issue(self, m: Any, lanes: Lanes) -> None:
        """Read the operands of whole warpgroups and queue the operation."""
        st = _state(m)
        wgs = np.unique(st.of_lane[lanes.idx])
        count = wgs.shape[0]
        here = np.bincount(st.of_lane[lanes.idx], minlength=st.count)[wgs]
        short = here != WARPGROUP
        if short.any():
            wg = int(wgs[np.argmax(short)])
            raise Fault(
                EmuError,
                f"wgmma.mma_async needs all 128 threads of the warpgroup (warps 4k..4k+3 of the"
                f" CTA), but only {int(here[np.argmax(short)])} of this one are running (the"
                " others have exited or lie beyond the block); launch whole warpgroups and"
                " keep them alive until their wgmma work is done",
                lane=int(lanes.idx[np.argmax(st.of_lane[lanes.idx] == wg)]),
            )
        b_desc = _uniform(self.read_b(m, lanes).reshape(count, WARPGROUP), "b-desc", lanes)
        b_bytes = m.mem.shared[self.flat(m, st, wgs, b_desc, "B")]
        if self.register_a:
            a_src = self.read_a(m, lanes).reshape(count, WARPGROUP, 4)
            a_bytes = _rows_from_registers(a_src)
        else:
            a_src = _uniform(self.read_a(m, lanes).reshape(count, WARPGROUP), "a-desc", lanes)
            a_bytes = m.mem.shared[self.flat(m, st, wgs, a_src, "A")]
        # Readers may return views of the register file: keep copies of what was read.
        scale_d = self.read_scale_d(m, lanes).reshape(count, WARPGROUP).copy()
        st.pending.append(
            _Issued(self, wgs, st.committed[wgs].copy(), a_src, b_desc, a_bytes, b_bytes, scale_d)
        )

    def flat(self, m: Any, st: _Warpgroups, wgs: np.ndarray, desc: np.ndarray, which: str) -> Any:
        """Flat shared-memory indices ``(G, rows, 32)`` of operand ``which`` ("A" or "B")."""
        rows = 64 if which == "A" else self.n
        mn_major = self.trans_a if which == "A" else self.trans_b
        start, lbo, sbo, base, mode = layout.fields(desc)
        odd = (base != 0) & (mode != 0)
        if odd.any():
            i = int(np.argmax(odd))
            raise Fault(
                NotEmulated,
                f"matrix {which} descriptor {int(desc[i]):#018x} sets the matrix base offset to"
                f" {int(base[i])}, which is not emulated: the PTX ISA says how to compute it but"
                " not how the hardware applies it; start the swizzle pattern on its repeat"
                " boundary (1024, 512 or 256 bytes) and use base offset 0",
                lane=int(st.first[wgs[i]]),
            )
        out = np.empty((wgs.shape[0], rows, layout.K_BYTES), dtype=np.int64)
        key = lbo | (sbo << 20) | (mode << 40)
        size = m.mem.shared_size
        for value in np.unique(key):
            sel = key == value
            i = int(np.argmax(sel))
            md = int(mode[i])
            table = layout.operand_offsets(rows, mn_major, md, int(lbo[i]), int(sbo[i]), self.width)
            addr = layout.physical(start[sel][:, None, None] + table, md)
            over = addr >= size
            if over.any():
                g, r, b = np.unravel_index(int(np.argmax(over)), over.shape)
                at = int(addr[g, r, b])
                where = int(np.flatnonzero(sel)[g])
                raise Fault(
                    OutOfBounds,
                    f"matrix {which} (descriptor {int(desc[where]):#018x}: start"
                    f" {int(start[where]):#x}, LBO {int(lbo[i])}, SBO {int(sbo[i])}, swizzle"
                    f" {_SWIZZLE_NAME[md]}, {'MN' if mn_major else 'K'}-major) reaches shared"
                    f" address {at:#x} for row {r}, outside the {size} bytes of shared memory"
                    " of the CTA",
                    lane=int(st.first[wgs[where]]),
                    address=at,
                    space="shared",
                )
            out[sel] = st.cta[wgs[sel]][:, None, None] * m.mem.shared_row + addr
        return out

    # ----------------------------------------------------------------- arithmetic

    def values(self, raw: np.ndarray, ty: PtxType) -> np.ndarray:
        """Row bytes ``(G, R, 32)`` as ``(G, R, K)`` exact ``float64`` element values."""
        raw = np.ascontiguousarray(raw)
        if ty is PtxType.F16:
            return raw.view("<f2").astype(np.float64)
        if ty is PtxType.BF16:
            return decode(raw.view("<u2"), ty)
        if ty is PtxType.TF32:
            kept = raw.view("<u4") & np.uint32(0xFFFF_E000)
            return kept.view(np.float32).astype(np.float64)
        if ty is PtxType.S8:
            return raw.view(np.int8).astype(np.float64)
        if ty is PtxType.U8:
            return raw.astype(np.float64)
        if ty is PtxType.B1:
            return np.unpackbits(raw, axis=-1, bitorder="little").astype(np.float64)
        return decode(raw, ty)

    def accumulate(
        self, a: np.ndarray, b: np.ndarray, c_raw: np.ndarray, scale_d: np.ndarray
    ) -> np.ndarray:
        """``D`` bits ``(G, 128, regs)`` from A ``(G, 64, K)``, B ``(G, N, K)`` and ``C``."""
        rows, cols = layout.accumulator_coords(self.n)
        keep = scale_d[:, :, None]
        with np.errstate(all="ignore"):
            if not self.floating:
                # Integers (and 0/1 bits) below 2**53: float64 products and sums are exact.
                exact = np.matmul(a, np.ascontiguousarray(b.transpose(0, 2, 1)))
                p = exact.astype(np.int64)[:, rows, cols]
                c = c_raw.view(np.int32).astype(np.int64)
                d = np.where(keep, p + c, p)
                if self.satfinite:
                    d = np.clip(d, -(2**31), 2**31 - 1)
                return (d & 0xFFFF_FFFF).astype(np.uint32)
            if self.scale_a < 0:
                a = -a
            if self.scale_b < 0:
                b = -b
            acc = a[:, :, None, 0] * b[:, None, :, 0]
            for k in range(1, a.shape[2]):
                acc += a[:, :, None, k] * b[:, None, :, k]
            p = acc[:, rows, cols]
            if self.halves:
                c = np.ascontiguousarray(c_raw).view("<f2").astype(np.float64)
                half = np.where(keep, p + c, p).astype(np.float16)
                bits = half.view(np.uint16)
                bits[np.isnan(half)] = 0x7FFF
                return np.ascontiguousarray(bits).view(np.uint32)
            c = c_raw.view(np.float32).astype(np.float64)
            single = np.where(keep, p + c, p).astype(np.float32)
            out = single.view(np.uint32)
            out[np.isnan(single)] = 0x7FFF_FFFF
            return out


def _uniform(values: np.ndarray, name: str, lanes: Lanes) -> np.ndarray:
    """The one value per warpgroup of ``(G, 128)`` ``values``, which must agree."""
    first = values[:, :1]
    differ = values != first
    if differ.any():
        g, t = np.unravel_index(int(np.argmax(differ)), differ.shape)
        raise Fault(
            EmuError,
            f"the {name} operand must be the same in every thread of the warpgroup, but this"
            f" thread has {int(values[g, t]):#x} and the warpgroup's first thread"
            f" {int(values[g, 0]):#x}",
            lane=int(lanes.idx[g * WARPGROUP + t]),
        )
    return values[:, 0].copy()


def _rows_from_registers(regs: np.ndarray) -> np.ndarray:
    """A fragments ``(G, 128, 4)`` of ``uint32`` as row bytes ``(G, 64, 32)``."""
    rows, kbytes = layout.a_fragment_coords()
    out = np.empty((regs.shape[0], 64, layout.K_BYTES), dtype=np.uint8)
    raw = np.ascontiguousarray(regs, dtype="<u4").view(np.uint8)
    out[:, rows, kbytes] = raw.reshape(regs.shape[0], WARPGROUP, 4, 4)
    return out


class _Issued:
    """A ``wgmma.mma_async`` issued by some warpgroups and not yet completed."""

    def __init__(
        self,
        mma: _Mma,
        wgs: np.ndarray,
        group: np.ndarray,
        a_src: np.ndarray,
        b_desc: np.ndarray,
        a_bytes: np.ndarray,
        b_bytes: np.ndarray,
        scale_d: np.ndarray,
    ) -> None:
        self.mma = mma
        self.wgs = wgs
        self.group = group
        self.a_src = a_src
        self.b_desc = b_desc
        self.a_bytes = a_bytes
        self.b_bytes = b_bytes
        self.scale_d = scale_d
        self.done = np.zeros(wgs.shape[0], dtype=bool)

    def finish(self, m: Any, st: _Warpgroups, due: np.ndarray) -> None:
        """Complete the operation for the warpgroups ``self.wgs[due]``."""
        mma = self.mma
        line = mma.site.line
        wgs = self.wgs[due]
        count = wgs.shape[0]
        lanes = m.lanes(st.lanes_of(wgs))
        a_bytes, b_bytes = self.a_bytes[due], self.b_bytes[due]
        if mma.register_a:
            now = mma.read_a(m, lanes).reshape(count, WARPGROUP, 4)
            changed = now != self.a_src[due]
            if changed.any():
                g, t, j = np.unravel_index(int(np.argmax(changed)), changed.shape)
                raise Fault(
                    EmuError,
                    f"A fragment register {j} of the wgmma.mma_async at PTX line {line} changed"
                    " before a wgmma.wait_group completed it (undefined in PTX); wait for the"
                    " operation before writing its A registers",
                    lane=int(lanes.idx[g * WARPGROUP + t]),
                )
        if m.config.check_races:
            sources = [("B", self.b_desc[due], b_bytes)]
            if not mma.register_a:
                sources.append(("A", self.a_src[due], a_bytes))
            for which, desc, seen in sources:
                flat = mma.flat(m, st, wgs, desc, which)
                changed = m.mem.shared[flat] != seen
                if changed.any():
                    g, r, col = np.unravel_index(int(np.argmax(changed)), changed.shape)
                    offset = int(flat[g, r, col]) - int(st.cta[wgs[g]]) * m.mem.shared_row
                    raise Fault(
                        DataRace,
                        f"shared memory at {offset:#x} (matrix {which}, row {r}) of the"
                        f" wgmma.mma_async at PTX line {line} changed before a"
                        " wgmma.wait_group completed it; wait for the operation before"
                        " overwriting its operands",
                        lane=int(st.first[wgs[g]]),
                        address=offset,
                        space="shared",
                    )
        scale_d = self.scale_d[due]
        keep = scale_d.reshape(-1)
        c_raw = np.zeros((count * WARPGROUP, mma.regs), dtype=np.uint32)
        if keep.any():
            readers = lanes if keep.all() else lanes.subset(keep, m.n)
            try:
                c_raw[keep] = mma.read_d(m, readers)
            except Fault as err:
                raise Fault(
                    err.kind,
                    f"{err.detail} (it is the accumulator of the wgmma.mma_async at PTX line"
                    f" {line}, completed here, whose scale-d is true)",
                    lane=err.lane,
                ) from None
        a = mma.values(a_bytes, mma.atype)
        b = mma.values(b_bytes, mma.btype)
        d = mma.accumulate(a, b, c_raw.reshape(count, WARPGROUP, mma.regs), scale_d)
        mma.write_d(m, lanes, d.reshape(count * WARPGROUP, mma.regs))


# ------------------------------------------------------------------------- semantics


def mma_async(site: Site) -> Executor:
    """``wgmma.mma_async``: issue ``D = A * B (+ D)`` for whole warpgroups (deferred)."""
    mma = _Mma(site)

    def run(m: Any, lanes: Lanes) -> Any:
        go = warpgroup_converged(m, site, lanes)
        if go is not None:
            mma.issue(m, go)
        return None if go is lanes else YIELD

    return run


def mma_async_sp(site: Site) -> Executor:
    """``wgmma.mma_async.sp``: refused (sparse A with metadata is not emulated)."""
    raise site.not_emulated(
        "wgmma.mma_async.sp (structured-sparse A: the ISA gives the metadata and sparse A"
        " fragment layouts only as figures, which the emulator has not been checked against)"
    )


def fence(site: Site) -> Executor:
    """``wgmma.fence``: synchronizes the warpgroup; register accesses are already ordered."""

    def run(m: Any, lanes: Lanes) -> Any:
        return None if warpgroup_converged(m, site, lanes) is lanes else YIELD

    return run


def commit_group(site: Site) -> Executor:
    """``wgmma.commit_group``: close the warpgroup's uncommitted operations into a group."""

    def run(m: Any, lanes: Lanes) -> Any:
        go = warpgroup_converged(m, site, lanes)
        if go is not None:
            st = _state(m)
            st.committed[np.unique(st.of_lane[go.idx])] += 1
        return None if go is lanes else YIELD

    return run


def wait_group(site: Site) -> Executor:
    """``wgmma.wait_group N``: complete all but the ``N`` most recent groups."""
    keep = site.imm("N")
    if not isinstance(keep, int) or keep < 0:
        raise site.not_emulated(f"wgmma.wait_group {keep} (N must be a non-negative integer)")

    def run(m: Any, lanes: Lanes) -> Any:
        go = warpgroup_converged(m, site, lanes)
        if go is not None:
            st = _state(m)
            wgs = np.unique(st.of_lane[go.idx])
            st.complete(m, wgs, st.committed[wgs] - keep)
        return None if go is lanes else YIELD

    return run


SEMANTICS = {
    "wgmma.mma_async": mma_async,
    "wgmma.mma_async.sp": mma_async_sp,
    "wgmma.fence": fence,
    "wgmma.commit_group": commit_group,
    "wgmma.wait_group": wait_group,
}
