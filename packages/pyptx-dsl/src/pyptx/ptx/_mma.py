"""PTX instruction family: warp-level ``mma.sync.aligned`` (dense) and ``mma.sp`` (sparse).

``ptx.mma(d, a, b, c, shape=..., dtype_a=...)`` emits one ``mma.sync.aligned`` and
``ptx.mma.sp(d, a, b, c, meta, selector, ...)`` one ``mma.sp``. The legal shape / type /
accumulator combinations and the per-thread fragment sizes are one table
(:data:`MMA_FAMILIES`, :data:`BLOCK_SCALE_KINDS`); a fragment of the wrong length raises
with the expected register count. See
https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-mma
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pyptx.ir import PtxType

from ..dsl.errors import PtxDslError
from ..dsl.operands import NotPred, emit_inst
from ..dsl.regs import Reg

__all__ = ["mma"]

MMA_DOC = (
    "https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-mma"
)
MMA_SP_DOC = (
    "https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-mma-sp"
)

Shape = tuple[int, int, int]

_F16, _BF16, _TF32, _F32, _F64 = PtxType.F16, PtxType.BF16, PtxType.TF32, PtxType.F32, PtxType.F64
_S32 = PtxType.S32
_F8 = frozenset({PtxType.E4M3, PtxType.E5M2})
_F8F6F4 = _F8 | {PtxType.E3M2, PtxType.E2M3, PtxType.E2M1}


@dataclass(frozen=True)
class MmaFamily:
    """One row of the mma table: a group of A/B types with its shapes and accumulators.

    Attributes:
        name: the family's name in messages.
        types: the A/B element types.
        accum: the legal D/C types.
        dense: the ``mma.sync`` shapes.
        sparse: the ``mma.sp`` shapes, each with its largest sparsity selector.
        mixed: whether A and B may have different types of the family.
        kind: the ``.kind::`` qualifier the family needs, if any.
        elem_bits: bits an element takes in a register (8-bit containers for ``f8f6f4``).
        ordered: whether ``mma.sp`` must use ``.sp::ordered_metadata``.
    """

    name: str
    types: frozenset[PtxType]
    accum: tuple[PtxType, ...]
    dense: tuple[Shape, ...]
    sparse: tuple[tuple[Shape, int], ...] = ()
    mixed: bool = False
    kind: str | None = None
    elem_bits: int | None = None
    ordered: bool = False


MMA_FAMILIES: tuple[MmaFamily, ...] = (
    MmaFamily(
        "f16", frozenset({_F16}), (_F16, _F32), ((8, 8, 4), (16, 8, 8), (16, 8, 16)),
        (((16, 8, 16), 3), ((16, 8, 32), 1)),
    ),
    MmaFamily(
        "bf16", frozenset({_BF16}), (_F32,), ((16, 8, 8), (16, 8, 16)),
        (((16, 8, 16), 3), ((16, 8, 32), 1)),
    ),
    MmaFamily(
        "tf32", frozenset({_TF32}), (_F32,), ((16, 8, 4), (16, 8, 8)),
        (((16, 8, 8), 3), ((16, 8, 16), 1)),
    ),
    MmaFamily("f64", frozenset({_F64}), (_F64,), ((8, 8, 4), (16, 8, 4), (16, 8, 8), (16, 8, 16))),
    MmaFamily(
        "fp8", _F8, (_F16, _F32), ((16, 8, 16), (16, 8, 32)), (((16, 8, 64), 0),), mixed=True
    ),
    MmaFamily(
        "f8f6f4", _F8F6F4, (_F16, _F32), ((16, 8, 32),), (((16, 8, 64), 0),), mixed=True,
        kind="f8f6f4", elem_bits=8, ordered=True,
    ),
    MmaFamily(
        "int8", frozenset({PtxType.S8, PtxType.U8}), (_S32,),
        ((8, 8, 16), (16, 8, 16), (16, 8, 32)),
        (((16, 8, 32), 1), ((16, 8, 64), 0)), mixed=True,
    ),
    MmaFamily(
        "int4", frozenset({PtxType.S4, PtxType.U4}), (_S32,),
        ((8, 8, 32), (16, 8, 32), (16, 8, 64)),
        (((16, 8, 64), 1), ((16, 8, 128), 0)), mixed=True,
    ),
    MmaFamily("b1", frozenset({PtxType.B1}), (_S32,), ((8, 8, 128), (16, 8, 128), (16, 8, 256))),
)  # fmt: skip
"""Dense and sparse ``mma`` shapes per A/B type family (block-scaled kinds are separate)."""


@dataclass(frozen=True)
class BlockScaleKind:
    """One ``.kind::mx*`` block-scaled variant (``.block_scale``, sm_120a).

    Attributes:
        kind: the ``.kind::`` value.
        types: A/B element types.
        dense: the ``mma.sync`` shape.
        sparse: the ``mma.sp::ordered_metadata`` shape.
        scale_vecs: allowed ``.scale_vec::`` values (``None``: may be omitted).
        stypes: scale element type per ``scale_vec``.
        elem_bits: bits an element takes in a register.
    """

    kind: str
    types: frozenset[PtxType]
    dense: Shape
    sparse: Shape
    scale_vecs: tuple[str | None, ...]
    stypes: dict[str | None, tuple[PtxType, ...]]
    elem_bits: int


BLOCK_SCALE_KINDS: dict[str, BlockScaleKind] = {
    "mxf4": BlockScaleKind(
        "mxf4", frozenset({PtxType.E2M1}), (16, 8, 64), (16, 8, 128), (None, "2X"),
        {None: (PtxType.UE8M0,), "2X": (PtxType.UE8M0,)}, 4,
    ),
    "mxf4nvf4": BlockScaleKind(
        "mxf4nvf4", frozenset({PtxType.E2M1}), (16, 8, 64), (16, 8, 128), ("2X", "4X"),
        {"2X": (PtxType.UE8M0,), "4X": (PtxType.UE4M3, PtxType.UE8M0)}, 4,
    ),
    "mxf8f6f4": BlockScaleKind(
        "mxf8f6f4", _F8F6F4, (16, 8, 32), (16, 8, 64), (None, "1X"),
        {None: (PtxType.UE8M0,), "1X": (PtxType.UE8M0,)}, 8,
    ),
}  # fmt: skip
"""The block-scaled ``mma`` kinds: shapes, scale vector sizes and scale types."""


# ---------------------------------------------------------------------------------- helpers


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


def fragment(value: object, count: int, bits: int, what: str) -> tuple[Reg, ...]:
    """Check a register fragment: ``count`` registers of ``bits`` bits each.

    Raises:
        PtxDslError: "<what> expects N registers, but got M" or a wrong register width.
    """
    regs: tuple[object, ...]
    if isinstance(value, Reg):
        regs = (value,)
    elif isinstance(value, Sequence) and not isinstance(value, str):
        regs = tuple(value)
    else:
        raise PtxDslError(
            f"{what} expects {count} register{'s' if count > 1 else ''} "
            f"(a list or reg.array), got {type(value).__name__}"
        )
    if len(regs) != count:
        raise PtxDslError(
            f"{what} expects {count} register{'s' if count > 1 else ''}, but got {len(regs)}"
        )
    for r in regs:
        if not isinstance(r, Reg):
            raise PtxDslError(f"{what} takes registers, got {r!r}")
        if r.type.bits != bits:
            raise PtxDslError(
                f"{what} takes {bits}-bit registers, but {r.name} is {r.type.value}"
                + ("; pack two 16-bit values per b32/f16x2 register" if bits == 32 else "")
            )
    return regs  # type: ignore[return-value]


def _family(dtype_a: PtxType, kind: str | None) -> MmaFamily:
    if kind == "f8f6f4":
        return next(f for f in MMA_FAMILIES if f.kind == "f8f6f4")
    if kind is not None:
        raise PtxDslError(
            f"kind must be 'f8f6f4', or one of {', '.join(BLOCK_SCALE_KINDS)} with "
            f"scale_a=/scale_b= (block scaling), got {kind!r}"
        )
    for fam in MMA_FAMILIES:
        if fam.kind is None and dtype_a in fam.types:
            return fam
    if dtype_a in _F8F6F4:
        raise PtxDslError(
            f"mma with {dtype_a.value} operands needs kind='f8f6f4' (sm_120a), or a block-scaled "
            "kind='mxf8f6f4' with scale_a=/scale_b="
        )
    names = sorted({t.value for f in MMA_FAMILIES for t in f.types})
    raise PtxDslError(f"mma A type must be one of {', '.join(names)}, got {dtype_a.value}")


def _counts(
    shape: Shape, elem_bits: int, dtype_a: PtxType, acc: PtxType, sparse: bool
) -> tuple[int, int, int]:
    """(A, B, C/D) registers per thread for one mma of ``shape``."""
    m, n, k = shape
    quad = 4 if shape == (8, 8, 4) and dtype_a is _F16 else 1  # m8n8k4 f16: four MMAs per warp
    a_elems = m * (k // 2 if sparse else k) // 32 * quad
    b_elems = n * k // 32 * quad
    c_elems = m * n // 32 * quad
    if dtype_a is _F64:
        return a_elems, b_elems, c_elems
    return a_elems * elem_bits // 32, b_elems * elem_bits // 32, c_elems * acc.bits // 32


_BYTE_IDS = {"1X": (0, 1, 2, 3), "2X": (0, 2), "4X": (0,)}
"""Legal immediate byte-id selectors per scale vector size (thread-id: A 0..1, B 0..3)."""


def _scale_operands(scale: object, which: str, vec: str) -> tuple[object, tuple[object, object]]:
    if not (isinstance(scale, tuple) and len(scale) == 3):
        raise PtxDslError(
            f"scale_{which} must be (scale_data_reg, byte_id, thread_id), got {scale!r}"
        )
    data, byte_id, thread_id = scale
    fragment(data, 1, 32, f"scale_{which} data")
    threads = (0, 1) if which == "a" else (0, 1, 2, 3)
    for name, v, legal in (("byte_id", byte_id, _BYTE_IDS[vec]), ("thread_id", thread_id, threads)):
        if isinstance(v, Reg):
            if v.type.bits != 16:
                raise PtxDslError(f"scale_{which} {name} register must be 16-bit, got {v!r}")
        elif isinstance(v, bool) or v not in legal:
            raise PtxDslError(
                f"scale_{which} {name} must be one of {', '.join(map(str, legal))} (scale_vec "
                f"{vec}) or a u16 register, got {v!r}"
            )
    return data, (byte_id, thread_id)


# ---------------------------------------------------------------------------------- builder


def _build(
    sparse: bool,
    operands: tuple[object, ...],
    *,
    shape: object,
    dtype_a: object,
    dtype_b: object,
    dtype_c: object,
    dtype_d: object,
    layout_a: str,
    layout_b: str,
    satfinite: bool,
    kind: str | None,
    bit_op: str | None,
    scale_a: object,
    scale_b: object,
    scale_vec: str | None,
    stype: object,
    ordered: bool,
    selector: object = None,
    pred: object = None,
) -> None:
    d, a, b, c = operands[:4]
    shp = parse_shape(shape)
    ta = _ty(dtype_a, "dtype_a")
    tb = ta if dtype_b is None else _ty(dtype_b, "dtype_b")
    block = scale_a is not None or scale_b is not None
    op = "mma.sp" if sparse else "mma"
    mods: list[str] = []
    tail: list[str] = []
    if block:
        if scale_a is None or scale_b is None:
            raise PtxDslError("block-scaled mma needs both scale_a= and scale_b=")
        spec = BLOCK_SCALE_KINDS.get(kind or "")
        if spec is None:
            raise PtxDslError(
                f"block-scaled mma needs kind= one of {', '.join(BLOCK_SCALE_KINDS)}, got {kind!r}"
            )
        if sparse and not ordered:
            raise PtxDslError("block-scaled mma.sp needs ordered=True (.sp::ordered_metadata)")
        want = spec.sparse if sparse else spec.dense
        if shp != want:
            raise PtxDslError(
                f"{op} kind::{spec.kind} has shape {shape_name(want)}, got {shape_name(shp)}"
            )
        for t in (ta, tb):
            if t not in spec.types:
                allowed = ", ".join(sorted(x.value for x in spec.types))
                raise PtxDslError(f"kind::{spec.kind} takes {allowed} operands, got {t.value}")
        if scale_vec not in spec.scale_vecs:
            allowed = ", ".join(repr(v) for v in spec.scale_vecs)
            raise PtxDslError(f"kind::{spec.kind} takes scale_vec= {allowed}, got {scale_vec!r}")
        st = PtxType.UE8M0 if stype is None else _ty(stype, "stype")
        if st not in spec.stypes[scale_vec]:
            allowed = ", ".join(t.value for t in spec.stypes[scale_vec])
            raise PtxDslError(
                f"kind::{spec.kind} with scale_vec={scale_vec!r} takes stype {allowed}, "
                f"got {st.value}"
            )
        acc_d = acc_c = _F32
        for name, given in (("dtype_d", dtype_d), ("dtype_c", dtype_c)):
            if given is not None and _ty(given, name) is not _F32:
                raise PtxDslError(f"block-scaled mma accumulates in f32, got {name}={given!r}")
        elem_bits, max_sel = spec.elem_bits, 0
        mods += [f"kind::{spec.kind}", "block_scale"]
        if scale_vec is not None:
            mods.append(f"scale_vec::{scale_vec}")
        tail = [st.value]
    else:
        if scale_vec is not None or stype is not None:
            raise PtxDslError(
                "scale_vec= and stype= belong to block-scaled mma (scale_a=, scale_b=)"
            )
        fam = _family(ta, kind)
        if tb not in fam.types or (tb is not ta and not fam.mixed):
            ok = ", ".join(sorted(t.value for t in (fam.types if fam.mixed else {ta})))
            raise PtxDslError(f"mma with A {ta.value} takes B of {ok}, got {tb.value}")
        if sparse:
            sizes = dict(fam.sparse)
            if shp not in sizes:
                ok = ", ".join(shape_name(s) for s in sizes) or "none"
                raise PtxDslError(f"mma.sp {fam.name} shapes are {ok}, got {shape_name(shp)}")
            max_sel = sizes[shp]
            if fam.ordered and not ordered:
                raise PtxDslError(f"mma.sp kind::{fam.kind} needs ordered=True")
        else:
            if shp not in fam.dense:
                ok = ", ".join(shape_name(s) for s in fam.dense)
                raise PtxDslError(f"mma {fam.name} shapes are {ok}, got {shape_name(shp)}")
            max_sel = 0
        default = fam.accum[-1]
        acc_d = default if dtype_d is None else _ty(dtype_d, "dtype_d")
        acc_c = acc_d if dtype_c is None else _ty(dtype_c, "dtype_c")
        for name, t in (("dtype_d", acc_d), ("dtype_c", acc_c)):
            if t not in fam.accum:
                ok = ", ".join(x.value for x in fam.accum)
                raise PtxDslError(f"mma {fam.name} {name} must be {ok}, got {t.value}")
        if acc_c is not acc_d and not (shp == (8, 8, 4) and acc_d is _F32):
            raise PtxDslError(
                f"mma {shape_name(shp)} needs dtype_c == dtype_d (got d {acc_d.value}, "
                f"c {acc_c.value})"
            )
        if fam.kind:
            mods.append(f"kind::{fam.kind}")
        if satfinite:
            if acc_d is not _S32 or fam.name == "b1":
                raise PtxDslError("satfinite= applies to int8/int4 mma only")
            mods.append("satfinite")
        if fam.name == "b1":
            if bit_op not in ("xor", "and") or sparse:
                raise PtxDslError(f"b1 mma needs bit_op='xor' or 'and', got {bit_op!r}")
            tail = [bit_op, "popc"]
        elif bit_op is not None:
            raise PtxDslError("bit_op= applies to b1 mma only")
        elem_bits = fam.elem_bits or ta.bits
    if (layout_a, layout_b) != ("row", "col"):
        ok_layouts = ("row", "col")
        if layout_a not in ok_layouts or layout_b not in ok_layouts:
            raise PtxDslError(f"layouts are 'row' or 'col', got {layout_a!r}, {layout_b!r}")
        if not (shp == (8, 8, 4) and ta is _F16 and not sparse):
            raise PtxDslError(
                f"only mma.m8n8k4 f16 takes other layouts; {shape_name(shp)} is row.col"
            )
    na, nb, nc = _counts(shp, elem_bits, ta, acc_d, sparse)
    _, _, ncc = _counts(shp, elem_bits, ta, acc_c, sparse)
    what = f"{op} {shape_name(shp)} {ta.value}"
    wide = 64 if ta is _F64 else 32
    ops: list[object] = [
        fragment(d, nc, wide, f"{what} D"),
        fragment(a, na, wide, f"{what} A"),
        fragment(b, nb, wide, f"{what} B"),
        fragment(c, ncc, wide, f"{what} C"),
    ]
    head = ["sp::ordered_metadata" if ordered else "sp"] if sparse else []
    if ordered and not sparse:
        raise PtxDslError("ordered= applies to mma.sp only")
    if sparse:
        meta = operands[4]
        fragment(meta, 1, 32, f"{op} metadata")
        if not isinstance(selector, int) or isinstance(selector, bool):
            raise PtxDslError(f"{op} selector must be a Python int, got {selector!r}")
        if not 0 <= selector <= max_sel:
            raise PtxDslError(
                f"{op} {shape_name(shp)} {ta.value} takes a sparsity selector 0..{max_sel}, "
                f"got {selector}"
            )
        ops += [meta, selector]
    if block:
        vec = scale_vec or ("2X" if kind == "mxf4" else "1X")
        for sc, which in ((scale_a, "a"), (scale_b, "b")):
            data, ids = _scale_operands(sc, which, vec)
            ops += [data, ids]
    modifiers = [
        *head, "sync", "aligned", shape_name(shp), layout_a, layout_b, *mods,
        acc_d.value, ta.value, tb.value, acc_c.value, *tail,
    ]  # fmt: skip
    if pred is not None and not isinstance(pred, (Reg, NotPred)):
        raise PtxDslError(f"pred= takes a predicate register or ~register, got {pred!r}")
    emit_inst("mma", modifiers, ops, pred)


class _Mma:
    """``ptx.mma``: call it for ``mma.sync.aligned``; ``ptx.mma.sp`` for the sparse form."""

    def __call__(
        self,
        d: object,
        a: object,
        b: object,
        c: object,
        *,
        shape: object,
        dtype_a: object,
        dtype_b: object = None,
        dtype_c: object = None,
        dtype_d: object = None,
        layout_a: str = "row",
        layout_b: str = "col",
        satfinite: bool = False,
        kind: str | None = None,
        bit_op: str | None = None,
        scale_a: object = None,
        scale_b: object = None,
        scale_vec: str | None = None,
        stype: object = None,
        pred: object = None,
    ) -> None:
        """``mma.sync.aligned`` D = A * B + C for one warp (one instruction).

        Emits ``[@pred] mma.sync.aligned.<shape>.<alayout>.<blayout>[.kind::K][.block_scale
        [.scale_vec::V]][.satfinite].<dtype_d>.<dtype_a>.<dtype_b>.<dtype_c>[.<stype>]
        [.<bit_op>.popc] {d..}, {a..}, {b..}, {c..}[, sfa, {byte, thread}, sfb, {byte,
        thread}];``, e.g. ``ptx.mma(acc, a, b, acc, shape="m16n8k16", dtype_a=bf16)`` emits
        ``mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f0, %f1, %f2, %f3},
        {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f0, %f1, %f2, %f3};``.

        Shapes and types (see :data:`MMA_FAMILIES`): f16 m8n8k4/m16n8k8/m16n8k16; bf16
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
            PtxDslError: an illegal combination or a fragment of the wrong size
                ("mma m16n8k16 bf16 A expects 4 registers, but got 2").
        """
        _build(
            False, (d, a, b, c), shape=shape, dtype_a=dtype_a, dtype_b=dtype_b,
            dtype_c=dtype_c, dtype_d=dtype_d, layout_a=layout_a, layout_b=layout_b,
            satfinite=satfinite, kind=kind, bit_op=bit_op, scale_a=scale_a, scale_b=scale_b,
            scale_vec=scale_vec, stype=stype, ordered=False, pred=pred,
        )  # fmt: skip

    def sp(
        self,
        d: object,
        a: object,
        b: object,
        c: object,
        meta: object,
        selector: int,
        *,
        shape: object,
        dtype_a: object,
        dtype_b: object = None,
        dtype_c: object = None,
        dtype_d: object = None,
        ordered: bool = False,
        satfinite: bool = False,
        kind: str | None = None,
        scale_a: object = None,
        scale_b: object = None,
        scale_vec: str | None = None,
        stype: object = None,
        pred: object = None,
    ) -> None:
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
            PtxDslError: illegal combination, wrong fragment size, or selector out of range.
        """
        _build(
            True, (d, a, b, c, meta), shape=shape, dtype_a=dtype_a, dtype_b=dtype_b,
            dtype_c=dtype_c, dtype_d=dtype_d, layout_a="row", layout_b="col",
            satfinite=satfinite, kind=kind, bit_op=None, scale_a=scale_a, scale_b=scale_b,
            scale_vec=scale_vec, stype=stype, ordered=ordered, selector=selector, pred=pred,
        )  # fmt: skip


mma = _Mma()
"""``ptx.mma(...)`` emits ``mma.sync.aligned``; ``ptx.mma.sp(...)`` emits ``mma.sp``."""
