"""Bulk asynchronous copies (TMA): ``cp.async.bulk``, ``.tensor``, ``.prefetch``, groups.

Reached as ``ptx.cp.async_.bulk`` (the ``ptx.cp`` namespace is assembled in
:mod:`pyptx.ptx._cp_async`; the reductions ``ptx.cp.reduce.async_.bulk`` live in
:mod:`pyptx.ptx._bulk_reduce`). This family also exports ``ptx.tensormap``
(:mod:`pyptx.ptx._bulk_tensormap`). Every call emits exactly one instruction.

Operands: shared memory is a shared allocation, a stage (``sA[0]``), ``ptx.addr(...)`` or an
address register; a barrier is ``smem.mbarrier(n)[i]`` or an address register; a tensor map is
the 64-bit register from ``A.tma_desc()``; coordinates are ints or 32-bit registers.

A ``cache_hint=`` (a 64-bit register from ``createpolicy``) adds ``.L2::cache_hint`` and its
operand. Sizes, masks, offsets and operand widths are the ISA table's to judge.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..dsl.errors import PtxDslError
from ..dsl.operands import emit_inst
from ._bulk_tensormap import tensormap
from ._memory import slot
from ._sync_operands import address, choice, flag, integer, pick, spell, tensor_address, vector16

__all__ = ["tensormap"]

_COMPLETE_TX = "mbarrier::complete_tx::bytes"
_TENSOR = "cp.async.bulk.tensor"
_Mods = list[str | None]
_Pair = tuple[str, object]


def _box(name: str, desc: object, coords: object, mode: str | None) -> tuple[str, object]:
    """``(".Nd", [desc, {c0, ...}])``: rank 2 for gather4/scatter4 (five coordinates)."""
    n = len(coords) if isinstance(coords, (tuple, list)) else 1
    dim = 2 if mode in ("tile::gather4", "tile::scatter4") else n
    return f"{dim}d", tensor_address(name, desc, coords)


def _im2col(name: str, im2col: object) -> list[object]:
    """The optional ``im2colInfo`` operand: offsets for im2col, (wHalo, wOffset) for im2col::w."""
    count = len(im2col) if isinstance(im2col, (tuple, list)) else (1, 2, 3)
    return [] if im2col is None else [vector16(f"{name} im2col", im2col, count)]


def _modes(name: str, mode: object, *where: tuple[str, str]) -> str | None:
    return choice(f"{name} mode", mode, (None, *slot(name, "load_mode", *where)))


def _emit(mods: _Mods, ops: list[object], hint: object, pred: object, *tail: _Pair) -> None:
    """Emit ``cp`` with the set modifiers and operands, then ``.L2::cache_hint`` and ``tail``."""
    for mod, op in (("L2::cache_hint", hint), *tail):
        if op is not None:
            mods.append(mod)
            ops.append(op)
    emit_inst("cp", [m for m in mods if m], [o for o in ops if o is not None], pred)


def _int(name: str, what: str, value: object) -> object:
    """An optional integer operand (``None`` stays out; the table judges width and range)."""
    return None if value is None else integer(f"{name} {what}", value)


class BulkTensor:
    """``ptx.cp.async_.bulk.tensor``: TMA tensor copies (call it to load; ``.store`` to store)."""

    def __call__(
        self, dst: object, desc: object, coords: Sequence[object], mbar: object, *,
        dst_space: str = "shared::cluster", mode: str | None = None,
        im2col: Sequence[object] | None = None, multicast: object = None,
        cta_group: int | None = None, cache_hint: object = None, pred: object = None,
    ) -> None:  # fmt: skip
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
        ds = pick(f"{_TENSOR} dst_space", dst_space, slot(_TENSOR, "dst", ("src", "global")))
        md = _modes(_TENSOR, mode, ("src", "global"))
        dim, box = _box(_TENSOR, desc, coords, md)
        groups = tuple(int(v.rpartition(":")[2]) for v in slot(_TENSOR, "cta_group"))
        cg = choice(f"{_TENSOR} cta_group", cta_group, (None, *groups))
        mask = _int(_TENSOR, "ctaMask", multicast)
        mods: _Mods = ["async", "bulk", "tensor", dim, ds, "global", md, _COMPLETE_TX]
        mods += ["multicast::cluster" if mask is not None else None]
        mods += [None if cg is None else f"cta_group::{cg}"]
        ops = [address(f"{_TENSOR} destination", dst), box, address(f"{_TENSOR} mbarrier", mbar)]
        _emit(mods, [*ops, *_im2col(_TENSOR, im2col), mask], cache_hint, pred)

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

        Track completion with ``cp.async.bulk.commit_group`` / ``wait_group``. ``src`` is the
        source in shared memory; ``mode`` is ``None``, ``"tile"``, ``"tile::scatter4"`` (5
        coordinates) or ``"im2col_no_offs"``; the other arguments are those of the load.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-tensor
        """
        name = "cp.async.bulk.tensor (store)"
        md = _modes(_TENSOR, mode, ("dst", "global"))
        dim, box = _box(name, desc, coords, md)
        mods = ["async", "bulk", "tensor", dim, "global", "shared::cta", md, "bulk_group"]
        _emit(mods, [box, address(f"{name} source", src)], cache_hint, pred)


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
        self, *,
        dst: object, src: object, coord: Sequence[object], mbar: object,
        multicast_mask: object = None, cta_group: int | None = None, cache_hint: object = None,
        dst_space: str = "shared::cluster", mode: str | None = None,
        im2col: Sequence[object] | None = None, pred: object = None,
    ) -> None:  # fmt: skip
        """The same load as ``ptx.cp.async_.bulk.tensor(dst, src, coord, mbar, ...)``.

        Emits ``cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes ...``.
        Arguments as for ``ptx.cp.async_.bulk.tensor``, with ``src`` its tensor map ``desc``,
        ``coord`` exactly N coordinates and ``multicast_mask`` its ``multicast``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-tensor
        """
        opts: dict[str, Any] = dict(dst_space=dst_space, mode=mode, im2col=im2col, pred=pred)
        opts.update(multicast=multicast_mask, cta_group=cta_group, cache_hint=cache_hint)
        tensor(dst, src, self._check(coord), mbar, **opts)

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

        Arguments as for ``ptx.cp.async_.bulk.tensor.store``, with ``dst`` its tensor map
        ``desc`` and ``coord`` exactly N coordinates.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-tensor
        """
        tensor.store(dst, self._check(coord), src, mode=mode, cache_hint=cache_hint, pred=pred)

    def shared_cta_global_tile(
        self, *, dst: object, src: object, coord: Sequence[object], mbar: object,
        cta_group: int = 1, pred: object = None,
    ) -> None:  # fmt: skip
        """The seed system's name for the load into this CTA's shared memory in tile mode.

        Emits ``cp.async.bulk.tensor.Nd.shared::cta.global.tile.mbarrier::complete_tx::bytes
        {.cta_group::2} [dst], [src, {coord}], [mbar];`` (PTX 8.6): the same instruction as
        ``tensor_Nd(dst=, src=, coord=, mbar=, dst_space="shared::cta", mode="tile")``, with
        ``.cta_group::2`` for ``cta_group=2`` and no qualifier for the default 1.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-tensor
        """
        group = None if cta_group == 1 else cta_group
        self(
            dst=dst, src=src, coord=coord, mbar=mbar, dst_space="shared::cta", mode="tile",
            cta_group=group, pred=pred,
        )  # fmt: skip


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
        ops = [address(f"{name} source", src, space="global"), _int(name, "size", size)]
        _emit(["async", "bulk", "prefetch", "L2", "global"], ops, cache_hint, pred)

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
        ...}]{, im2col}{, policy};``. The arguments are those of the tensor load
        (``ptx.cp.async_.bulk.tensor``).

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-prefetch-tensor
        """
        name = "cp.async.bulk.prefetch.tensor"
        md = _modes(name, mode)
        dim, box = _box(name, desc, coords, md)
        mods = ["async", "bulk", "prefetch", "tensor", dim, "L2", "global", md]
        _emit(mods, [box, *_im2col(name, im2col)], cache_hint, pred)


