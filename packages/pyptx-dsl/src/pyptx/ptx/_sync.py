"""CTA barriers, warp barriers, memory fences and ``nanosleep``.

``ptx.bar`` / ``ptx.barrier`` (``sync``, ``arrive``, ``red``; ``ptx.bar.warp.sync``),
``ptx.membar``, ``ptx.fence`` (thread fences, ``fence.proxy.*``, ``fence.mbarrier_init``) and
``ptx.nanosleep``. Every call emits exactly one instruction. Cluster barriers live in
:mod:`pyptx.ptx._cluster` and are reached as ``ptx.barrier.cluster``.
"""

from __future__ import annotations

from pyptx.ir import PtxType

from ..dsl.errors import PtxDslError
from ..dsl.operands import emit_inst
from ..dsl.regs import Reg
from ._cluster import BarrierCluster, barrier_cluster
from ._sync_operands import address, choice, dest, flag, int_operand, mask32, pick, predicate

__all__ = ["bar", "barrier", "fence", "membar", "nanosleep"]


def _barrier_operands(name: str, barrier: object, count: object) -> list[object]:
    ops = [int_operand(f"{name} barrier", barrier, high=15)]
    if count is not None:
        ops.append(int_operand(f"{name} thread count", count, low=1, high=1024))
        if isinstance(count, int) and count % 32:
            raise PtxDslError(
                f"{name} thread count must be a multiple of the warp size 32, but got {count}"
            )
    return ops


class _BarRed:
    """``bar.red`` / ``barrier.red``: a CTA barrier that also reduces a predicate."""

    def __init__(self, opcode: str) -> None:
        self._opcode = opcode

    def _emit(
        self,
        op: str,
        barrier: object,
        cond: object,
        count: object,
        aligned: bool,
        cta: bool,
        dst: object,
        pred: object,
    ) -> Reg:
        name = f"{self._opcode}.red.{op}"
        ty = PtxType.U32 if op == "popc" else PtxType.PRED
        out = dest(name, dst, ty)
        ops: list[object] = [out, *_barrier_operands(name, barrier, count)]
        ops.append(predicate(f"{name} condition", cond))
        mods = ["cta"] if flag(f"{name} cta=", cta) else []
        mods += ["red", op]
        if flag(f"{name} aligned=", aligned):
            mods.append("aligned")
        mods.append(ty.value)
        emit_inst(self._opcode, mods, ops, pred)
        return out


class _BarRedOps(_BarRed):
    """``ptx.bar.red.popc`` / ``.and_`` / ``.or_`` (``bar`` is always aligned)."""

    def popc(
        self,
        barrier: object,
        cond: object,
        *,
        count: object = None,
        cta: bool = False,
        dst: Reg | None = None,
        pred: object = None,
    ) -> Reg:
        """Count the threads whose ``cond`` holds, across the barrier.

        Emits ``bar{.cta}.red.popc.u32 d, barrier{, count}, {!}cond;``.

        Args:
            barrier: barrier number 0..15 (int or 32-bit register).
            cond: a predicate register, or ``~p``.
            count: number of participating threads (a multiple of 32), or all threads.
            cta: emit the explicit ``.cta`` qualifier.
            dst: a 32-bit register to write instead of a fresh ``u32`` one.
            pred: optional guard predicate.

        Returns:
            The ``u32`` result register.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-bar-barrier
        """
        return self._emit("popc", barrier, cond, count, False, cta, dst, pred)

    def and_(
        self,
        barrier: object,
        cond: object,
        *,
        count: object = None,
        cta: bool = False,
        dst: Reg | None = None,
        pred: object = None,
    ) -> Reg:
        """True where ``cond`` holds in every participating thread.

        Emits ``bar{.cta}.red.and.pred p, barrier{, count}, {!}cond;``.

        Returns:
            The ``pred`` result register (``dst`` when given).

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-bar-barrier
        """
        return self._emit("and", barrier, cond, count, False, cta, dst, pred)

    def or_(
        self,
        barrier: object,
        cond: object,
        *,
        count: object = None,
        cta: bool = False,
        dst: Reg | None = None,
        pred: object = None,
    ) -> Reg:
        """True where ``cond`` holds in any participating thread.

        Emits ``bar{.cta}.red.or.pred p, barrier{, count}, {!}cond;``.

        Returns:
            The ``pred`` result register (``dst`` when given).

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-bar-barrier
        """
        return self._emit("or", barrier, cond, count, False, cta, dst, pred)


