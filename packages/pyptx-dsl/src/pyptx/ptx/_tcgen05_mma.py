"""``ptx.tcgen05.mma`` and its variants ``.sp``, ``.ws`` and ``.ws.sp`` (Blackwell UMMA).

Each call emits exactly one ``tcgen05.mma*`` instruction. Modifier spellings follow PTX:
``kind="f16"`` -> ``.kind::f16``, ``scale_vec="2X"`` -> ``.scale_vec::2X``,
``collector="fill"`` -> ``.collector::a::fill`` (``.collector::bN::fill`` for ``.ws``).
Operands are in PTX order, destination first. Build the descriptors with
:mod:`pyptx.dsl.umma`.
"""

from __future__ import annotations

from pyptx.ir import Instruction

from ..dsl.errors import PtxDslError
from ..dsl.operands import Addr, emit_inst
from ._tcgen05_common import (
    cta_group_mod,
    describe,
    descriptor,
    enable_input,
    is_int_reg,
    reg_vector,
    tmem,
)
from ._tcgen05_common import idesc as idesc_operand

__all__ = ["BLOCK_SCALED_KINDS", "MMA_KINDS", "SCALE_VECS", "Mma", "MmaWs"]

MMA_KINDS = ("f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4")
"""Every ``.kind`` of ``tcgen05.mma`` / ``tcgen05.mma.sp``."""

BLOCK_SCALED_KINDS = ("mxf8f6f4", "mxf4", "mxf4nvf4")
"""Kinds that always carry ``.block_scale`` and the ``[scale-A], [scale-B]`` operands."""

_WS_KINDS = ("f16", "tf32", "f8f6f4", "i8")
_SCALE_INPUT_D_KINDS = ("f16", "tf32")
_COLLECTOR_OPS = ("fill", "use", "lastuse", "discard")

SCALE_VECS: dict[str, tuple[str, ...]] = {
    "mxf8f6f4": ("1X", "block32"),
    "mxf4": ("2X", "block32"),
    "mxf4nvf4": ("2X", "4X", "block16", "block32"),
}
"""Allowed ``scale_vec=`` per block-scaled kind (PTX ISA table "Valid combinations of
scale_vectorsize with types and MMA-Kind"); ``.kind::mxf4nvf4`` requires one."""


def _kind(kind: object, allowed: tuple[str, ...], op: str) -> str:
    name = kind.removeprefix("kind::") if isinstance(kind, str) else kind
    if name not in allowed:
        raise PtxDslError(f"{op}: kind must be one of {', '.join(allowed)}, got {kind!r}")
    assert isinstance(name, str)
    return name


def _scale_vec(kind: str, value: object, op: str) -> str | None:
    allowed = SCALE_VECS[kind]
    if value is None:
        if kind == "mxf4nvf4":
            raise PtxDslError(
                f"{op}: .kind::mxf4nvf4 needs an explicit scale_vec= (one of {', '.join(allowed)})"
            )
        return None
    name = value.removeprefix("scale_vec::") if isinstance(value, str) else value
    if name not in allowed:
        raise PtxDslError(
            f"{op}: scale_vec for .kind::{kind} must be one of {', '.join(allowed)}, got {value!r}"
        )
    assert isinstance(name, str)
    return name if name.startswith("block") else f"scale_vec::{name}"


def _a_operand(a: object, op: str) -> tuple[object, bool]:
    """(operand, whether A is in Tensor Memory): 32-bit register/``ptx.addr`` = TMEM."""
    if isinstance(a, Addr) or is_int_reg(a, 32):
        return tmem(a, "a", op), True
    if is_int_reg(a, 64) or (isinstance(a, int) and not isinstance(a, bool)):
        return descriptor(a, "a", op), False
    raise PtxDslError(
        f"{op}: a must be a 64-bit shared memory descriptor register (A in shared memory) or "
        f"a 32-bit Tensor Memory address register / ptx.addr(...) (A in Tensor Memory), got "
        f"{describe(a)}"
    )


