"""PTX instruction family: warpgroup-level ``wgmma`` (sm_90a).

``ptx.wgmma.fence()``, ``ptx.wgmma.commit_group()``, ``ptx.wgmma.wait_group(n)`` and
``ptx.wgmma.mma_async(d, a, b, ...)`` / ``ptx.wgmma.mma_async.sp(...)`` each emit one
instruction. ``a``/``b`` are 64-bit matrix descriptors (``ptx.wgmma.descriptor``), A may come
from registers, and both may be tiles from ``smem.wgmma_tile``: then the descriptors are built
on first use (see :data:`MULTI_INSTRUCTION`). Shapes, types, accumulator sizes, selectors and
which immediates a form takes are the ISA table's (``pyptx.ir.isa``). See
https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-instructions-wgmma-mma-async
"""

from __future__ import annotations

from pyptx.ir import Instruction, PtxType, isa
from pyptx.ir.isa import Form

from ..dsl import gmma
from ..dsl.errors import PtxDslError
from ..dsl.operands import emit_inst
from ..dsl.regs import Reg, _new
from ..dsl.shared import SharedAlloc, SharedSlice
from ._mma import default_accumulator, parse_shape, regs, shape_name

__all__ = ["wgmma"]

_F16 = PtxType.F16

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


def _type(value: object, what: str) -> PtxType:
    ty = PtxType.from_name(value) if isinstance(value, str) else value
    if not isinstance(ty, PtxType):
        raise PtxDslError(f"{what} must be a PTX type (e.g. bf16 from pyptx.types), got {value!r}")
    return ty


def _int(value: object, what: str) -> int:
    if isinstance(value, bool) or value is None:
        return int(bool(value))
    if not isinstance(value, int):
        raise PtxDslError(f"{what} must be an int, got {value!r}")
    return value


def _table_form(op: str, ta: PtxType) -> tuple[Form, int]:
    """The table's first form of ``op`` on A type ``ta`` (else its first form), and its K."""
    forms = isa.SPECS[op].forms
    found = next((f for f in forms if (g := f.group("atype")) and g.accepts(ta.value)), forms[0])
    shapes = found.group("shape")
    return found, parse_shape(shapes.values[0])[2] if shapes is not None else 0


def _operand_names(mods: list[str]) -> tuple[str, ...]:
    """The operands the table's form for ``mods`` takes (none if no form fits)."""
    found = isa.match(Instruction("wgmma", tuple(mods), ()))
    return tuple(o.name for o in found.form.operands) if found is not None else ()


def _types(op: str, a: object, b: object, dtype_a: object, dtype_b: object) -> list[PtxType]:
    """A and B types from the keywords and the tiles' element types (which must agree)."""
    given = [
        None if t is None else _type(t, f"dtype_{x}") for t, x in ((dtype_a, "a"), (dtype_b, "b"))
    ]
    for i, (tile, x) in enumerate(((a, "a"), (b, "b"))):
        if isinstance(tile, _TILES):
            dtype = gmma.operand_origin(tile)[2].dtype
            held = PtxType.TF32 if dtype is PtxType.F32 else dtype
            if given[i] not in (None, held):
                raise PtxDslError(
                    f"{op}: dtype_{x}={given[i].value} but the {x.upper()} tile holds {held.value}"  # type: ignore[union-attr]
                )
            given[i] = held
    ta = given[0] or given[1]
    if ta is None:
        raise PtxDslError(f"{op} needs dtype_a= (the A/B element type, e.g. bf16)")
    return [ta, given[1] or ta]


def _accumulator(form: Form, ta: PtxType, acc: tuple[object, ...], dtype_d: object) -> PtxType:
    """``dtype_d``, else f16 for f16x2 registers where the form takes it, else the default."""
    if dtype_d is not None:
        return _type(dtype_d, "dtype_d")
    first = acc[0] if acc else None
    dtypes = form.group("dtype")
    packed = isinstance(first, Reg) and first.type in (PtxType.F16X2, _F16)
    return (
        _F16 if packed and dtypes is not None and dtypes.accepts("f16") else default_accumulator(ta)
    )


def _operand(
    op: str, x: object, which: str, extent: tuple[int, int], k_block: int, trans: object
) -> tuple[object, int]:
    """A tile's descriptor (built once) and its transpose flag, or ``x`` and ``trans``."""
    if not isinstance(x, _TILES):
        return x, _int(trans, f"trans_{which.lower()}")
    layout = gmma.operand_origin(x)[2]
    view = x if isinstance(x, gmma.GmmaView) else gmma.GmmaView(x)
    mn, k = extent[0], extent[1] * (k_block + 1)
    if view.mn + mn > layout.mn or view.k + k > layout.k:
        raise PtxDslError(
            f"{op} {which} reads MN {view.mn}..{view.mn + mn} and K {view.k}..{view.k + k}, "
            f"beyond the {layout.mn}x{layout.k} (MN x K) tile"
        )
    major = int(layout.major == "MN")
    if trans is not None and _int(trans, f"trans_{which.lower()}") != major:
        raise PtxDslError(
            f"{op}: trans_{which.lower()}={trans} contradicts the {layout.major}-major {which} tile"
        )
    return gmma.cached_tile_descriptor(x, 0, k_block * extent[1]), major


