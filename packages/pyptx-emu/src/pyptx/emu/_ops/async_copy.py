"""Asynchronous copies: ``cp.async``, bulk copies and reductions, ``st.async``, ``red.async``.

Completion model (what a kernel can observe):

* ``cp.async`` reads its source when issued and writes its destination only when a
  ``cp.async.wait_group``/``wait_all`` covering it runs, or the thread's
  ``cp.async.mbarrier.arrive`` does (then the arrive-on follows). A thread that reads the
  destination without waiting sees the old bytes, as it may on a GPU. Copies never waited
  for are dropped when the wave ends (their shared memory dies with the CTA).
* Bulk copies and reductions (``cp.async.bulk``, ``cp.reduce.async.bulk``, and the tensor
  forms in :mod:`.tma`) complete when issued: the data lands and the mbarrier's complete-tx
  is applied at once (a complete-tx before the matching expect-tx leaves the tx-count
  negative for a while, which the ISA allows). An early reader of the destination therefore
  sees the new data; that race goes unreported.
* Operations of a *bulk async-group* (``.bulk_group``: shared to global) also complete when
  issued, but their shared-memory source is remembered: the ``cp.async.bulk.wait_group``
  (``.read`` or not) that covers them checks that it still holds what was read, and reports
  a thread that overwrote it before waiting (a real race: the GPU may read it late).
* ``st.async`` and ``red.async`` write when issued and signal their mbarrier at once.

Reductions combine element by element as the ISA says: integers wrap, ``.inc``/``.dec``
count within ``[0, b]``, floating-point ``.add`` rounds to nearest even (``.f32`` flushes
subnormal inputs and results to sign-preserving zero, ``.f16``/``.bf16`` keep them), ``min``
and ``max`` of floats ignore a NaN operand. Destinations that repeat within one instruction
are combined one after the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pyptx.ir import PtxType

from .. import _mbar
from .._errors import EmuError, Fault
from .._lanes import Lanes
from .._machine import Executor
from .._memory import Space
from .._numeric import f32_to_bf16
from .._site import Reader, Site
from .._types import value_dtype

__all__ = [
    "SEMANTICS",
    "bulk_issued",
    "combine",
    "finish_copies",
    "multicast_targets",
    "own_cta",
]

# --------------------------------------------------------------------------------- groups


@dataclass
class _Record:
    """Operations one instruction issued for some lanes, still in flight.

    Attributes:
        lanes: wave lane of each operation.
        group: the async-group each belongs to (the lane's commit count when issued).
        flat: flat shared-memory offset of each operation's bytes.
        data: the bytes (to write for ``cp.async``; as read, for bulk sources).
        live: which are still in flight.
    """

    lanes: np.ndarray
    group: np.ndarray
    flat: np.ndarray
    data: np.ndarray
    live: np.ndarray


class _Groups:
    """Per-thread async-groups of one kind (``cp.async`` or bulk) in a wave."""

    def __init__(self, n: int) -> None:
        self.committed = np.zeros(n, dtype=np.int64)
        self.records: list[_Record] = []

    def issue(self, lanes: np.ndarray, flat: np.ndarray, data: np.ndarray) -> None:
        """Record operations of ``lanes`` in their current (uncommitted) group."""
        if lanes.size:
            live = np.ones(lanes.size, dtype=bool)
            self.records.append(_Record(lanes, self.committed[lanes], flat, data, live))

    def commit(self, lanes: np.ndarray) -> None:
        """Close the current group of each lane."""
        self.committed[lanes] += 1

    def due(self, n: int, lanes: np.ndarray, keep: int | None) -> list[tuple[_Record, np.ndarray]]:
        """Operations of ``lanes`` a wait completes (they stop being live).

        All but the ``keep`` newest committed groups; ``None``: every operation, committed
        or not.
        """
        limit = np.full(n, -1, dtype=np.int64)
        if keep is None:
            limit[lanes] = np.iinfo(np.int64).max
        else:
            limit[lanes] = self.committed[lanes] - keep
        out = []
        for rec in self.records:
            mask = rec.live & (rec.group < limit[rec.lanes])
            if mask.any():
                rec.live &= ~mask
                out.append((rec, mask))
        self.records = [r for r in self.records if r.live.any()]
        return out


def _groups(m: Any, kind: str) -> _Groups:
    key = f"async-groups:{kind}"
    g = m.ext.get(key)
    if g is None:
        g = m.ext[key] = _Groups(m.n)
    return g


def _write_shared(m: Any, flat: np.ndarray, data: np.ndarray) -> None:
    """Write ``data`` (k, nbytes) at flat shared offsets ``flat`` (k,)."""
    if flat.size:
        m.mem.shared[flat[:, None] + np.arange(data.shape[1])] = data


def _read_shared(m: Any, flat: np.ndarray, nbytes: int) -> np.ndarray:
    return m.mem.shared[flat[:, None] + np.arange(nbytes)]


def finish_copies(m: Any, lanes: Lanes, keep: int | None = None) -> None:
    """Complete ``cp.async`` copies of ``lanes``: all of them, or all but ``keep`` groups."""
    done = _groups(m, "cp.async").due(m.n, lanes.idx, keep)
    for rec, mask in done:
        _write_shared(m, rec.flat[mask], rec.data[mask])
    if done:
        m.touch()


def bulk_issued(m: Any, lanes: np.ndarray, flat: np.ndarray, data: np.ndarray) -> None:
    """Remember the shared-memory source bytes of bulk-group operations just issued."""
    _groups(m, "bulk").issue(lanes, flat, data)


# --------------------------------------------------------------------------------- cp.async


def cp_async(site: Site) -> Executor:
    """``cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size | ignore-src}``."""
    size = int(site.imm("cp-size"))
    if size not in (4, 8, 16):
        raise site.not_emulated(f"cp.async with cp-size {size} (the ISA allows 4, 8, 16)")
    if site.has("cg") and size != 16:
        raise site.not_emulated(f"cp.async.cg with cp-size {size} (.cg copies 16 bytes)")
    dst = site.addr("dst")
    src = site.addr("src")
    src_size = site.src("src-size", PtxType.U32) if site.operand("src-size") is not None else None
    ignore = (
        site.src("ignore-src", PtxType.PRED) if site.operand("ignore-src") is not None else None
    )
    dst_space = site.space()
    src_space = Space.GLOBAL if site.slot("src") == "global" else Space.GENERIC

    def run(m: Any, lanes: Lanes) -> Any:
        idx = lanes.idx
        flat = _mbar.shared_flat(
            m, dst_space, dst(m, lanes), idx, size, size, "cp.async's destination"
        )
        if src_size is not None:
            n = src_size(m, lanes).astype(np.int64)
            if (n > size).any():
                i = int(np.argmax(n > size))
                raise Fault(
                    EmuError,
                    f"cp.async src-size {int(n[i])} is larger than its cp-size {size}",
                    lane=int(idx[i]),
                )
        else:
            n = np.full(lanes.n, size, dtype=np.int64)
        if ignore is not None:
            n = np.where(ignore(m, lanes), 0, n)
        data = np.zeros((lanes.n, size), dtype=np.uint8)
        addr = src(m, lanes)
        for k in np.unique(n):
            if k == 0:
                continue
            sel = np.flatnonzero(n == k)
            # Only src-size bytes are read (they must be inside the allocation); the address
            # is aligned to cp-size all the same.
            data[sel, :k] = m.mem.load_bytes(src_space, addr[sel], idx[sel], int(k), size)
        _groups(m, "cp.async").issue(idx, flat, data)

    return run


def cp_async_commit(site: Site) -> Executor:
    """``cp.async.commit_group``: close the thread's current cp.async-group."""

    def run(m: Any, lanes: Lanes) -> Any:
        _groups(m, "cp.async").commit(lanes.idx)

    return run