def _emit_mma(
    op: str,
    *,
    ws: bool,
    sparse: bool,
    d_tmem: object,
    a: object,
    b_desc: object,
    sp_meta: object,
    idesc: object,
    kind: object,
    enable_input_d: object,
    cta_group: object,
    disable_output_lane: object = None,
    scale_input_d: object = None,
    scale_a: object = None,
    scale_b: object = None,
    scale_vec: object = None,
    collector: object = None,
    buffer: object = None,
    ashift: object = False,
    zero_column_mask: object = None,
    pred: object = None,
) -> Instruction:
    name = _kind(kind, _WS_KINDS if ws else MMA_KINDS, op)
    scaled = name in BLOCK_SCALED_KINDS
    mods = ["mma", *(["ws"] if ws else []), *(["sp"] if sparse else [])]
    if ws and cta_group != 1:
        raise PtxDslError(f"{op} exists only with cta_group=1, got cta_group={cta_group!r}")
    mods += [cta_group_mod(cta_group, op), f"kind::{name}"]

    a_op, a_in_tmem = _a_operand(a, op)
    operands: list[object] = [tmem(d_tmem, "d_tmem", op), a_op]
    operands.append(descriptor(b_desc, "b_desc", op))
    if sparse:
        operands.append(tmem(sp_meta, "sp_meta (the sparsity metadata address)", op))
    operands.append(idesc_operand(idesc, op))
    enable = enable_input(enable_input_d, op)

    if scaled:
        mods.append("block_scale")
        vec = _scale_vec(name, scale_vec, op)
        if vec is not None:
            mods.append(vec)
        if scale_a is None or scale_b is None:
            raise PtxDslError(
                f"{op}: .kind::{name} is block-scaled and needs scale_a= and scale_b= (the "
                "Tensor Memory addresses of the scale factors)"
            )
        for what, value in (("disable_output_lane", disable_output_lane),
                            ("scale_input_d", scale_input_d)):  # fmt: skip
            if value is not None:
                raise PtxDslError(f"{op}: {what} is not an operand of block-scaled .kind::{name}")
    elif scale_a is not None or scale_b is not None or scale_vec is not None:
        raise PtxDslError(
            f"{op}: scale_a, scale_b and scale_vec belong to the block-scaled kinds "
            f"({', '.join(BLOCK_SCALED_KINDS)}), not .kind::{name}"
        )

    if not isinstance(ashift, bool):
        raise PtxDslError(f"{op}: ashift must be True or False, got {ashift!r}")
    if ashift:
        if scaled:
            raise PtxDslError(f"{op}: .ashift is not allowed with block-scaled .kind::{name}")
        if not a_in_tmem:
            raise PtxDslError(
                f"{op}: .ashift shifts A in Tensor Memory; pass a as a TMEM address (a 32-bit "
                "register), not a shared memory descriptor"
            )
        if collector in ("fill", "use"):
            raise PtxDslError(f"{op}: .ashift cannot be combined with collector={collector!r}")
        mods.append("ashift")

    if collector is not None:
        if collector not in _COLLECTOR_OPS:
            raise PtxDslError(
                f"{op}: collector must be one of {', '.join(_COLLECTOR_OPS)}, got {collector!r}"
            )
        if ws:
            buf = 0 if buffer is None else buffer
            if isinstance(buf, bool) or buf not in (0, 1, 2, 3):
                raise PtxDslError(f"{op}: buffer selects collector b0-b3; got {buffer!r}")
            mods.append(f"collector::b{buf}::{collector}")
        else:
            mods.append(f"collector::a::{collector}")
    elif buffer is not None:
        raise PtxDslError(f"{op}: buffer= needs collector= (fill, use, lastuse or discard)")

    if scaled:
        operands += [tmem(scale_a, "scale_a", op), tmem(scale_b, "scale_b", op), enable]
    elif ws:
        operands.append(enable)
        if zero_column_mask is not None:
            operands.append(descriptor(zero_column_mask, "zero_column_mask", op))
    else:
        if disable_output_lane is not None:
            count = 8 if cta_group == 2 else 4
            detail = f".cta_group::{cta_group}"
            operands.append(
                reg_vector(disable_output_lane, count, "disable_output_lane", op, detail)
            )
        operands.append(enable)
        if scale_input_d is not None:
            if name not in _SCALE_INPUT_D_KINDS:
                raise PtxDslError(
                    f"{op}: scale_input_d is only valid for .kind::f16 and .kind::tf32, not "
                    f".kind::{name}"
                )
            if (
                not isinstance(scale_input_d, int)
                or isinstance(scale_input_d, bool)
                or not 0 <= scale_input_d <= 15
            ):
                raise PtxDslError(
                    f"{op}: scale_input_d is an immediate in 0..15 (D is scaled by "
                    f"2**-scale_input_d), got {scale_input_d!r}"
                )
            operands.append(scale_input_d)
    return emit_inst("tcgen05", tuple(mods), tuple(operands), pred)


