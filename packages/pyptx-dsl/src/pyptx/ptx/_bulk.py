"""Bulk asynchronous copies (TMA): ``cp.async.bulk``, ``.tensor``, ``.prefetch``, groups.

Reached as ``ptx.cp.async_.bulk`` (the ``ptx.cp`` namespace is assembled in
:mod:`pyptx.ptx._cp_async`; the reductions ``ptx.cp.reduce.async_.bulk`` live in
:mod:`pyptx.ptx._bulk_reduce`). This family also exports ``ptx.tensormap``
(:mod:`pyptx.ptx._bulk_tensormap`). Every call emits exactly one instruction.

Operands: shared memory is a shared allocation, a stage (``sA[0]``), ``ptx.addr(...)`` or an
address register; a barrier is ``smem.mbarrier(n)[i]`` or an address register; a tensor map is
the 64-bit register from ``A.tma_desc()``; coordinates are ints or 32-bit registers.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..dsl.errors import PtxDslError
from ..dsl.operands import emit_inst
from ._bulk_tensormap import tensormap
from ._sync_operands import (
    address,
    cache_policy,
    choice,
    flag,
    int_operand,
    pick,
    spell,
    tensor_address,
    vector16,
)

__all__ = ["tensormap"]

_COMPLETE_TX = "mbarrier::complete_tx::bytes"
_LOAD_MODES = (None, "tile", "tile::gather4", "im2col", "im2col::w", "im2col::w::128")
_STORE_MODES = (None, "tile", "tile::scatter4", "im2col_no_offs")


def _dim(name: str, coords: object, mode: str | None) -> int:
    """The tensor rank: 2 for the gather4/scatter4 modes (five coordinates), else the count."""
    if mode in ("tile::gather4", "tile::scatter4"):
        return 2
    if not isinstance(coords, (tuple, list)) or not 1 <= len(coords) <= 5:
        raise PtxDslError(
            f"{name} takes 1 to 5 tensor coordinates (ints or 32-bit registers) as a tuple, but "
            f"got {spell(coords)}"
        )
    return len(coords)


def _coords(name: str, desc: object, coords: object, dim: int, mode: str | None) -> object:
    count = 5 if mode in ("tile::gather4", "tile::scatter4") else dim
    return tensor_address(name, desc, coords, count)


def _im2col(name: str, mode: str | None, dim: int, im2col: object) -> list[object]:
    """The optional ``im2colInfo`` operand: offsets for im2col, (wHalo, wOffset) for im2col::w."""
    if mode is None or not mode.startswith("im2col") or mode == "im2col_no_offs":
        if im2col is not None:
            raise PtxDslError(
                f"{name} takes im2col= only with mode='im2col', 'im2col::w' or 'im2col::w::128', "
                f"but the mode is {mode!r}"
            )
        return []
    if dim < 3:
        raise PtxDslError(f"{name} mode {mode!r} needs a 3d to 5d tensor, but got {dim}d")
    if im2col is None:
        what = f"a tuple of {dim - 2} 16-bit offsets" if mode == "im2col" else "(w_halo, w_offset)"
        raise PtxDslError(f"{name} mode {mode!r} needs im2col= {what}, but got none")
    count = dim - 2 if mode == "im2col" else 2
    return [vector16(f"{name} im2col", im2col, count)]


def _cache(name: str, cache_hint: object, mods: list[str], ops: list[object]) -> None:
    if cache_hint is not None:
        mods.append("L2::cache_hint")
        ops.append(cache_policy(f"{name} cache_hint", cache_hint))


def _mask16(name: str, value: object) -> object:
    return int_operand(f"{name} ctaMask", value, bits=(16,), high=0xFFFF)


class BulkTensor:
    """``ptx.cp.async_.bulk.tensor``: TMA tensor copies (call it to load; ``.store`` to store)."""

    def __call__(
        self,
        dst: object,
        desc: object,
        coords: Sequence[object],
        mbar: object,
        *,
        dst_space: str = "shared::cluster",
        mode: str | None = None,
        im2col: Sequence[object] | None = None,
        multicast: object = None,
        cta_group: int | None = None,
        cache_hint: object = None,
        pred: object = None,
    ) -> None:
        """Load a box of a tensor from global memory into shared memory (one instruction).

        Emits::

            cp.async.bulk.tensor.Nd.dst_space.global{.mode}.mbarrier::complete_tx::bytes
                {.multicast::cluster}{.cta_group::K}{.L2::cache_hint}
                [dst], [desc, {c0, ...}], [mbar]{, im2col}{, ctaMask}{, policy};

        Args:
            dst: destination in shared memory.
            desc: the tensor map register (``A.tma_desc()``).
            coords: 1 to 5 box coordinates (5 for ``tile::gather4``: a column and 4 rows).
            mbar: the barrier whose transaction count the copy completes.
            dst_space: ``"shared::cluster"`` (sm_90) or ``"shared::cta"`` (PTX 8.6).
            mode: ``None`` (PTX default tile), ``"tile"``, ``"tile::gather4"``, ``"im2col"``,
                ``"im2col::w"`` or ``"im2col::w::128"``.
            im2col: the im2col offsets (``dims - 2`` 16-bit values) for ``"im2col"``, or
                ``(w_halo, w_offset)`` for the ``im2col::w`` modes.
            multicast: a 16-bit CTA mask: copy into every CTA of the cluster set in it.
            cta_group: ``1`` or ``2`` (sm_100a): the CTA pair whose barrier is signalled.
            cache_hint: a 64-bit L2 cache-policy register.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-tensor
        """
        name = "cp.async.bulk.tensor"
        ds = pick(f"{name} dst_space", dst_space, ("shared::cluster", "shared::cta"))
        md = choice(f"{name} mode", mode, _LOAD_MODES)
        dim = _dim(name, coords, md)
        ops: list[object] = [
            address(f"{name} destination", dst),
            _coords(name, desc, coords, dim, md),
            address(f"{name} mbarrier", mbar),
            *_im2col(name, md, dim, im2col),
        ]
        mods = ["async", "bulk", "tensor", f"{dim}d", ds, "global"]
        if md:
            mods.append(md)
        mods.append(_COMPLETE_TX)
        if multicast is not None:
            if ds != "shared::cluster":
                raise PtxDslError(
                    f"{name} multicast= needs dst_space='shared::cluster', but got {ds!r}"
                )
            mods.append("multicast::cluster")
            ops.append(_mask16(name, multicast))
        cg = choice(f"{name} cta_group", cta_group, (None, 1, 2))
        if cg is not None:
            mods.append(f"cta_group::{cg}")
        _cache(name, cache_hint, mods, ops)
        emit_inst("cp", mods, ops, pred)

    def store(
        self,
        desc: object,
        coords: Sequence[object],
        src: object,
        *,
        mode: str | None = None,
        cache_hint: object = None,
        pred: object = None,
    ) -> None:
        """Store a box of shared memory into a global tensor (one instruction).

        Emits::

            cp.async.bulk.tensor.Nd.global.shared::cta{.mode}.bulk_group{.L2::cache_hint}
                [desc, {c0, ...}], [src]{, policy};

        Track completion with ``cp.async.bulk.commit_group`` / ``wait_group``.

        Args:
            desc: the tensor map register (``A.tma_desc()``).
            coords: 1 to 5 box coordinates (5 for ``tile::scatter4``).
            src: source in shared memory.
            mode: ``None``, ``"tile"``, ``"tile::scatter4"`` or ``"im2col_no_offs"``.
            cache_hint: a 64-bit L2 cache-policy register.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-tensor
        """
        name = "cp.async.bulk.tensor (store)"
        md = choice(f"{name} mode", mode, _STORE_MODES)
        dim = _dim(name, coords, md)
        if md == "im2col_no_offs" and dim < 3:
            raise PtxDslError(f"{name} mode 'im2col_no_offs' needs a 3d to 5d tensor, got {dim}d")
        ops: list[object] = [
            _coords(name, desc, coords, dim, md),
            address(f"{name} source", src),
        ]
        mods = ["async", "bulk", "tensor", f"{dim}d", "global", "shared::cta"]
        if md:
            mods.append(md)
        mods.append("bulk_group")
        _cache(name, cache_hint, mods, ops)
        emit_inst("cp", mods, ops, pred)


class _TensorNd:
    """The keyword spelling of :class:`BulkTensor`, with the rank in the name.

    ``ptx.cp.async_.bulk.tensor_2d(dst=..., src=..., coord=..., mbar=...)`` and ``.store(...)``.
    """

    def __init__(self, dim: int) -> None:
        self._dim = dim

    def _check(self, coord: object) -> Sequence[object]:
        if not isinstance(coord, (tuple, list)) or len(coord) != self._dim:
            raise PtxDslError(
                f"cp.async.bulk.tensor_{self._dim}d expects coord= with {self._dim} coordinates, "
                f"but got {spell(coord)}"
            )
        return coord

    def __call__(
        self,
        *,
        dst: object,
        src: object,
        coord: Sequence[object],
        mbar: object,
        multicast_mask: object = None,
        cta_group: int | None = None,
        cache_hint: object = None,
        dst_space: str = "shared::cluster",
        mode: str | None = None,
        im2col: Sequence[object] | None = None,
        pred: object = None,
    ) -> None:
        """The same load as ``ptx.cp.async_.bulk.tensor(dst, src, coord, mbar, ...)``.

        Emits ``cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes ...``.

        Args:
            dst: destination in shared memory.
            src: the tensor map register (``A.tma_desc()``).
            coord: exactly N coordinates.
            mbar: the completion barrier.
            multicast_mask: 16-bit CTA mask for ``.multicast::cluster``.
            cta_group: ``1`` or ``2`` (sm_100a).
            cache_hint: 64-bit L2 cache-policy register.
            dst_space: ``"shared::cluster"`` or ``"shared::cta"``.
            mode: load mode, as for ``ptx.cp.async_.bulk.tensor``.
            im2col: im2col offsets, as for ``ptx.cp.async_.bulk.tensor``.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-tensor
        """
        tensor(
            dst,
            src,
            self._check(coord),
            mbar,
            dst_space=dst_space,
            mode=mode,
            im2col=im2col,
            multicast=multicast_mask,
            cta_group=cta_group,
            cache_hint=cache_hint,
            pred=pred,
        )

    def store(
        self,
        *,
        dst: object,
        src: object,
        coord: Sequence[object],
        mode: str | None = None,
        cache_hint: object = None,
        pred: object = None,
    ) -> None:
        """``cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group [dst, {coord}], [src];``.

        Args:
            dst: the tensor map register (``A.tma_desc()``).
            src: source in shared memory.
            coord: exactly N coordinates.
            mode: store mode, as for ``ptx.cp.async_.bulk.tensor.store``.
            cache_hint: 64-bit L2 cache-policy register.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-tensor
        """
        tensor.store(dst, self._check(coord), src, mode=mode, cache_hint=cache_hint, pred=pred)


tensor = BulkTensor()


class BulkPrefetch:
    """``ptx.cp.async_.bulk.prefetch``: prefetch global memory into L2 (``.tensor`` for a box)."""

    def __call__(
        self, src: object, size: object, *, cache_hint: object = None, pred: object = None
    ) -> None:
        """``cp.async.bulk.prefetch.L2.global{.L2::cache_hint} [src], size{, policy};``.

        Args:
            src: global address (64-bit register or ``ptx.addr``), 16-byte aligned.
            size: bytes, a multiple of 16 (int or 32-bit register).
            cache_hint: a 64-bit L2 cache-policy register.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-prefetch
        """
        name = "cp.async.bulk.prefetch"
        ops: list[object] = [address(f"{name} source", src, space="global"), _size(name, size)]
        mods = ["async", "bulk", "prefetch", "L2", "global"]
        _cache(name, cache_hint, mods, ops)
        emit_inst("cp", mods, ops, pred)

    def tensor(
        self,
        desc: object,
        coords: Sequence[object],
        *,
        mode: str | None = None,
        im2col: Sequence[object] | None = None,
        cache_hint: object = None,
        pred: object = None,
    ) -> None:
        """Prefetch a tensor box into L2.

        Emits ``cp.async.bulk.prefetch.tensor.Nd.L2.global{.mode}{.L2::cache_hint} [desc, {c0,
        ...}]{, im2col}{, policy};``.

        Args:
            desc: the tensor map register (``A.tma_desc()``).
            coords: 1 to 5 coordinates (5 for ``tile::gather4``).
            mode: as for the tensor load.
            im2col: im2col offsets or ``(w_halo, w_offset)``, as for the tensor load.
            cache_hint: a 64-bit L2 cache-policy register.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-prefetch-tensor
        """
        name = "cp.async.bulk.prefetch.tensor"
        md = choice(f"{name} mode", mode, _LOAD_MODES)
        dim = _dim(name, coords, md)
        ops = [_coords(name, desc, coords, dim, md), *_im2col(name, md, dim, im2col)]
        mods = ["async", "bulk", "prefetch", "tensor", f"{dim}d", "L2", "global"]
        if md:
            mods.append(md)
        _cache(name, cache_hint, mods, ops)
        emit_inst("cp", mods, ops, pred)


def _size(name: str, size: object) -> object:
    n = int_operand(f"{name} size", size, low=16, high=0xFFFFFFFF)
    if isinstance(n, int) and n % 16:
        raise PtxDslError(f"{name} size must be a multiple of 16 bytes, but got {n}")
    return n


_DIRECTIONS = {
    ("shared::cta", "global"): "mbarrier",
    ("shared::cluster", "global"): "mbarrier",
    ("shared::cluster", "shared::cta"): "mbarrier",
    ("global", "shared::cta"): "bulk_group",
}


class Bulk:
    """``ptx.cp.async_.bulk``: call it for a non-tensor bulk copy.

    Also ``.tensor``, ``.prefetch``, ``.commit_group``, ``.wait_group`` and ``.tensor_1d`` ..
    ``.tensor_5d``.
    """

    def __init__(self) -> None:
        self.tensor = tensor
        self.prefetch = BulkPrefetch()
        self.tensor_1d = _TensorNd(1)
        self.tensor_2d = _TensorNd(2)
        self.tensor_3d = _TensorNd(3)
        self.tensor_4d = _TensorNd(4)
        self.tensor_5d = _TensorNd(5)

    def __call__(
        self,
        dst: object,
        src: object,
        size: object,
        *,
        mbar: object = None,
        dst_space: str = "shared::cluster",
        src_space: str = "global",
        multicast: object = None,
        cache_hint: object = None,
        byte_mask: object = None,
        pred: object = None,
    ) -> None:
        """A contiguous bulk copy (one instruction).

        Into shared memory::

            cp.async.bulk.dst_space.src_space.mbarrier::complete_tx::bytes{.multicast::cluster}
                {.L2::cache_hint} [dst], [src], size, [mbar]{, ctaMask}{, policy};

        and from shared memory to global::

            cp.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}{.cp_mask}
                [dst], [src], size{, policy}{, byteMask};

        Args:
            dst: destination address.
            src: source address.
            size: bytes, a multiple of 16 (int or 32-bit register).
            mbar: the completion barrier (required unless the destination is global).
            dst_space: ``"shared::cluster"``, ``"shared::cta"`` (PTX 8.6) or ``"global"``.
            src_space: ``"global"`` or ``"shared::cta"``. The pairs PTX has: global to
                shared::cta / shared::cluster, shared::cta to shared::cluster and to global.
            multicast: a 16-bit CTA mask (global to shared::cluster only).
            cache_hint: a 64-bit L2 cache-policy register (not for shared to shared).
            byte_mask: a 16-bit mask of the bytes of each 16 written (``.cp_mask``, sm_100,
                shared::cta to global only).
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk
        """
        name = "cp.async.bulk"
        ds = pick(f"{name} dst_space", dst_space, ("shared::cluster", "shared::cta", "global"))
        ss = pick(f"{name} src_space", src_space, ("global", "shared::cta"))
        kind = _DIRECTIONS.get((ds, ss))
        if kind is None:
            pairs = ", ".join(f"{s} -> {d}" for d, s in _DIRECTIONS)
            raise PtxDslError(f"{name} copies {pairs}, but got {ss} -> {ds}")
        ops: list[object] = [
            address(f"{name} destination", dst, space="global" if ds == "global" else "shared"),
            address(f"{name} source", src, space="global" if ss == "global" else "shared"),
            _size(name, size),
        ]
        mods = ["async", "bulk", ds, ss]
        if kind == "bulk_group":
            if mbar is not None:
                raise PtxDslError(
                    f"{name} to global memory completes through bulk groups "
                    "(cp.async.bulk.commit_group), not an mbarrier; leave mbar= out"
                )
            mods.append("bulk_group")
        else:
            if mbar is None:
                raise PtxDslError(f"{name} into {ds} needs the completion barrier mbar=")
            mods.append(_COMPLETE_TX)
            ops.append(address(f"{name} mbarrier", mbar))
        if multicast is not None:
            if (ds, ss) != ("shared::cluster", "global"):
                raise PtxDslError(f"{name} multicast= needs global -> shared::cluster")
            mods.append("multicast::cluster")
            ops.append(_mask16(name, multicast))
        if cache_hint is not None and ss == "shared::cta" and ds != "global":
            raise PtxDslError(f"{name} shared::cta -> shared::cluster takes no cache_hint=")
        _cache(name, cache_hint, mods, ops)
        if byte_mask is not None:
            if kind != "bulk_group":
                raise PtxDslError(f"{name} byte_mask= needs shared::cta -> global")
            mods.append("cp_mask")
            ops.append(int_operand(f"{name} byte_mask", byte_mask, bits=(16,), high=0xFFFF))
        emit_inst("cp", mods, ops, pred)

    def commit_group(self, *, pred: object = None) -> None:
        """``cp.async.bulk.commit_group;``: close the pending bulk-group copies into a group.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-commit-group
        """
        emit_inst("cp", ("async", "bulk", "commit_group"), (), pred)

    def wait_group(self, n: int = 0, *, read: bool = False, pred: object = None) -> None:
        """Wait until at most ``n`` bulk groups are pending.

        Emits ``cp.async.bulk.wait_group{.read} n;``; with ``read=True`` it waits only until
        the shared-memory sources of those groups have been read.

        Args:
            n: groups allowed to stay pending (a Python int, 0..63).
            read: emit ``.read``.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-wait-group
        """
        k = int_operand("cp.async.bulk.wait_group count", n, high=63, reg=False)
        mods = ("async", "bulk", "wait_group") + (
            ("read",) if flag("cp.async.bulk.wait_group read=", read) else ()
        )
        emit_inst("cp", mods, (k,), pred)


bulk = Bulk()
"""``ptx.cp.async_.bulk``."""
