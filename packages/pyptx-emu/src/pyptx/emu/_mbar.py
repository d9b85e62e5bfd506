"""mbarrier objects: the state behind ``mbarrier.*``, ``complete_tx`` and async arrivals.

An mbarrier is a 64-bit object in shared memory (PTX ISA "Parallel Synchronization and
Communication Instructions: mbarrier"). It keeps

* its current phase (the number of phases completed so far),
* the pending arrival count of the current phase,
* the expected arrival count of the next phases (``mbarrier.init``'s count, lowered by
  ``arrive_drop``),
* the tx-count: bytes of asynchronous transactions still expected by the current phase
  (``expect_tx`` raises it, ``complete_tx`` lowers it; it may go negative when a copy
  completes before its ``expect_tx``, which the ISA allows).

The current phase completes when the pending arrival count and the tx-count are both zero;
the mbarrier then moves to the next phase with the pending count reset to the expected
count. Arrivals are applied in lane order, as if one after the other, so an instruction
whose arrivals complete a phase and start the next one behaves as on a GPU.

The emulator keeps this state here, per wave, keyed by the mbarrier's *flat offset*: its
byte offset in ``m.mem.shared``, which names one shared address across the whole
cluster (and wave), whichever CTA uses it. The 8 bytes in shared memory are not touched.

Using an mbarrier that was never initialized (or was invalidated), initializing one that is
still valid, arriving when no arrival is pending, or a count outside the ISA's range
(``1 .. 2**20 - 1``; tx-count within ``±(2**20 - 1)``) is undefined behaviour in PTX and an
:class:`EmuError` here: each is a real bug.

Other instruction families use :func:`mbarrier_flat`, :func:`arrive`, :func:`expect_tx` and
:func:`complete_tx` (``tcgen05.commit``, TMA, ``cp.async.mbarrier.arrive``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._errors import EmuError, Fault, Misaligned, OutOfBounds
from ._lanes import Lanes
from ._memory import Space

__all__ = [
    "MAX_COUNT",
    "MbarrierState",
    "arrive",
    "arrive_on",
    "complete_tx",
    "describe",
    "expect_tx",
    "init",
    "inval",
    "mbarrier_flat",
    "phase",
    "shared_flat",
    "slots",
    "state",
    "where",
]

MAX_COUNT = (1 << 20) - 1
"""The largest arrival count, and the largest tx-count magnitude, of an mbarrier."""

_EMPTY = np.zeros(0, dtype=np.int64)


class MbarrierState:
    """Every mbarrier a wave has initialized, in arrays sorted by flat offset.

    Attributes:
        keys: flat shared offsets of the mbarriers ever initialized (sorted).
        valid: whether each is initialized and not invalidated.
        phase: phases completed so far.
        pending: pending arrivals of the current phase.
        expected: expected arrivals per phase.
        tx: the tx-count of the current phase.
        wait_flat: per wave lane, the mbarrier a blocked test/try_wait waits on.
        wait_phase: per wave lane, the phase whose completion it waits for.
    """

    def __init__(self, lanes: int) -> None:
        self.keys = _EMPTY.copy()
        self.valid = np.zeros(0, dtype=bool)
        self.phase = _EMPTY.copy()
        self.pending = _EMPTY.copy()
        self.expected = _EMPTY.copy()
        self.tx = _EMPTY.copy()
        self.wait_flat = np.zeros(lanes, dtype=np.int64)
        self.wait_phase = np.zeros(lanes, dtype=np.int64)

    def add(self, flat: np.ndarray) -> None:
        """Make room for mbarriers at ``flat`` (unique offsets) that have no slot yet."""
        new = np.setdiff1d(flat, self.keys)
        if new.size == 0:
            return
        keys = np.concatenate([self.keys, new])
        order = np.argsort(keys, kind="stable")
        self.keys = keys[order]
        z = np.zeros(new.size, dtype=np.int64)
        self.valid = np.concatenate([self.valid, np.zeros(new.size, dtype=bool)])[order]
        self.phase = np.concatenate([self.phase, z])[order]
        self.pending = np.concatenate([self.pending, z])[order]
        self.expected = np.concatenate([self.expected, z])[order]
        self.tx = np.concatenate([self.tx, z])[order]

    def find(self, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Slots of the mbarriers at ``flat`` and whether each exists and is valid."""
        if self.keys.size == 0:
            return np.zeros(flat.shape, dtype=np.int64), np.zeros(flat.shape, dtype=bool)
        slot = np.minimum(np.searchsorted(self.keys, flat), self.keys.size - 1)
        ok = (self.keys[slot] == flat) & self.valid[slot]
        return slot, ok


