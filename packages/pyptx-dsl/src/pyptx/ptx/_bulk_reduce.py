"""Bulk asynchronous reductions: ``ptx.cp.reduce.async_.bulk`` and ``.bulk.tensor``.

Reached through the ``ptx.cp`` namespace of :mod:`pyptx.ptx._cp_async`; operands follow the
conventions of :mod:`pyptx.ptx._bulk`. Every call emits exactly one instruction.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyptx.ir import PtxType

from ..dsl.errors import PtxDslError
from ..dsl.operands import emit_inst
from ._bulk import _COMPLETE_TX, _cache, _coords, _dim, _size
from ._sync_operands import address, choice, pick

__all__: list[str] = []

_TENSOR_MODES = (None, "tile", "im2col_no_offs")
_OPS = ("add", "min", "max", "inc", "dec", "and", "or", "xor")

# (destination space, op) -> the element types ptxas accepts; "noftz" marks the f16/bf16 adds.
_TYPES: dict[tuple[str, str], tuple[str, ...]] = {
    **{("shared::cluster", op): ("b32",) for op in ("and", "or", "xor")},
    ("shared::cluster", "add"): ("u32", "s32", "u64"),
    ("shared::cluster", "inc"): ("u32",),
    ("shared::cluster", "dec"): ("u32",),
    ("shared::cluster", "min"): ("u32", "s32"),
    ("shared::cluster", "max"): ("u32", "s32"),
    **{("global", op): ("b32", "b64") for op in ("and", "or", "xor")},
    ("global", "add"): ("u32", "s32", "u64", "f32", "f64", "f16", "bf16"),
    ("global", "inc"): ("u32",),
    ("global", "dec"): ("u32",),
    ("global", "min"): ("u32", "s32", "u64", "s64", "f16", "bf16"),
    ("global", "max"): ("u32", "s32", "u64", "s64", "f16", "bf16"),
}


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
        {.L2::cache_hint} [desc, {c0, ...}], [src]{, policy};``.

        Args:
            desc: the tensor map register (``A.tma_desc()``).
            coords: 1 to 5 box coordinates.
            src: source box in shared memory.
            op: ``"add"``, ``"min"``, ``"max"``, ``"inc"``, ``"dec"``, ``"and"``, ``"or"`` or
                ``"xor"``.
            mode: ``None``, ``"tile"`` or ``"im2col_no_offs"``.
            cache_hint: a 64-bit L2 cache-policy register.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-reduce-async-bulk-tensor
        """
        name = "cp.reduce.async.bulk.tensor"
        rop = pick(f"{name} op", op, _OPS)
        md = choice(f"{name} mode", mode, _TENSOR_MODES)
        dim = _dim(name, coords, md)
        if md == "im2col_no_offs" and dim < 3:
            raise PtxDslError(f"{name} mode 'im2col_no_offs' needs a 3d to 5d tensor, got {dim}d")
        ops: list[object] = [
            _coords(name, desc, coords, dim, md),
            address(f"{name} source", src),
        ]
        mods = ["async", "bulk", "tensor", f"{dim}d", "global", "shared::cta", rop]
        if md:
            mods.append(md)
        mods.append("bulk_group")
        _cache(name, cache_hint, mods, ops)
        emit_inst("cp", ["reduce", *mods], ops, pred)


class _ReduceBulk:
    """``ptx.cp.reduce.async_.bulk``: call it for a contiguous reduction; ``.tensor`` for TMA."""

    def __init__(self) -> None:
        self.tensor = _ReduceBulkTensor()

    def __call__(
        self,
        dst: object,
        src: object,
        size: object,
        *,
        op: str,
        ty: PtxType,
        mbar: object = None,
        dst_space: str = "global",
        cache_hint: object = None,
        pred: object = None,
    ) -> None:
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
        name = "cp.reduce.async.bulk"
        ds = pick(f"{name} dst_space", dst_space, ("global", "shared::cluster"))
        rop = pick(f"{name} op", op, _OPS)
        allowed = _TYPES[(ds, rop)]
        t = ty.value if isinstance(ty, PtxType) else ty
        if t not in allowed:
            raise PtxDslError(
                f"{name}.{rop} into {ds} takes ty one of {', '.join(allowed)}, but got {t!s}"
            )
        is_global = ds == "global"
        ops: list[object] = [
            address(f"{name} destination", dst, space="global" if is_global else "shared"),
            address(f"{name} source", src),
            _size(name, size),
        ]
        if is_global:
            if mbar is not None:
                raise PtxDslError(
                    f"{name} into global memory completes through bulk groups, not an mbarrier; "
                    "leave mbar= out"
                )
            mods = ["reduce", "async", "bulk", "global", "shared::cta", "bulk_group"]
            _cache(name, cache_hint, mods, ops)
            mods += [rop, "noftz", t] if t in ("f16", "bf16") and rop == "add" else [rop, t]
        else:
            if mbar is None:
                raise PtxDslError(f"{name} into shared::cluster needs the completion barrier mbar=")
            if cache_hint is not None:
                raise PtxDslError(f"{name} into shared::cluster takes no cache_hint=")
            mods = [
                "reduce",
                "async",
                "bulk",
                "shared::cluster",
                "shared::cta",
                _COMPLETE_TX,
                rop,
                t,
            ]
            ops.append(address(f"{name} mbarrier", mbar))
        emit_inst("cp", mods, ops, pred)


class _ReduceAsync:
    """``ptx.cp.reduce.async_``."""

    def __init__(self) -> None:
        self.bulk = _ReduceBulk()


reduce_async = _ReduceAsync()
"""``ptx.cp.reduce.async_``: ``.bulk(...)`` and ``.bulk.tensor(...)``."""