def _build(
    sparse: bool, d: object, a: object, b: object, sp: list[object], *, shape: object,
    dtype_a: object, dtype_b: object, dtype_d: object, scale_d: object, scale_a: object,
    scale_b: object, trans_a: object, trans_b: object, satfinite: bool, bit_op: str | None,
    k_block: int, pred: object,
) -> None:  # fmt: skip
    """Spell one ``wgmma.mma_async[.sp]``; ``sp`` is ``[meta, selector]`` when sparse."""
    op = "wgmma.mma_async.sp" if sparse else "wgmma.mma_async"
    ta, tb = _types(op, a, b, dtype_a, dtype_b)
    (form, k), acc = _table_form(op, ta), regs(d)
    td = _accumulator(form, ta, acc, dtype_d)
    if shape is None:  # N/4 packed f16x2 or N/2 f32/s32 registers; K from the table
        shape = (64, len(acc) * (4 if td is _F16 else 2), k)
    m, n, k = parse_shape(shape, op)
    if not isinstance(k_block, int) or isinstance(k_block, bool) or k_block < 0:
        raise PtxDslError(f"k_block must be a non-negative int, got {k_block!r}")
    if k_block and not isinstance(a, _TILES) and not isinstance(b, _TILES):
        raise PtxDslError("k_block= selects a K slice of GMMA tiles; a and b are descriptors")
    a_regs = not isinstance(a, (Reg, *_TILES))
    a_op, ta_bit = _operand(op, a, "A", (m, k // 2 if sparse else k), k_block, trans_a)
    b_op, tb_bit = _operand(op, b, "B", (n, k), k_block, trans_b)
    mods = ["mma_async", *(["sp"] if sparse else []), "sync", "aligned", shape_name((m, n, k)),
            *(["satfinite"] if satfinite else []), td.value, ta.value, tb.value,
            *([bit_op, "popc"] if bit_op is not None else [])]  # fmt: skip
    scale = int(scale_d) if isinstance(scale_d, bool) else scale_d
    ops = [acc, regs(a_op) if a_regs else a_op, b_op, *sp, scale]
    names = _operand_names(mods)
    flags = (("imm-scale-a", _int(scale_a, "scale_a"), 1),
             ("imm-scale-b", _int(scale_b, "scale_b"), 1),
             ("imm-trans-a", ta_bit, 0), ("imm-trans-b", tb_bit, 0))  # fmt: skip
    for name, value, default in flags:  # the immediates the form takes, and any one given
        if value != default or (name in names and not (a_regs and name == "imm-trans-a")):
            ops.append(value)
    emit_inst("wgmma", mods, ops, pred)


class _MmaAsync:
    """``ptx.wgmma.mma_async``: call it for the dense form; ``.sp`` for the sparse one."""

    def __call__(
        self, d: object, a: object, b: object, *, shape: object = None, dtype_a: object = None,
        dtype_b: object = None, dtype_d: object = None, scale_d: object = 1, scale_a: int = 1,
        scale_b: int = 1, trans_a: object = None, trans_b: object = None, satfinite: bool = False,
        bit_op: str | None = None, k_block: int = 0, pred: object = None,
    ) -> None:  # fmt: skip
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
            PtxDslError: the ISA table's reason for an illegal shape/type combination or an
                accumulator of the wrong size ("... operand 0 (d) expects a vector of 64
                elements, but got 32"), or a tile too small.
        """
        _build(
            False, d, a, b, [], shape=shape, dtype_a=dtype_a, dtype_b=dtype_b,
            dtype_d=dtype_d, scale_d=scale_d, scale_a=scale_a, scale_b=scale_b,
            trans_a=trans_a, trans_b=trans_b, satfinite=satfinite, bit_op=bit_op,
            k_block=k_block, pred=pred,
        )  # fmt: skip

    def sp(
        self, d: object, a: object, b: object, meta: object, selector: int, *,
        shape: object = None, dtype_a: object = None, dtype_b: object = None,
        dtype_d: object = None, scale_d: object = 1, scale_a: int = 1, scale_b: int = 1,
        trans_a: object = None, trans_b: object = None, satfinite: bool = False, k_block: int = 0,
        pred: object = None,
    ) -> None:  # fmt: skip
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
            True, d, a, b, [meta, selector], shape=shape, dtype_a=dtype_a, dtype_b=dtype_b,
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
