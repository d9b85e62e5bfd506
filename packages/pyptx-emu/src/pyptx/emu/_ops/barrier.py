"""Barriers of CTAs, clusters and warps, and memory fences.

``bar``/``barrier`` ``.sync``/``.arrive``/``.red``, ``barrier.cluster.arrive``/``.wait``,
``bar.warp.sync``, ``membar`` and ``fence``.

A CTA has 16 barriers. A warp arrives at one when all its non-exited threads have executed
the barrier instruction; the barrier completes when the expected number of warps has
arrived: ``b / 32`` when the instruction gives a thread count ``b``, otherwise every warp of
the CTA that still has a thread running (so threads that exited early do not hang
``__syncthreads``). A cluster barrier completes when every non-exited thread of every CTA of
the cluster has arrived. The emulator runs everything in one address space in program
order, so fences have nothing to order and run as no-ops.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyptx.ir import PtxType

from .._errors import Fault, NotEmulated
from .._lanes import WARP, Lanes
from .._machine import YIELD, Executor
from .._site import Reader, Site
from .._warp import converged

__all__ = ["SEMANTICS", "present"]

BARRIERS = 16
"""Named barriers per CTA."""


def present(values: np.ndarray, size: int) -> np.ndarray:
    """The distinct values of ``values`` (non-negative, below ``size``), sorted.

    Linear time (``np.unique`` sorts), which matters for per-lane CTA indices.
    """
    return np.flatnonzero(np.bincount(values, minlength=size))


class _CtaBarriers:
    """The 16 barriers of every CTA of a wave."""

    def __init__(self, m: Any) -> None:
        self.arrived = np.zeros((BARRIERS, m.n), dtype=bool)
        self.generation = np.zeros((BARRIERS, m.ctas), dtype=np.int64)
        self.expected = np.full((BARRIERS, m.ctas), -1, dtype=np.int64)
        self.lane_generation = np.zeros(m.n, dtype=np.int64)
        self.lane_barrier = np.zeros(m.n, dtype=np.int64)
        self.popc = np.zeros((BARRIERS, m.ctas), dtype=np.int64)
        self.any = np.zeros((BARRIERS, m.ctas), dtype=bool)
        self.all = np.ones((BARRIERS, m.ctas), dtype=bool)
        self.result_popc = np.zeros((BARRIERS, m.ctas), dtype=np.int64)
        self.result_any = np.zeros((BARRIERS, m.ctas), dtype=bool)
        self.result_all = np.zeros((BARRIERS, m.ctas), dtype=bool)
        self.warps_per_cta = m.padded // WARP

    def arrive(
        self,
        m: Any,
        lanes: Lanes,
        ids: np.ndarray,
        counts: np.ndarray | None,
        values: np.ndarray | None,
    ) -> np.ndarray:
        """Arrive ``lanes`` at barriers ``ids``; return which of them may go on already."""
        if ((ids < 0) | (ids >= BARRIERS)).any():
            i = int(np.argmax((ids < 0) | (ids >= BARRIERS)))
            raise Fault(
                NotEmulated,
                f"barrier {int(ids[i])} does not exist (a CTA has barriers 0-15)",
                lane=int(lanes.idx[i]),
            )
        if counts is not None and ((counts % WARP) != 0).any():
            i = int(np.argmax((counts % WARP) != 0))
            raise Fault(
                NotEmulated,
                f"barrier thread count {int(counts[i])} is not a multiple of the warp size",
                lane=int(lanes.idx[i]),
            )
        m.touch()
        ctas = m.cta_of[lanes.idx]
        uniform = bool((ids == ids[0]).all())
        for bid in ids[:1] if uniform else np.unique(ids):
            sel = slice(None) if uniform else ids == bid
            idx = lanes.idx[sel]
            cta = ctas[sel]
            b = int(bid)
            self.lane_generation[idx] = self.generation[b, cta]
            self.lane_barrier[idx] = b
            self.arrived[b, idx] = True
            if counts is not None:
                self.expected[b, cta] = counts[sel] // WARP
            if values is not None:
                v = values[sel]
                np.add.at(self.popc[b], cta, v.astype(np.int64))
                np.logical_or.at(self.any[b], cta, v)
                np.logical_and.at(self.all[b], cta, v)
            self.complete(m, b, present(cta, m.ctas))
        return self.generation[ids, ctas] > self.lane_generation[lanes.idx]

    def complete(self, m: Any, b: int, ctas: np.ndarray) -> None:
        """Complete barrier ``b`` in those of ``ctas`` where every expected warp arrived."""
        wpc = self.warps_per_cta
        arrived = self.arrived[b].reshape(m.ctas, wpc, WARP)[ctas]
        exited = m.exited.reshape(m.ctas, wpc, WARP)[ctas]
        warp_done = (arrived | exited).all(axis=2) & arrived.any(axis=2)
        done = warp_done.sum(axis=1)
        live = (~exited).any(axis=2).sum(axis=1)
        expected = self.expected[b, ctas]
        expected = np.where(expected < 0, live, expected)
        complete = ctas[done >= expected]
        if complete.size == 0:
            return
        self.generation[b, complete] += 1
        rows = self.arrived[b].reshape(m.ctas, -1)
        rows[complete] = False
        self.expected[b, complete] = -1
        self.result_popc[b, complete] = self.popc[b, complete]
        self.result_any[b, complete] = self.any[b, complete]
        self.result_all[b, complete] = self.all[b, complete]
        self.popc[b, complete] = 0
        self.any[b, complete] = False
        self.all[b, complete] = True
        m.touch()
        m.synchronized(complete)


def _state(m: Any) -> _CtaBarriers:
    state = m.ext.get("bar")
    if state is None:
        state = m.ext["bar"] = _CtaBarriers(m)
    return state


class _BarrierWait:
    """Lanes waiting for their CTA barrier to complete."""

    reexecute = False
    soft = False
    merge_key = None

    def __init__(self, finish: Any) -> None:
        self.finish = finish

    def poll(self, m: Any, lanes: Lanes) -> np.ndarray | None:
        st = _state(m)
        ids = st.lane_barrier[lanes.idx]
        ctas = m.cta_of[lanes.idx]
        for b in np.unique(ids):
            st.complete(m, int(b), present(ctas[ids == b], m.ctas))
        ready = st.generation[ids, ctas] > st.lane_generation[lanes.idx]
        return ready if ready.any() else None

    def release(self, m: Any, lanes: Lanes, ok: bool) -> None:
        if self.finish is not None:
            self.finish(m, lanes)

    def describe(self, m: Any, lanes: Lanes) -> str:
        st = _state(m)
        b = int(st.lane_barrier[lanes.idx[0]])
        cta = int(m.cta_of[lanes.idx[0]])
        wpc = st.warps_per_cta
        arrived = st.arrived[b].reshape(m.ctas, wpc, WARP)[cta]
        exited = m.exited.reshape(m.ctas, wpc, WARP)[cta]
        done = int(((arrived | exited).all(axis=1) & arrived.any(axis=1)).sum())
        expected = int(st.expected[b, cta])
        if expected < 0:
            expected = int((~exited).any(axis=1).sum())
        return f"barrier {b}: {done} of {expected} warps have arrived"


def _operands(site: Site) -> tuple[Reader, Reader | None]:
    a = site.src("a", PtxType.U32)
    b = site.src("b", PtxType.U32) if site.operand("b") is not None else None
    return a, b


def bar_sync(site: Site) -> Executor:
    """``bar.sync a{, b}`` / ``barrier.sync``: arrive and wait for the barrier."""
    a, b = _operands(site)

    def run(m: Any, lanes: Lanes) -> Any:
        counts = b(m, lanes).astype(np.int64) if b is not None else None
        done = _state(m).arrive(m, lanes, a(m, lanes).astype(np.int64), counts, None)
        if done.all():
            return None
        m.move(lanes.idx[~done], site.pc, _BarrierWait(None))
        return YIELD

    return run


def bar_arrive(site: Site) -> Executor:
    """``bar.arrive a, b`` / ``barrier.arrive``: arrive without waiting."""
    a, b = _operands(site)

    def run(m: Any, lanes: Lanes) -> Any:
        counts = b(m, lanes).astype(np.int64) if b is not None else None
        _state(m).arrive(m, lanes, a(m, lanes).astype(np.int64), counts, None)

    return run


def bar_red(site: Site) -> Executor:
    """``bar.red.popc.u32 d, a{, b}, c`` and ``bar.red.{and,or}.pred p, a{, b}, c``."""
    a, b = _operands(site)
    c = site.src("c", PtxType.PRED)
    popc = site.has("popc")
    op = site.slot("op") or ("popc" if popc else None)
    dest = site.dst("d", PtxType.U32) if popc else site.dst("p", PtxType.PRED)

    def finish(m: Any, lanes: Lanes) -> None:
        st = _state(m)
        ids = st.lane_barrier[lanes.idx]
        ctas = m.cta_of[lanes.idx]
        if popc:
            dest(m, lanes, st.result_popc[ids, ctas].astype(np.uint32))
        elif op == "and":
            dest(m, lanes, st.result_all[ids, ctas])
        else:
            dest(m, lanes, st.result_any[ids, ctas])

    def run(m: Any, lanes: Lanes) -> Any:
        counts = b(m, lanes).astype(np.int64) if b is not None else None
        done = _state(m).arrive(m, lanes, a(m, lanes).astype(np.int64), counts, c(m, lanes))
        if done.any():
            finish(m, lanes if done.all() else lanes.subset(done, m.n))
        if done.all():
            return None
        m.move(lanes.idx[~done], site.pc, _BarrierWait(finish))
        return YIELD

    return run


class _ClusterBarrier:
    """The cluster barrier of every cluster of a wave (indexed by its first CTA)."""

    def __init__(self, m: Any) -> None:
        self.arrived = np.zeros(m.n, dtype=bool)
        self.generation = np.zeros(m.ctas, dtype=np.int64)
        self.lane_generation = np.full(m.n, -1, dtype=np.int64)
        self.cluster_of = m.wave.cluster_first[m.cta_of]

    def arrive(self, m: Any, lanes: Lanes) -> None:
        m.touch()
        cluster = self.cluster_of[lanes.idx]
        self.lane_generation[lanes.idx] = self.generation[cluster]
        self.arrived[lanes.idx] = True
        self.complete(m, present(cluster, m.ctas))

    def complete(self, m: Any, clusters: np.ndarray) -> None:
        for c in clusters:
            members = self.cluster_of == c
            if bool((self.arrived[members] | m.exited[members]).all()):
                self.generation[c] += 1
                self.arrived[members] = False
                m.touch()
                m.synchronized(np.unique(m.cta_of[members]))

    def ready(self, m: Any, lanes: Lanes) -> np.ndarray:
        cluster = self.cluster_of[lanes.idx]
        self.complete(m, present(cluster, m.ctas))
        return self.generation[cluster] > self.lane_generation[lanes.idx]


def _cluster_state(m: Any) -> _ClusterBarrier:
    state = m.ext.get("cluster-barrier")
    if state is None:
        state = m.ext["cluster-barrier"] = _ClusterBarrier(m)
    return state


class _ClusterWait:
    reexecute = False
    soft = False
    merge_key = None

    def poll(self, m: Any, lanes: Lanes) -> np.ndarray | None:
        ready = _cluster_state(m).ready(m, lanes)
        return ready if ready.any() else None

    def release(self, m: Any, lanes: Lanes, ok: bool) -> None:
        return None

    def describe(self, m: Any, lanes: Lanes) -> str:
        st = _cluster_state(m)
        c = int(st.cluster_of[lanes.idx[0]])
        members = st.cluster_of == c
        live = members & ~m.exited
        return (
            f"barrier.cluster.wait: {int((st.arrived & live).sum())} of {int(live.sum())}"
            " threads of the cluster have arrived"
        )


def cluster_arrive(site: Site) -> Executor:
    """``barrier.cluster.arrive``: this thread arrives at its cluster's barrier."""

    def run(m: Any, lanes: Lanes) -> Any:
        _cluster_state(m).arrive(m, lanes)

    return run