def state(m: Any) -> MbarrierState:
    """The mbarrier state of machine ``m`` (created on first use)."""
    st = m.ext.get("mbarrier")
    if st is None:
        st = m.ext["mbarrier"] = MbarrierState(m.n)
    return st


def _idx(lanes: Lanes | np.ndarray) -> np.ndarray:
    return lanes.idx if isinstance(lanes, Lanes) else np.asarray(lanes, dtype=np.int64)


def shared_flat(
    m: Any,
    space: Space,
    addr: np.ndarray,
    lanes: Lanes | np.ndarray,
    nbytes: int,
    align: int,
    what: str,
) -> np.ndarray:
    """Flat offsets in ``m.mem.shared`` of ``nbytes`` at each address, checked.

    The access is bounds- and alignment-checked like any other, but it is made by the
    mbarrier unit or the async proxy, not by a thread, so the race checker does not see it.

    Args:
        m: the machine.
        space: the address space of ``addr`` (a shared space or generic).
        addr: one address per entry.
        lanes: the wave lane each address belongs to (for ``mapa`` ranks and messages).
        nbytes: bytes accessed at each address.
        align: required alignment.
        what: what is accessed, for messages ("an mbarrier", "the destination").

    Returns:
        ``int64`` flat offsets, one per address.

    Raises:
        Fault: misaligned, out of bounds, or not in shared memory.
    """
    idx = _idx(lanes)
    mem = m.mem
    hook = mem.on_shared
    mem.on_shared = None
    try:
        chunks = mem.resolve(space, addr, idx, nbytes, align, False)
    finally:
        mem.on_shared = hook
    out = np.empty(addr.shape[0], dtype=np.int64)
    for _, flat, sub, where in chunks:
        if where is not Space.SHARED:
            i = int(np.arange(addr.shape[0])[sub][0])
            raise Fault(
                OutOfBounds,
                f"{what} must be in shared memory, but address {int(addr[i]):#x} is in"
                f" {where.value} memory",
                lane=int(idx[i]),
                address=int(addr[i]),
                space=space.value,
            )
        out[sub] = flat
    return out


def mbarrier_flat(m: Any, space: Space, addr: np.ndarray, lanes: Lanes | np.ndarray) -> np.ndarray:
    """Flat offsets of the 8-byte-aligned mbarriers at ``addr``.

    Args:
        m: the machine.
        space: ``SHARED`` (``.shared::cta``), ``SHARED_CLUSTER`` or ``GENERIC``.
        addr: one address per lane (``mapa`` addresses name other CTAs of the cluster).
        lanes: the wave lanes the addresses belong to.

    Returns:
        ``int64`` offsets into ``m.mem.shared``.

    Raises:
        Fault: a misaligned address, one outside shared memory, or outside the CTA's
            shared memory.
    """
    try:
        return shared_flat(m, space, addr, lanes, 8, 8, "an mbarrier")
    except Fault as fault:
        if fault.kind is Misaligned:
            fault.detail = f"an mbarrier object is 8 bytes and 8-byte aligned; {fault.detail}"
        raise


def where(m: Any, flat: int) -> str:
    """'shared offset 0x10 of CTA (0, 0, 0)' for a flat offset."""
    row = m.mem.shared_row
    cta = int(flat) // row
    coords = tuple(int(v) for v in m.wave.ctaid[cta])
    return f"shared offset {int(flat) % row:#x} of CTA {coords}"


def _lane_of(lanes: np.ndarray | None, i: int) -> int | None:
    return int(lanes[i]) if lanes is not None and lanes.size > i else None


