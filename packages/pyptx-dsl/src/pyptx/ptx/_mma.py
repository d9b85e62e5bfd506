"""PTX instruction family: warp-level ``mma.sync.aligned`` (dense) and ``mma.sp`` (sparse).

``ptx.mma(d, a, b, c, shape=..., dtype_a=...)`` emits one ``mma.sync.aligned`` and
``ptx.mma.sp(d, a, b, c, meta, selector, ...)`` one ``mma.sp``. The wrappers only spell the
keywords as modifiers and operands: the legal shape / type / accumulator combinations, the
per-thread fragment sizes and selector ranges are the ISA table's (``pyptx.ir.isa``), which
reports a fragment of the wrong length with the expected register count. See
https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-mma
"""

from __future__ import annotations

from collections.abc import Sequence

from pyptx.ir import PtxType, TypeKind

from ..dsl.errors import PtxDslError
from ..dsl.operands import emit_inst

__all__ = ["mma"]

MMA_DOC = (
    "https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-mma"
)
MMA_SP_DOC = (
    "https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-mma-sp"
)

Shape = tuple[int, int, int]


def _ty(value: object, what: str) -> PtxType:
    ty = PtxType.from_name(value) if isinstance(value, str) else value
    if not isinstance(ty, PtxType):
        raise PtxDslError(f"{what} must be a PTX type (e.g. bf16 from pyptx.types), got {value!r}")
    return ty


def parse_shape(shape: object, prefix: str = "mma") -> Shape:
    """``"m16n8k16"`` or ``(16, 8, 16)`` -> ``(16, 8, 16)``.

    Raises:
        PtxDslError: anything else.
    """
    if isinstance(shape, str) and shape.startswith("m") and "n" in shape and "k" in shape:
        m, rest = shape[1:].split("n", 1)
        n, k = rest.split("k", 1)
        if m.isdigit() and n.isdigit() and k.isdigit():
            return int(m), int(n), int(k)
    if (
        isinstance(shape, tuple)
        and len(shape) == 3
        and all(isinstance(x, int) and not isinstance(x, bool) for x in shape)
    ):
        return shape[0], shape[1], shape[2]
    raise PtxDslError(f"{prefix} shape must be like 'm16n8k16' or (16, 8, 16), got {shape!r}")


def shape_name(shape: Shape) -> str:
    """``(16, 8, 16)`` -> ``"m16n8k16"``."""
    return f"m{shape[0]}n{shape[1]}k{shape[2]}"


def regs(value: object) -> tuple[object, ...]:
    """A fragment as a tuple: a list, ``reg.array`` or one register (the table checks it)."""
    return tuple(value) if isinstance(value, Sequence) and not isinstance(value, str) else (value,)


def default_accumulator(ty: PtxType) -> PtxType:
    """The D type when none is given: f64 for f64, f32 for other floats, else s32."""
    if ty is PtxType.F64:
        return ty
    return PtxType.F32 if ty.kind is TypeKind.FLOAT else PtxType.S32


def _scale(scale: object, which: str) -> list[object]:
    if not (isinstance(scale, tuple) and len(scale) == 3):
        raise PtxDslError(
            f"scale_{which} must be (scale_data_reg, byte_id, thread_id), got {scale!r}"
        )
    return [scale[0], scale[1:]]


def _build(
    sparse: bool, operands: tuple[object, ...], *,
    shape: object, dtype_a: object, dtype_b: object, dtype_c: object, dtype_d: object,
    layouts: tuple[str, str] = ("row", "col"), satfinite: bool = False, kind: str | None = None,
    bit_op: str | None = None, scale_a: object = None, scale_b: object = None,
    scale_vec: str | None = None, stype: object = None, ordered: bool = False, pred: object = None,
) -> None:  # fmt: skip
    """Spell one ``mma``/``mma.sp``; ``operands`` are d, a, b, c (and meta, selector)."""
    ta = _ty(dtype_a, "dtype_a")
    tb = ta if dtype_b is None else _ty(dtype_b, "dtype_b")
    td = default_accumulator(ta) if dtype_d is None else _ty(dtype_d, "dtype_d")
    tc = td if dtype_c is None else _ty(dtype_c, "dtype_c")
    block = scale_a is not None or scale_b is not None
    if block and stype is None:
        stype = PtxType.UE8M0
    mods = [
        *(["sp::ordered_metadata" if ordered else "sp"] if sparse else []),
        "sync", "aligned", shape_name(parse_shape(shape)), *layouts,
        *([f"kind::{kind}"] if kind is not None else []),
        *(["block_scale"] if block else []),
        *([f"scale_vec::{scale_vec}"] if scale_vec is not None else []),
        *(["satfinite"] if satfinite else []),
        td.value, ta.value, tb.value, tc.value,
        *([_ty(stype, "stype").value] if stype is not None else []),
        *([bit_op, "popc"] if bit_op is not None else []),
    ]  # fmt: skip
    ops = [*map(regs, operands[:4]), *operands[4:]]
    for sc, which in ((scale_a, "a"), (scale_b, "b")):
        if sc is not None:
            ops += _scale(sc, which)
    emit_inst("mma", mods, ops, pred)


