"""``ptx.tma``: 2-D and 3-D TMA loads, multicast loads and stores by (row, col) or coordinates.

Each call emits one ``cp.async.bulk.tensor`` through ``ptx.cp.async_.bulk.tensor`` (so the ISA
table checks it), plus, where the call asks for it, the instructions that compute a
coordinate or the multicast issuer predicate (listed in :data:`MULTI_INSTRUCTION`).

Coordinates: TMA names them innermost dimension first. ``coords=`` passes them as PTX
orders them; ``row=``/``col=`` are the matrix view of a row-major tensor:

* 2-D (a ``tma_rank=2`` tile): ``coords = (col, row)``.
* 3-D (a ``tma_rank=3`` tile, the ``(chunk, rows, cols / chunk)`` reshape the runtime
  builds for the Hopper GEMM): ``coords = (0, row, col / chunk)``; ``chunk`` is the
  elements of one swizzle span (64 bf16 for 128-byte swizzling). A register ``col`` is
  shifted right (``shr.u32``), so ``chunk`` must be a power of two.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyptx.ir import PtxType

from ..dsl.errors import PtxDslError
from ..dsl.kernel import TensorArg
from ..dsl.regs import Reg, from_
from ..dsl.special import special
from ._bulk import tensor

__all__ = ["Tma", "tma"]


def _desc(value: object) -> object:
    """The tensor-map register: ``value`` itself, or a TMA tensor argument's ``.tma_desc()``."""
    return value.tma_desc() if isinstance(value, TensorArg) else value


