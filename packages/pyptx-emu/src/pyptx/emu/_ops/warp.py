"""Warp-level instructions: shuffles, votes, matches, reductions, ``activemask``, ``elect``.

``shfl.sync``, ``vote.sync``, ``match.{any,all}.sync``, ``redux.sync`` and ``elect.sync``
take effect once every non-exited lane named in ``membermask`` executes the instruction
(:func:`~pyptx.emu._warp.converged` holds the early lanes back). Their *participants* are
the lanes of the membermask that execute them with a true guard: a lane whose ``@p`` guard is
false still has to arrive (so these instructions apply their own guard), but it contributes
nothing and receives nothing, as an inactive lane. The deprecated ``shfl`` and ``vote``
(without ``.sync``) work the same way over the lanes of the warp that execute them together.

Where PTX leaves a result undefined the emulator raises instead of inventing one: a lane
that is not in its own membermask, lanes that name each other with different membermasks,
and a shuffle whose source lane (in range) is inactive, exited or outside the membermask.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pyptx.ir import PredPair, PtxType

from .._errors import EmuError, Fault
from .._lanes import WARP, Lanes
from .._machine import YIELD, Executor
from .._site import Site, Writer
from .._warp import FULL_MASK, converged

__all__ = ["OWN_GUARD", "SEMANTICS"]

_LANE = np.arange(WARP, dtype=np.uint32)
_BIT = np.uint32(1) << _LANE
_CANONICAL_NAN32 = np.uint32(0x7FFF_FFFF)


def _pack(bits: np.ndarray) -> np.ndarray:
    """Rows of 32 booleans (lane order) to ``uint32`` masks."""
    return (bits.astype(np.uint64) @ _BIT.astype(np.uint64)).astype(np.uint32)


def _unpack(masks: np.ndarray) -> np.ndarray:
    """``uint32`` masks to rows of 32 booleans."""
    return ((masks.astype(np.uint32)[:, None] >> _LANE) & np.uint32(1)).astype(bool)


def _warp_bits(m: Any, idx: np.ndarray) -> np.ndarray:
    """For every warp of the wave, the mask of its lanes among ``idx``."""
    present = np.zeros(m.n, dtype=bool)
    present[idx] = True
    return _pack(present.reshape(-1, WARP))


def _peers(m: Any, idx: np.ndarray, values: np.ndarray, warps: np.ndarray) -> np.ndarray:
    """Rows of the 32 lanes of each warp in ``warps``: ``values`` where given, else 0."""
    full = np.zeros(m.n, dtype=values.dtype)
    full[idx] = values
    return full.reshape(-1, WARP)[warps]


def _dest_pair(site: Site, name: str, ty: PtxType) -> tuple[Writer, Writer | None]:
    """Writers of ``d`` and of the optional predicate of a ``d|p`` destination."""
    op = site.require(name)
    if isinstance(op, PredPair):
        return site.writer(op.first, ty), site.writer(op.second, PtxType.PRED)
    return site.writer(op, ty), None


def _undefined(site: Site, lanes: Lanes, at: int, what: str) -> Fault:
    return Fault(
        EmuError,
        f"{site.mnemonic}: {what}; PTX leaves the result undefined",
        lane=int(lanes.idx[at]),
    )


class _Participants:
    """Who takes part in one execution of a warp-synchronous instruction.

    Attributes:
        on: the lanes that execute it with a true guard.
        lane: their lane ids.
        warp: their wave warp indices.
        mask: each one's membermask.
        part: each one's participants: its membermask's lanes that execute it (guard true).
    """

    def __init__(self, m: Any, on: Lanes, mask: np.ndarray) -> None:
        self.on = on
        self.lane = (on.idx % WARP).astype(np.uint32)
        self.warp = on.idx // WARP
        self.mask = mask.astype(np.uint32)
        self.part = self.mask & _warp_bits(m, on.idx)[self.warp]

    def rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distinct ``(warp, participants)`` pairs and, per lane, its row among them."""
        key = (self.warp.astype(np.uint64) << np.uint64(32)) | self.part.astype(np.uint64)
        uniq, inverse = np.unique(key, return_inverse=True)
        warps = (uniq >> np.uint64(32)).astype(np.int64)
        part = (uniq & np.uint64(FULL_MASK)).astype(np.uint32)
        return warps, part, inverse.reshape(-1)