class _Mma:
    """``ptx.mma``: call it for ``mma.sync.aligned``; ``ptx.mma.sp`` for the sparse form."""

    def __call__(
        self, d: object, a: object, b: object, c: object, *, shape: object, dtype_a: object,
        dtype_b: object = None, dtype_c: object = None, dtype_d: object = None,
        layout_a: str = "row", layout_b: str = "col", satfinite: bool = False,
        kind: str | None = None, bit_op: str | None = None, scale_a: object = None,
        scale_b: object = None, scale_vec: str | None = None, stype: object = None,
        pred: object = None,
    ) -> None:  # fmt: skip
        """``mma.sync.aligned`` D = A * B + C for one warp (one instruction).

        Emits ``[@pred] mma.sync.aligned.<shape>.<alayout>.<blayout>[.kind::K][.block_scale
        [.scale_vec::V]][.satfinite].<dtype_d>.<dtype_a>.<dtype_b>.<dtype_c>[.<stype>]
        [.<bit_op>.popc] {d..}, {a..}, {b..}, {c..}[, sfa, {byte, thread}, sfb, {byte,
        thread}];``, e.g. ``ptx.mma(acc, a, b, acc, shape="m16n8k16", dtype_a=bf16)`` emits
        ``mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f0, %f1, %f2, %f3},
        {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f0, %f1, %f2, %f3};``.

        Shapes and types (the ISA table's ``mma`` forms): f16 m8n8k4/m16n8k8/m16n8k16; bf16
        m16n8k8/k16; tf32 m16n8k4/k8; f64 m8n8k4, m16n8k4/k8/k16 (sm_90+); e4m3/e5m2
        m16n8k16/k32 (sm_89+); ``kind="f8f6f4"`` e4m3/e5m2/e3m2/e2m3/e2m1 m16n8k32 (sm_120a);
        s8/u8 m8n8k16, m16n8k16/k32; s4/u4 m8n8k32, m16n8k32/k64; b1 m8n8k128, m16n8k128/k256
        with ``bit_op``. Block scaling (sm_120a): ``kind="mxf4"``/``"mxf4nvf4"`` e2m1 m16n8k64,
        ``kind="mxf8f6f4"`` m16n8k32, with ``scale_a=``/``scale_b=``.
        https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-mma

        Args:
            d: destination registers (``reg.array``); f32/s32/f64 one element each, f16 two
                per 32-bit register.
            a: A fragment (32-bit registers; f64 registers for f64).
            b: B fragment.
            c: accumulator input (often ``d`` itself).
            shape: ``"m16n8k16"`` or ``(16, 8, 16)``.
            dtype_a: A element type; ``dtype_b`` defaults to it.
            dtype_b: B element type (int/fp8 families may mix signedness / formats).
            dtype_c: C type (default ``dtype_d``).
            dtype_d: D type (default f32, s32 for integers, f64 for f64).
            layout_a: ``"row"``/``"col"`` (only m8n8k4 f16 takes other than row.col).
            layout_b: ``"row"``/``"col"``.
            satfinite: ``.satfinite`` (int8/int4).
            kind: ``"f8f6f4"``, or ``"mxf4"``, ``"mxf4nvf4"``, ``"mxf8f6f4"`` with block scaling.
            bit_op: ``"xor"`` or ``"and"`` for b1 (``.xor.popc``/``.and.popc``).
            scale_a: ``(scale_data_reg, byte_id, thread_id)`` for block scaling.
            scale_b: the same for B.
            scale_vec: ``"1X"``, ``"2X"``, ``"4X"`` (``.scale_vec::``), or None to omit.
            stype: scale element type, ue8m0 (default) or ue4m3.
            pred: optional guard predicate.

        Raises:
            PtxDslError: the ISA table's reason for an illegal combination or a fragment of
                the wrong size ("... operand 1 (a) expects a vector of 4 elements, but got 2").
        """
        _build(
            False, (d, a, b, c), shape=shape, dtype_a=dtype_a, dtype_b=dtype_b,
            dtype_c=dtype_c, dtype_d=dtype_d, layouts=(layout_a, layout_b),
            satfinite=satfinite, kind=kind, bit_op=bit_op, scale_a=scale_a, scale_b=scale_b,
            scale_vec=scale_vec, stype=stype, pred=pred,
        )  # fmt: skip

    def sp(
        self, d: object, a: object, b: object, c: object, meta: object, selector: int, *,
        shape: object, dtype_a: object, dtype_b: object = None, dtype_c: object = None,
        dtype_d: object = None, ordered: bool = False, satfinite: bool = False,
        kind: str | None = None, scale_a: object = None, scale_b: object = None,
        scale_vec: str | None = None, stype: object = None, pred: object = None,
    ) -> None:  # fmt: skip
        """``mma.sp`` with 2:4 structured-sparse A (one instruction).

        Emits ``[@pred] mma.sp[::ordered_metadata].sync.aligned.<shape>.row.col[.kind::K]
        [.block_scale[.scale_vec::V]][.satfinite].<dtype_d>.<dtype_a>.<dtype_b>.<dtype_c>
        [.<stype>] {d..}, {a..}, {b..}, {c..}, meta, selector[, sfa, {byte, thread}, sfb,
        {byte, thread}];``. A holds only the kept half of K, so its fragment is half the dense
        size, e.g. ``ptx.mma.sp(acc, a2, b2, acc, e, 0, shape="m16n8k16", dtype_a=f16)`` emits
        ``mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, ...}, {%r0, %r1},
        {%r2, %r3}, {%f0, ...}, %r4, 0;``.

        Shapes: f16/bf16 m16n8k16 (selector 0..3), m16n8k32 (0..1); tf32 m16n8k8 (0..3),
        m16n8k16 (0..1); e4m3/e5m2 m16n8k64 (0); ``kind="f8f6f4"`` m16n8k64 (ordered, 0);
        s8/u8 m16n8k32 (0..1), m16n8k64 (0); s4/u4 m16n8k64 (0..1), m16n8k128 (0); block
        scaling (ordered): mxf8f6f4 m16n8k64, mxf4/mxf4nvf4 m16n8k128.
        https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-mma-sp

        Args:
            d: destination registers.
            a: compressed A fragment.
            b: B fragment.
            c: accumulator input.
            meta: the 32-bit sparsity metadata register.
            selector: the sparsity selector (which threads supply metadata), a Python int.
            shape: ``"m16n8k32"`` or ``(16, 8, 32)``.
            dtype_a: A type; the other keywords are as for :meth:`__call__`.
            dtype_b: B type.
            dtype_c: C type.
            dtype_d: D type.
            ordered: ``.sp::ordered_metadata`` instead of ``.sp``.
            satfinite: ``.satfinite`` (int).
            kind: ``"f8f6f4"`` or a block-scaled kind.
            scale_a: block-scale A operands.
            scale_b: block-scale B operands.
            scale_vec: ``.scale_vec::`` value.
            stype: scale element type.
            pred: optional guard predicate.

        Raises:
            PtxDslError: the table's reason: an illegal combination, a wrong fragment size,
                or a selector out of range.
        """
        _build(
            True, (d, a, b, c, meta, selector), shape=shape, dtype_a=dtype_a, dtype_b=dtype_b,
            dtype_c=dtype_c, dtype_d=dtype_d, satfinite=satfinite, kind=kind, scale_a=scale_a,
            scale_b=scale_b, scale_vec=scale_vec, stype=stype, ordered=ordered, pred=pred,
        )  # fmt: skip

    def sync(
        self, *, shape: object, dtype_d: object, dtype_a: object, dtype_b: object,
        dtype_c: object, d: object, a: object, b: object, c: object, a_layout: str = "row",
        b_layout: str = "col", pred: object = None,
    ) -> None:  # fmt: skip
        """The seed system's spelling of :meth:`__call__`: one ``mma.sync.aligned``.

        ``ptx.mma.sync(shape=(16, 8, 16), dtype_d=f32, dtype_a=bf16, dtype_b=bf16,
        dtype_c=f32, d=acc, a=a_frag, b=b_frag, c=acc)`` is ``ptx.mma(acc, a_frag, b_frag, acc,
        shape=..., dtype_a=..., ...)``, with ``a_layout`` / ``b_layout`` its ``layout_a`` /
        ``layout_b``: it emits ``[@pred] mma.sync.aligned.<shape>.<a_layout>.<b_layout>.
        <dtype_d>.<dtype_a>.<dtype_b>.<dtype_c> {d..}, {a..}, {b..}, {c..};``. All four types
        are required, as in the seed.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-mma
        """
        self(
            d, a, b, c, shape=shape, dtype_a=dtype_a, dtype_b=dtype_b, dtype_c=dtype_c,
            dtype_d=dtype_d, layout_a=a_layout, layout_b=b_layout, pred=pred,
        )  # fmt: skip


mma = _Mma()
"""``ptx.mma(...)`` emits ``mma.sync.aligned``; ``ptx.mma.sp(...)`` emits ``mma.sp``;
``ptx.mma.sync(shape=, dtype_d=, ..., d=, a=, b=, c=)`` is the seed system's spelling of the
first."""