def slots(m: Any, flat: np.ndarray, lanes: np.ndarray | None = None) -> np.ndarray:
    """Slots of valid mbarriers at ``flat`` (raises for one never initialized)."""
    st = state(m)
    slot, ok = st.find(flat)
    if not ok.all():
        i = int(np.argmin(ok))
        raise Fault(
            EmuError,
            f"the mbarrier at {where(m, int(flat[i]))} is used but was never initialized"
            " (or was invalidated): run mbarrier.init on it first, and make the other"
            " threads wait for that (bar.sync) before they use it",
            lane=_lane_of(lanes, i),
        )
    return slot


def _check_counts(values: np.ndarray, lanes: np.ndarray | None, what: str, low: int) -> None:
    bad = (values < low) | (values > MAX_COUNT)
    if bad.any():
        i = int(np.argmax(bad))
        raise Fault(
            EmuError,
            f"{what} must be {low} to {MAX_COUNT} (2**20 - 1), got {int(values[i])}",
            lane=_lane_of(lanes, i),
        )


def _full(values: np.ndarray | int, n: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(values, dtype=np.int64), (n,)).astype(np.int64)


def init(m: Any, flat: np.ndarray, counts: np.ndarray, lanes: np.ndarray | None = None) -> None:
    """``mbarrier.init``: phase 0, pending and expected arrivals ``counts``, tx-count 0."""
    counts = _full(counts, flat.size)
    _check_counts(counts, lanes, "the mbarrier.init count", 1)
    uniq, first = np.unique(flat, return_index=True)
    # Lanes initializing one mbarrier must agree on its count.
    pos = np.searchsorted(uniq, flat)
    if (counts != counts[first][pos]).any():
        i = int(np.argmax(counts != counts[first][pos]))
        raise Fault(
            EmuError,
            f"threads initialize the mbarrier at {where(m, int(flat[i]))} with different"
            f" counts ({int(counts[first][pos][i])} and {int(counts[i])}) in one instruction",
            lane=_lane_of(lanes, i),
        )
    st = state(m)
    st.add(uniq)
    slot, ok = st.find(uniq)
    if ok.any():
        i = int(np.argmax(ok))
        raise Fault(
            EmuError,
            f"mbarrier.init on the mbarrier at {where(m, int(uniq[i]))}, which is already"
            " initialized; invalidate it with mbarrier.inval before initializing it again",
            lane=_lane_of(lanes, int(first[i])),
        )
    c = counts[first]
    st.valid[slot] = True
    st.phase[slot] = 0
    st.pending[slot] = c
    st.expected[slot] = c
    st.tx[slot] = 0
    m.touch()


def inval(m: Any, flat: np.ndarray, lanes: np.ndarray | None = None) -> None:
    """``mbarrier.inval``: the mbarriers at ``flat`` stop being mbarriers."""
    slot = slots(m, flat, lanes)
    state(m).valid[slot] = False
    m.touch()


def _tx_range(m: Any, st: MbarrierState, slot: np.ndarray, lanes: np.ndarray | None) -> None:
    bad = np.abs(st.tx[slot]) > MAX_COUNT
    if bad.any():
        i = int(np.argmax(bad))
        raise Fault(
            EmuError,
            f"the tx-count of the mbarrier at {where(m, int(st.keys[slot[i]]))} would be"
            f" {int(st.tx[slot[i]])}, outside the range ±{MAX_COUNT} the ISA allows (expect"
            " at most 2**20 - 1 bytes per phase)",
            lane=_lane_of(lanes, i),
        )


def expect_tx(
    m: Any, flat: np.ndarray, nbytes: np.ndarray | int, *, lanes: np.ndarray | None = None
) -> None:
    """expect-tx: raise the tx-count of each mbarrier by ``nbytes`` (entries accumulate).

    Args:
        m: the machine.
        flat: mbarrier flat offsets (may repeat).
        nbytes: bytes per entry.
        lanes: the wave lane behind each entry, for messages.
    """
    nb = _full(nbytes, flat.size)
    _check_counts(nb, lanes, "an expect-tx byte count", 0)
    slot = slots(m, flat, lanes)
    st = state(m)
    np.add.at(st.tx, slot, nb)
    _tx_range(m, st, slot, lanes)
    m.touch()


def _complete(st: MbarrierState, slot: np.ndarray) -> None:
    st.phase[slot] += 1
    st.pending[slot] = st.expected[slot]
    st.tx[slot] = 0


