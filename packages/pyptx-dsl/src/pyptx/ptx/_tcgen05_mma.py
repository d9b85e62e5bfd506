"""``ptx.tcgen05.mma`` and its variants ``.sp``, ``.ws`` and ``.ws.sp`` (Blackwell UMMA).

Each call emits exactly one ``tcgen05.mma*`` instruction. Modifier spellings follow PTX:
``kind="f16"`` -> ``.kind::f16``, ``scale_vec="2X"`` -> ``.scale_vec::2X``,
``collector="fill"`` -> ``.collector::a::fill`` (``.collector::bN::fill`` for ``.ws``).
Operands are in PTX order, destination first. Build the descriptors with
:mod:`pyptx.dsl.umma`.
"""

from __future__ import annotations

from collections.abc import Mapping

from pyptx.ir import Instruction, isa

from ..dsl.errors import PtxDslError
from ..dsl.operands import Addr, emit_inst
from . import _tcgen05_common as c

__all__ = ["BLOCK_SCALED_KINDS", "Mma", "MmaWs"]

BLOCK_SCALED_KINDS = frozenset(
    kind
    for form in isa.SPECS["tcgen05.mma"].forms
    for kind in (form.groups[1].values if form.group("block_scale") else ())
)
"""The ``.kind::K`` of the ISA table's ``.block_scale`` forms (after ``.cta_group``), which
take the ``[scale-A], [scale-B]`` operands; which ``scale_vec`` each takes is the table's."""


def _emit_mma(variant: tuple[str, ...], args: Mapping[str, object]) -> Instruction:
    """Emit one ``tcgen05.<variant>`` from a public method's arguments (its ``locals()``).

    Keywords become modifiers and operands go in PTX order; an operand left out (``None``) is
    dropped, so the ISA table judges exactly what was asked for.
    """
    get, op = args.get, "tcgen05." + ".".join(variant)
    kind, vec, collector, buffer = get("kind"), get("scale_vec"), get("collector"), get("buffer")
    mods = [*variant, c.cta_group_mod(get("cta_group"), op)]
    mods.append("kind::" + (kind.removeprefix("kind::") if isinstance(kind, str) else str(kind)))
    mods += ["block_scale"] if mods[-1] in BLOCK_SCALED_KINDS else []
    if vec is not None:
        vec = str(vec).removeprefix("scale_vec::")
        mods.append(vec if vec.startswith("block") else f"scale_vec::{vec}")
    mods += ["ashift"] if c.flag(get("ashift", False), "ashift", op) else []
    if collector is not None:
        where = f"b{0 if buffer is None else buffer}" if "ws" in variant else "a"
        mods.append(f"collector::{where}::{collector}")
    elif buffer is not None:
        raise PtxDslError(f"{op}: buffer= needs collector= (fill, use, lastuse or discard)")
    a = get("a")
    operands = (
        c.tmem(get("d_tmem")),
        c.tmem(a) if isinstance(a, Addr) or c.is_int_reg(a, 32) else c.const(a, 64, "a", op, 16),
        c.const(get("b_desc"), 64, "b_desc", op, 16),
        c.tmem(get("sp_meta")),
        c.const(get("idesc"), 32, "idesc (the instruction descriptor)", op, 8),
        c.vector(get("disable_output_lane")),
        c.tmem(get("scale_a")),
        c.tmem(get("scale_b")),
        c.enable_input(get("enable_input_d")),
        get("scale_input_d"),
        c.const(get("zero_column_mask"), 64, "zero_column_mask", op, 16),
    )
    return emit_inst("tcgen05", tuple(mods), c.present(operands), get("pred"))


class MmaWs:
    """``ptx.tcgen05.mma.ws``: weight-stationary MMA (``.cta_group::1`` only).

    ``ptx.tcgen05.mma.ws(...)`` emits ``tcgen05.mma.ws``; ``ptx.tcgen05.mma.ws.sp(...)``
    emits ``tcgen05.mma.ws.sp``. Collector usage applies to B through buffers b0-b3.
    """

    def __call__(
        self, d_tmem: object, a: object, b_desc: object, idesc: object, *,
        kind: str, enable_input_d: object, collector: str | None = None, buffer: int | None = None,
        zero_column_mask: object = None, cta_group: int = 1, pred: object = None,
    ) -> None:  # fmt: skip
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
        _emit_mma(("mma", "ws"), locals())

    def sp(
        self, d_tmem: object, a: object, b_desc: object, sp_meta: object, idesc: object, *,
        kind: str, enable_input_d: object, collector: str | None = None, buffer: int | None = None,
        zero_column_mask: object = None, cta_group: int = 1, pred: object = None,
    ) -> None:  # fmt: skip
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
        _emit_mma(("mma", "ws", "sp"), locals())


class Mma:
    """``ptx.tcgen05.mma``: the 5th-generation tensor-core MMA, D (TMEM) = A*B [+ D].

    ``ptx.tcgen05.mma(...)`` emits ``tcgen05.mma``; ``.sp(...)`` the sparse-A form
    ``tcgen05.mma.sp``; ``.ws`` / ``.ws.sp`` the weight-stationary forms (see :class:`MmaWs`).
    """

    ws = MmaWs()
    """``ptx.tcgen05.mma.ws`` (and ``ptx.tcgen05.mma.ws.sp``)."""

    def __call__(
        self, d_tmem: object, a: object, b_desc: object, idesc: object, *,
        kind: str, enable_input_d: object, cta_group: int = 1, disable_output_lane: object = None,
        scale_input_d: int | None = None, scale_a: object = None, scale_b: object = None,
        scale_vec: str | None = None, collector: str | None = None, ashift: bool = False,
        pred: object = None,
    ) -> None:  # fmt: skip
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
                ``mxf4nvf4``; the ISA table says which each block-scaled kind takes).
            collector: A collector usage: ``fill``, ``use``, ``lastuse`` or ``discard``.
            ashift: shift the rows of A (in Tensor Memory) down by one (M = 128/256).
            pred: optional guard predicate.
        """
        _emit_mma(("mma",), locals())

    def sp(
        self, d_tmem: object, a: object, b_desc: object, sp_meta: object, idesc: object, *,
        kind: str, enable_input_d: object, cta_group: int = 1, disable_output_lane: object = None,
        scale_input_d: int | None = None, scale_a: object = None, scale_b: object = None,
        scale_vec: str | None = None, collector: str | None = None, ashift: bool = False,
        pred: object = None,
    ) -> None:  # fmt: skip
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
        _emit_mma(("mma", "sp"), locals())