class MmaWs:
    """``ptx.tcgen05.mma.ws``: weight-stationary MMA (``.cta_group::1`` only).

    ``ptx.tcgen05.mma.ws(...)`` emits ``tcgen05.mma.ws``; ``ptx.tcgen05.mma.ws.sp(...)``
    emits ``tcgen05.mma.ws.sp``. Collector usage applies to B through buffers b0-b3.
    """

    def __call__(
        self,
        d_tmem: object,
        a: object,
        b_desc: object,
        idesc: object,
        *,
        kind: str,
        enable_input_d: object,
        collector: str | None = None,
        buffer: int | None = None,
        zero_column_mask: object = None,
        cta_group: int = 1,
        pred: object = None,
    ) -> None:
        """Weight-stationary MMA: one ``tcgen05.mma.ws`` instruction.

        Emits ``[@pred] tcgen05.mma.ws.cta_group::1.kind::K[.collector::bN::op]
        [d_tmem], a, b_desc, idesc, enable_input_d[, zero_column_mask];`` where ``a`` is
        ``a_desc`` or ``[a_tmem]``. PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-mma-instructions-mma-ws

        Args:
            d_tmem: 32-bit register (or ``ptx.addr``) with the D address in Tensor Memory.
            a: a 64-bit shared memory descriptor register, or a 32-bit TMEM address.
            b_desc: 64-bit shared memory descriptor of B.
            idesc: the instruction descriptor (32-bit register or int).
            kind: ``f16``, ``tf32``, ``f8f6f4`` or ``i8``.
            enable_input_d: predicate; false computes D = A*B (True/False for a constant).
            collector: B collector usage: ``fill``, ``use``, ``lastuse`` or ``discard``.
            buffer: the collector buffer 0-3 (``b0``..``b3``; default 0 with ``collector``).
            zero_column_mask: optional 64-bit zero-column mask descriptor register.
            cta_group: must be 1.
            pred: optional guard predicate.
        """
        _emit_mma(
            "tcgen05.mma.ws", ws=True, sparse=False, d_tmem=d_tmem, a=a, b_desc=b_desc,
            sp_meta=None, idesc=idesc, kind=kind, enable_input_d=enable_input_d,
            cta_group=cta_group, collector=collector, buffer=buffer,
            zero_column_mask=zero_column_mask, pred=pred,
        )  # fmt: skip

    def sp(
        self,
        d_tmem: object,
        a: object,
        b_desc: object,
        sp_meta: object,
        idesc: object,
        *,
        kind: str,
        enable_input_d: object,
        collector: str | None = None,
        buffer: int | None = None,
        zero_column_mask: object = None,
        cta_group: int = 1,
        pred: object = None,
    ) -> None:
        """Weight-stationary MMA with sparse A: one ``tcgen05.mma.ws.sp`` instruction.

        Emits ``[@pred] tcgen05.mma.ws.sp.cta_group::1.kind::K[.collector::bN::op]
        [d_tmem], a, b_desc, [sp_meta], idesc, enable_input_d[, zero_column_mask];``.
        PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-mma-instructions-mma-ws-sp

        Args:
            d_tmem: D address in Tensor Memory.
            a: A descriptor (64-bit) or A TMEM address (32-bit).
            b_desc: B descriptor.
            sp_meta: Tensor Memory address of the sparsity metadata.
            idesc: the instruction descriptor.
            kind: ``f16``, ``tf32``, ``f8f6f4`` or ``i8``.
            enable_input_d: predicate; false computes D = A*B.
            collector: B collector usage (``fill``, ``use``, ``lastuse``, ``discard``).
            buffer: the collector buffer 0-3.
            zero_column_mask: optional 64-bit zero-column mask descriptor register.
            cta_group: must be 1.
            pred: optional guard predicate.
        """
        _emit_mma(
            "tcgen05.mma.ws.sp", ws=True, sparse=True, d_tmem=d_tmem, a=a, b_desc=b_desc,
            sp_meta=sp_meta, idesc=idesc, kind=kind, enable_input_d=enable_input_d,
            cta_group=cta_group, collector=collector, buffer=buffer,
            zero_column_mask=zero_column_mask, pred=pred,
        )  # fmt: skip


