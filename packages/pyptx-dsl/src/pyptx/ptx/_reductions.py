"""Warp and block reductions built from ``shfl.sync``, shared memory and ``bar.sync``.

* ``ptx.warp.reduce_sum`` / ``reduce_max`` / ``reduce_min`` reduce a register *in place*
  over each ``width``-lane group of a warp (the spelling kernels written for the seed system
  use); ``ptx.warp_reduce_*`` (:mod:`pyptx.ptx._warp`) are the same butterflies into fresh
  registers.
* ``ptx.block_reduce_sum`` / ``block_reduce_max`` / ``block_reduce_min`` reduce a register
  over the whole CTA and give every thread the result.

Every instruction goes through a typed ``ptx.*`` wrapper, so the ISA table judges each one
(types, target, PTX version). The exact sequences are in :data:`MULTI_INSTRUCTION`.
"""

from __future__ import annotations

from typing import Protocol

from pyptx.ir import PtxType

from ..dsl.errors import PtxDslError
from ..dsl.operands import addr
from ..dsl.regs import Reg, _new, from_
from ..dsl.shared import SharedAlloc, SharedSlice, base
from ..dsl.special import special
from ._arith import mad
from ._memory import ld, st
from ._sync import bar
from ._warp import butterfly, warp_reduce_max, warp_reduce_min, warp_reduce_sum

__all__ = ["block_reduce_max", "block_reduce_min", "block_reduce_sum", "warp"]

_WIDTHS = (2, 4, 8, 16, 32)
_OP = {"sum": "add", "max": "max", "min": "min"}
"""Each reduction's combining instruction."""


def _in_place(what: str, value: Reg, width: int, membermask: object) -> Reg:
    """The butterfly into ``value`` itself: ``shfl`` into one scratch register, then combine."""
    name = f"ptx.warp.reduce_{what}"
    if not isinstance(value, Reg) or value.type.bits != 32:
        raise PtxDslError(f"{name} reduces a 32-bit register in place, but got {value!r}")
    return butterfly(name, _OP[what], value, width, membermask, in_place=True)


class Warp:
    """``ptx.warp``: in-place warp reductions (``ptx.warp.reduce_sum(v, width=4)``)."""

    def reduce_sum(self, value: Reg, *, width: int = 32, membermask: object = -1) -> Reg:
        """Sum ``value`` over each ``width``-lane group of the warp, in place.

        Emits, for ``off`` = ``width/2``, ..., 2, 1 (five pairs for a full warp)::

            shfl.sync.bfly.b32 t, v, off, ((32 - width) << 8) | 31, membermask;
            add.<type> v, v, t;

        with one scratch register ``t``. Afterwards every lane of a group holds the group's
        total in ``value``. For a fresh result register use ``ptx.warp_reduce_sum``.

        Args:
            value: a 32-bit register (``f32``, ``u32``, ``s32``, ``f16x2``, ...), overwritten.
            width: lanes per group: 2, 4, 8, 16 or 32 (4 is a row of an mma/wgmma
                accumulator fragment).
            membermask: the participating lanes (``-1`` for all).

        Returns:
            ``value``.

        PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-shfl-sync
        """
        return _in_place("sum", value, width, membermask)

    def reduce_max(self, value: Reg, *, width: int = 32, membermask: object = -1) -> Reg:
        """Maximum of ``value`` over each ``width``-lane group, in place.

        Emits ``log2(width)`` pairs ``shfl.sync.bfly.b32 t, v, off, c, membermask;
        max.<type> v, v, t;``, as :meth:`reduce_sum` does with ``add``.

        Returns:
            ``value``.
        """
        return _in_place("max", value, width, membermask)

    def reduce_min(self, value: Reg, *, width: int = 32, membermask: object = -1) -> Reg:
        """Minimum of ``value`` over each ``width``-lane group, in place.

        Emits ``log2(width)`` pairs ``shfl.sync.bfly.b32 t, v, off, c, membermask;
        min.<type> v, v, t;``, as :meth:`reduce_sum` does with ``add``.

        Returns:
            ``value``.
        """
        return _in_place("min", value, width, membermask)


warp = Warp()
"""``ptx.warp.reduce_sum(v)``, ``ptx.warp.reduce_max(v, width=4)``: in-place reductions."""


class _WarpReduce(Protocol):
    def __call__(self, value: Reg, *, width: int = 32, membermask: object = -1) -> Reg: ...


_FRESH: dict[str, _WarpReduce] = {
    "sum": warp_reduce_sum,
    "max": warp_reduce_max,
    "min": warp_reduce_min,
}


def _scratch_base(name: str, scratch: object, warps: int) -> Reg:
    """A ``u32`` register with the scratch buffer's shared address (``mov`` for an allocation)."""
    if isinstance(scratch, Reg):
        if scratch.type.bits != 32:
            raise PtxDslError(f"{name} scratch register must be a 32-bit shared address")
        return scratch
    if isinstance(scratch, SharedSlice):
        raise PtxDslError(f"{name} takes the whole scratch allocation, not a stage of it")
    if not isinstance(scratch, SharedAlloc):
        raise PtxDslError(
            f"{name} needs scratch= a shared allocation (smem.alloc(f32, warps)) or a u32 "
            f"shared address register, got {type(scratch).__name__}"
        )
    if scratch.nbytes < 4 * warps:
        raise PtxDslError(
            f"{name} needs {4 * warps} bytes of scratch for {warps} warps, but "
            f"{scratch.name} has {scratch.nbytes}"
        )
    return base(scratch)


