"""mbarrier instructions: ``mbarrier.*`` and ``cp.async.mbarrier.arrive``.

The mbarrier state itself (phases, pending arrivals, tx-count, completion) lives in
:mod:`pyptx.emu._mbar`; this module decodes the instructions and blocks waiting threads.

``mbarrier.test_wait`` and ``mbarrier.try_wait`` block the threads whose phase has not
completed with a *soft* wait: they sleep until some other thread completes the phase (then
``waitComplete`` is true), or until nothing else in the wave can run, when the scheduler
releases them with ``waitComplete`` false, as a ``try_wait`` whose time limit ran out. A
spin loop around them therefore never runs at Python speed, and a phase that can never
complete ends in a :class:`~pyptx.emu.Deadlock` naming the wait and the mbarrier's state.

The opaque ``state`` an arrive returns holds the phase before the arrive-on in its low 32
bits, the pending arrival count before it in bits 32-51 (``mbarrier.pending_count`` reads
it) and a tag in the top byte, so a state that did not come from an arrive is caught.
A ``state`` names the phase it was taken in: a wait on it completes once that phase has
completed (the ISA leaves a state more than one phase old undefined; here it reads as
complete). ``phaseParity`` waits complete when the current phase's parity differs from it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pyptx.ir import PtxType

from .. import _mbar
from .._errors import EmuError, Fault
from .._lanes import Lanes
from .._machine import YIELD, Executor
from .._site import Reader, Site, Writer
from .async_copy import finish_copies

__all__ = ["SEMANTICS", "MbarrierWait"]

_TAG = 0xB7
_TAG_SHIFT = np.uint64(56)
_LOW32 = np.uint64(0xFFFF_FFFF)
_PENDING_MASK = np.uint64(0xF_FFFF)


def _token(phase: np.ndarray, pending: np.ndarray) -> np.ndarray:
    p = phase.astype(np.uint64) & _LOW32
    c = (pending.astype(np.uint64) & _PENDING_MASK) << np.uint64(32)
    return p | c | (np.uint64(_TAG) << _TAG_SHIFT)


def _check_token(state: np.ndarray, lanes: Lanes, what: str) -> None:
    bad = (state.astype(np.uint64) >> _TAG_SHIFT) != np.uint64(_TAG)
    if bad.any():
        i = int(np.argmax(bad))
        raise Fault(
            EmuError,
            f"the state operand of {what} ({int(state[i]):#x}) is not a value returned by"
            " mbarrier.arrive",
            lane=int(lanes.idx[i]),
        )


def _flat_reader(site: Site, name: str = "addr") -> Callable[[Any, Lanes], np.ndarray]:
    """A reader of the flat offsets of the mbarriers operand ``name`` names."""
    space = site.space()
    addr = site.addr(name)

    def read(m: Any, lanes: Lanes) -> np.ndarray:
        return _mbar.mbarrier_flat(m, space, addr(m, lanes), lanes)

    return read


def _own_cta_reader(site: Site) -> Callable[[Any, Lanes], np.ndarray]:
    """Flat offsets of mbarriers that must be in the executing CTA's shared memory."""
    read = _flat_reader(site)

    def own(m: Any, lanes: Lanes) -> np.ndarray:
        flat = read(m, lanes)
        cta = flat // m.mem.shared_row
        wrong = cta != m.cta_of[lanes.idx]
        if wrong.any():
            i = int(np.argmax(wrong))
            raise Fault(
                EmuError,
                f"{site.mnemonic} needs an mbarrier in the executing CTA's shared memory"
                f" (.shared::cta), but the address names {_mbar.where(m, int(flat[i]))}",
                lane=int(lanes.idx[i]),
            )
        return flat

    return own


def _u32(site: Site, name: str) -> Reader | None:
    return site.src(name, PtxType.U32) if site.operand(name) is not None else None


def init(site: Site) -> Executor:
    """``mbarrier.init [addr], count``."""
    flat = _own_cta_reader(site)
    count = site.src("count", PtxType.U32)

    def run(m: Any, lanes: Lanes) -> Any:
        _mbar.init(m, flat(m, lanes), count(m, lanes).astype(np.int64), lanes.idx)

    return run


def inval(site: Site) -> Executor:
    """``mbarrier.inval [addr]``."""
    flat = _own_cta_reader(site)

    def run(m: Any, lanes: Lanes) -> Any:
        _mbar.inval(m, flat(m, lanes), lanes.idx)

    return run


def _tx(apply: Callable[..., None]) -> Callable[[Site], Executor]:
    """``mbarrier.expect_tx`` / ``complete_tx [addr], txCount``: ``apply`` the byte count."""

    def factory(site: Site) -> Executor:
        flat = _flat_reader(site)
        count = site.src("txCount", PtxType.U32)

        def run(m: Any, lanes: Lanes) -> Any:
            apply(m, flat(m, lanes), count(m, lanes).astype(np.int64), lanes=lanes.idx)

        return run

    return factory


expect_tx = _tx(_mbar.expect_tx)
complete_tx = _tx(_mbar.complete_tx)


