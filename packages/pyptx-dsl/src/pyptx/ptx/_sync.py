"""CTA barriers, warp barriers, memory fences and ``nanosleep``.

``ptx.bar`` / ``ptx.barrier`` (``sync``, ``arrive``, ``red``; ``ptx.bar.warp.sync``),
``ptx.membar``, ``ptx.fence`` (thread fences, ``fence.proxy.*``, ``fence.mbarrier_init``) and
``ptx.nanosleep``. Every call emits exactly one instruction. Cluster barriers live in
:mod:`pyptx.ptx._cluster` and are reached as ``ptx.barrier.cluster``.

The wrappers only spell modifiers and operands; the ISA table (:mod:`pyptx.ir.isa`) judges
them: barrier numbers 0..15, thread counts that are multiples of 32, scopes and semantics,
the ``sync_restrict`` pairings and every PTX version and target gate. Every call takes
``pred=``, an optional guard predicate.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from pyptx.ir import PtxType

from ..dsl.operands import emit_inst
from ..dsl.regs import Reg
from ._cluster import BarrierCluster, barrier_cluster
from ._sync_operands import address, dest, flags, integer, mask32, words

__all__ = ["bar", "barrier", "fence", "membar", "nanosleep"]

_BAR_DOC = (
    "https://docs.nvidia.com/cuda/parallel-thread-execution/"
    "#parallel-synchronization-and-communication-instructions-bar-barrier"
)


def _ids(name: str, barrier: object, count: object) -> list[object]:
    """The ``barrier{, count}`` operands (ints or integer registers; the table checks values)."""
    ops = [integer(f"{name} barrier", barrier)]
    return ops if count is None else [*ops, integer(f"{name} thread count", count)]


def _barrier(
    opcode: str, action: str, barrier: object, count: object, pred: object, **given: object
) -> None:
    """Emit ``opcode{.cta}.action{.aligned} barrier{, count};``."""
    name = f"{opcode}.{action}"
    emit_inst(opcode, _mods(name, given, action), _ids(name, barrier, count), pred)


def _mods(name: str, given: dict[str, object], *middle: str) -> list[str]:
    """``{.cta}.middle{.aligned}``: the flags of ``given`` around the fixed modifiers."""
    return [*flags(name, cta=given.pop("cta")), *middle, *flags(name, **given)]


class _Red:
    """One reduction of ``bar.red`` / ``barrier.red`` (``popc``, ``and``, ``or``)."""

    def __init__(self, opcode: str, op: str, doc: str) -> None:
        self._opcode, self._op, self.__doc__ = opcode, op, doc

    def _emit(
        self, ops: tuple[object, object, object], dst: Reg | None, pred: object, **given: object
    ) -> Reg:
        """Emit the reduction; ``ops`` are ``(barrier, cond, count)``, ``given`` the flags."""
        barrier, cond, count = ops
        name = f"{self._opcode}.red.{self._op}"
        ty = PtxType.U32 if self._op == "popc" else PtxType.PRED
        out, mods = dest(dst, ty), _mods(name, given, "red", self._op)
        emit_inst(self._opcode, [*mods, ty.value], [out, *_ids(name, barrier, count), cond], pred)
        return out


class _BarRed(_Red):
    def __call__(
        self,
        barrier: object,
        cond: object,
        *,
        count: object = None,
        cta: bool = False,
        dst: Reg | None = None,
        pred: object = None,
    ) -> Reg:
        """Reduce the predicate ``cond`` across a CTA barrier (``bar`` is always aligned).

        Each reduction's docstring (``ptx.bar.red.popc.__doc__``) has the arguments.
        """
        return self._emit((barrier, cond, count), dst, pred, cta=cta)


class _BarrierRed(_Red):
    def __call__(
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
        """Reduce the predicate ``cond`` across a CTA barrier, ``.aligned`` on request.

        Each reduction's docstring (``ptx.barrier.red.popc.__doc__``) has the arguments.
        """
        return self._emit((barrier, cond, count), dst, pred, cta=cta, aligned=aligned)


_RED = (
    ("popc", "Count the threads whose ``cond`` holds, across the barrier.", "u32", "count"),
    ("and", "True where ``cond`` holds in every participating thread.", "pred", "predicate"),
    ("or", "True where ``cond`` holds in any participating thread.", "pred", "predicate"),
)
"""(op, what it computes, result type, result) of the ``.red`` reductions."""


_RED_ARGS = """Args:
    barrier: barrier number 0..15 (int or 32-bit register).
    cond: a predicate register, or ``~p``.
    count: number of participating threads (a multiple of 32), or all threads.{aligned}
    cta: emit the explicit ``.cta`` qualifier.
    dst: a {ty} register to write instead of a fresh one.
    pred: optional guard predicate.