def cp_async_wait_group(site: Site) -> Executor:
    """``cp.async.wait_group N``: complete all but the ``N`` newest committed groups."""
    keep = int(site.imm("N"))

    def run(m: Any, lanes: Lanes) -> Any:
        finish_copies(m, lanes, keep)

    return run


def cp_async_wait_all(site: Site) -> Executor:
    """``cp.async.wait_all``: ``commit_group`` then ``wait_group 0``."""

    def run(m: Any, lanes: Lanes) -> Any:
        _groups(m, "cp.async").commit(lanes.idx)
        finish_copies(m, lanes, 0)

    return run


# --------------------------------------------------------------------------------- bulk groups


def bulk_commit(site: Site) -> Executor:
    """``cp.async.bulk.commit_group``: close the thread's current bulk async-group."""

    def run(m: Any, lanes: Lanes) -> Any:
        _groups(m, "bulk").commit(lanes.idx)

    return run


def bulk_wait_group(site: Site) -> Executor:
    """``cp.async.bulk.wait_group{.read} N``: the covered operations completed already.

    Checks that their shared-memory sources were left alone until now.
    """
    keep = int(site.imm("N"))

    def run(m: Any, lanes: Lanes) -> Any:
        for rec, mask in _groups(m, "bulk").due(m.n, lanes.idx, keep):
            flat = rec.flat[mask]
            now = _read_shared(m, flat, rec.data.shape[1])
            changed = (now != rec.data[mask]).any(axis=1)
            if changed.any():
                i = int(np.argmax(changed))
                raise Fault(
                    EmuError,
                    "shared memory read by a bulk async copy (TMA store or bulk copy to"
                    f" global) at {_mbar.where(m, int(flat[i]))} was overwritten before the"
                    " cp.async.bulk.wait_group.read that covers the copy; the GPU may read"
                    " it late. Wait for the bulk group before reusing the buffer",
                    lane=int(rec.lanes[mask][i]),
                )

    return run