def _arrive(drop: bool) -> Callable[[Site], Executor]:
    def factory(site: Site) -> Executor:
        """``mbarrier.arrive{_drop}{.expect_tx|.noComplete} state, [addr]{, count|txCount}``."""
        variant = site.slot("variant")
        flat = _flat_reader(site)
        count = _u32(site, "count")
        tx = site.src("txCount", PtxType.U32) if variant == "expect_tx" else None
        state = site.dst("state", PtxType.B64)
        no_complete = variant == "noComplete"

        def run(m: Any, lanes: Lanes) -> Any:
            f = flat(m, lanes)
            c = count(m, lanes).astype(np.int64) if count is not None else 1
            x = tx(m, lanes).astype(np.int64) if tx is not None else None
            phase, pending = _mbar.arrive_on(
                m, f, c, tx=x, drop=drop, no_complete=no_complete, lanes=lanes.idx
            )
            state(m, lanes, _token(phase, pending))

        return run

    return factory


class MbarrierWait:
    """Threads blocked in ``mbarrier.test_wait``/``try_wait`` until a phase completes.

    Which mbarrier and phase each waits for is kept per lane in the mbarrier state
    (``wait_flat``, ``wait_phase``), so the group may be split and polled in parts.
    """

    reexecute = False
    soft = True
    merge_key = None

    def __init__(self, write: Writer, mnemonic: str) -> None:
        self.write = write
        self.mnemonic = mnemonic

    def poll(self, m: Any, lanes: Lanes) -> np.ndarray | None:
        """The lanes whose phase has completed."""
        st = _mbar.state(m)
        slot, ok = st.find(st.wait_flat[lanes.idx])
        done = ok & (st.phase[slot] > st.wait_phase[lanes.idx])
        return done if done.any() else None

    def release(self, m: Any, lanes: Lanes, ok: bool) -> None:
        """``waitComplete`` is true when the phase completed, false on a time-out."""
        self.write(m, lanes, np.full(lanes.n, ok, dtype=bool))
        if ok:
            m.synchronized(m.cta_of[lanes.idx], lanes.idx)

    def describe(self, m: Any, lanes: Lanes) -> str:
        """Which phase of which mbarrier the lanes wait for, and its state."""
        st = _mbar.state(m)
        flats = st.wait_flat[lanes.idx]
        first = int(lanes.idx[0])
        target = int(st.wait_phase[first])
        text = (
            f"{self.mnemonic} waits for phase {target} (parity {target & 1}) of"
            f" {_mbar.describe(m, int(flats[0]))}"
        )
        more = np.unique(flats).size - 1
        if more:
            text += f" (and {more} other mbarriers)"
        return text


def _wait(site: Site) -> Executor:
    """``mbarrier.test_wait``/``try_wait{.parity} waitComplete, [addr], state|phaseParity``."""
    flat = _own_cta_reader(site)
    parity = site.has("parity")
    operand = site.src("phaseParity" if parity else "state", PtxType.U32 if parity else PtxType.B64)
    write = site.dst("waitComplete", PtxType.PRED)
    mnemonic = site.mnemonic

    def run(m: Any, lanes: Lanes) -> Any:
        f = flat(m, lanes)
        st = _mbar.state(m)
        phase = st.phase[_mbar.slots(m, f, lanes.idx)]
        value = operand(m, lanes)
        if parity:
            done = (phase & 1) != (value.astype(np.int64) & 1)
        else:
            _check_token(value, lanes, mnemonic)
            taken = (value.astype(np.uint64) & _LOW32).astype(np.int64)
            done = ((phase - taken) & 0xFFFF_FFFF) != 0
        if done.any():
            # A completed wait acquires what the arrivals of the phase released.
            m.synchronized(m.cta_of[lanes.idx[done]], lanes.idx[done])
        if done.all():
            write(m, lanes, done)
            return None
        if done.any():
            write(m, lanes.subset(done, m.n), np.ones(int(done.sum()), dtype=bool))
        wait = lanes.idx[~done]
        st.wait_flat[wait] = f[~done]
        st.wait_phase[wait] = phase[~done]
        m.move(wait, site.pc, MbarrierWait(write, mnemonic))
        return YIELD

    return run


def pending_count(site: Site) -> Executor:
    """``mbarrier.pending_count.b64 count, state``: the pending count the state captured."""
    state = site.src("state", PtxType.B64)
    count = site.dst("count", PtxType.U32)

    def run(m: Any, lanes: Lanes) -> Any:
        value = state(m, lanes)
        _check_token(value, lanes, site.mnemonic)
        pending = (value.astype(np.uint64) >> np.uint64(32)) & _PENDING_MASK
        count(m, lanes, pending.astype(np.uint32))

    return run


def cp_async_arrive(site: Site) -> Executor:
    """``cp.async.mbarrier.arrive{.noinc} [addr]``.

    The arrive-on is due when the thread's prior ``cp.async`` copies complete: the emulator
    completes them now (their data lands) and arrives. Without ``.noinc`` the pending count
    is first raised by one, so the arrive leaves it unchanged.
    """
    flat = _own_cta_reader(site)
    noinc = site.has("noinc")

    def run(m: Any, lanes: Lanes) -> Any:
        f = flat(m, lanes)
        finish_copies(m, lanes)
        if noinc:
            _mbar.arrive(m, f, 1, lanes=lanes.idx)
        else:
            _mbar.slots(m, f, lanes.idx)  # the increment and the arrive cancel out
            m.touch()

    return run


SEMANTICS = {
    "mbarrier.init": init,
    "mbarrier.inval": inval,
    "mbarrier.expect_tx": expect_tx,
    "mbarrier.complete_tx": complete_tx,
    "mbarrier.arrive": _arrive(drop=False),
    "mbarrier.arrive_drop": _arrive(drop=True),
    "mbarrier.test_wait": _wait,
    "mbarrier.try_wait": _wait,
    "mbarrier.pending_count": pending_count,
    "cp.async.mbarrier.arrive": cp_async_arrive,
}
