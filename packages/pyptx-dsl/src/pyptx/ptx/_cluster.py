"""Thread-block clusters, warp election, launch control and register reallocation.

``ptx.barrier.cluster.arrive`` / ``wait`` (also reachable as ``ptx.cluster.arrive`` / ``wait``),
``ptx.mapa``, ``ptx.getctarank``, ``ptx.elect.sync``, ``ptx.clusterlaunchcontrol.try_cancel``
and ``.query_cancel.*``, ``ptx.griddepcontrol.launch_dependents`` / ``wait`` and
``ptx.setmaxnreg.inc`` / ``dec``. Every call emits exactly one instruction, except
``ptx.cluster.sync`` (listed in :data:`MULTI_INSTRUCTION`).
"""

from __future__ import annotations

from typing import Literal, overload

from pyptx.ir import PredPair, PtxType, Register, Sink

from ..dsl.errors import PtxDslError
from ..dsl.operands import emit_inst
from ..dsl.regs import Reg, _new
from ._sync_operands import address, dest, flag, flags, integer, mask32, shared_value, words

__all__ = [
    "cluster", "clusterlaunchcontrol", "elect", "getctarank", "griddepcontrol", "mapa",
    "setmaxnreg",
]  # fmt: skip

MULTI_INSTRUCTION: dict[str, str] = {
    "ptx.cluster.sync": "barrier.cluster.arrive[.aligned]; barrier.cluster.wait[.aligned]",
}
"""The cluster helpers that emit more than one instruction, with exactly what they emit."""


def _cluster_barrier(action: str, sem: str | None, aligned: bool, pred: object) -> None:
    mods = words(sem) + flags(f"barrier.cluster.{action}", aligned=aligned)
    emit_inst("barrier", ["cluster", action, *mods], (), pred)


class BarrierCluster:
    """``ptx.barrier.cluster``: the cluster-wide split barrier (sm_90)."""

    def arrive(self, *, sem: str | None = None, aligned: bool = False, pred: object = None) -> None:
        """Mark this thread arrived at the cluster barrier without waiting.

        Emits ``barrier.cluster.arrive{.sem}{.aligned};``.

        Args:
            sem: ``None`` (PTX default: release), ``"release"`` or ``"relaxed"`` (PTX 8.0).
            aligned: emit ``.aligned`` (all threads of the warp execute it together).
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-barrier-cluster
        """
        _cluster_barrier("arrive", sem, aligned, pred)

    def wait(self, *, sem: str | None = None, aligned: bool = False, pred: object = None) -> None:
        """Wait until every thread of the cluster has arrived.

        Emits ``barrier.cluster.wait{.acquire}{.aligned};``. ``sem`` is ``None`` (PTX default:
        acquire) or ``"acquire"``; the other arguments are those of :meth:`arrive`.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-barrier-cluster
        """
        _cluster_barrier("wait", sem, aligned, pred)


barrier_cluster = BarrierCluster()


class _Cluster(BarrierCluster):
    """``ptx.cluster``: shorthand for ``ptx.barrier.cluster`` plus the two-instruction ``sync``."""

    def sync(self, *, aligned: bool = False, pred: object = None) -> None:
        """Arrive at and then wait on the cluster barrier (two instructions).

        Emits ``barrier.cluster.arrive{.aligned};`` then ``barrier.cluster.wait{.aligned};``
        (listed in ``ptx.MULTI_INSTRUCTION_HELPERS``).

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-barrier-cluster
        """
        self.arrive(aligned=aligned, pred=pred)
        self.wait(aligned=aligned, pred=pred)

    def map_shared_u32(self, addr: object, cta: object, *, pred: object = None) -> Reg:
        """The 32-bit shared address of ``addr`` in cluster CTA ``cta`` (one instruction).

        The seed system's name for ``ptx.mapa(addr, cta, ty=u32)``: emits
        ``mapa.shared::cluster.u32 d, addr, cta;``. ``cta`` may be an int (an immediate, no
        ``mov``) or a 32-bit register; ``addr`` a shared allocation, stage, mbarrier reference
        or ``u32`` shared address register.

        Returns:
            A fresh ``u32`` register with the mapped address.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-mapa
        """
        return mapa(addr, cta, ty=PtxType.U32, pred=pred)


cluster = _Cluster()
"""``ptx.cluster.arrive()`` / ``wait()`` (one instruction each), ``sync()`` (two) and
``map_shared_u32(addr, cta)`` (``ptx.mapa``, one)."""


def _addr_type(a: object, ty: object) -> str:
    """``ty`` as spelled, else the address register's width (``u32`` for a symbol)."""
    if ty is not None:
        return ty.value if isinstance(ty, PtxType) else str(ty)
    return "u64" if isinstance(a, Reg) and a.type.bits == 64 else "u32"