def complete_tx(
    m: Any, flat: np.ndarray, nbytes: np.ndarray | int, *, lanes: np.ndarray | None = None
) -> None:
    """complete-tx: lower the tx-count by ``nbytes`` per entry; maybe complete the phase.

    Entries for one mbarrier apply in order: once its pending arrivals and tx-count are both
    zero the phase completes, and the remaining entries count against the next phase.

    Args:
        m: the machine.
        flat: mbarrier flat offsets (may repeat).
        nbytes: bytes per entry.
        lanes: the wave lane behind each entry, for messages.
    """
    nb = _full(nbytes, flat.size)
    _check_counts(nb, lanes, "a complete-tx byte count", 0)
    slot = slots(m, flat, lanes)
    st = state(m)
    uniq, inverse, counts = np.unique(slot, return_inverse=True, return_counts=True)
    single = counts[inverse] == 1
    if single.all():
        st.tx[slot] -= nb
        done = slot[(st.pending[slot] == 0) & (st.tx[slot] == 0)]
        _complete(st, done)
    else:
        for k in uniq:
            amounts = nb[slot == k]
            _complete_tx_one(st, int(k), amounts)
    _tx_range(m, st, slot, lanes)
    m.touch()


def _complete_tx_one(st: MbarrierState, k: int, amounts: np.ndarray) -> None:
    """Several complete-tx on one mbarrier, in order (a phase may complete in between)."""
    rest = amounts
    while rest.size:
        after = st.tx[k] - np.cumsum(rest)
        hit = np.flatnonzero(after == 0) if st.pending[k] == 0 else _EMPTY
        if hit.size == 0:
            st.tx[k] = after[-1]
            return
        j = int(hit[0])
        _complete(st, np.array([k]))
        rest = rest[j + 1 :]