class Bulk:
    """``ptx.cp.async_.bulk``: call it for a non-tensor bulk copy.

    Also ``.tensor``, ``.prefetch``, ``.commit_group``, ``.wait_group`` and ``.tensor_1d`` ..
    ``.tensor_5d``.
    """

    def __init__(self) -> None:
        self.tensor = tensor
        self.prefetch = BulkPrefetch()
        self.tensor_1d, self.tensor_2d, self.tensor_3d, self.tensor_4d, self.tensor_5d = (
            _TensorNd(n) for n in range(1, 6)
        )

    def __call__(
        self, dst: object, src: object, size: object, *,
        mbar: object = None, dst_space: str = "shared::cluster", src_space: str = "global",
        multicast: object = None, cache_hint: object = None, byte_mask: object = None,
        pred: object = None,
    ) -> None:  # fmt: skip
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
        ds = pick(f"{name} dst_space", dst_space, slot(name, "dst"))
        ss = pick(f"{name} src_space", src_space, slot(name, "src"))
        mask = _int(name, "ctaMask", multicast)
        mods: _Mods = ["async", "bulk", ds, ss, slot(name, "completion", ("dst", ds))[0]]
        mods.append("multicast::cluster" if mask is not None else None)
        ops = [
            address(f"{name} destination", dst, space="global" if ds == "global" else "shared"),
            address(f"{name} source", src, space="global" if ss == "global" else "shared"),
            _int(name, "size", size),
            None if mbar is None else address(f"{name} mbarrier", mbar),
            mask,
        ]
        _emit(mods, ops, cache_hint, pred, ("cp_mask", _int(name, "byte_mask", byte_mask)))

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
        k = integer("cp.async.bulk.wait_group count", n, reg=False)
        dot_read = ("read",) if flag("cp.async.bulk.wait_group read=", read) else ()
        emit_inst("cp", ("async", "bulk", "wait_group", *dot_read), (k,), pred)


bulk = Bulk()
"""``ptx.cp.async_.bulk``."""