def mapa(
    addr: object,
    rank: object,
    *,
    space: str | None = "shared::cluster",
    ty: PtxType | None = None,
    dst: Reg | None = None,
    pred: object = None,
) -> Reg:
    """The address of the same shared variable in the CTA of the cluster with rank ``rank``.

    Emits ``mapa{.space}.type d, addr, rank;``.

    Args:
        addr: a shared allocation, stage, mbarrier reference or an address register.
        rank: the target CTA's rank in the cluster (int or 32-bit register).
        space: ``"shared::cluster"`` (``addr`` is a shared address) or ``None`` (generic).
        ty: ``u32`` or ``u64`` (default: the address register's width; ``u32`` for a symbol).
        dst: register to write instead of a fresh one of type ``ty``.
        pred: optional guard predicate.

    Returns:
        The mapped address (``u32`` or ``u64``).

    See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-mapa
    """
    a, t = shared_value("mapa address", addr), _addr_type(addr, ty)
    if space is None and a is not addr:  # a shared allocation became its symbol
        raise PtxDslError(
            "mapa without a state space takes a generic address register, but got a shared "
            "symbol; pass space='shared::cluster'"
        )
    out = dest(dst, PtxType.from_name(t) or PtxType.U32)
    emit_inst("mapa", [*words(space), t], (out, a, integer("mapa rank", rank)), pred)
    return out


def getctarank(
    addr: object,
    *,
    space: str | None = "shared::cluster",
    ty: PtxType | None = None,
    dst: Reg | None = None,
    pred: object = None,
) -> Reg:
    """``getctarank{.space}.type d, addr;``: the rank of the CTA that owns a shared address.

    ``addr``, ``space`` and ``ty`` (the address type) are as for :func:`mapa`; ``dst`` is a
    32-bit register to write instead of a fresh ``u32`` one.

    Returns:
        The ``u32`` rank.

    See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-getctarank
    """
    a = shared_value("getctarank address", addr)
    out = dest(dst, PtxType.U32)
    emit_inst("getctarank", [*words(space), _addr_type(a, ty)], (out, a), pred)
    return out


class _Elect:
    """``ptx.elect``: elect one leader lane of a warp."""

    @overload
    def sync(
        self, membermask: object = ..., *, lane: Literal[False] = ..., pred: object = ...
    ) -> Reg: ...

    @overload
    def sync(
        self, membermask: object = ..., *, lane: Literal[True], pred: object = ...
    ) -> tuple[Reg, Reg]: ...

    def sync(
        self, membermask: object = 0xFFFFFFFF, *, lane: bool = False, pred: object = None
    ) -> Reg | tuple[Reg, Reg]:
        """``elect.sync d|p, membermask;``: ``p`` is true in exactly one lane of the mask.

        Without ``lane=True`` the lane index is discarded (``elect.sync _|p, mask;``).

        Args:
            membermask: 32-bit mask of participating lanes (int or 32-bit register).
            lane: also return the elected lane's index.
            pred: optional guard predicate.

        Returns:
            The ``pred`` register, or ``(lane_index, pred)`` with ``lane=True``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-elect-sync
        """
        mask = mask32("elect.sync membermask", membermask)
        p = _new(PtxType.PRED)
        idx = _new(PtxType.U32) if flag("elect.sync lane=", lane) else None
        first = Register(idx.name) if idx is not None else Sink()
        emit_inst("elect", ("sync",), (PredPair(first, Register(p.name)), mask), pred)
        return (idx, p) if idx is not None else p


elect = _Elect()
"""``ptx.elect.sync()`` -> predicate; ``ptx.elect.sync(lane=True)`` -> (lane, predicate)."""


class _QueryCancel:
    """``ptx.clusterlaunchcontrol.query_cancel``: decode a ``try_cancel`` response."""

    def is_canceled(self, response: object, *, dst: Reg | None = None, pred: object = None) -> Reg:
        """``clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, response;``.

        Args:
            response: the b128 response register.
            dst: a predicate register to write instead of a fresh one.
            pred: optional guard predicate.

        Returns:
            The ``pred`` register: whether the cancel request succeeded.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-clusterlaunchcontrol-query-cancel
        """
        out = dest(dst, PtxType.PRED)
        mods = ("query_cancel", "is_canceled", "pred", "b128")
        emit_inst("clusterlaunchcontrol", mods, (out, response), pred)
        return out

    @overload
    def get_first_ctaid(
        self, response: object, dim: None = ..., *, pred: object = ...
    ) -> tuple[Reg, Reg, Reg]: ...

    @overload
    def get_first_ctaid(self, response: object, dim: str, *, pred: object = ...) -> Reg: ...

    def get_first_ctaid(
        self, response: object, dim: str | None = None, *, pred: object = None
    ) -> Reg | tuple[Reg, Reg, Reg]:
        """The first ``ctaid`` of the canceled cluster.

        Without ``dim``: ``clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128
        {x, y, z, _}, response;``. With ``dim="x"`` (``"y"``, ``"z"``):
        ``clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 d, response;``.

        Args:
            response: the b128 response register (only meaningful when ``is_canceled``).
            dim: ``None`` for all three coordinates, or one of ``"x"``, ``"y"``, ``"z"``.
            pred: optional guard predicate.

        Returns:
            ``(x, y, z)`` ``u32`` registers, or one ``u32`` register for ``dim``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-clusterlaunchcontrol-query-cancel
        """
        r = [_new(PtxType.U32) for _ in range(3 if dim is None else 1)]
        mods = ("get_first_ctaid", "v4") if dim is None else (f"get_first_ctaid::{dim}",)
        out = (*r, None) if dim is None else r[0]
        mods = ("query_cancel", *mods, "b32", "b128")
        emit_inst("clusterlaunchcontrol", mods, (out, response), pred)
        return r[0] if dim is not None else (r[0], r[1], r[2])