class _BarrierRedOps(_BarRed):
    """``ptx.barrier.red.popc`` / ``.and_`` / ``.or_``, with the ``aligned=`` choice."""

    def popc(
        self,
        barrier: object,
        cond: object,
        *,
        count: object = None,
        aligned: bool = False,
        cta: bool = False,
        dst: Reg | None = None,
        pred: object = None,
    ) -> Reg:
        """``barrier{.cta}.red.popc{.aligned}.u32 d, barrier{, count}, {!}cond;``.

        Returns:
            The ``u32`` count of threads whose ``cond`` holds.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-bar-barrier
        """
        return self._emit("popc", barrier, cond, count, aligned, cta, dst, pred)

    def and_(
        self,
        barrier: object,
        cond: object,
        *,
        count: object = None,
        aligned: bool = False,
        cta: bool = False,
        dst: Reg | None = None,
        pred: object = None,
    ) -> Reg:
        """``barrier{.cta}.red.and{.aligned}.pred p, barrier{, count}, {!}cond;``.

        Returns:
            The ``pred`` register: ``cond`` held in every participating thread.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-bar-barrier
        """
        return self._emit("and", barrier, cond, count, aligned, cta, dst, pred)

    def or_(
        self,
        barrier: object,
        cond: object,
        *,
        count: object = None,
        aligned: bool = False,
        cta: bool = False,
        dst: Reg | None = None,
        pred: object = None,
    ) -> Reg:
        """``barrier{.cta}.red.or{.aligned}.pred p, barrier{, count}, {!}cond;``.

        Returns:
            The ``pred`` register: ``cond`` held in some participating thread.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-bar-barrier
        """
        return self._emit("or", barrier, cond, count, aligned, cta, dst, pred)


class _BarWarp:
    """``ptx.bar.warp``: the warp-level barrier."""

    def sync(self, membermask: object = 0xFFFFFFFF, *, pred: object = None) -> None:
        """``bar.warp.sync membermask;``: wait until every lane named in the mask arrives.

        Args:
            membermask: 32-bit lane mask (int or 32-bit register), all lanes by default.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-bar-warp-sync
        """
        mask = mask32("bar.warp.sync membermask", membermask)
        emit_inst("bar", ("warp", "sync"), (mask,), pred)


class Bar:
    """``ptx.bar``: ``bar.sync``, ``bar.arrive``, ``bar.red.*`` and ``bar.warp.sync``.

    ``bar.sync`` means ``barrier.sync.aligned``: every thread of a warp executes it together.
    """

    def __init__(self) -> None:
        self.red = _BarRedOps("bar")
        self.warp = _BarWarp()

    def sync(
        self, barrier: object = 0, count: object = None, *, cta: bool = False, pred: object = None
    ) -> None:
        """``bar{.cta}.sync barrier{, count};``: wait at a named CTA barrier.

        Args:
            barrier: barrier number 0..15 (int or 32-bit register); 0 is ``__syncthreads``.
            count: threads that take part (a multiple of 32); all threads by default.
            cta: emit the explicit ``.cta`` qualifier (PTX 8.0).
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-bar-barrier
        """
        ops = _barrier_operands("bar.sync", barrier, count)
        emit_inst("bar", (["cta"] if flag("bar.sync cta=", cta) else []) + ["sync"], ops, pred)

    def arrive(
        self, barrier: object, count: object, *, cta: bool = False, pred: object = None
    ) -> None:
        """``bar{.cta}.arrive barrier, count;``: arrive at a named barrier without waiting.

        Args:
            barrier: barrier number 0..15 (int or 32-bit register).
            count: threads that take part (required by PTX for arrive; a multiple of 32).
            cta: emit the explicit ``.cta`` qualifier.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-bar-barrier
        """
        ops = _barrier_operands("bar.arrive", barrier, count)
        emit_inst("bar", (["cta"] if flag("bar.arrive cta=", cta) else []) + ["arrive"], ops, pred)