def _check_masks(site: Site, m: Any, lanes: Lanes, masks: np.ndarray, on: np.ndarray) -> None:
    """Each executing lane is in its membermask; lanes naming each other agree on it."""
    lane = (lanes.idx % WARP).astype(np.uint32)
    mine = ((masks >> lane) & np.uint32(1)).astype(bool)
    if not (mine | ~on).all():
        i = int(np.argmax(~mine & on))
        raise _undefined(
            site,
            lanes,
            i,
            f"lane {int(lane[i])} executes it but is not in its membermask {int(masks[i]):#010x}"
            " (include every executing thread in membermask)",
        )
    warps = lanes.idx // WARP
    key = (warps.astype(np.uint64) << np.uint64(32)) | masks.astype(np.uint64)
    uniq, first = np.unique(key, return_index=True)
    if uniq.size == lanes.nwarps:
        return  # one membermask per warp
    row_warp = (uniq >> np.uint64(32)).astype(np.int64)
    row_mask = (uniq & np.uint64(FULL_MASK)).astype(np.uint32)
    peer_masks = _peers(m, lanes.idx, masks, row_warp)
    named = _unpack(row_mask & _warp_bits(m, lanes.idx)[row_warp])
    clash = named & (peer_masks != row_mask[:, None])
    if clash.any():
        r = int(np.argmax(clash.any(axis=1)))
        other = int(np.argmax(clash[r]))
        raise _undefined(
            site,
            lanes,
            int(first[r]),
            f"lanes of one warp name each other with different membermasks"
            f" ({int(row_mask[r]):#010x}, and {int(peer_masks[r, other]):#010x} in lane {other})",
        )


_Body = Callable[[Any, _Participants], None]


def _synchronized(site: Site, body: _Body) -> Executor:
    """An executor that waits for the membermask, then runs ``body`` on the participants."""
    mask = site.src("membermask", PtxType.B32)
    guard = site.guard()

    def run(m: Any, lanes: Lanes) -> Any:
        if not converged(m, site, lanes, mask):
            return YIELD
        masks = mask(m, lanes).astype(np.uint32)
        on = guard(m, lanes) if guard is not None else np.ones(lanes.n, dtype=bool)
        _check_masks(site, m, lanes, masks, on)
        if not on.any():
            return None
        if on.all():
            body(m, _Participants(m, lanes, masks))
        else:
            body(m, _Participants(m, lanes.subset(on, m.n), masks[on]))
        return None

    return run


def _legacy(site: Site, body: _Body) -> Executor:
    """An executor over the lanes of each warp that run it together (no membermask)."""

    def run(m: Any, lanes: Lanes) -> Any:
        body(m, _Participants(m, lanes, np.full(lanes.n, FULL_MASK, dtype=np.uint32)))

    return run


# --------------------------------------------------------------------------- shfl