"""
_ALIGNED_ARG = (
    "\n    aligned: emit ``.aligned`` (all threads of a warp execute this same instruction)."
)


def _red_doc(opcode: str, op: str, what: str, ty: str, result: str) -> str:
    aligned = "{.aligned}" if opcode == "barrier" else ""
    args = _RED_ARGS.format(aligned=_ALIGNED_ARG if aligned else "", ty=f"``{ty}``")
    return (
        f"{what}\n\nEmits ``{opcode}{{.cta}}.red.{op}{aligned}.{ty} d, barrier{{, count}}, "
        f"{{!}}cond;``.\n\n{args}\nReturns:\n    The ``{ty}`` {result} register (``dst`` when "
        f"given).\n\nSee: {_BAR_DOC}\n"
    )


_R = TypeVar("_R", bound=_Red)


class _RedOps(Generic[_R]):
    """``ptx.bar.red`` / ``ptx.barrier.red``: ``popc``, ``and_`` and ``or_``."""

    popc: _R
    and_: _R
    or_: _R

    def __init__(self, opcode: str, kind: type[_R]) -> None:
        for op, *doc in _RED:
            red = kind(opcode, op, _red_doc(opcode, op, *doc))
            setattr(self, op if op == "popc" else op + "_", red)


class _BarWarp:
    """``ptx.bar.warp``: the warp-level barrier."""

    def sync(self, membermask: object = 0xFFFFFFFF, *, pred: object = None) -> None:
        """``bar.warp.sync membermask;``: wait until every lane named in the mask arrives.

        ``membermask`` is a 32-bit lane mask (int or 32-bit register), all lanes by default.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-bar-warp-sync
        """
        mask = mask32("bar.warp.sync membermask", membermask)
        emit_inst("bar", ("warp", "sync"), (mask,), pred)


class Bar:
    """``ptx.bar``: ``bar.sync``, ``bar.arrive``, ``bar.red.*`` and ``bar.warp.sync``.

    ``bar.sync`` means ``barrier.sync.aligned``: every thread of a warp executes it together.
    """

    def __init__(self) -> None:
        self.red = _RedOps("bar", _BarRed)
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
        _barrier("bar", "sync", barrier, count, pred, cta=cta)

    def arrive(
        self, barrier: object, count: object, *, cta: bool = False, pred: object = None
    ) -> None:
        """``bar{.cta}.arrive barrier, count;``: arrive at a named barrier without waiting.

        Arguments as for :meth:`sync`; PTX requires ``count`` for arrive.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-bar-barrier
        """
        _barrier("bar", "arrive", barrier, count, pred, cta=cta)


class Barrier:
    """``ptx.barrier``: ``sync``, ``arrive``, ``red.*`` (with ``aligned=``) and ``cluster``.

    ``ptx.barrier.cluster.arrive`` / ``wait`` are the cluster barriers of :mod:`._cluster`.
    """

    cluster: BarrierCluster

    def __init__(self) -> None:
        self.red = _RedOps("barrier", _BarrierRed)
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

        Without ``aligned=True`` threads of a warp may reach the barrier on different paths;
        ``aligned=True`` emits ``.aligned`` (all threads of a warp execute this same
        instruction). The other arguments are those of ``ptx.bar.sync``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-bar-barrier
        """
        _barrier("barrier", "sync", barrier, count, pred, cta=cta, aligned=aligned)

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
        _barrier("barrier", "arrive", barrier, count, pred, cta=cta, aligned=aligned)