class Barrier:
    """``ptx.barrier``: ``sync``, ``arrive``, ``red.*`` (with ``aligned=``) and ``cluster``.

    ``ptx.barrier.cluster.arrive`` / ``wait`` are the cluster barriers of :mod:`._cluster`.
    """

    cluster: BarrierCluster

    def __init__(self) -> None:
        self.red = _BarrierRedOps("barrier")
        self.cluster = barrier_cluster

    def sync(
        self,
        barrier: object = 0,
        count: object = None,
        *,
        aligned: bool = False,
        cta: bool = False,
        pred: object = None,
    ) -> None:
        """``barrier{.cta}.sync{.aligned} barrier{, count};``.

        Without ``aligned=True`` threads of a warp may reach the barrier on different paths.

        Args:
            barrier: barrier number 0..15 (int or 32-bit register).
            count: threads that take part (a multiple of 32); all threads by default.
            aligned: emit ``.aligned`` (all threads of a warp execute this same instruction).
            cta: emit the explicit ``.cta`` qualifier.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-bar-barrier
        """
        ops = _barrier_operands("barrier.sync", barrier, count)
        mods = (["cta"] if flag("barrier.sync cta=", cta) else []) + ["sync"]
        if flag("barrier.sync aligned=", aligned):
            mods.append("aligned")
        emit_inst("barrier", mods, ops, pred)

    def arrive(
        self,
        barrier: object,
        count: object,
        *,
        aligned: bool = False,
        cta: bool = False,
        pred: object = None,
    ) -> None:
        """``barrier{.cta}.arrive{.aligned} barrier, count;``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-bar-barrier
        """
        ops = _barrier_operands("barrier.arrive", barrier, count)
        mods = (["cta"] if flag("barrier.arrive cta=", cta) else []) + ["arrive"]
        if flag("barrier.arrive aligned=", aligned):
            mods.append("aligned")
        emit_inst("barrier", mods, ops, pred)


bar = Bar()
"""``ptx.bar.sync(0)``, ``ptx.bar.arrive(1, 64)``, ``ptx.bar.red.popc(0, p)``,
``ptx.bar.warp.sync()``."""

barrier = Barrier()
"""``ptx.barrier.sync(1, 128, aligned=True)``, ``ptx.barrier.cluster.arrive()``."""


_SCOPES = ("cta", "cluster", "gpu", "sys")


def membar(level: str, *, pred: object = None) -> None:
    """``membar.level;``: order this thread's memory accesses at ``cta``, ``gl`` or ``sys``.

    Args:
        level: ``"cta"``, ``"gl"`` (the GPU) or ``"sys"``.
        pred: optional guard predicate.

    See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-membar-fence
    """
    lvl = pick("membar level", level, ("cta", "gl", "sys"))
    emit_inst("membar", (lvl,), (), pred)


class _ProxyTensormap:
    """``ptx.fence.proxy.tensormap_generic``: order tensor-map writes before TMA use."""

    def release(self, scope: str, *, pred: object = None) -> None:
        """Make generic-proxy writes of a tensor map visible to the tensor-map proxy.

        Emits ``fence.proxy.tensormap::generic.release.scope;`` (PTX 8.3, sm_90).

        Args:
            scope: ``"cta"``, ``"cluster"``, ``"gpu"`` or ``"sys"``.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-membar-fence
        """
        sc = pick("fence.proxy.tensormap::generic scope", scope, _SCOPES)
        emit_inst("fence", ("proxy", "tensormap::generic", "release", sc), (), pred)

    def acquire(
        self, scope: str, tensormap: object, size: int = 128, *, pred: object = None
    ) -> None:
        """``fence.proxy.tensormap::generic.acquire.scope [addr], size;``.

        Args:
            scope: ``"cta"``, ``"cluster"``, ``"gpu"`` or ``"sys"``.
            tensormap: generic address of the tensor map (a 64-bit register,
                e.g. ``A.tma_desc()``, or ``ptx.addr(...)``).
            size: bytes of the tensor map; PTX requires 128.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-membar-fence
        """
        name = "fence.proxy.tensormap::generic.acquire"
        sc = pick(f"{name} scope", scope, _SCOPES)
        a = address(f"{name} address", tensormap, space="generic")
        sz = int_operand(f"{name} size", size, low=128, high=128, reg=False)
        emit_inst("fence", ("proxy", "tensormap::generic", "acquire", sc), (a, sz), pred)


class _ProxyAsyncGeneric:
    """``ptx.fence.proxy.async_generic``: the one-directional async/generic proxy fences."""

    def acquire(self, *, pred: object = None) -> None:
        """Acquire fence from the async to the generic proxy, for shared::cluster.

        Emits ``fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;``
        (PTX 8.6, sm_90).

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-membar-fence
        """
        mods = ("proxy", "async::generic", "acquire", "sync_restrict::shared::cluster", "cluster")
        emit_inst("fence", mods, (), pred)

    def release(self, *, pred: object = None) -> None:
        """Release fence from the generic to the async proxy, for shared::cta.

        Emits ``fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;``
        (PTX 8.6, sm_90).

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-membar-fence
        """
        mods = ("proxy", "async::generic", "release", "sync_restrict::shared::cta", "cluster")
        emit_inst("fence", mods, (), pred)


