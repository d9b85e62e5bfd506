"""``ptx.cp``: Ampere-style ``cp.async`` copies, their groups and mbarrier hand-off.

``ptx.cp.async_.ca`` / ``.cg`` (global to shared, 4/8/16 bytes), ``.commit_group``,
``.wait_group``, ``.wait_all``, ``.mbarrier.arrive``; the bulk (TMA) copies of
:mod:`pyptx.ptx._bulk` hang off the same namespace as ``ptx.cp.async_.bulk`` and
``ptx.cp.reduce.async_.bulk``. Every call emits exactly one instruction and takes ``pred=``,
an optional guard predicate.
"""

from __future__ import annotations

from ..dsl.operands import emit_inst
from ._bulk import Bulk, bulk
from ._bulk_reduce import reduce_async
from ._memory import slot
from ._sync_operands import address, choice, flag, integer, pick, predicate

__all__ = ["cp"]

_Opts = tuple[object, object, object, object, object, object]


class _CpAsyncMbarrier:
    """``ptx.cp.async_.mbarrier``: hand the completion of prior ``cp.async`` to an mbarrier."""

    def arrive(
        self, bar: object, *, noinc: bool = False, space: str | None = "shared", pred: object = None
    ) -> None:
        """Arrive on ``bar`` once all prior ``cp.async`` of this thread complete.

        Emits ``cp.async.mbarrier.arrive{.noinc}{.space}.b64 [bar];``.

        Args:
            bar: the mbarrier (``smem.mbarrier(n)[i]`` or an address register).
            noinc: emit ``.noinc`` (the arrival is counted in the barrier's init count, so the
                pending count is not incremented first).
            space: ``"shared"``, ``"shared::cta"`` or ``None`` (generic address).
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-mbarrier-arrive
        """
        name = "cp.async.mbarrier.arrive"
        sp = choice(f"{name} space", space, (*slot(name, "space"), None))
        b = address(f"{name} barrier", bar, space="generic" if sp is None else "shared")
        mods = ["async", "mbarrier", "arrive", "noinc" if flag(f"{name} noinc=", noinc) else None]
        emit_inst("cp", [m for m in (*mods, sp, "b64") if m], (b,), pred)


class CpAsync:
    """``ptx.cp.async_`` (``async`` is a Python keyword): ``ca``, ``cg``, groups, ``bulk``."""

    bulk: Bulk

    def __init__(self) -> None:
        self.bulk = bulk
        self.mbarrier = _CpAsyncMbarrier()

    def _copy(self, cache: str, dst: object, src: object, size: object, opts: _Opts) -> None:
        """Emit ``cp.async.<cache>``; ``opts`` are the keywords of :meth:`ca`, in order."""
        src_size, ignore_src, cache_hint, prefetch, space, pred = opts
        name = f"cp.async.{cache}"
        sp = pick(f"{name} space", space, slot("cp.async", "dst"))
        sizes_l2 = tuple(v.removeprefix("L2::") for v in slot("cp.async", "prefetch_size"))
        pf = choice(f"{name} prefetch", prefetch, (None, *sizes_l2))
        ops: list[object] = [address(f"{name} destination", dst)]
        ops += [address(f"{name} source", src, space="global"), integer(f"{name} size", size)]
        if src_size is not None:  # at most ``size`` bytes: a rule between two operands
            high = size if isinstance(size, int) else None
            ops.append(integer(f"{name} src_size", src_size, low=0, high=high))
        if ignore_src is not None:
            ops.append(predicate(f"{name} ignore_src", ignore_src))
        hint = "L2::cache_hint" if cache_hint is not None else None
        ops += [] if cache_hint is None else [cache_hint]
        mods = [m for m in ("async", cache, sp, "global", hint, pf and f"L2::{pf}") if m]
        emit_inst("cp", mods, ops, pred)

    def ca(
        self, dst: object, src: object, size: int, *,
        src_size: object = None, ignore_src: object = None, cache_hint: object = None,
        prefetch: str | None = None, space: str = "shared", pred: object = None,
    ) -> None:  # fmt: skip
        """Copy 4, 8 or 16 bytes from global to shared memory, caching at all levels (sm_80).

        Emits ``cp.async.ca.space.global{.L2::cache_hint}{.L2::NB} [dst], [src], size{, src_size | ,
        ignore_src}{, policy};``.

        Args:
            dst: destination in shared memory (allocation, stage, ``ptx.addr`` or register).
            src: global address (64-bit register or ``ptx.addr``).
            size: 4, 8 or 16.
            src_size: bytes actually read (the rest is zero-filled; int or 32-bit register).
            ignore_src: a predicate (or ``~p``): when true, write zeros instead of reading.
            cache_hint: a 64-bit L2 cache-policy register.
            prefetch: ``"64B"``, ``"128B"`` or ``"256B"`` L2 prefetch size.
            space: ``"shared"`` or ``"shared::cta"`` (PTX 7.8).
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async
        """
        self._copy("ca", dst, src, size, (src_size, ignore_src, cache_hint, prefetch, space, pred))

    def cg(
        self, dst: object, src: object, size: int = 16, *,
        src_size: object = None, ignore_src: object = None, cache_hint: object = None,
        prefetch: str | None = None, space: str = "shared", pred: object = None,
    ) -> None:  # fmt: skip
        """Copy 16 bytes from global to shared memory, caching in L2 only (sm_80).

        Emits ``cp.async.cg.space.global{.L2::cache_hint}{.L2::NB} [dst], [src], 16{, src_size
        | , ignore_src}{, policy};``. Arguments as for :meth:`ca`; ``size`` must be 16.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async
        """
        self._copy("cg", dst, src, size, (src_size, ignore_src, cache_hint, prefetch, space, pred))

    def commit_group(self, *, pred: object = None) -> None:
        """``cp.async.commit_group;``: close this thread's pending ``cp.async`` into a group.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-commit-group
        """
        emit_inst("cp", ("async", "commit_group"), (), pred)

    def wait_group(self, n: int, *, pred: object = None) -> None:
        """``cp.async.wait_group n;``: wait until at most ``n`` of the newest groups are pending.

        ``n`` is a Python int (an immediate in PTX).

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-wait-group
        """
        k = integer("cp.async.wait_group count", n, reg=False)
        emit_inst("cp", ("async", "wait_group"), (k,), pred)

    def wait_all(self, *, pred: object = None) -> None:
        """``cp.async.wait_all;``: wait for every pending ``cp.async`` of this thread.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-wait-group
        """
        emit_inst("cp", ("async", "wait_all"), (), pred)


class _CpReduce:
    """``ptx.cp.reduce``: reaches ``ptx.cp.reduce.async_.bulk.tensor``."""

    async_ = reduce_async


class Cp:
    """``ptx.cp``: ``ptx.cp.async_`` and ``ptx.cp.reduce``."""

    async_, reduce = CpAsync(), _CpReduce()


cp = Cp()
"""``ptx.cp.async_.cg(sA[0], src, 16)``, ``ptx.cp.async_.bulk.tensor(...)``."""