def _coords(
    what: str, rank: int, row: object, col: object, coords: Sequence[object] | None, chunk: int
) -> tuple[object, ...]:
    if coords is not None:
        if row is not None or col is not None:
            raise PtxDslError(f"{what} takes row=/col= or coords=, not both")
        if not isinstance(coords, (tuple, list)) or len(coords) != rank:
            raise PtxDslError(f"{what} expects coords= with {rank} coordinates, got {coords!r}")
        return tuple(coords)
    if row is None or col is None:
        raise PtxDslError(f"{what} needs row= and col=, or coords=(...)")
    if rank == 2:
        return (col, row)
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk <= 0 or chunk & (chunk - 1):
        raise PtxDslError(f"{what} needs chunk= a power of two, got {chunk!r}")
    if isinstance(col, int) and not isinstance(col, bool):
        if col % chunk:
            raise PtxDslError(f"{what}: col={col} is not a multiple of chunk={chunk}")
        return (0, row, col // chunk)
    if not isinstance(col, Reg):
        raise PtxDslError(f"{what} col must be an int or a 32-bit register, got {col!r}")
    return (0, row, col >> (chunk.bit_length() - 1))


def _issuer(what: str, issuer: object, pred: object) -> object:
    """The guard: ``pred``, or ``%cluster_ctarank == issuer`` for an int issuer."""
    if issuer is None:
        return pred
    if pred is not None:
        raise PtxDslError(f"{what} takes issuer= or pred=, not both")
    if isinstance(issuer, int) and not isinstance(issuer, bool):
        return from_(special.cluster_ctarank(), PtxType.U32) == issuer
    return issuer


class Tma:
    """``ptx.tma.load_2d`` / ``load_3d`` / ``load_*_multicast`` / ``store_2d`` / ``store_3d``."""

    def _load(
        self, rank: int, dst: object, src: object, row: object, col: object, mbar: object,
        coords: Sequence[object] | None, mask: object, issuer: object, chunk: int,
        cache_hint: object, pred: object,
    ) -> None:  # fmt: skip
        name = f"ptx.tma.load_{rank}d" + ("_multicast" if mask is not None else "")
        if mbar is None:
            raise PtxDslError(f"{name} needs mbar=, the barrier the copy completes")
        guard = _issuer(name, issuer, pred)
        c = _coords(name, rank, row, col, coords, chunk)
        desc = _desc(src)
        tensor(dst, desc, c, mbar, mode="tile", multicast=mask, cache_hint=cache_hint, pred=guard)

    def load_2d(
        self, dst: object, src: object, row: object = None, col: object = None,
        mbar: object = None, coords: Sequence[object] | None = None, *,
        cache_hint: object = None, pred: object = None,
    ) -> None:  # fmt: skip
        """TMA load of one box of a 2-D tensor into shared memory.

        Emits ``cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::
        bytes [dst], [src, {col, row}], [mbar];``.

        Args:
            dst: the shared destination (allocation, stage, address register, ``ptx.addr``).
            src: the tensor map: a register from ``A.tma_desc()``, or the TMA argument ``A``.
            row: the box's first row (int or 32-bit register).
            col: the box's first column (elements).
            mbar: the barrier whose transaction count the copy completes (``bars[i]``, a
                pipeline slot, or an address register).
            coords: ``(c0, c1)`` in PTX order instead of ``row``/``col``.
            cache_hint: a 64-bit L2 cache-policy register.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-tensor
        """
        self._load(2, dst, src, row, col, mbar, coords, None, None, 64, cache_hint, pred)

    def load_3d(
        self, dst: object, src: object, row: object = None, col: object = None,
        mbar: object = None, coords: Sequence[object] | None = None, *,
        chunk: int = 64, cache_hint: object = None, pred: object = None,
    ) -> None:  # fmt: skip
        """TMA load of one box of a 3-D tensor (``coords = (0, row, col / chunk)``).

        Emits ``[shr.u32 c, col, log2(chunk);]`` then ``cp.async.bulk.tensor.3d.shared::cluster
        .global.tile.mbarrier::complete_tx::bytes [dst], [src, {0, row, c}], [mbar];``.
        Arguments as for :meth:`load_2d`; ``chunk`` is the elements per swizzle span.
        """
        self._load(3, dst, src, row, col, mbar, coords, None, None, chunk, cache_hint, pred)

    def load_2d_multicast(
        self, dst: object, src: object, row: object = None, col: object = None,
        mbar: object = None, mask: object = None, coords: Sequence[object] | None = None, *,
        issuer: object = None, cache_hint: object = None, pred: object = None,
    ) -> None:  # fmt: skip
        """:meth:`load_2d` into every CTA of the cluster whose bit is set in ``mask``.

        Emits ``cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::
        bytes.multicast::cluster [dst], [src, {col, row}], [mbar], mask;``: the box lands at
        the same shared offset in each of those CTAs and completes the transaction count of
        each one's barrier at ``mbar``'s offset.

        Args:
            dst: the shared destination (the same offset in every CTA of the mask).
            src: the tensor map (register or TMA argument).
            row: the box's first row.
            col: the box's first column.
            mbar: the barrier (at the same offset in every CTA of the mask).
            mask: the 16-bit CTA mask (int or 16-bit register).
            coords: ``(c0, c1)`` instead of ``row``/``col``.
            issuer: only the CTA of this cluster rank issues the copy: an int (emits
                ``mov.u32 r, %cluster_ctarank; setp.eq.u32 p, r, issuer;``) or a predicate.
                Not together with ``pred``.
            cache_hint: a 64-bit L2 cache-policy register.
            pred: optional guard predicate.
        """
        if mask is None:
            raise PtxDslError("ptx.tma.load_2d_multicast needs mask=, the CTAs to copy into")
        self._load(2, dst, src, row, col, mbar, coords, mask, issuer, 64, cache_hint, pred)

    def load_3d_multicast(
        self, dst: object, src: object, row: object = None, col: object = None,
        mbar: object = None, mask: object = None, coords: Sequence[object] | None = None, *,
        issuer: object = None, chunk: int = 64, cache_hint: object = None, pred: object = None,
    ) -> None:  # fmt: skip
        """:meth:`load_3d` with multicast: arguments as for :meth:`load_2d_multicast`."""
        if mask is None:
            raise PtxDslError("ptx.tma.load_3d_multicast needs mask=, the CTAs to copy into")
        self._load(3, dst, src, row, col, mbar, coords, mask, issuer, chunk, cache_hint, pred)

    def _store(
        self, rank: int, dst: object, src: object, row: object, col: object,
        coords: Sequence[object] | None, chunk: int, cache_hint: object, pred: object,
    ) -> None:  # fmt: skip
        name = f"ptx.tma.store_{rank}d"
        c = _coords(name, rank, row, col, coords, chunk)
        tensor.store(_desc(dst), c, src, mode="tile", cache_hint=cache_hint, pred=pred)

    def store_2d(
        self, dst: object, src: object, row: object = None, col: object = None,
        coords: Sequence[object] | None = None, *, cache_hint: object = None, pred: object = None,
    ) -> None:  # fmt: skip
        """TMA store of a shared-memory box into a 2-D tensor.

        Emits ``cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [dst, {col, row}],
        [src];``. Make the threads' shared-memory writes visible to the async proxy first
        (``ptx.fence.proxy.async_("shared::cta")`` + a barrier), and track completion with
        ``ptx.cp.async_.bulk.commit_group()`` / ``wait_group``.

        Args:
            dst: the tensor map (register or TMA argument).
            src: the shared source.
            row: the box's first row.
            col: the box's first column.
            coords: ``(c0, c1)`` instead of ``row``/``col``.
            cache_hint: a 64-bit L2 cache-policy register.
            pred: optional guard predicate.
        """
        self._store(2, dst, src, row, col, coords, 64, cache_hint, pred)

    def store_3d(
        self, dst: object, src: object, row: object = None, col: object = None,
        coords: Sequence[object] | None = None, *,
        chunk: int = 64, cache_hint: object = None, pred: object = None,
    ) -> None:  # fmt: skip
        """TMA store into a 3-D tensor (``coords = (0, row, col / chunk)``).

        Emits ``[shr.u32 c, col, log2(chunk);] cp.async.bulk.tensor.3d.global.shared::cta.tile
        .bulk_group [dst, {0, row, c}], [src];``; arguments as for :meth:`store_2d`.
        """
        self._store(3, dst, src, row, col, coords, chunk, cache_hint, pred)


tma = Tma()
"""``ptx.tma.load_2d(dst=sA[0], src=desc, row=m0, col=k0, mbar=bar)`` and friends."""

MULTI_INSTRUCTION: dict[str, str] = {
    "ptx.tma.load_3d, store_3d (register col)": "shr.u32 c, col, log2(chunk); "
    "cp.async.bulk.tensor.3d...",
    "ptx.tma.load_*_multicast (int issuer)": "mov.u32 r, %cluster_ctarank; "
    "setp.eq.u32 p, r, issuer; @p cp.async.bulk.tensor....multicast::cluster ...",
}
"""The TMA helpers' extra instructions (every other call is one ``cp.async.bulk.tensor``)."""