class _Proxy:
    """``ptx.fence.proxy``: fences between the generic, async, alias and tensor-map proxies."""

    def __init__(self) -> None:
        self.tensormap_generic = _ProxyTensormap()
        self.async_generic = _ProxyAsyncGeneric()

    def async_(self, space: str | None = None, *, pred: object = None) -> None:
        """Order generic-proxy and async-proxy memory accesses.

        Emits ``fence.proxy.async{.space};``, e.g. between shared memory written by threads and
        read by TMA or wgmma.

        Args:
            space: ``None`` (all state spaces), ``"global"``, ``"shared::cta"`` or
                ``"shared::cluster"``.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-membar-fence
        """
        sp = choice(
            "fence.proxy.async space", space, (None, "global", "shared::cta", "shared::cluster")
        )
        emit_inst("fence", ("proxy", "async") + ((sp,) if sp else ()), (), pred)

    def alias(self, *, pred: object = None) -> None:
        """``fence.proxy.alias;``: order accesses made through aliased virtual addresses.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-membar-fence
        """
        emit_inst("fence", ("proxy", "alias"), (), pred)


class Fence:
    """``ptx.fence``: ``fence{.sem}.scope`` when called, with ``proxy`` and ``mbarrier_init``.

    Examples: ``ptx.fence("gpu")`` -> ``fence.gpu;``, ``ptx.fence("cta", sem="sc")`` ->
    ``fence.sc.cta;``, ``ptx.fence.proxy.async_("shared::cta")``, ``ptx.fence.mbarrier_init()``.
    """

    def __init__(self) -> None:
        self.proxy = _Proxy()

    def __call__(
        self,
        scope: str,
        *,
        sem: str | None = None,
        sync_restrict: str | None = None,
        pred: object = None,
    ) -> None:
        """``fence{.sem}{.sync_restrict::space}.scope;``: a thread memory fence.

        Args:
            scope: ``"cta"``, ``"cluster"``, ``"gpu"`` or ``"sys"``.
            sem: ``None`` (PTX default ``acq_rel``), ``"sc"``, ``"acq_rel"``, or (PTX 8.6)
                ``"acquire"`` / ``"release"``.
            sync_restrict: ``"shared::cluster"`` (with ``sem="acquire"``) or ``"shared::cta"``
                (with ``sem="release"``), both at ``"cluster"`` scope: restrict the fence to
                that shared-memory window.
            pred: optional guard predicate.

        Raises:
            PtxDslError: an unknown scope or semantics, or a ``sync_restrict`` combination PTX
                does not have.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-membar-fence
        """
        sc = pick("fence scope", scope, _SCOPES)
        sm = choice("fence sem", sem, (None, "sc", "acq_rel", "acquire", "release"))
        sr = choice("fence sync_restrict", sync_restrict, (None, "shared::cluster", "shared::cta"))
        mods = [sm] if sm else []
        if sr is not None:
            need = "acquire" if sr == "shared::cluster" else "release"
            if sm != need or sc != "cluster":
                raise PtxDslError(
                    f"fence sync_restrict={sr!r} needs sem={need!r} and scope 'cluster', but got "
                    f"sem={sm!r} and scope {sc!r}"
                )
            mods.append(f"sync_restrict::{sr}")
        mods.append(sc)
        emit_inst("fence", mods, (), pred)

    def mbarrier_init(self, *, pred: object = None) -> None:
        """Make prior ``mbarrier.init`` visible to the other CTAs of the cluster (PTX 8.0, sm_90).

        Emits ``fence.mbarrier_init.release.cluster;``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-membar-fence
        """
        emit_inst("fence", ("mbarrier_init", "release", "cluster"), (), pred)


fence = Fence()
"""``ptx.fence(scope, sem=...)``, ``ptx.fence.proxy.async_()``, ``ptx.fence.mbarrier_init()``."""


def nanosleep(t: object, *, pred: object = None) -> None:
    """``nanosleep.u32 t;``: suspend the thread for about ``t`` nanoseconds (at most 1 ms).

    Args:
        t: the duration, an int or a 32-bit register.
        pred: optional guard predicate.

    See: https://docs.nvidia.com/cuda/parallel-thread-execution/#miscellaneous-instructions-nanosleep
    """
    emit_inst("nanosleep", ("u32",), (int_operand("nanosleep time", t, high=0xFFFFFFFF),), pred)