bar = Bar()
"""``ptx.bar.sync(0)``, ``ptx.bar.arrive(1, 64)``, ``ptx.bar.red.popc(0, p)``,
``ptx.bar.warp.sync()``."""

barrier = Barrier()
"""``ptx.barrier.sync(1, 128, aligned=True)``, ``ptx.barrier.cluster.arrive()``."""


def membar(level: str, *, pred: object = None) -> None:
    """``membar.level;``: order this thread's memory accesses at ``cta``, ``gl`` or ``sys``.

    ``level`` is ``"cta"``, ``"gl"`` (the GPU) or ``"sys"``.

    See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-membar-fence
    """
    emit_inst("membar", words(level), (), pred)


class _ProxyTensormap:
    """``ptx.fence.proxy.tensormap_generic``: order tensor-map writes before TMA use."""

    def release(self, scope: str, *, pred: object = None) -> None:
        """Make generic-proxy writes of a tensor map visible to the tensor-map proxy.

        Emits ``fence.proxy.tensormap::generic.release.scope;`` (PTX 8.3, sm_90).

        ``scope`` is ``"cta"``, ``"cluster"``, ``"gpu"`` or ``"sys"``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-membar-fence
        """
        emit_inst("fence", ["proxy", "tensormap::generic", "release", *words(scope)], (), pred)

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
        a = address(f"{name} address", tensormap, space="generic")
        sz = integer(f"{name} size", size, reg=False)
        mods = ["proxy", "tensormap::generic", "acquire", *words(scope)]
        emit_inst("fence", mods, (a, sz), pred)


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

        ``space`` is ``None`` (all state spaces), ``"global"``, ``"shared::cta"`` or
        ``"shared::cluster"``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-membar-fence
        """
        emit_inst("fence", ["proxy", "async", *words(space)], (), pred)

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
                does not have (the ISA table's reason).

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-membar-fence
        """
        restrict = None if sync_restrict is None else f"sync_restrict::{sync_restrict}"
        emit_inst("fence", words(sem, restrict, scope), (), pred)

    def mbarrier_init(self, *, pred: object = None) -> None:
        """Make prior ``mbarrier.init`` visible to the other CTAs of the cluster (PTX 8.0, sm_90).

        Emits ``fence.mbarrier_init.release.cluster;``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-membar-fence
        """
        emit_inst("fence", ("mbarrier_init", "release", "cluster"), (), pred)

    # The seed system's spellings of three proxy fences, each the same single instruction.

    def proxy_async(self, *, pred: object = None) -> None:
        """``fence.proxy.async;``: the seed system's name for ``ptx.fence.proxy.async_()``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-membar-fence
        """
        self.proxy.async_(pred=pred)

    def proxy_async_shared_cta(self, *, pred: object = None) -> None:
        """``fence.proxy.async.shared::cta;``: ``ptx.fence.proxy.async_("shared::cta")``.

        The seed system's name. Orders this CTA's generic-proxy shared-memory accesses (an
        ``mbarrier.init``, data written by threads) before async-proxy ones (TMA, wgmma).

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-membar-fence
        """
        self.proxy.async_("shared::cta", pred=pred)

    def proxy_async_generic_acquire_shared_cluster(self, *, pred: object = None) -> None:
        """The seed system's name for ``ptx.fence.proxy.async_generic.acquire()``.

        Emits ``fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;``
        (PTX 8.6, sm_90).

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-membar-fence
        """
        self.proxy.async_generic.acquire(pred=pred)


fence = Fence()
"""``ptx.fence(scope, sem=...)``, ``ptx.fence.proxy.async_()``, ``ptx.fence.mbarrier_init()``
(also the seed system's ``ptx.fence.proxy_async*`` spellings)."""


def nanosleep(t: object, *, pred: object = None) -> None:
    """``nanosleep.u32 t;``: suspend the thread for about ``t`` nanoseconds (at most 1 ms).

    ``t`` is the duration, an int or a 32-bit register.

    See: https://docs.nvidia.com/cuda/parallel-thread-execution/#miscellaneous-instructions-nanosleep
    """
    emit_inst("nanosleep", ("u32",), (integer("nanosleep time", t),), pred)
