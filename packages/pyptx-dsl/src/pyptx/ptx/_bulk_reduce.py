"""Bulk asynchronous reductions: ``ptx.cp.reduce.async_.bulk`` and ``.bulk.tensor``.

Reached through the ``ptx.cp`` namespace of :mod:`pyptx.ptx._cp_async`; operands follow the
conventions of :mod:`pyptx.ptx._bulk`. Every call emits exactly one instruction.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyptx.ir import PtxType

from ..dsl.operands import emit_inst
from ._bulk import _box, _emit, _int, _modes
from ._memory import slot
from ._sync_operands import address, pick

__all__: list[str] = []

_BULK = "cp.reduce.async.bulk"


class _ReduceBulkTensor:
    """``ptx.cp.reduce.async_.bulk.tensor``: reduce a shared-memory box into a global tensor."""

    def __call__(
        self,
        desc: object,
        coords: Sequence[object],
        src: object,
        *,
        op: str,
        mode: str | None = None,
        cache_hint: object = None,
        pred: object = None,
    ) -> None:
        """Reduce a shared-memory box into a global tensor with ``op`` (sm_90).

        Emits ``cp.reduce.async.bulk.tensor.Nd.global.shared::cta.op{.mode}.bulk_group
        {.L2::cache_hint} [desc, {c0, ...}], [src]{, policy};``. ``op`` is one of the
        reductions of ``ptx.cp.reduce.async_.bulk``, ``mode`` is ``None``, ``"tile"`` or
        ``"im2col_no_offs"``; the other arguments are those of ``ptx.cp.async_.bulk.tensor.store``
        (1 to 5 box coordinates).

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-reduce-async-bulk-tensor
        """
        name = "cp.reduce.async.bulk.tensor"
        rop = pick(f"{name} op", op, slot(name, "op"))
        md = _modes(name, mode)
        dim, box = _box(name, desc, coords, md)
        mods = ["reduce", "async", "bulk", "tensor", dim, "global", "shared::cta", rop, md]
        _emit([*mods, "bulk_group"], [box, address(f"{name} source", src)], cache_hint, pred)


class _ReduceBulk:
    """``ptx.cp.reduce.async_.bulk``: call it for a contiguous reduction; ``.tensor`` for TMA."""

    def __init__(self) -> None:
        self.tensor = _ReduceBulkTensor()

    def __call__(
        self, dst: object, src: object, size: object, *,
        op: str, ty: PtxType, mbar: object = None, dst_space: str = "global",
        cache_hint: object = None, pred: object = None,
    ) -> None:  # fmt: skip
        """Reduce a contiguous block of shared memory into global or cluster memory (sm_90).

        Into global memory emits ``cp.reduce.async.bulk.global.shared::cta.bulk_group
        {.L2::cache_hint}.op{.noftz}.type [dst], [src], size{, policy};`` (``.noftz`` for the
        f16/bf16 adds, which PTX requires); into another CTA's shared memory
        ``cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.op.type
        [dst], [src], size, [mbar];``.

        Args:
            dst: destination address (global, or shared::cluster).
            src: source block in this CTA's shared memory.
            size: bytes, a multiple of 16 (int or 32-bit register).
            op: ``"add"``, ``"min"``, ``"max"``, ``"inc"``, ``"dec"``, ``"and"``, ``"or"`` or
                ``"xor"``.
            ty: element type (which ones depend on ``op`` and the destination).
            mbar: the completion barrier, for ``dst_space="shared::cluster"`` only.
            dst_space: ``"global"`` or ``"shared::cluster"``.
            cache_hint: a 64-bit L2 cache-policy register (global destination only).
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-reduce-async-bulk
        """
        ds = pick(f"{_BULK} dst_space", dst_space, slot(_BULK, "dst"))
        rop = pick(f"{_BULK} op", op, slot(_BULK, "op"))
        t = ty.value if isinstance(ty, PtxType) else str(ty)
        ops: list[object] = [
            address(f"{_BULK} destination", dst, space="global" if ds == "global" else "shared"),
            address(f"{_BULK} source", src),
            _int(_BULK, "size", size),
            None if mbar is None else address(f"{_BULK} mbarrier", mbar),
        ]
        policy, completion = cache_hint, slot(_BULK, "completion", ("dst", ds))[0]
        hint = ("L2::cache_hint",) if policy is not None else ()
        noftz = slot(_BULK, "noftz", ("dst", ds), ("op", rop), ("type", t))
        mods = ["reduce", "async", "bulk", ds, "shared::cta", completion, *hint, rop, *noftz, t]
        emit_inst("cp", mods, [o for o in (*ops, policy) if o is not None], pred)


class _ReduceAsync:
    """``ptx.cp.reduce.async_``."""

    bulk = _ReduceBulk()


reduce_async = _ReduceAsync()
"""``ptx.cp.reduce.async_``: ``.bulk(...)`` and ``.bulk.tensor(...)``."""
