"""PTX instruction family: warpgroup-level ``wgmma`` (sm_90a).

``ptx.wgmma.fence()``, ``ptx.wgmma.commit_group()``, ``ptx.wgmma.wait_group(n)`` and
``ptx.wgmma.mma_async(d, a, b, ...)`` / ``ptx.wgmma.mma_async.sp(...)`` each emit one
instruction. ``a``/``b`` are 64-bit matrix descriptors (``ptx.wgmma.descriptor``), A may come
from registers, and both may be tiles from ``smem.wgmma_tile``: then the descriptors are built
on first use (see :data:`MULTI_INSTRUCTION`). Shapes and types are one table
(:data:`WGMMA_FAMILIES`). See
https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-instructions-wgmma-mma-async
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pyptx.ir import PtxType

from ..dsl import gmma
from ..dsl.errors import PtxDslError
from ..dsl.operands import NotPred, emit_inst
from ..dsl.regs import Reg, _new
from ..dsl.shared import SharedAlloc, SharedSlice
from ._mma import fragment, parse_shape, shape_name

__all__ = ["wgmma"]

_FLOAT_N = tuple(range(8, 257, 8))
_INT_N = (8, 16, 24, *range(32, 257, 16))
_F16, _BF16, _F32, _S32 = PtxType.F16, PtxType.BF16, PtxType.F32, PtxType.S32


@dataclass(frozen=True)
class WgmmaFamily:
    """One row of the wgmma table.

    Attributes:
        name: the family's name in messages.
        types: A/B element types.
        accum: legal D types.
        k: the dense K (sparse is twice that).
        ns: the legal N.
        mixed: whether A and B may differ within the family.
        scale: whether ``imm-scale-a/b`` operands exist (floating point).
        trans: whether ``imm-trans-a/b`` operands exist (f16/bf16).
        sparse_selector: the largest ``sp-sel`` for ``.sp`` (``None``: no sparse form).
    """

    name: str
    types: frozenset[PtxType]
    accum: tuple[PtxType, ...]
    k: int
    ns: tuple[int, ...]
    mixed: bool = False
    scale: bool = True
    trans: bool = False
    sparse_selector: int | None = None


WGMMA_FAMILIES: tuple[WgmmaFamily, ...] = (
    WgmmaFamily(
        "f16", frozenset({_F16}), (_F32, _F16), 16, _FLOAT_N, trans=True, sparse_selector=1
    ),
    WgmmaFamily("bf16", frozenset({_BF16}), (_F32,), 16, _FLOAT_N, trans=True, sparse_selector=1),
    WgmmaFamily("tf32", frozenset({PtxType.TF32}), (_F32,), 8, _FLOAT_N, sparse_selector=1),
    WgmmaFamily(
        "fp8", frozenset({PtxType.E4M3, PtxType.E5M2}), (_F32, _F16), 32, _FLOAT_N, mixed=True,
        sparse_selector=0,
    ),
    WgmmaFamily(
        "int8", frozenset({PtxType.S8, PtxType.U8}), (_S32,), 32, _INT_N, mixed=True,
        scale=False, sparse_selector=0,
    ),
    WgmmaFamily("b1", frozenset({PtxType.B1}), (_S32,), 256, _INT_N, scale=False),
)  # fmt: skip
"""Dense (and ``.sp``) wgmma shapes m64nNkK per A/B type; the first accumulator is the default."""

MULTI_INSTRUCTION: dict[str, str] = {
    **gmma.MULTI_INSTRUCTION,
    "ptx.wgmma.auto_descriptor": "mov.u32 a, sym+offset; bfe.u32 s, a, 4, 14; "
    "cvt.u64.u32 l, s; or.b64 desc, l, HIGH",
    "ptx.wgmma.masked_descriptor": "[add.s64 t, addr, byte_offset;] and.b64 m, t, mask; "
    "shr.u64 s, m, 4; or.b64 desc, s, HIGH (decimal immediates, as nvcc writes it)",
    "ptx.wgmma.mma_async(a=/b= GMMA tiles) and .sp": "per tile operand, on the first use of its "
    "allocation where no earlier one dominates: mov.u32 a, sym; bfe.u32 s, a, 4, 14; "
    "cvt.u64.u32 l, s; or.b64 base, l, HIGH; for each new origin (stage, sub-tile, k_block): "
    "add.s64 desc, base, offset>>4; then the one wgmma.mma_async",
}
"""The wgmma helpers that emit more than one instruction, with exactly what they emit."""

_TILES = (SharedAlloc, SharedSlice, gmma.GmmaView)


def _family(ta: PtxType, tb: PtxType) -> WgmmaFamily:
    for fam in WGMMA_FAMILIES:
        if ta in fam.types:
            if tb not in fam.types or (tb is not ta and not fam.mixed):
                ok = ", ".join(sorted(t.value for t in (fam.types if fam.mixed else {ta})))
                raise PtxDslError(f"wgmma with A {ta.value} takes B of {ok}, got {tb.value}")
            return fam
    names = ", ".join(sorted(t.value for f in WGMMA_FAMILIES for t in f.types))
    raise PtxDslError(f"wgmma A/B types are {names}; got {ta.value}")


def _type(value: object, what: str) -> PtxType:
    ty = PtxType.from_name(value) if isinstance(value, str) else value
    if not isinstance(ty, PtxType):
        raise PtxDslError(f"{what} must be a PTX type (e.g. bf16 from pyptx.types), got {value!r}")
    return ty


def _tile_layout(operand: object) -> gmma.GmmaLayout | None:
    if isinstance(operand, _TILES):
        return gmma.operand_origin(operand)[2]
    return None


def _tile_type(layout: gmma.GmmaLayout) -> PtxType:
    return PtxType.TF32 if layout.dtype is _F32 else layout.dtype


def _flag(value: object, what: str, allowed: tuple[int, ...]) -> int:
    if isinstance(value, bool):
        value = int(value)
    if not isinstance(value, int) or value not in allowed:
        raise PtxDslError(f"{what} must be one of {', '.join(map(str, allowed))}, got {value!r}")
    return value


def _scale_d(value: object) -> object:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return _flag(value, "scale_d", (0, 1))
    reg = value.reg if isinstance(value, NotPred) else value
    if isinstance(reg, Reg) and reg.type is PtxType.PRED:
        return value
    raise PtxDslError(
        f"scale_d is 1 (D = A*B + D), 0 (D = A*B), or a predicate register / ~predicate, "
        f"got {value!r}"
    )


def _build(
    sparse: bool,
    d: object,
    a: object,
    b: object,
    meta: object,
    selector: object,
    *,
    shape: object,
    dtype_a: object,
    dtype_b: object,
    dtype_d: object,
    scale_d: object,
    scale_a: object,
    scale_b: object,
    trans_a: object,
    trans_b: object,
    satfinite: bool,
    bit_op: str | None,
    k_block: int,
    pred: object,
) -> None:
    op = "wgmma.mma_async.sp" if sparse else "wgmma.mma_async"
    la, lb = _tile_layout(a), _tile_layout(b)
    ta = _type(dtype_a, "dtype_a") if dtype_a is not None else None
    if la is not None:
        tile_ty = _tile_type(la)
        if ta is not None and ta is not tile_ty:
            raise PtxDslError(f"{op}: dtype_a={ta.value} but the A tile holds {tile_ty.value}")
        ta = tile_ty
    if ta is None:
        if lb is None:
            raise PtxDslError(f"{op} needs dtype_a= (the A/B element type, e.g. bf16)")
        ta = _tile_type(lb)
    tb = ta if dtype_b is None else _type(dtype_b, "dtype_b")
    if lb is not None and dtype_b is None:
        tb = _tile_type(lb)
    elif lb is not None and tb is not _tile_type(lb):
        raise PtxDslError(f"{op}: dtype_b={tb.value} but the B tile holds {_tile_type(lb).value}")
    fam = _family(ta, tb)
    if sparse and fam.sparse_selector is None:
        raise PtxDslError(f"{op} has no {fam.name} form")
    k = fam.k * (2 if sparse else 1)
    regs_d = tuple(d) if isinstance(d, Sequence) and not isinstance(d, str) else None
    if regs_d is None:
        raise PtxDslError(f"{op} D takes the accumulator registers (reg.wgmma_frag), got {d!r}")
    if dtype_d is None:
        first = regs_d[0] if regs_d else None
        if fam.accum == (_S32,):
            td = _S32
        elif isinstance(first, Reg) and first.type in (PtxType.F16X2, _F16) and _F16 in fam.accum:
            td = _F16
        else:
            td = _F32
    else:
        td = _type(dtype_d, "dtype_d")
    if td not in fam.accum:
        ok = ", ".join(t.value for t in fam.accum)
        raise PtxDslError(f"{op} {fam.name} accumulates in {ok}, got dtype_d={td.value}")
    per_reg = 4 if td is _F16 else 2  # N/4 packed f16x2 or N/2 f32/s32 registers per thread
    if shape is None:
        n = len(regs_d) * per_reg
        if n not in fam.ns:
            raise PtxDslError(
                f"{op}: {len(regs_d)} accumulator registers make no legal N for {fam.name} "
                f"(N = registers * {per_reg}); allocate them with reg.wgmma_frag(N, "
                f"{td.value}) or pass shape="
            )
        shp = (64, n, k)
    else:
        shp = parse_shape(shape, op)
        if shp[0] != 64 or shp[2] != k or shp[1] not in fam.ns:
            ns = f"{fam.ns[0]}..{fam.ns[-1]}" if fam.ns == _FLOAT_N else ", ".join(map(str, fam.ns))
            raise PtxDslError(
                f"{op} {fam.name} shapes are m64nNk{k} with N in {ns}; got {shape_name(shp)}"
            )
    n = shp[1]
    what = f"{op} {shape_name(shp)} {ta.value}"
    acc = fragment(regs_d, n // per_reg, 32, f"{what} D (reg.wgmma_frag({n}, {td.value}))")

    # A and B operands
    if not isinstance(k_block, int) or isinstance(k_block, bool) or k_block < 0:
        raise PtxDslError(f"k_block must be a non-negative int, got {k_block!r}")
    if k_block and la is None and lb is None:
        raise PtxDslError("k_block= selects a K slice of GMMA tiles; a and b are descriptors")
    a_from_regs = not isinstance(a, Reg) and la is None
    a_op: object
    if la is not None:
        _extent(op, "A", a, la, 64, (k // 2 if sparse else k) * (k_block + 1))
        if trans_a is not None and _flag(trans_a, "trans_a", (0, 1)) != (la.major == "MN"):
            raise PtxDslError(f"{op}: trans_a={trans_a} contradicts the {la.major}-major A tile")
        trans_a = int(la.major == "MN")
        a_op = gmma.cached_tile_descriptor(a, 0, k_block * (k // 2 if sparse else k))
    elif isinstance(a, Reg):
        if a.type.bits != 64:
            raise PtxDslError(f"{op} A descriptor must be a 64-bit register, got {a!r}")
        a_op = a
    else:
        a_op = fragment(a, 4, 32, f"{what} A (registers)")
        if trans_a:
            raise PtxDslError(f"{op}: A from registers cannot be transposed; drop trans_a")
    if lb is not None:
        _extent(op, "B", b, lb, n, k * (k_block + 1))
        if trans_b is not None and _flag(trans_b, "trans_b", (0, 1)) != (lb.major == "MN"):
            raise PtxDslError(f"{op}: trans_b={trans_b} contradicts the {lb.major}-major B tile")
        trans_b = int(lb.major == "MN")
        b_op: object = gmma.cached_tile_descriptor(b, 0, k_block * k)
    elif isinstance(b, Reg) and b.type.bits == 64:
        b_op = b
    else:
        raise PtxDslError(
            f"{op} B must be a 64-bit descriptor register or a smem.wgmma_tile, got {b!r}"
        )

    ops: list[object] = [acc, a_op, b_op]
    if sparse:
        fragment(meta, 1, 32, f"{op} sparsity metadata")
        if not isinstance(selector, int) or isinstance(selector, bool):
            raise PtxDslError(f"{op} selector must be a Python int, got {selector!r}")
        top = fam.sparse_selector or 0
        if not 0 <= selector <= top:
            raise PtxDslError(f"{what} takes a sparsity selector 0..{top}, got {selector}")
        ops += [meta, selector]
    ops.append(_scale_d(scale_d))
    sa = _flag(scale_a, "scale_a", (1, -1))
    sb = _flag(scale_b, "scale_b", (1, -1))
    if fam.scale:
        ops += [sa, sb]
    elif (sa, sb) != (1, 1):
        raise PtxDslError(f"{op} {fam.name} has no imm-scale-a/b (negation is floating point only)")
    ta_bit = _flag(trans_a or 0, "trans_a", (0, 1))
    tb_bit = _flag(trans_b or 0, "trans_b", (0, 1))
    if fam.trans:
        ops += [tb_bit] if a_from_regs else [ta_bit, tb_bit]
    elif ta_bit or tb_bit:
        raise PtxDslError(f"{op} transposes f16/bf16 operands only; {fam.name} must be K-major")
    mods = ["mma_async", *(["sp"] if sparse else []), "sync", "aligned", shape_name(shp)]
    if satfinite:
        if fam.name != "int8":
            raise PtxDslError(f"{op}: satfinite= applies to s8/u8 only")
        mods.append("satfinite")
    mods += [td.value, ta.value, tb.value]
    if fam.name == "b1":
        if bit_op != "and":
            raise PtxDslError(f"{op} b1 needs bit_op='and' (.and.popc), got {bit_op!r}")
        mods += ["and", "popc"]
    elif bit_op is not None:
        raise PtxDslError(f"{op}: bit_op= applies to b1 only")
    emit_inst("wgmma", mods, ops, pred)


def _extent(op: str, which: str, operand: object, layout: gmma.GmmaLayout, mn: int, k: int) -> None:
    view = operand if isinstance(operand, gmma.GmmaView) else gmma.GmmaView(operand)  # type: ignore[arg-type]
    if view.mn + mn > layout.mn or view.k + k > layout.k:
        raise PtxDslError(
            f"{op} {which} reads MN {view.mn}..{view.mn + mn} and K {view.k}..{view.k + k}, "
            f"beyond the {layout.mn}x{layout.k} (MN x K) tile"
        )


class _MmaAsync:
    """``ptx.wgmma.mma_async``: call it for the dense form; ``.sp`` for the sparse one."""

    def __call__(
        self,
        d: object,
        a: object,
        b: object,
        *,
        shape: object = None,
        dtype_a: object = None,
        dtype_b: object = None,
        dtype_d: object = None,
        scale_d: object = 1,
        scale_a: int = 1,
        scale_b: int = 1,
        trans_a: object = None,
        trans_b: object = None,
        satfinite: bool = False,
        bit_op: str | None = None,
        k_block: int = 0,
        pred: object = None,
    ) -> None:
        """Issue one asynchronous warpgroup MMA, D = A * B (+ D) (one instruction).

        Emits ``[@pred] wgmma.mma_async.sync.aligned.m64n<N>k<K>[.satfinite].<dtype_d>.
        <dtype_a>.<dtype_b>[.and.popc] {d..}, a, b, scale-d[, imm-scale-a, imm-scale-b
        [, imm-trans-a], imm-trans-b];``: the scale operands for floating-point types, the
        trans operands for f16/bf16 (no ``imm-trans-a`` when A comes from registers). E.g.
        ``ptx.wgmma.mma_async(acc, da, db, dtype_a=bf16)`` with ``acc =
        reg.wgmma_frag(64)`` emits ``wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
        {%f0, ..., %f31}, %rd0, %rd1, 1, 1, 1, 0, 0;``.

        Shapes m64nNkK: f16 (D f32/f16) and bf16 k16, tf32 k8, e4m3/e5m2 k32 (D f32/f16), N
        8..256 step 8; s8/u8 k32 and b1 k256 (D s32), N 8, 16, 24, 32..256 step 16. D holds
        N/2 registers per thread (N/4 packed f16x2 for f16), as ``reg.wgmma_frag(N, ty)``
        allocates; A from registers is 4 x 32-bit registers.

        When ``a``/``b`` are tiles from ``smem.wgmma_tile`` (a stage of one, or a
        ``gmma.subtile``), their descriptors are built here on first use and reused
        afterwards (a multi-instruction form, see :data:`MULTI_INSTRUCTION`); ``k_block``
        picks the K slice ``[k_block*K, (k_block+1)*K)`` of both tiles and the tile's major
        sets the transpose flag.
        https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-instructions-wgmma-mma-async

        Args:
            d: accumulator registers (``reg.wgmma_frag(N, dtype_d)``).
            a: A: a 64-bit descriptor register, 4 registers, or a GMMA tile.
            b: B: a 64-bit descriptor register or a GMMA tile.
            shape: ``"m64n128k16"`` / ``(64, 128, 16)``; default from ``len(d)`` and the type.
            dtype_a: A type (default: the A or B tile's type).
            dtype_b: B type (default: ``dtype_a`` / the B tile's type).
            dtype_d: D type (default: s32 for integers, f16 for f16x2 registers, else f32).
            scale_d: 1 (accumulate), 0 (overwrite), or a predicate register / ``~p``.
            scale_a: 1 or -1 (negate A), floating point only.
            scale_b: 1 or -1 (negate B), floating point only.
            trans_a: 1 to transpose A (f16/bf16, A in shared memory).
            trans_b: 1 to transpose B (f16/bf16).
            satfinite: ``.satfinite`` (s8/u8).
            bit_op: ``"and"`` for b1 (``.and.popc``).
            k_block: K slice index for tile operands.
            pred: optional guard predicate.

        Raises:
            PtxDslError: an illegal shape/type combination, an accumulator of the wrong size
                ("... D expects 64 registers, but got 32"), or a tile too small.
        """
        _build(
            False, d, a, b, None, None, shape=shape, dtype_a=dtype_a, dtype_b=dtype_b,
            dtype_d=dtype_d, scale_d=scale_d, scale_a=scale_a, scale_b=scale_b,
            trans_a=trans_a, trans_b=trans_b, satfinite=satfinite, bit_op=bit_op,
            k_block=k_block, pred=pred,
        )  # fmt: skip

    def sp(
        self,
        d: object,
        a: object,
        b: object,
        meta: object,
        selector: int,
        *,
        shape: object = None,
        dtype_a: object = None,
        dtype_b: object = None,
        dtype_d: object = None,
        scale_d: object = 1,
        scale_a: int = 1,
        scale_b: int = 1,
        trans_a: object = None,
        trans_b: object = None,
        satfinite: bool = False,
        k_block: int = 0,
        pred: object = None,
    ) -> None:
        """Issue one asynchronous sparse warpgroup MMA with 2:4 sparse A (one instruction).

        Emits ``[@pred] wgmma.mma_async.sp.sync.aligned.m64n<N>k<K>[.satfinite].<dtype_d>.
        <dtype_a>.<dtype_b> {d..}, a, b, sp-meta, sp-sel, scale-d[, imm-scale-a, imm-scale-b
        [, imm-trans-a], imm-trans-b];`` with K twice the dense K (f16/bf16 k32, tf32 k16,
        e4m3/e5m2 and s8/u8 k64; no b1). The selector is 0..1 for f16/bf16/tf32 and 0 for
        8-bit types. E.g. ``ptx.wgmma.mma_async.sp(acc, da, db, meta, 0, dtype_a=f16)``
        emits ``wgmma.mma_async.sp.sync.aligned.m64n64k32.f32.f16.f16 {...}, %rd0, %rd1,
        %r32, 0, 1, 1, 1, 0, 0;``. Tile operands work as for the dense form (the A tile
        holds the compressed K/2 columns).
        https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-instructions-wgmma-mma-async-sp

        Args:
            d: accumulator registers.
            a: A: descriptor register, 4 registers, or a GMMA tile (compressed).
            b: B: descriptor register or a GMMA tile.
            meta: the 32-bit sparsity metadata register.
            selector: the sparsity selector, a Python int.
            shape: as for the dense form (with the sparse K).
            dtype_a: A type.
            dtype_b: B type.
            dtype_d: D type.
            scale_d: 1, 0, or a predicate.
            scale_a: 1 or -1.
            scale_b: 1 or -1.
            trans_a: transpose A (f16/bf16, A in shared memory).
            trans_b: transpose B (f16/bf16).
            satfinite: ``.satfinite`` (s8/u8).
            k_block: K slice index for tile operands.
            pred: optional guard predicate.

        Raises:
            PtxDslError: as for the dense form, or a selector out of range.
        """
        _build(
            True, d, a, b, meta, selector, shape=shape, dtype_a=dtype_a, dtype_b=dtype_b,
            dtype_d=dtype_d, scale_d=scale_d, scale_a=scale_a, scale_b=scale_b,
            trans_a=trans_a, trans_b=trans_b, satfinite=satfinite, bit_op=None,
            k_block=k_block, pred=pred,
        )  # fmt: skip


class _Wgmma:
    """``ptx.wgmma``: the warpgroup MMA instructions (sm_90a)."""

    mma_async = _MmaAsync()
    """``ptx.wgmma.mma_async(...)`` and ``ptx.wgmma.mma_async.sp(...)``."""

    def fence(self, *, pred: object = None) -> None:
        """Order prior register/shared accesses before the next wgmma (one instruction).

        Emits ``[@pred] wgmma.fence.sync.aligned;``. Needed before the first
        ``mma_async`` and whenever the accumulator registers were touched in between.
        https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-instructions-wgmma-fence
        """
        emit_inst("wgmma", ("fence", "sync", "aligned"), (), pred)

    def commit_group(self, *, pred: object = None) -> None:
        """Close the current group of issued wgmma operations (one instruction).

        Emits ``[@pred] wgmma.commit_group.sync.aligned;``.
        https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-instructions-wgmma-commit-group
        """
        emit_inst("wgmma", ("commit_group", "sync", "aligned"), (), pred)

    def wait_group(self, n: int, *, pred: object = None) -> None:
        """Wait until at most ``n`` wgmma groups are pending (one instruction).

        Emits ``[@pred] wgmma.wait_group.sync.aligned n;`` (``n`` is an immediate).
        https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-instructions-wgmma-wait-group

        Raises:
            PtxDslError: ``n`` is not a non-negative Python int.
        """
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise PtxDslError(f"wgmma.wait_group needs a non-negative int count, got {n!r}")
        emit_inst("wgmma", ("wait_group", "sync", "aligned"), (n,), pred)

    def descriptor(
        self,
        src: object,
        *,
        lbo: int | None = None,
        sbo: int | None = None,
        swizzle: object = "layout",
        base_offset: int = 0,
        mn: int = 0,
        k: int = 0,
    ) -> Reg:
        """Build a 64-bit GMMA matrix descriptor at run time (4 instructions, 3 from a register).

        Emits ``mov.u32 a, sym+offset; bfe.u32 s, a, 4, 14; cvt.u64.u32 l, s; or.b64 desc,
        l, HIGH;`` where ``HIGH`` packs LBO, SBO, the base offset and the swizzle mode (the
        ``mov`` is skipped when ``src`` is already a u32 shared address). For a
        ``smem.wgmma_tile`` the fields come from its layout and ``mn``/``k`` pick a sub-tile;
        for other memory pass ``lbo``, ``sbo`` and ``swizzle``. The pure encoder is
        ``pyptx.dsl.gmma.matrix_descriptor``. Listed in ``ptx.MULTI_INSTRUCTION_HELPERS``.
        https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-shared-memory-layout-matrix-descriptor

        Args:
            src: a GMMA tile / stage / sub-tile, a shared allocation or stage, or a u32 shared
                address register.
            lbo: leading dimension byte offset.
            sbo: stride dimension byte offset.
            swizzle: ``"128B"``, ``"64B"``, ``"32B"`` or ``None``.
            base_offset: matrix base offset 0..7.
            mn: M/N origin inside a GMMA tile.
            k: K origin inside a GMMA tile.

        Returns:
            A u64 register holding the descriptor.
        """
        return gmma.build_descriptor(
            src, lbo=lbo, sbo=sbo, swizzle=swizzle, base_offset=base_offset, mn=mn, k=k
        )

    def auto_descriptor(self, tile: object, *, mn: int = 0, k: int = 0) -> Reg:
        """The descriptor of a ``smem.wgmma_tile`` (stage, sub-tile) from its layout.

        Same as :meth:`descriptor` without explicit fields: emits ``mov.u32 a, sym+offset;
        bfe.u32 s, a, 4, 14; cvt.u64.u32 l, s; or.b64 desc, l, HIGH;`` (4 instructions).
        https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-shared-memory-layout-matrix-descriptor

        Raises:
            PtxDslError: ``tile`` was not allocated with ``smem.wgmma_tile``.
        """
        gmma.operand_origin(tile, mn, k)  # a GMMA tile, and a legal origin
        return gmma.build_descriptor(tile, mn=mn, k=k)

    def masked_descriptor(
        self,
        addr: object,
        *,
        byte_offset: int = 0,
        mask: int = 0x3FF80,
        high: int | None = None,
        lbo: int | None = None,
        sbo: int | None = None,
        swizzle: object = "128B",
    ) -> Reg:
        """Build a descriptor the way nvcc does, from a 64-bit address (3 or 4 instructions).

        Emits ``[add.s64 t, addr, byte_offset;] and.b64 m, t, mask; shr.u64 s, m, 4; or.b64
        desc, s, HIGH;`` with decimal immediates, as ``nvcc -arch=sm_90a`` writes it (the
        transpiler's sugar maps that sequence to this call). ``mask`` keeps the address bits
        that survive as the 14-bit start field (default ``0x3FF80``: 128-byte granular below
        256 KiB). ``HIGH`` is ``high`` verbatim, or the LBO/SBO/swizzle bits of
        ``pyptx.dsl.gmma.matrix_descriptor(0, lbo=, sbo=, swizzle=)``. Listed in
        ``ptx.MULTI_INSTRUCTION_HELPERS``.
        https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-shared-memory-layout-matrix-descriptor

        Args:
            addr: a 64-bit register holding the shared address.
            byte_offset: a constant added first (may be negative).
            mask: the ``and.b64`` mask.
            high: the exact constant to ``or`` in.
            lbo: leading dimension byte offset (when ``high`` is not given).
            sbo: stride dimension byte offset (when ``high`` is not given).
            swizzle: swizzle mode (when ``high`` is not given).

        Returns:
            A u64 register holding the descriptor.

        Raises:
            PtxDslError: a non-64-bit address, or neither ``high`` nor ``lbo``/``sbo``.
        """
        if not isinstance(addr, Reg) or addr.type.bits != 64:
            raise PtxDslError(f"masked_descriptor takes a 64-bit address register, got {addr!r}")
        for name, v in (("byte_offset", byte_offset), ("mask", mask)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise PtxDslError(f"masked_descriptor {name} must be an int, got {v!r}")
        if high is None:
            if lbo is None or sbo is None:
                raise PtxDslError("masked_descriptor needs high=, or lbo= and sbo= (and swizzle=)")
            high = gmma.matrix_descriptor(0, lbo=lbo, sbo=sbo, swizzle=swizzle)  # type: ignore[arg-type]
        elif not isinstance(high, int) or isinstance(high, bool) or not 0 <= high < 1 << 64:
            raise PtxDslError(f"masked_descriptor high must be a 64-bit unsigned int, got {high!r}")
        src = addr
        if byte_offset:
            src = _new(PtxType.U64)
            emit_inst("add", ("s64",), (src, addr, byte_offset))
        masked = _new(PtxType.U64)
        emit_inst("and", ("b64",), (masked, src, mask))
        shifted = _new(PtxType.U64)
        emit_inst("shr", ("u64",), (shifted, masked, 4))
        desc = _new(PtxType.U64)
        emit_inst("or", ("b64",), (desc, shifted, high))
        return desc


wgmma = _Wgmma()
"""``ptx.wgmma.fence/commit_group/wait_group/mma_async/descriptor``."""