class Mma:
    """``ptx.tcgen05.mma``: the 5th-generation tensor-core MMA, D (TMEM) = A*B [+ D].

    ``ptx.tcgen05.mma(...)`` emits ``tcgen05.mma``; ``.sp(...)`` the sparse-A form
    ``tcgen05.mma.sp``; ``.ws`` / ``.ws.sp`` the weight-stationary forms (see :class:`MmaWs`).
    """

    ws = MmaWs()
    """``ptx.tcgen05.mma.ws`` (and ``ptx.tcgen05.mma.ws.sp``)."""

    def __call__(
        self,
        d_tmem: object,
        a: object,
        b_desc: object,
        idesc: object,
        *,
        kind: str,
        enable_input_d: object,
        cta_group: int = 1,
        disable_output_lane: object = None,
        scale_input_d: int | None = None,
        scale_a: object = None,
        scale_b: object = None,
        scale_vec: str | None = None,
        collector: str | None = None,
        ashift: bool = False,
        pred: object = None,
    ) -> None:
        """Dense MMA: one ``tcgen05.mma`` instruction (single-thread issue).

        Emits, with ``a`` either ``a_desc`` or ``[a_tmem]``:

        * ``.kind::f16/tf32/f8f6f4/i8``: ``[@pred] tcgen05.mma.cta_group::N.kind::K
          [.ashift][.collector::a::op] [d_tmem], a, b_desc, idesc[, {disable_output_lane}],
          enable_input_d[, scale_input_d];``
        * block-scaled ``.kind::mxf8f6f4/mxf4/mxf4nvf4``: ``[@pred] tcgen05.mma.cta_group::N
          .kind::K.block_scale[.scale_vec::NX | .blockN][.collector::a::op] [d_tmem], a,
          b_desc, idesc, [scale_a], [scale_b], enable_input_d;``

        PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-mma-instructions-mma

        Args:
            d_tmem: 32-bit register (or ``ptx.addr``) with the D address in Tensor Memory.
            a: A in shared memory (a 64-bit descriptor register, see
                :func:`pyptx.dsl.umma.smem_desc_reg`) or in Tensor Memory (a 32-bit address
                register or ``ptx.addr``).
            b_desc: 64-bit shared memory descriptor of B.
            idesc: the instruction descriptor (a 32-bit register or an int from
                :func:`pyptx.dsl.umma.instr_desc`).
            kind: ``f16``, ``tf32``, ``f8f6f4``, ``i8``, ``mxf8f6f4``, ``mxf4``, ``mxf4nvf4``.
            enable_input_d: predicate register (or ``~p``, True, False); false computes
                D = A*B, ignoring the old D.
            cta_group: 1 (this CTA's Tensor Memory) or 2 (this CTA and its peer).
            disable_output_lane: 4 (cta_group 1) or 8 (cta_group 2) 32-bit registers whose
                bits mask TMEM lanes that D must not update.
            scale_input_d: immediate 0..15 (f16/tf32): D = A*B + D * 2**-scale_input_d.
            scale_a: TMEM address of the A scale factors (block-scaled kinds).
            scale_b: TMEM address of the B scale factors (block-scaled kinds).
            scale_vec: ``1X``, ``2X``, ``4X``, ``block16`` or ``block32`` (required for
                ``mxf4nvf4``; see :data:`SCALE_VECS`).
            collector: A collector usage: ``fill``, ``use``, ``lastuse`` or ``discard``.
            ashift: shift the rows of A (in Tensor Memory) down by one (M = 128/256).
            pred: optional guard predicate.
        """
        _emit_mma(
            "tcgen05.mma", ws=False, sparse=False, d_tmem=d_tmem, a=a, b_desc=b_desc,
            sp_meta=None, idesc=idesc, kind=kind, enable_input_d=enable_input_d,
            cta_group=cta_group, disable_output_lane=disable_output_lane,
            scale_input_d=scale_input_d, scale_a=scale_a, scale_b=scale_b,
            scale_vec=scale_vec, collector=collector, ashift=ashift, pred=pred,
        )  # fmt: skip

    def sp(
        self,
        d_tmem: object,
        a: object,
        b_desc: object,
        sp_meta: object,
        idesc: object,
        *,
        kind: str,
        enable_input_d: object,
        cta_group: int = 1,
        disable_output_lane: object = None,
        scale_input_d: int | None = None,
        scale_a: object = None,
        scale_b: object = None,
        scale_vec: str | None = None,
        collector: str | None = None,
        ashift: bool = False,
        pred: object = None,
    ) -> None:
        """Sparse-A MMA: one ``tcgen05.mma.sp`` instruction.

        Emits the forms of :meth:`__call__` with ``.sp`` after ``mma`` and the metadata
        address before ``idesc``: ``[@pred] tcgen05.mma.sp.cta_group::N.kind::K...
        [d_tmem], a, b_desc, [sp_meta], idesc, ...;``. A is M x K/2 in memory.
        PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-mma-instructions-mma-sp

        Args:
            d_tmem: D address in Tensor Memory.
            a: A descriptor (64-bit) or A TMEM address (32-bit).
            b_desc: B descriptor.
            sp_meta: Tensor Memory address of the sparsity metadata.
            idesc: the instruction descriptor (with its sparse bit set).
            kind: as for :meth:`__call__`.
            enable_input_d: predicate; false computes D = A*B.
            cta_group: 1 or 2.
            disable_output_lane: 4 or 8 lane-mask registers (non-block-scaled kinds).
            scale_input_d: immediate 0..15 (f16/tf32).
            scale_a: TMEM address of the A scale factors (block-scaled kinds).
            scale_b: TMEM address of the B scale factors (block-scaled kinds).
            scale_vec: the scale vector size (block-scaled kinds).
            collector: A collector usage.
            ashift: shift the rows of A down by one (A in Tensor Memory).
            pred: optional guard predicate.
        """
        _emit_mma(
            "tcgen05.mma.sp", ws=False, sparse=True, d_tmem=d_tmem, a=a, b_desc=b_desc,
            sp_meta=sp_meta, idesc=idesc, kind=kind, enable_input_d=enable_input_d,
            cta_group=cta_group, disable_output_lane=disable_output_lane,
            scale_input_d=scale_input_d, scale_a=scale_a, scale_b=scale_b,
            scale_vec=scale_vec, collector=collector, ashift=ashift, pred=pred,
        )  # fmt: skip