class _ClusterLaunchControl:
    """``ptx.clusterlaunchcontrol``: cancel not-yet-launched clusters (sm_100)."""

    def __init__(self) -> None:
        self.query_cancel = _QueryCancel()

    def try_cancel(
        self,
        result: object,
        mbar: object,
        *,
        multicast: bool = False,
        space: str | None = "shared::cta",
        pred: object = None,
    ) -> None:
        """Ask to cancel the launch of a cluster that has not started (sm_100).

        Emits ``clusterlaunchcontrol.try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes
        {.multicast::cluster::all}.b128 [result], [mbar];``. The 16-byte response is written to
        ``result`` and completes 16 bytes of transactions on ``mbar``.

        Args:
            result: 16-byte aligned shared memory for the response.
            mbar: the mbarrier tracking completion.
            multicast: write the response to every CTA of the cluster (sm_100a/sm_110a).
            space: ``"shared::cta"`` or ``None`` (both addresses generic).
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-clusterlaunchcontrol-try-cancel
        """
        name = "clusterlaunchcontrol.try_cancel"
        kind = "generic" if space is None else "shared"
        ops = (
            address(f"{name} result", result, space=kind),
            address(f"{name} mbarrier", mbar, space=kind),
        )
        cast = ["multicast::cluster::all"] if flag(f"{name} multicast=", multicast) else []
        mods = ["try_cancel", "async", *words(space), "mbarrier::complete_tx::bytes", *cast]
        emit_inst("clusterlaunchcontrol", [*mods, "b128"], ops, pred)


clusterlaunchcontrol = _ClusterLaunchControl()
"""``ptx.clusterlaunchcontrol.try_cancel(...)``, ``.query_cancel.is_canceled(resp)``."""


class _GridDepControl:
    """``ptx.griddepcontrol``: programmatic dependent launch (sm_90)."""

    def launch_dependents(self, *, pred: object = None) -> None:
        """``griddepcontrol.launch_dependents;``: let the dependent grid start launching.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-griddepcontrol
        """
        emit_inst("griddepcontrol", ("launch_dependents",), (), pred)

    def wait(self, *, pred: object = None) -> None:
        """Wait until the prerequisite grids have completed and their memory is visible.

        Emits ``griddepcontrol.wait;``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-griddepcontrol
        """
        emit_inst("griddepcontrol", ("wait",), (), pred)


griddepcontrol = _GridDepControl()
"""``ptx.griddepcontrol.launch_dependents()`` / ``ptx.griddepcontrol.wait()``."""


class _SetMaxNReg:
    """``ptx.setmaxnreg``: change the warp's per-thread register budget (sm_90a, sm_100a...)."""

    def _emit(self, action: str, count: object, pred: object) -> None:
        n = integer(f"setmaxnreg.{action} register count", count, reg=False)
        emit_inst("setmaxnreg", (action, "sync", "aligned", "u32"), (n,), pred)

    def inc(self, count: int, *, pred: object = None) -> None:
        """Raise the per-thread register count of the warp to ``count`` (24..256, a multiple of 8).

        Emits ``setmaxnreg.inc.sync.aligned.u32 count;``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#miscellaneous-instructions-setmaxnreg
        """
        self._emit("inc", count, pred)

    def dec(self, count: int, *, pred: object = None) -> None:
        """``setmaxnreg.dec.sync.aligned.u32 count;``: release registers down to ``count``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#miscellaneous-instructions-setmaxnreg
        """
        self._emit("dec", count, pred)

    def __call__(self, count: int, *, inc: bool = True, pred: object = None) -> None:
        """``setmaxnreg.{inc|dec}.sync.aligned.u32 count;`` (``inc=False`` for ``dec``).

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#miscellaneous-instructions-setmaxnreg
        """
        self._emit("inc" if flag("setmaxnreg inc=", inc) else "dec", count, pred)


setmaxnreg = _SetMaxNReg()
"""``ptx.setmaxnreg.inc(240)``, ``ptx.setmaxnreg.dec(40)``."""