# --------------------------------------------------------------------------------- bulk copies


def _space(word: str | None) -> Space:
    return Space.of([word]) if word else Space.GENERIC


def multicast_targets(
    m: Any, lanes: np.ndarray, flat: np.ndarray, mask: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Expand flat offsets to every CTA a ``ctaMask`` names, at the same CTA offset.

    Returns:
        ``(entry, flat)``: for each destination, the index of the operation it belongs to
        and its flat offset in the destination CTA.
    """
    size = m.config.cluster_size
    mask = mask.astype(np.int64)
    bad = (mask >> size) != 0
    if bad.any():
        i = int(np.argmax(bad))
        raise Fault(
            EmuError,
            f"ctaMask {int(mask[i]):#06x} names CTA ranks beyond the cluster's {size} CTAs",
            lane=int(lanes[i]),
        )
    ranks = np.arange(size, dtype=np.int64)
    hit = ((mask[:, None] >> ranks) & 1).astype(bool)
    entry, rank = np.nonzero(hit)
    row = m.mem.shared_row
    first = m.wave.cluster_first[m.cta_of[lanes[entry]]]
    return entry, (first + rank) * row + flat[entry] % row


def _same_cta(m: Any, lanes: np.ndarray, a: np.ndarray, b: np.ndarray, what: str) -> None:
    row = m.mem.shared_row
    wrong = a // row != b // row
    if wrong.any():
        i = int(np.argmax(wrong))
        raise Fault(
            EmuError,
            f"{what}: the mbarrier ({_mbar.where(m, int(b[i]))}) must be in the same CTA as"
            f" the destination ({_mbar.where(m, int(a[i]))})",
            lane=int(lanes[i]),
        )


def _sizes(site: Site, name: str = "size") -> Reader:
    return site.src(name, PtxType.U32)


def _check_size(m: Any, lanes: np.ndarray, sizes: np.ndarray, what: str) -> None:
    bad = (sizes % 16 != 0) | (sizes <= 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise Fault(
            EmuError,
            f"{what} size must be a positive multiple of 16 bytes, got {int(sizes[i])}",
            lane=int(lanes[i]),
        )


def cp_async_bulk(site: Site) -> Executor:
    """``cp.async.bulk``: global or shared to shared (mbarrier), or shared to global (group)."""
    if site.has("ignore_oob"):
        raise site.not_emulated(
            "cp.async.bulk .ignore_oob (PTX ISA 9.2; its semantics are not in the ISA text"
            " the emulator follows)"
        )
    dst_word, src_word = site.slot("dst"), site.slot("src")
    dst_space, src_space = _space(dst_word), _space(src_word)
    dst = site.addr("dstMem")
    src = site.addr("srcMem")
    size = _sizes(site)
    name = site.mnemonic
    if dst_word == "global":
        byte_mask = site.src("byteMask", PtxType.B16) if site.has("cp_mask") else None

        def to_global(m: Any, lanes: Lanes) -> Any:
            idx = lanes.idx
            n = size(m, lanes).astype(np.int64)
            _check_size(m, idx, n, name)
            d, s = dst(m, lanes), src(m, lanes)
            keep = byte_mask(m, lanes).astype(np.int64) if byte_mask is not None else None
            for k in np.unique(n):
                sel = np.flatnonzero(n == k)
                nb = int(k)
                flat = _mbar.shared_flat(m, src_space, s[sel], idx[sel], nb, 16, "the source")
                own_cta(m, idx[sel], flat, name)
                data = _read_shared(m, flat, nb)
                out = data
                if keep is not None:
                    old = m.mem.load_bytes(Space.GLOBAL, d[sel], idx[sel], nb, 16)
                    bits = (keep[sel, None] >> (np.arange(nb) % 16)) & 1
                    out = np.where(bits.astype(bool), data, old)
                m.mem.store_bytes(Space.GLOBAL, d[sel], idx[sel], out, 16)
                bulk_issued(m, idx[sel], flat, data)
            m.touch()

        return to_global

    mbar = site.addr("mbar")
    multicast = site.has("multicast::cluster")
    cta_mask = site.src("ctaMask", PtxType.B16) if multicast else None
    from_shared = src_word == "shared::cta"

    def to_shared(m: Any, lanes: Lanes) -> Any:
        idx = lanes.idx
        n = size(m, lanes).astype(np.int64)
        _check_size(m, idx, n, name)
        d, s = dst(m, lanes), src(m, lanes)
        bar = _mbar.mbarrier_flat(m, dst_space, mbar(m, lanes), idx)
        mask = cta_mask(m, lanes) if cta_mask is not None else None
        for k in np.unique(n):
            sel = np.flatnonzero(n == k)
            nb = int(k)
            flat = _mbar.shared_flat(m, dst_space, d[sel], idx[sel], nb, 16, "the destination")
            if dst_space is Space.SHARED:
                own_cta(m, idx[sel], flat, name)
            if from_shared:
                sflat = _mbar.shared_flat(m, src_space, s[sel], idx[sel], nb, 16, "the source")
                own_cta(m, idx[sel], sflat, name)
                row = m.mem.shared_row
                same = flat // row == m.cta_of[idx[sel]]
                if same.any():
                    i = int(np.argmax(same))
                    raise Fault(
                        EmuError,
                        f"{name} copies shared::cta to shared::cluster of another CTA, but"
                        f" the destination {_mbar.where(m, int(flat[i]))} is the executing"
                        " CTA's own",
                        lane=int(idx[sel][i]),
                    )
                data = _read_shared(m, sflat, nb)
            else:
                data = m.mem.load_bytes(Space.GLOBAL, s[sel], idx[sel], nb, 16)
            bars = bar[sel]
            if mask is not None:
                entry, targets = multicast_targets(m, idx[sel], flat, mask[sel])
                _, bar_targets = multicast_targets(m, idx[sel], bars, mask[sel])
                _write_shared(m, targets, data[entry])
                _mbar.complete_tx(m, bar_targets, nb, lanes=idx[sel][entry])
            else:
                _same_cta(m, idx[sel], flat, bars, name)
                _write_shared(m, flat, data)
                _mbar.complete_tx(m, bars, nb, lanes=idx[sel])
        m.touch()

    return to_shared


def own_cta(m: Any, lanes: np.ndarray, flat: np.ndarray, what: str) -> None:
    """Check that ``flat`` lies in each lane's own CTA (``.shared::cta`` operands).

    Raises:
        Fault: an operand in another CTA's shared memory.
    """
    wrong = flat // m.mem.shared_row != m.cta_of[lanes]
    if wrong.any():
        i = int(np.argmax(wrong))
        raise Fault(
            EmuError,
            f"{what}: a .shared::cta operand must be in the executing CTA, but it names"
            f" {_mbar.where(m, int(flat[i]))}",
            lane=int(lanes[i]),
        )


# --------------------------------------------------------------------------------- reductions

_CANONICAL_NAN = {
    PtxType.F16: 0x7FFF,
    PtxType.BF16: 0x7FFF,
    PtxType.F32: 0x7FFF_FFFF,
    PtxType.F64: 0x7FFF_FFFF_FFFF_FFFF,
}

_INTEGER_REDUCTIONS = ("add", "min", "max", "inc", "dec")
_BIT_REDUCTIONS = ("and", "or", "xor")


def _uint(ty: PtxType) -> np.dtype:
    return np.dtype(f"u{max(1, ty.bits // 8)}")


def combine(op: str, ty: PtxType, old: np.ndarray, src: np.ndarray, *, ftz: bool) -> np.ndarray:
    """One reduction step ``old op src`` on raw element bits (unsigned arrays).

    Args:
        op: ``add``, ``min``, ``max``, ``inc``, ``dec``, ``and``, ``or`` or ``xor``.
        ty: the element type.
        old: the destination's bits.
        src: the operand's bits.
        ftz: flush subnormal ``.f32`` inputs and results to sign-preserving zero.

    Returns:
        The new bits (same dtype as ``old``).

    Raises:
        EmuError: a combination the ISA does not define.
    """
    u = _uint(ty)
    a = old.astype(u, copy=False)
    b = src.astype(u, copy=False)
    if op in _BIT_REDUCTIONS:
        fn = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
        return fn(a, b)
    if ty.kind.value == "float":
        return _float_combine(op, ty, a, b, ftz)
    if op == "add":
        return (a + b).astype(u)
    if op in ("min", "max"):
        view = value_dtype(ty) if ty.kind.value == "signed" else u
        x, y = a.view(view), b.view(view)
        pick = x <= y if op == "min" else x >= y
        return np.where(pick, a, b)
    if op == "inc":
        return np.where(a >= b, u.type(0), a + u.type(1)).astype(u)
    if op == "dec":
        return np.where((a == 0) | (a > b), b, a - u.type(1)).astype(u)
    raise EmuError(f"reduction .{op} is not defined for .{ty.value}")


def _float_combine(op: str, ty: PtxType, a: np.ndarray, b: np.ndarray, ftz: bool) -> np.ndarray:
    u = a.dtype
    with np.errstate(all="ignore"):
        if op == "add":
            out = _float_add(ty, a, b, ftz)
        elif op in ("min", "max"):
            out = _float_minmax(op, ty, a, b)
        else:
            raise EmuError(f"reduction .{op} is not defined for .{ty.value}")
    return out.astype(u)


def _values(ty: PtxType, bits: np.ndarray) -> np.ndarray:
    if ty is PtxType.BF16:
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    return bits.view(value_dtype(ty)).astype(np.float64)


def _flush32(x: np.ndarray) -> np.ndarray:
    tiny = np.abs(x) < np.float32(np.finfo(np.float32).tiny)
    return np.where(tiny, np.copysign(np.float32(0), x), x).astype(np.float32)


def _float_add(ty: PtxType, a: np.ndarray, b: np.ndarray, ftz: bool) -> np.ndarray:
    nan = _CANONICAL_NAN[ty]
    if ty is PtxType.F32:
        x, y = a.view(np.float32), b.view(np.float32)
        if ftz:
            x, y = _flush32(x), _flush32(y)
        s = (x + y).astype(np.float32)
        if ftz:
            s = _flush32(s)
        bits = s.view(np.uint32)
        return np.where(np.isnan(s), np.uint32(nan), bits)
    if ty is PtxType.F64:
        d = a.view(np.float64) + b.view(np.float64)
        return np.where(np.isnan(d), np.uint64(nan), d.view(np.uint64))
    if ty is PtxType.F16:
        # Two halves add exactly in float64; one rounding to half follows.
        w = a.view(np.float16).astype(np.float64) + b.view(np.float16).astype(np.float64)
        h = w.astype(np.float16).view(np.uint16)
        return np.where(np.isnan(w), np.uint16(nan), h)
    if ty is PtxType.BF16:
        return _bf16_round(_values(ty, a), _values(ty, b))
    raise EmuError(f"reduction .add is not defined for .{ty.value}")


def _bf16_round(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x + y`` (exact bf16 values as float64) rounded once to bf16, nearest even."""
    s = x + y
    # The rounding error of the float64 sum (two-sum) tells which side the exact sum is on.
    bb = s - x
    err = (x - (s - bb)) + (y - bb)
    finite = np.isfinite(s)
    err = np.where(finite, err, 0.0)
    toward = np.where(err > 0, np.inf, -np.inf)
    s = np.where(err != 0, np.nextafter(s, toward), s)
    # float64 -> float32 rounding to odd, then float32 -> bf16 to nearest even: one rounding.
    r = s.astype(np.float32)
    back = r.astype(np.float64)
    inexact = finite & (back != s)
    too_far = inexact & (np.abs(back) > np.abs(s))
    r = np.where(too_far, np.nextafter(r, np.float32(0)), r).astype(np.float32)
    bits = r.view(np.uint32) | np.where(inexact, np.uint32(1), np.uint32(0))
    out = f32_to_bf16(bits.view(np.float32))
    return np.where(np.isnan(s), np.uint16(_CANONICAL_NAN[PtxType.BF16]), out)


def _float_minmax(op: str, ty: PtxType, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    x, y = _values(ty, a), _values(ty, b)
    if op == "min":
        pick_a = (x < y) | ((x == y) & np.signbit(x))
    else:
        pick_a = (x > y) | ((x == y) & ~np.signbit(x))
    pick_a |= np.isnan(y)
    out = np.where(pick_a, a, b)
    both = np.isnan(x) & np.isnan(y)
    return np.where(both, a.dtype.type(_CANONICAL_NAN[ty]), out)


def occurrence(keys: np.ndarray) -> np.ndarray:
    """For each entry, how many earlier entries have the same key (0 for the first)."""
    order = np.argsort(keys, kind="stable")
    s = keys[order]
    starts = np.concatenate([[True], s[1:] != s[:-1]]) if s.size else np.zeros(0, dtype=bool)
    pos = np.arange(s.size) - np.maximum.accumulate(np.where(starts, np.arange(s.size), 0))
    out = np.empty(keys.size, dtype=np.int64)
    out[order] = pos
    return out


def reduce_shared(
    m: Any, op: str, ty: PtxType, flat: np.ndarray, src: np.ndarray, ftz: bool
) -> None:
    """Combine elements ``src`` (raw bits) into shared memory at flat offsets, in order."""
    u = _uint(ty)
    size = u.itemsize
    rank = occurrence(flat)
    for r in range(int(rank.max()) + 1 if rank.size else 0):
        sel = rank == r
        f = flat[sel]
        old = _read_shared(m, f, size).view(u).reshape(-1)
        new = combine(op, ty, old, src[sel], ftz=ftz)
        _write_shared(m, f, np.ascontiguousarray(new).view(np.uint8).reshape(-1, size))


def reduce_global(
    m: Any, op: str, ty: PtxType, addr: np.ndarray, lanes: np.ndarray, src: np.ndarray, ftz: bool
) -> None:
    """Combine elements ``src`` (raw bits) into global memory at ``addr``, in order."""
    u = _uint(ty)
    size = u.itemsize
    rank = occurrence(addr.astype(np.int64))
    for r in range(int(rank.max()) + 1 if rank.size else 0):
        sel = rank == r
        old = m.mem.load(Space.GLOBAL, addr[sel], lanes[sel], size)[:, 0]
        new = combine(op, ty, old, src[sel], ftz=ftz)
        m.mem.store(Space.GLOBAL, addr[sel], lanes[sel], new[:, None])


def cp_reduce_async_bulk(site: Site) -> Executor:
    """``cp.reduce.async.bulk`` into shared::cluster (mbarrier) or global (bulk group)."""
    op = site.slot("op") or ""
    ty = site.type()
    dst_word = site.slot("dst")
    dst_space, src_space = _space(dst_word), _space(site.slot("src"))
    dst = site.addr("dstMem")
    src = site.addr("srcMem")
    size = _sizes(site)
    name = site.mnemonic
    esize = max(1, ty.bits // 8)
    ftz = ty is PtxType.F32
    mbar = site.addr("mbar") if dst_word == "shared::cluster" else None

    def run(m: Any, lanes: Lanes) -> Any:
        idx = lanes.idx
        n = size(m, lanes).astype(np.int64)
        _check_size(m, idx, n, name)
        d, s = dst(m, lanes), src(m, lanes)
        bar = _mbar.mbarrier_flat(m, dst_space, mbar(m, lanes), idx) if mbar is not None else None
        for k in np.unique(n):
            sel = np.flatnonzero(n == k)
            nb = int(k)
            count = nb // esize
            sflat = _mbar.shared_flat(m, src_space, s[sel], idx[sel], nb, 16, "the source")
            own_cta(m, idx[sel], sflat, name)
            data = _read_shared(m, sflat, nb)
            elems = np.ascontiguousarray(data).view(_uint(ty)).reshape(-1)
            steps = np.arange(count, dtype=np.int64) * esize
            who = np.repeat(idx[sel], count)
            if bar is not None:
                flat = _mbar.shared_flat(m, dst_space, d[sel], idx[sel], nb, 16, "the destination")
                _same_cta(m, idx[sel], flat, bar[sel], name)
                reduce_shared(m, op, ty, (flat[:, None] + steps).reshape(-1), elems, ftz)
                _mbar.complete_tx(m, bar[sel], nb, lanes=idx[sel])
            else:
                addr = (d[sel, None] + steps.astype(np.uint64)).reshape(-1)
                m.mem.load_bytes(Space.GLOBAL, d[sel], idx[sel], nb, 16)  # bounds, alignment
                reduce_global(m, op, ty, addr, who, elems, ftz)
                bulk_issued(m, idx[sel], sflat, data)
        m.touch()

    return run


# --------------------------------------------------------------------------------- st/red.async


def _vector(site: Site) -> int:
    vec = site.slot("vec")
    return int(vec[1:]) if vec else 1


def st_async(site: Site) -> Executor:
    """``st.async`` into another CTA's shared memory (complete-tx), or ``.release`` global."""
    ty = site.type()
    count = _vector(site)
    esize = max(1, ty.bits // 8)
    nbytes = esize * count
    addr = site.addr("a")
    values = site.vec_src("b", ty)
    raw = _uint(ty)
    if site.slot("sem") == "release":
        space = site.space()

        def release(m: Any, lanes: Lanes) -> Any:
            v = np.ascontiguousarray(values(m, lanes)).view(raw)
            m.mem.store(space, addr(m, lanes), lanes.idx, v)
            m.touch()

        return release
    space = site.space()
    mbar = site.addr("mbar")

    def run(m: Any, lanes: Lanes) -> Any:
        idx = lanes.idx
        flat = _mbar.shared_flat(
            m, space, addr(m, lanes), idx, nbytes, nbytes, "st.async's address"
        )
        bar = _mbar.mbarrier_flat(m, space, mbar(m, lanes), idx)
        _same_cta(m, idx, flat, bar, site.mnemonic)
        v = np.ascontiguousarray(values(m, lanes)).view(raw)
        _write_shared(m, flat, v.view(np.uint8).reshape(lanes.n, nbytes))
        _mbar.complete_tx(m, bar, nbytes, lanes=idx)
        m.touch()

    return run


def red_async(site: Site) -> Executor:
    """``red.async`` into another CTA's shared memory (complete-tx), or ``.release`` global."""
    op = site.slot("op") or ""
    ty = site.type()
    if ty.info.lanes > 1:
        raise site.not_emulated(f"red.async on packed .{ty.value}")
    count = _vector(site)
    esize = max(1, ty.bits // 8)
    addr = site.addr("a")
    values = site.vec_src("b", ty)
    raw = _uint(ty)
    space = site.space()
    ftz = ty is PtxType.F32 and not site.has("noftz")
    if site.slot("sem") == "release":
        steps = (np.arange(count) * esize).astype(np.uint64)

        def release(m: Any, lanes: Lanes) -> Any:
            a = addr(m, lanes)
            m.mem.load_bytes(space, a, lanes.idx, esize * count, esize * count)
            v = np.ascontiguousarray(values(m, lanes)).view(raw).reshape(-1)
            where = (a[:, None] + steps).reshape(-1)
            reduce_global(m, op, ty, where, np.repeat(lanes.idx, count), v, ftz)
            m.touch()

        return release
    mbar = site.addr("mbar")

    def run(m: Any, lanes: Lanes) -> Any:
        idx = lanes.idx
        flat = _mbar.shared_flat(m, space, addr(m, lanes), idx, esize, esize, "red.async's address")
        bar = _mbar.mbarrier_flat(m, space, mbar(m, lanes), idx)
        _same_cta(m, idx, flat, bar, site.mnemonic)
        v = np.ascontiguousarray(values(m, lanes)).view(raw).reshape(-1)
        reduce_shared(m, op, ty, flat, v, ftz)
        _mbar.complete_tx(m, bar, esize, lanes=idx)
        m.touch()

    return run


# --------------------------------------------------------------------------------- misc


def st_bulk(site: Site) -> Executor:
    """``st.bulk{.shared::cta} [a], size, 0``: zero ``size`` bytes of shared memory."""
    init = site.imm("initval")
    if init != 0:
        raise site.not_emulated(f"st.bulk with initval {init} (the ISA allows only 0)")
    addr = site.addr("a")
    size = site.src("size", PtxType.U64)
    space = site.space()

    def run(m: Any, lanes: Lanes) -> Any:
        idx = lanes.idx
        n = size(m, lanes).astype(np.int64)
        bad = (n % 8 != 0) | (n > 1 << 24)
        if bad.any():
            i = int(np.argmax(bad))
            raise Fault(
                EmuError,
                f"st.bulk size must be a multiple of 8 bytes up to 16777216, got {int(n[i])}",
                lane=int(idx[i]),
            )
        a = addr(m, lanes)
        for k in np.unique(n):
            if k == 0:
                continue
            sel = np.flatnonzero(n == k)
            flat = _mbar.shared_flat(m, space, a[sel], idx[sel], int(k), 1, "st.bulk's region")
            own_cta(m, idx[sel], flat, site.mnemonic)
            _write_shared(m, flat, np.zeros((sel.size, int(k)), dtype=np.uint8))
        m.touch()

    return run


def prefetch(site: Site) -> Executor:
    """``cp.async.bulk.prefetch{.tensor}``: an L2 hint with no effect on values."""

    def run(m: Any, lanes: Lanes) -> Any:
        return None

    return run


SEMANTICS = {
    "cp.async": cp_async,
    "cp.async.commit_group": cp_async_commit,
    "cp.async.wait_group": cp_async_wait_group,
    "cp.async.wait_all": cp_async_wait_all,
    "cp.async.bulk": cp_async_bulk,
    "cp.async.bulk.commit_group": bulk_commit,
    "cp.async.bulk.wait_group": bulk_wait_group,
    "cp.reduce.async.bulk": cp_reduce_async_bulk,
    "cp.async.bulk.prefetch": prefetch,
    "cp.async.bulk.prefetch.tensor": prefetch,
    "st.async": st_async,
    "red.async": red_async,
    "st.bulk": st_bulk,
}