def cluster_wait(site: Site) -> Executor:
    """``barrier.cluster.wait``: wait until every thread of the cluster has arrived."""

    def run(m: Any, lanes: Lanes) -> Any:
        ready = _cluster_state(m).ready(m, lanes)
        if ready.all():
            return None
        m.move(lanes.idx[~ready], site.pc, _ClusterWait())
        return YIELD

    return run


def bar_warp_sync(site: Site) -> Executor:
    """``bar.warp.sync membermask``: wait for the named lanes of the warp."""
    mask = site.src("membermask", PtxType.B32)

    def run(m: Any, lanes: Lanes) -> Any:
        if not converged(m, site, lanes, mask):
            return YIELD
        m.synchronized(np.unique(m.cta_of[lanes.idx]), lanes.idx, warp=True)
        return None

    return run


def fence(site: Site) -> Executor:
    """Fences order memory operations; in the emulator everything is already in order."""

    def run(m: Any, lanes: Lanes) -> Any:
        return None

    return run


SEMANTICS = {
    "bar.sync": bar_sync,
    "barrier.sync": bar_sync,
    "bar.arrive": bar_arrive,
    "barrier.arrive": bar_arrive,
    "bar.red": bar_red,
    "barrier.red": bar_red,
    "barrier.cluster.arrive": cluster_arrive,
    "barrier.cluster.wait": cluster_wait,
    "bar.warp.sync": bar_warp_sync,
    "membar": fence,
    "fence": fence,
    "fence.proxy": fence,
    "fence.mbarrier_init": fence,
    "fence.proxy.tensormap::generic": fence,
}