def _block(
    what: str,
    value: Reg,
    scratch: object,
    warps: int,
    tid: Reg | None,
    barrier: object,
    threads: object,
) -> Reg:
    name = f"ptx.block_reduce_{what}"
    if not isinstance(value, Reg) or value.type.bits != 32:
        raise PtxDslError(f"{name} reduces a 32-bit register, but got {value!r}")
    if isinstance(warps, bool) or warps not in (1, *_WIDTHS):
        raise PtxDslError(
            f"{name} needs warps= the CTA's warp count, a power of two from 1 to 32, got {warps!r}"
        )
    partial = _FRESH[what](value)
    if warps == 1:
        return partial
    t = tid if tid is not None else from_(special.tid.x(), PtxType.U32)
    lane, wid = t & 31, t >> 5
    base_reg = _scratch_base(name, scratch, warps)
    slot = _new(PtxType.U32)
    mad(slot, wid, 4, base_reg, mode="lo")
    st(addr(slot), partial, space="shared", pred=lane == 0)
    bar.sync(barrier, threads)
    # Every warp reads the warps' partials back (lane l reads partial l mod warps) and
    # reduces them itself: no second barrier, no broadcast through shared memory.
    mine = _new(PtxType.U32)
    mad(mine, lane & (warps - 1), 4, base_reg, mode="lo")
    gathered = _new(value.type)
    ld(gathered, addr(mine), space="shared")
    return _FRESH[what](gathered, width=warps)


class _BlockReduce(Protocol):
    def __call__(
        self,
        value: Reg,
        scratch: object,
        *,
        warps: int,
        tid: Reg | None = None,
        barrier: object = 0,
        threads: object = None,
    ) -> Reg: ...


def _block_reducer(what: str, doc: str) -> _BlockReduce:
    def reduce(
        value: Reg,
        scratch: object,
        *,
        warps: int,
        tid: Reg | None = None,
        barrier: object = 0,
        threads: object = None,
    ) -> Reg:
        return _block(what, value, scratch, warps, tid, barrier, threads)

    reduce.__name__ = reduce.__qualname__ = f"block_reduce_{what}"
    reduce.__doc__ = doc
    return reduce


_BLOCK_DOC = """{summary} over the whole CTA; every thread gets the result (a helper).

    Emits the warp butterfly of ``ptx.warp_reduce_{what}`` (5 ``shfl.sync.bfly`` + ``{op}``
    pairs), then, with ``warps`` > 1::

        [mov.u32 tid, %tid.x;]                       (without tid=)
        and.b32 lane, tid, 31;  shr.u32 w, tid, 5;
        [mov.u32 s, scratch;]                        (for an allocation)
        mad.lo.u32 a, w, 4, s;
        setp.eq.u32 p, lane, 0;  @p st.shared.<type> [a], partial;
        bar.sync barrier{{, threads}};
        and.b32 l, lane, warps-1;  mad.lo.u32 b, l, 4, s;
        ld.shared.<type> x, [b];
        log2(warps) shfl.sync.bfly + {op} pairs over groups of ``warps`` lanes.

    Lane 0 of each warp writes its warp's result to ``scratch[warp]``; after the barrier
    every warp reduces the ``warps`` partials itself, so no second barrier is needed. Reusing
    the same scratch for another reduction needs a barrier in between (a warp still reading
    the first partials would see the second ones); a second scratch buffer avoids it.

    Args:
        value: a 32-bit register (``f32``, ``u32``, ``s32``, ...); not changed.
        scratch: shared memory for ``warps`` 32-bit values: an allocation
            (``smem.alloc(f32, warps)``) or a ``u32`` shared address register.
        warps: warps in the CTA (threads / 32), a power of two from 1 to 32; with 1 only
            the warp butterfly is emitted.
        tid: a ``u32`` register holding ``%tid.x`` (default: read it here).
        barrier: the ``bar.sync`` barrier number (0 is ``__syncthreads``).
        threads: the thread count for ``bar.sync`` (default: all threads of the CTA).

    Returns:
        A new register with the CTA's {result}, the same in every thread.

    Raises:
        PtxDslError: ``warps`` is not a power of two up to 32, the scratch is too small, or
            ``value`` is not a 32-bit register.
"""

block_reduce_sum = _block_reducer(
    "sum", _BLOCK_DOC.format(summary="Sum ``value``", what="sum", op="add", result="sum")
)
block_reduce_max = _block_reducer(
    "max", _BLOCK_DOC.format(summary="Maximum of ``value``", what="max", op="max", result="max")
)
block_reduce_min = _block_reducer(
    "min", _BLOCK_DOC.format(summary="Minimum of ``value``", what="min", op="min", result="min")
)


_IN_PLACE = (
    "shfl.sync.bfly.b32 t, v, off, ((32-width)<<8)|31, membermask; {op}.<type> v, v, t "
    "(one scratch t, the result in v itself), for off = width/2 down to 1"
)
_BLOCK = (
    "ptx.warp_reduce_{what} (5 pairs); with warps > 1: [mov.u32 tid, %tid.x;] and.b32 lane, "
    "tid, 31; shr.u32 w, tid, 5; [mov.u32 s, scratch;] mad.lo.u32 a, w, 4, s; setp.eq.u32 p, "
    "lane, 0; @p st.shared [a], partial; bar.sync barrier[, threads]; and.b32 l, lane, "
    "warps-1; mad.lo.u32 b, l, 4, s; ld.shared x, [b]; log2(warps) shfl.sync.bfly + {op} pairs"
)


MULTI_INSTRUCTION: dict[str, str] = {
    **{f"ptx.warp.reduce_{w}": _IN_PLACE.format(op=o) for w, o in _OP.items()},
    **{f"ptx.block_reduce_{w}": _BLOCK.format(what=w, op=o) for w, o in _OP.items()},
}
"""The reduction helpers and the exact instructions each emits."""