def _shuffle(site: Site) -> _Body:
    mode = site.slot("mode")
    d, p = _dest_pair(site, "d", PtxType.B32)
    a = site.src("a", PtxType.B32)
    b = site.src("b", PtxType.B32)
    c = site.src("c", PtxType.B32)

    def body(m: Any, w: _Participants) -> None:
        on = w.on
        lane = w.lane.astype(np.int64)
        bval = (b(m, on) & np.uint32(31)).astype(np.int64)
        cval = c(m, on).astype(np.int64)
        clamp = cval & 31
        segmask = (cval >> 8) & 31
        max_lane = (lane & segmask) | (clamp & ~segmask)
        min_lane = lane & segmask
        if mode == "up":
            j = lane - bval
            ok = j >= max_lane
        elif mode == "down":
            j = lane + bval
            ok = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bval
            ok = j <= max_lane
        else:
            j = min_lane | (bval & ~segmask)
            ok = j <= max_lane
        j = np.where(ok, j, lane)
        source = ((w.part >> j.astype(np.uint32)) & np.uint32(1)).astype(bool)
        if not source.all():
            i = int(np.argmax(~source))
            raise _undefined(
                site,
                on,
                i,
                f"lane {int(lane[i])} reads lane {int(j[i])}, which does not execute it"
                f" (inactive, exited, predicated off or outside membermask"
                f" {int(w.mask[i]):#010x})",
            )
        values = _peers(m, on.idx, a(m, on), np.arange(m.n // WARP))
        d(m, on, values[w.warp, j])
        if p is not None:
            p(m, on, ok)

    return body


def shfl_sync(site: Site) -> Executor:
    """``shfl.sync.mode.b32 d{|p}, a, b, c, membermask``."""
    return _synchronized(site, _shuffle(site))


def shfl(site: Site) -> Executor:
    """``shfl.mode.b32 d{|p}, a, b, c`` (deprecated): over the lanes executing together."""
    return _legacy(site, _shuffle(site))


# --------------------------------------------------------------------------- vote


def _vote(site: Site) -> _Body:
    mode = site.slot("mode")
    a = site.src("a", PtxType.PRED)
    d = site.dst("d", PtxType.B32 if mode == "ballot" else PtxType.PRED)

    def body(m: Any, w: _Participants) -> None:
        on = w.on
        pred = a(m, on)
        ballot = _warp_bits(m, on.idx[pred])[w.warp] & w.part
        if mode == "ballot":
            d(m, on, ballot)
        elif mode == "all":
            d(m, on, ballot == w.part)
        elif mode == "any":
            d(m, on, ballot != 0)
        else:
            d(m, on, (ballot == 0) | (ballot == w.part))

    return body


def vote_sync(site: Site) -> Executor:
    """``vote.sync.{all,any,uni}.pred d, {!}a, membermask`` and ``vote.sync.ballot.b32``."""
    return _synchronized(site, _vote(site))


def vote(site: Site) -> Executor:
    """``vote.{all,any,uni}.pred`` / ``vote.ballot.b32`` (deprecated): active lanes only."""
    return _legacy(site, _vote(site))


# --------------------------------------------------------------------------- match


def _matches(m: Any, w: _Participants, values: np.ndarray) -> np.ndarray:
    """Per lane: which participants hold the same value (rows of 32 booleans)."""
    peers = _peers(m, w.on.idx, values, w.warp)
    return (peers == values[:, None]) & _unpack(w.part)


def match_any(site: Site) -> Executor:
    """``match.any.sync.type d, a, membermask``: the participants holding my value."""
    ty = site.type()
    a = site.src("a", ty)
    d = site.dst("d", PtxType.B32)

    def body(m: Any, w: _Participants) -> None:
        d(m, w.on, _pack(_matches(m, w, a(m, w.on))))

    return _synchronized(site, body)


def match_all(site: Site) -> Executor:
    """``match.all.sync.type d{|p}, a, membermask``: all participants hold the same value."""
    ty = site.type()
    a = site.src("a", ty)
    d, p = _dest_pair(site, "d", PtxType.B32)

    def body(m: Any, w: _Participants) -> None:
        same = _pack(_matches(m, w, a(m, w.on))) == w.part
        d(m, w.on, np.where(same, w.part, np.uint32(0)))
        if p is not None:
            p(m, w.on, same)

    return _synchronized(site, body)


# --------------------------------------------------------------------------- redux


def _float_keys(bits: np.ndarray) -> np.ndarray:
    """``f32`` bits to ``uint32`` keys that order like the values (-0.0 below +0.0)."""
    negative = (bits >> np.uint32(31)).astype(bool)
    return np.where(negative, ~bits, bits | np.uint32(0x8000_0000))


def _float_from_keys(keys: np.ndarray) -> np.ndarray:
    negative = ~(keys >> np.uint32(31)).astype(bool)
    return np.where(negative, ~keys, keys & np.uint32(0x7FFF_FFFF))


_INT_REDUCE: dict[str, tuple[np.ufunc, Callable[[np.dtype], Any]]] = {
    "add": (np.add, lambda dt: 0),
    "min": (np.minimum, lambda dt: np.iinfo(dt).max),
    "max": (np.maximum, lambda dt: np.iinfo(dt).min),
    "and": (np.bitwise_and, lambda dt: np.iinfo(dt).max),
    "or": (np.bitwise_or, lambda dt: 0),
    "xor": (np.bitwise_xor, lambda dt: 0),
}


def redux_sync(site: Site) -> Executor:
    """``redux.sync.op.type d, a, membermask`` over the participants.

    Integer ``.add`` wraps to 32 bits; ``.f32`` ``.min``/``.max`` order -0.0 below +0.0,
    skip NaN inputs (canonical NaN when all are NaN) unless ``.NaN`` makes any NaN input give
    the canonical NaN; ``.abs`` reduces absolute values.
    """
    op = site.slot("op") or ""
    ty = site.type()
    if ty is PtxType.F32:
        return _synchronized(site, _redux_f32(site, op))
    ufunc, identity = _INT_REDUCE[op]
    signed = ty is PtxType.S32
    dtype = (
        np.dtype(np.int64 if signed else np.uint64)
        if op == "add"
        else np.dtype(np.int32 if signed else np.uint32)
    )
    a = site.src("a", PtxType.S32 if signed else PtxType.U32)
    d = site.dst("d", PtxType.B32)
    init = identity(dtype)

    def body(m: Any, w: _Participants) -> None:
        warps, part, inverse = w.rows()
        values = _peers(m, w.on.idx, a(m, w.on).astype(dtype), warps)
        with np.errstate(over="ignore"):
            total = ufunc.reduce(values, axis=1, where=_unpack(part), initial=init)
        # Two's complement bits of the low 32 bits (``.add`` wraps).
        d(m, w.on, (total[inverse].astype(np.int64) & FULL_MASK).astype(np.uint32))

    return _synchronized(site, body)


def _redux_f32(site: Site, op: str) -> _Body:
    a = site.src("a", PtxType.F32)
    d = site.dst("d", PtxType.B32)
    absolute = site.has("abs")
    propagate = site.has("NaN")
    lowest = op == "min"
    empty = np.uint32(FULL_MASK) if lowest else np.uint32(0)
    ufunc = np.minimum if lowest else np.maximum

    def body(m: Any, w: _Participants) -> None:
        bits = a(m, w.on).view(np.uint32)
        if absolute:
            bits = bits & np.uint32(0x7FFF_FFFF)
        nan = (bits & np.uint32(0x7FFF_FFFF)) > np.uint32(0x7F80_0000)
        warps, part, inverse = w.rows()
        member = _unpack(part)
        keys = _peers(m, w.on.idx, np.where(nan, empty, _float_keys(bits)), warps)
        best = ufunc.reduce(keys, axis=1, where=member, initial=empty)
        result = np.where(best == empty, _CANONICAL_NAN32, _float_from_keys(best))
        if propagate:
            any_nan = (_peers(m, w.on.idx, nan, warps) & member).any(axis=1)
            result = np.where(any_nan, _CANONICAL_NAN32, result)
        d(m, w.on, result[inverse])

    return body


# --------------------------------------------------------------------------- activemask, elect


def activemask(site: Site) -> Executor:
    """``activemask.b32 d``: the lanes of the warp executing it now (guard true)."""
    d = site.dst("d", PtxType.B32)

    def run(m: Any, lanes: Lanes) -> Any:
        d(m, lanes, _warp_bits(m, lanes.idx)[lanes.idx // WARP])

    return run


def elect_sync(site: Site) -> Executor:
    """``elect.sync d|p, membermask``: the lowest participating lane is the leader.

    Every participant gets the leader's lane id in ``d``; ``p`` is true in the leader only.
    """
    d, p = _dest_pair(site, "d", PtxType.B32)

    def body(m: Any, w: _Participants) -> None:
        low = w.part & (~w.part + np.uint32(1))
        leader = np.log2(low.astype(np.float64)).astype(np.uint32)
        d(m, w.on, leader)
        if p is not None:
            p(m, w.on, leader == w.lane)

    return _synchronized(site, body)


SEMANTICS: dict[str, Callable[[Site], Executor]] = {
    "shfl.sync": shfl_sync,
    "shfl": shfl,
    "vote.sync": vote_sync,
    "vote": vote,
    "match.any.sync": match_any,
    "match.all.sync": match_all,
    "redux.sync": redux_sync,
    "activemask": activemask,
    "elect.sync": elect_sync,
}

OWN_GUARD = frozenset(
    {"shfl.sync", "vote.sync", "match.any.sync", "match.all.sync", "redux.sync", "elect.sync"}
)
"""The ``.sync`` instructions wait for predicated-off lanes too (see the module docstring)."""