def arrive_on(
    m: Any,
    flat: np.ndarray,
    counts: np.ndarray | int = 1,
    *,
    tx: np.ndarray | int | None = None,
    drop: bool = False,
    no_complete: bool = False,
    lanes: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Arrive-on operations (``mbarrier.arrive`` and friends), one per entry, in order.

    Args:
        m: the machine.
        flat: mbarrier flat offsets (entries for one mbarrier apply in order).
        counts: the arrival count per entry (1 to 2**20 - 1).
        tx: bytes of an expect-tx done just before each arrive (``.expect_tx``).
        drop: also lower the expected count by ``counts`` first (``arrive_drop``).
        no_complete: the arrivals must not complete a phase (``.noComplete``).
        lanes: the wave lane behind each entry, for messages.

    Returns:
        Per entry, the phase and the pending arrival count just before its arrive-on (what
        the opaque ``state`` of ``mbarrier.arrive`` captures).
    """
    n = flat.size
    c = _full(counts, n)
    _check_counts(c, lanes, "an mbarrier arrival count", 1)
    x = _full(tx, n) if tx is not None else np.zeros(n, dtype=np.int64)
    if tx is not None:
        _check_counts(x, lanes, "an expect-tx byte count", 0)
    slot = slots(m, flat, lanes)
    st = state(m)
    phase_before = st.phase[slot].copy()
    order = np.argsort(slot, kind="stable")
    s = slot[order]
    cs = c[order]
    xs = x[order]
    uniq, start, cnt = np.unique(s, return_index=True, return_counts=True)
    total = np.add.reduceat(cs, start)
    xtotal = np.add.reduceat(xs, start)
    csum = np.cumsum(cs)
    exclusive = csum - cs - np.repeat(csum[start] - cs[start], cnt)
    prior_pending = np.repeat(st.pending[uniq], cnt) - exclusive
    prior_phase = np.repeat(st.phase[uniq], cnt)
    simple = total <= st.pending[uniq]
    # Arrivals that reach zero pending at most at the last one: one vectorized update.
    u = uniq[simple]
    st.pending[u] -= total[simple]
    st.tx[u] += xtotal[simple]
    if drop:
        st.expected[u] -= total[simple]
    _complete(st, u[(st.pending[u] == 0) & (st.tx[u] == 0)])
    # More arrivals than pending on one mbarrier: phases complete in between.
    for j in np.flatnonzero(~simple):
        a, b = int(start[j]), int(start[j] + cnt[j])
        who = lanes[order][a:b] if lanes is not None else None
        ph, pp = _arrive_sequential(m, st, int(uniq[j]), cs[a:b], xs[a:b], drop, who)
        prior_phase[a:b] = ph
        prior_pending[a:b] = pp
    _tx_range(m, st, slot, lanes)
    out_phase = np.empty(n, dtype=np.int64)
    out_pending = np.empty(n, dtype=np.int64)
    out_phase[order] = prior_phase
    out_pending[order] = prior_pending
    if no_complete and (st.phase[slot] != phase_before).any():
        i = int(np.argmax(st.phase[slot] != phase_before))
        raise Fault(
            EmuError,
            f"mbarrier.arrive.noComplete completed a phase of the mbarrier at"
            f" {where(m, int(flat[i]))}; .noComplete arrivals must leave at least one"
            " arrival pending",
            lane=_lane_of(lanes, i),
        )
    m.touch()
    return out_phase, out_pending


def _arrive_sequential(
    m: Any,
    st: MbarrierState,
    k: int,
    c: np.ndarray,
    x: np.ndarray,
    drop: bool,
    lanes: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Arrivals on one mbarrier, one after the other, completing phases on the way."""
    n = c.size
    prior_phase = np.empty(n, dtype=np.int64)
    prior_pending = np.empty(n, dtype=np.int64)
    csum = np.cumsum(c)
    xsum = np.cumsum(x)
    pos = 0
    while pos < n:
        base_c = int(csum[pos - 1]) if pos else 0
        base_x = int(xsum[pos - 1]) if pos else 0
        seg = csum[pos:] - base_c
        segx = xsum[pos:] - base_x
        p = int(st.pending[k])
        hit = int(np.searchsorted(seg, p))
        end = min(hit + 1, seg.size)
        prior_phase[pos : pos + end] = st.phase[k]
        prior_pending[pos : pos + end] = p - (seg[:end] - c[pos : pos + end])
        if hit == seg.size:
            st.pending[k] -= int(seg[-1])
            st.tx[k] += int(segx[-1])
            if drop:
                st.expected[k] -= int(seg[-1])
            return prior_phase, prior_pending
        if seg[hit] > p or (hit < seg.size - 1 and st.tx[k] + segx[hit] != 0):
            bad = pos + hit + (0 if seg[hit] > p else 1)
            raise Fault(
                EmuError,
                f"an arrive-on the mbarrier at {where(m, int(st.keys[k]))} finds fewer"
                f" arrivals pending than it brings (the mbarrier expects"
                f" {int(st.expected[k])} per phase); wait for the phase to complete before"
                " arriving again",
                lane=_lane_of(lanes, bad),
            )
        st.tx[k] += int(segx[hit])
        if drop:
            st.expected[k] -= int(seg[hit])
        st.pending[k] = 0
        if st.tx[k] != 0:
            return prior_phase, prior_pending
        _complete(st, np.array([k]))
        pos += hit + 1
    return prior_phase, prior_pending


def arrive(
    m: Any, flat: np.ndarray, count: np.ndarray | int = 1, *, lanes: np.ndarray | None = None
) -> None:
    """An arrive-on signalled by the system (``tcgen05.commit``, ``cp.async.mbarrier.arrive``).

    Args:
        m: the machine.
        flat: mbarrier flat offsets; entries may repeat (their arrivals accumulate).
        count: the arrival count per entry.
        lanes: the wave lane behind each entry, for messages.
    """
    arrive_on(m, flat, count, lanes=lanes)


def phase(m: Any, flat: np.ndarray, lanes: np.ndarray | None = None) -> np.ndarray:
    """The current phase (phases completed so far) of each mbarrier."""
    return state(m).phase[slots(m, flat, lanes)]


def describe(m: Any, flat: int) -> str:
    """The state of one mbarrier in words, for deadlock reports."""
    st = state(m)
    slot, ok = st.find(np.array([flat], dtype=np.int64))
    k = int(slot[0])
    if not ok[0]:
        return f"the mbarrier at {where(m, flat)} (no longer valid)"
    ph = int(st.phase[k])
    return (
        f"the mbarrier at {where(m, flat)} in phase {ph} (parity {ph & 1}):"
        f" {int(st.pending[k])} of {int(st.expected[k])} arrivals pending,"
        f" tx-count {int(st.tx[k])}"
    )
