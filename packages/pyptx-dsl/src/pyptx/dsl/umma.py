"""Blackwell UMMA descriptors: the tcgen05 instruction descriptor and shared-memory descriptor.

Two kinds of helpers live here:

* Pure-Python builders that need no kernel trace and return the descriptor as an ``int``:
  :func:`instr_desc` (the 32-bit ``idesc`` operand of ``tcgen05.mma``) and :func:`smem_desc`
  (the 64-bit ``a-desc`` / ``b-desc`` / ``s-desc`` operand), with :func:`decode_instr_desc`
  and :func:`decode_smem_desc` to read a value back field by field.
* Runtime helpers that build a descriptor in registers inside a ``@kernel`` when part of it
  is only known on the device (a shared-memory address, a scale-factor ID):
  :func:`instr_desc_reg`, :func:`smem_desc_reg` (several instructions each, listed with their
  exact output in :data:`MULTI_INSTRUCTION`) and :func:`smem_desc_advance` (one ``add``).

The bit layouts follow the PTX ISA tables, declared once as data in
:data:`INSTR_DESC_LAYOUTS` and :data:`SMEM_DESC_LAYOUT`:

* Instruction descriptor:
  https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instruction-descriptor
* Shared memory descriptor:
  https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-shared-memory-descriptor

Example::

    from pyptx.dsl import umma
    from pyptx.types import bf16, f32

    idesc = umma.instr_desc("f16", m=128, n=256, d_type=f32, a_type=bf16, b_type=bf16)
    assert idesc == 0x08400490
    bdesc = umma.smem_desc(0x400, lbo=16, sbo=1024, swizzle="128B")
    assert bdesc == 0x4000404000010040
"""

from __future__ import annotations

from pyptx.ir import BinaryExpr, Immediate, PtxType, Symbol, TypeKind

from .errors import PtxDslError
from .operands import Addr, emit_inst
from .regs import Reg, _new

__all__ = [
    "INSTR_DESC_KINDS",
    "INSTR_DESC_LAYOUTS",
    "MULTI_INSTRUCTION",
    "SMEM_DESC_LAYOUT",
    "SWIZZLE_MODES",
    "decode_instr_desc",
    "decode_smem_desc",
    "instr_desc",
    "instr_desc_reg",
    "smem_desc",
    "smem_desc_advance",
    "smem_desc_reg",
]

_ISA = "https://docs.nvidia.com/cuda/parallel-thread-execution/"

# ---------------------------------------------------------------------- instruction descriptor

_T = PtxType

_DENSE: dict[str, tuple[int, int]] = {
    "sparsity_selector": (0, 2),
    "sparse": (2, 1),
    "saturate": (3, 1),
    "d_format": (4, 2),
    "a_format": (7, 3),
    "b_format": (10, 3),
    "negate_a": (13, 1),
    "negate_b": (14, 1),
    "transpose_a": (15, 1),
    "transpose_b": (16, 1),
    "n": (17, 6),
    "m": (24, 5),
    "max_shift": (30, 2),
}

_MXF8F6F4: dict[str, tuple[int, int]] = {
    "sparse": (2, 1),
    "b_scale_id": (4, 2),
    "a_format": (7, 3),
    "b_format": (10, 3),
    "negate_a": (13, 1),
    "negate_b": (14, 1),
    "transpose_a": (15, 1),
    "transpose_b": (16, 1),
    "n": (17, 6),
    "scale_format": (23, 1),
    "m": (27, 2),
    "a_scale_id": (29, 2),
}

_MXF4: dict[str, tuple[int, int]] = {
    **_MXF8F6F4,
    "b_format": (10, 2),
    "k96": (31, 1),
}

INSTR_DESC_LAYOUTS: dict[str, dict[str, tuple[int, int]]] = {
    "f16": _DENSE,
    "tf32": _DENSE,
    "f8f6f4": _DENSE,
    "i8": _DENSE,
    "mxf8f6f4": _MXF8F6F4,
    "mxf4": _MXF4,
    "mxf4nvf4": _MXF4,
}
"""``.kind`` -> field name -> (least significant bit, width) of the 32-bit instruction
descriptor (PTX ISA tables "Instruction descriptor format for ..."). ``m`` holds M >> 4 for
the dense kinds and M >> 7 for the block-scaled kinds; ``n`` holds N >> 3."""

INSTR_DESC_KINDS = tuple(INSTR_DESC_LAYOUTS)
"""Every ``.kind`` of ``tcgen05.mma``."""

_BLOCK_SCALED = ("mxf8f6f4", "mxf4", "mxf4nvf4")

_F8F6F4 = {_T.E4M3: 0, _T.E5M2: 1, _T.E2M3: 3, _T.E3M2: 4, _T.E2M1: 5}

# kind -> (D formats, A/B formats)
_FORMATS: dict[str, tuple[dict[PtxType, int], dict[PtxType, int]]] = {
    "f16": ({_T.F16: 0, _T.F32: 1}, {_T.F16: 0, _T.BF16: 1}),
    "tf32": ({_T.F32: 1}, {_T.TF32: 2}),
    "f8f6f4": ({_T.F16: 0, _T.F32: 1}, _F8F6F4),
    "i8": ({_T.S32: 2}, {_T.U8: 0, _T.S8: 1}),
    "mxf8f6f4": ({_T.F32: 0}, _F8F6F4),
    "mxf4": ({_T.F32: 0}, {_T.E2M1: 1}),
    "mxf4nvf4": ({_T.F32: 0}, {_T.E2M1: 1}),
}

_SCALE_FORMATS: dict[str, dict[PtxType, int]] = {
    "mxf8f6f4": {_T.UE8M0: 1},
    "mxf4": {_T.UE8M0: 1},
    "mxf4nvf4": {_T.UE4M3: 0, _T.UE8M0: 1},
}

_SCALE_IDS: dict[str, tuple[int, ...]] = {
    "mxf8f6f4": (0, 1, 2, 3),
    "mxf4": (0, 2),
    "mxf4nvf4": (0, 2),
}

_MAX_SHIFTS = {0: 0, 8: 1, 16: 2, 32: 3}

_REG_FIELDS = ("sparsity_selector", "negate_a", "negate_b", "a_scale_id", "b_scale_id")
"""Fields :func:`instr_desc_reg` accepts as a register holding the field's value."""


def _names(types: dict[PtxType, int]) -> str:
    return ", ".join(t.value for t in types)


def _kind(kind: object) -> str:
    if not isinstance(kind, str) or kind.removeprefix("kind::") not in INSTR_DESC_LAYOUTS:
        raise PtxDslError(
            f"the tcgen05 instruction descriptor kind must be one of "
            f"{', '.join(INSTR_DESC_KINDS)}, got {kind!r}"
        )
    return kind.removeprefix("kind::")


def _bool(value: object, name: str) -> int:
    if not isinstance(value, bool):
        raise PtxDslError(f"{name} must be True or False, got {value!r}")
    return int(value)


def _flag(value: object, name: str) -> int | Reg:
    """A one-bit field given as a bool, or as a register holding 0/1."""
    return value if isinstance(value, Reg) else _bool(value, name)


def _unset(value: object, default: object) -> bool:
    """Whether an optional field was left at its default (a register never is)."""
    return not isinstance(value, Reg) and type(value) is type(default) and value == default


def _choice(value: object, allowed: tuple[int, ...], name: str, kind: str) -> int | Reg:
    if isinstance(value, Reg):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value in allowed:
        return value
    listed = ", ".join(str(a) for a in allowed)
    raise PtxDslError(f"{name} for .kind::{kind} must be one of {listed}, got {value!r}")


def _instr_desc_fields(
    kind: str,
    *,
    m: int,
    n: int,
    a_type: PtxType,
    b_type: PtxType,
    d_type: PtxType | None,
    transpose_a: bool,
    transpose_b: bool,
    negate_a: object,
    negate_b: object,
    sparse: bool,
    sparsity_selector: object,
    saturate: bool,
    max_shift: int,
    scale_type: PtxType | None,
    a_scale_id: object,
    b_scale_id: object,
    k: int | None,
) -> dict[str, int | Reg]:
    """Validate the arguments of :func:`instr_desc` and return the raw field values."""
    kind = _kind(kind)
    scaled = kind in _BLOCK_SCALED
    d_formats, ab_formats = _FORMATS[kind]
    fields: dict[str, int | Reg] = {}

    ms = (128, 256) if scaled else (32, 64, 128, 256)
    if isinstance(m, bool) or m not in ms:
        listed = ", ".join(str(x) for x in ms)
        raise PtxDslError(f"M for .kind::{kind} must be one of {listed}, got {m!r}")
    fields["m"] = m >> (7 if scaled else 4)
    if isinstance(n, bool) or not isinstance(n, int) or not 8 <= n <= 256 or n % 8:
        raise PtxDslError(f"N must be a multiple of 8 in 8..256, got {n!r}")
    if m == 256 and n % 16:
        raise PtxDslError(f"N must be a multiple of 16 when M is 256, got {n}")
    fields["n"] = n >> 3

    for name, ty in (("a_type", a_type), ("b_type", b_type)):
        if ty not in ab_formats:
            raise PtxDslError(
                f"{name} for .kind::{kind} must be one of {_names(ab_formats)}, got "
                f"{getattr(ty, 'value', ty)!r}"
            )
        fields[name[0] + "_format"] = ab_formats[ty]
    if d_type is None:
        d_type = next(iter(d_formats)) if len(d_formats) == 1 else _T.F32
    if d_type not in d_formats:
        raise PtxDslError(
            f"d_type for .kind::{kind} must be {_names(d_formats)}, got "
            f"{getattr(d_type, 'value', d_type)!r}"
        )
    if kind == "f16" and d_type is _T.F16 and _T.BF16 in (a_type, b_type):
        raise PtxDslError("an f16 accumulator needs f16 A and B; use d_type=f32 for bf16 inputs")
    if not scaled:
        fields["d_format"] = d_formats[d_type]

    fields["sparse"] = _bool(sparse, "sparse")
    for name, value in (("transpose_a", transpose_a), ("transpose_b", transpose_b)):
        bit = _bool(value, name)
        if bit and kind in ("mxf4", "mxf4nvf4"):
            raise PtxDslError(f".kind::{kind} does not support {name} (K-major A and B only)")
        fields[name] = bit
    for name, neg in (("negate_a", negate_a), ("negate_b", negate_b)):
        flag = _flag(neg, name)
        if (isinstance(flag, Reg) or flag) and kind == "i8":
            raise PtxDslError(f".kind::i8 does not support {name}")
        fields[name] = flag

    if scaled:
        if not (_unset(sparsity_selector, 0) and _unset(saturate, False) and _unset(max_shift, 0)):
            raise PtxDslError(
                f"sparsity_selector, saturate and max_shift are not fields of the .kind::{kind} "
                "instruction descriptor; leave them at their defaults"
            )
        if scale_type is None:
            if kind == "mxf4nvf4":
                raise PtxDslError(
                    "the .kind::mxf4nvf4 descriptor needs scale_type=ue4m3 (NVFP4) or "
                    "scale_type=ue8m0 (MXFP4)"
                )
            scale_type = _T.UE8M0
        formats = _SCALE_FORMATS[kind]
        if scale_type not in formats:
            raise PtxDslError(
                f"scale_type for .kind::{kind} must be {_names(formats)}, got "
                f"{getattr(scale_type, 'value', scale_type)!r}"
            )
        fields["scale_format"] = formats[scale_type]
        fields["a_scale_id"] = _choice(a_scale_id, _SCALE_IDS[kind], "a_scale_id", kind)
        fields["b_scale_id"] = _choice(b_scale_id, _SCALE_IDS[kind], "b_scale_id", kind)
        if kind == "mxf8f6f4":
            if k is not None:
                raise PtxDslError("k= selects K=96 for .kind::mxf4/mxf4nvf4 only")
        elif k is not None:
            if k not in (64, 96, 128):
                raise PtxDslError(f"k for .kind::{kind} must be 64, 96 or 128, got {k!r}")
            fields["k96"] = int(k == 96)
        return fields

    if not (scale_type is None and _unset(a_scale_id, 0) and _unset(b_scale_id, 0) and k is None):
        raise PtxDslError(
            f"scale_type, a_scale_id, b_scale_id and k are fields of the block-scaled kinds "
            f"({', '.join(_BLOCK_SCALED)}), not of .kind::{kind}"
        )
    fields["sparsity_selector"] = _choice(
        sparsity_selector, (0, 1, 2, 3), "sparsity_selector", kind
    )
    sat = _bool(saturate, "saturate")
    if sat and kind != "i8":
        raise PtxDslError(f"saturate is only defined for .kind::i8, not .kind::{kind}")
    fields["saturate"] = sat
    if isinstance(max_shift, bool) or max_shift not in _MAX_SHIFTS:
        raise PtxDslError(f"max_shift must be 0, 8, 16 or 32, got {max_shift!r}")
    fields["max_shift"] = _MAX_SHIFTS[max_shift]
    return fields


def _pack(layout: dict[str, tuple[int, int]], fields: dict[str, int | Reg]) -> int:
    value = 0
    for name, raw in fields.items():
        if isinstance(raw, Reg):
            continue
        lsb, width = layout[name]
        assert 0 <= raw < (1 << width), (name, raw)
        value |= raw << lsb
    return value


def instr_desc(
    kind: str,
    *,
    m: int,
    n: int,
    a_type: PtxType,
    b_type: PtxType,
    d_type: PtxType | None = None,
    transpose_a: bool = False,
    transpose_b: bool = False,
    negate_a: bool = False,
    negate_b: bool = False,
    sparse: bool = False,
    sparsity_selector: int = 0,
    saturate: bool = False,
    max_shift: int = 0,
    scale_type: PtxType | None = None,
    a_scale_id: int = 0,
    b_scale_id: int = 0,
    k: int | None = None,
) -> int:
    """The 32-bit ``tcgen05.mma`` instruction descriptor, as an int (no instruction emitted).

    Layout: PTX ISA "Instruction descriptor"
    (https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instruction-descriptor).
    For ``.kind::f16/tf32/f8f6f4/i8``: bits 0-1 sparsity selector, 2 sparse, 3 saturate,
    4-5 D format, 7-9 A format, 10-12 B format, 13/14 negate A/B, 15/16 transpose A/B,
    17-22 N >> 3, 24-28 M >> 4, 30-31 maximum shift (``.ws`` B reuse). For the block-scaled
    ``.kind::mxf8f6f4/mxf4/mxf4nvf4``: bit 2 sparse, 4-5 B scale-factor ID, 7-9/10-12 A/B
    format, 13-16 negate/transpose, 17-22 N >> 3, 23 scale format, 27-28 M >> 7,
    29-30 A scale-factor ID, 31 K=96 (mxf4 kinds).

    Args:
        kind: the ``.kind`` of the MMA: ``f16``, ``tf32``, ``f8f6f4``, ``i8``, ``mxf8f6f4``,
            ``mxf4`` or ``mxf4nvf4``.
        m: rows of A and D (32/64/128/256; 128/256 for the block-scaled kinds).
        n: columns of B and D, a multiple of 8 in 8..256.
        a_type: element type of A (``bf16``, ``e4m3``, ``e2m1``, ``s8``, ...).
        b_type: element type of B.
        d_type: accumulator type (default ``f32``; ``s32`` for ``i8``; ``f16`` allowed for
            ``f16``/``f8f6f4``). Block-scaled kinds always accumulate in ``f32``.
        transpose_a: A is M-major (MN-major) instead of K-major.
        transpose_b: B is N-major instead of K-major.
        negate_a: negate A (not for ``i8``).
        negate_b: negate B (not for ``i8``).
        sparse: A is structured-sparse (``tcgen05.mma.sp``).
        sparsity_selector: which metadata sub-columns to use (0-3, dense kinds).
        saturate: saturate the ``s32`` result (``i8`` only).
        max_shift: maximum shift for B reuse in ``.ws`` mode: 0, 8, 16 or 32.
        scale_type: scale-factor type of the block-scaled kinds: ``ue8m0`` (default for
            ``mxf8f6f4``/``mxf4``) or ``ue4m3`` (NVFP4, ``mxf4nvf4`` only; required there).
        a_scale_id: scale-factor A ID (0-3 for ``mxf8f6f4``; 0 or 2 for the mxf4 kinds).
        b_scale_id: scale-factor B ID (same values).
        k: for ``mxf4``/``mxf4nvf4`` only: 96 sets the K=96 bit (sm_103a); 64/128 leave it 0.

    Returns:
        The descriptor, 0 <= value < 2**32.

    Raises:
        PtxDslError: a value the ISA table does not allow for this kind.
    """
    fields = _instr_desc_fields(
        kind, m=m, n=n, a_type=a_type, b_type=b_type, d_type=d_type,
        transpose_a=transpose_a, transpose_b=transpose_b, negate_a=negate_a,
        negate_b=negate_b, sparse=sparse, sparsity_selector=sparsity_selector,
        saturate=saturate, max_shift=max_shift, scale_type=scale_type,
        a_scale_id=a_scale_id, b_scale_id=b_scale_id, k=k,
    )  # fmt: skip
    if any(isinstance(v, Reg) for v in fields.values()):
        raise PtxDslError(
            "umma.instr_desc builds a constant; for register fields use umma.instr_desc_reg"
        )
    return _pack(INSTR_DESC_LAYOUTS[_kind(kind)], fields)


def decode_instr_desc(kind: str, value: int) -> dict[str, int]:
    """Split an instruction descriptor into its raw fields (``m`` and ``n`` as stored).

    Args:
        kind: the ``.kind`` whose layout to use.
        value: the 32-bit descriptor.

    Returns:
        Field name -> raw value, for every field of the kind's layout.
    """
    layout = INSTR_DESC_LAYOUTS[_kind(kind)]
    if not isinstance(value, int) or not 0 <= value < 1 << 32:
        raise PtxDslError(f"an instruction descriptor is a 32-bit int, got {value!r}")
    return {name: (value >> lsb) & ((1 << w) - 1) for name, (lsb, w) in layout.items()}


def instr_desc_reg(
    kind: str,
    *,
    m: int,
    n: int,
    a_type: PtxType,
    b_type: PtxType,
    d_type: PtxType | None = None,
    transpose_a: bool = False,
    transpose_b: bool = False,
    negate_a: bool | Reg = False,
    negate_b: bool | Reg = False,
    sparse: bool = False,
    sparsity_selector: int | Reg = 0,
    saturate: bool = False,
    max_shift: int = 0,
    scale_type: PtxType | None = None,
    a_scale_id: int | Reg = 0,
    b_scale_id: int | Reg = 0,
    k: int | None = None,
) -> Reg:
    """Build the instruction descriptor in a ``b32`` register, some fields from registers.

    Takes the arguments of :func:`instr_desc`; ``negate_a``, ``negate_b``,
    ``sparsity_selector``, ``a_scale_id`` and ``b_scale_id`` may also be 32-bit registers
    holding the raw field value (e.g. a scale-factor ID computed as ``scale_tmem >> 30``,
    as CUTLASS does for block-scaled MMAs). Emits, with ``C`` the constant fields:

    * no register field: ``mov.b32 d, C;`` (one instruction);
    * register fields r0, r1, ...: ``bfi.b32 d, r0, C, lsb0, width0;`` then
      ``bfi.b32 d, r1, d, lsb1, width1;`` ... (one ``bfi`` per field, in the order above).

    See https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instruction-descriptor

    Returns:
        The ``b32`` register holding the descriptor (the ``idesc`` operand).
    """
    kind = _kind(kind)
    fields = _instr_desc_fields(
        kind, m=m, n=n, a_type=a_type, b_type=b_type, d_type=d_type,
        transpose_a=transpose_a, transpose_b=transpose_b, negate_a=negate_a,
        negate_b=negate_b, sparse=sparse, sparsity_selector=sparsity_selector,
        saturate=saturate, max_shift=max_shift, scale_type=scale_type,
        a_scale_id=a_scale_id, b_scale_id=b_scale_id, k=k,
    )  # fmt: skip
    layout = INSTR_DESC_LAYOUTS[kind]
    base: object = Immediate(f"0x{_pack(layout, fields):08X}")
    regs = [(name, fields[name]) for name in _REG_FIELDS if isinstance(fields.get(name), Reg)]
    out = _new(PtxType.B32)
    if not regs:
        emit_inst("mov", ("b32",), (out, base))
        return out
    for name, reg in regs:
        assert isinstance(reg, Reg)
        _require_bits(reg, 32, name, "umma.instr_desc_reg")
        lsb, width = layout[name]
        emit_inst("bfi", ("b32",), (out, reg, base, lsb, width))
        base = out
    return out


# ---------------------------------------------------------------------- shared memory descriptor

SMEM_DESC_LAYOUT: dict[str, tuple[int, int]] = {
    "start_address": (0, 14),
    "lbo": (16, 14),
    "sbo": (32, 14),
    "version": (46, 3),
    "base_offset": (49, 3),
    "lbo_mode": (52, 1),
    "swizzle": (61, 3),
}
"""Field -> (least significant bit, width) of the 64-bit shared memory descriptor (PTX ISA
table "Shared memory descriptor layout"). The three addresses are stored as
``matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4``; ``version`` is the fixed 0b001."""

SWIZZLE_MODES: dict[str | None, int] = {
    None: 0,
    "128B_base32B": 1,
    "128B": 2,
    "64B": 4,
    "32B": 6,
}
"""Swizzle name -> the 3-bit mode of bits 61-63: none, 128-byte with 32-byte atomicity,
128-byte, 64-byte, 32-byte (3, 5 and 7 are invalid)."""

_LBO_MODES = {"relative": 0, "absolute": 1}


def _encode(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PtxDslError(f"{name} must be an int number of bytes, got {value!r}")
    if not 0 <= value < 1 << 18 or value % 16:
        raise PtxDslError(
            f"{name} must be a multiple of 16 in 0..{(1 << 18) - 16} (it is stored as "
            f"(x & 0x3FFFF) >> 4), got {value}"
        )
    return value >> 4


def _smem_fixed_bits(
    *, lbo: int, sbo: int, swizzle: str | None, base_offset: int, lbo_mode: str
) -> int:
    key = swizzle
    if isinstance(swizzle, str):
        key = next((s for s in SWIZZLE_MODES if s and s.lower() == swizzle.lower()), swizzle)
        if swizzle.lower() == "none":
            key = None
    if key not in SWIZZLE_MODES:
        raise PtxDslError(
            f"swizzle must be one of None, 32B, 64B, 128B, 128B_base32B (128-byte swizzle "
            f"with 32-byte atomicity), got {swizzle!r}"
        )
    if isinstance(base_offset, bool) or base_offset not in range(8):
        raise PtxDslError(f"base_offset is 3 bits (0..7), got {base_offset!r}")
    if lbo_mode not in _LBO_MODES:
        raise PtxDslError(
            f"lbo_mode must be 'relative' (byte offset) or 'absolute' (byte address, "
            f"sm_103a), got {lbo_mode!r}"
        )
    lay = SMEM_DESC_LAYOUT
    return (
        _encode(lbo, "lbo") << lay["lbo"][0]
        | _encode(sbo, "sbo") << lay["sbo"][0]
        | 0b001 << lay["version"][0]
        | base_offset << lay["base_offset"][0]
        | _LBO_MODES[lbo_mode] << lay["lbo_mode"][0]
        | SWIZZLE_MODES[key] << lay["swizzle"][0]
    )


def smem_desc(
    start_address: int,
    *,
    lbo: int,
    sbo: int,
    swizzle: str | None,
    base_offset: int = 0,
    lbo_mode: str = "relative",
) -> int:
    """The 64-bit Blackwell shared-memory matrix descriptor, as an int (no instruction).

    Layout: PTX ISA "Shared memory descriptor"
    (https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-shared-memory-descriptor):
    bits 0-13 start address, 16-29 leading-dimension byte offset (or absolute address),
    32-45 stride-dimension byte offset, each as ``(x & 0x3FFFF) >> 4``; bits 46-48 the fixed
    value 0b001; 49-51 base offset; 52 leading-dimension mode; 53-60 zero; 61-63 swizzle.

    Args:
        start_address: the matrix's shared-memory byte address (a multiple of 16).
        lbo: leading-dimension byte offset (or address with ``lbo_mode="absolute"``).
        sbo: stride-dimension byte offset.
        swizzle: ``None``, ``"32B"``, ``"64B"``, ``"128B"`` or ``"128B_base32B"`` (128-byte
            swizzle with 32-byte atomicity, the tf32 transpose layout).
        base_offset: 0 when the swizzle pattern starts on its natural boundary (1024 bytes
            for 128B, 512 for 64B, 256 for 32B), else ``(pattern_start >> 7) & 7``.
        lbo_mode: ``"relative"`` (bit 52 = 0) or ``"absolute"`` (bit 52 = 1, sm_103a).

    Returns:
        The descriptor, 0 <= value < 2**64.

    Raises:
        PtxDslError: a misaligned or out-of-range address/offset, or an unknown mode.
    """
    fixed = _smem_fixed_bits(
        lbo=lbo, sbo=sbo, swizzle=swizzle, base_offset=base_offset, lbo_mode=lbo_mode
    )
    return fixed | _encode(start_address, "start_address")


def decode_smem_desc(value: int) -> dict[str, int]:
    """Split a shared memory descriptor into its raw fields (addresses as stored, >> 4).

    Args:
        value: the 64-bit descriptor.

    Returns:
        Field name -> raw value for every field of :data:`SMEM_DESC_LAYOUT`.
    """
    if not isinstance(value, int) or not 0 <= value < 1 << 64:
        raise PtxDslError(f"a shared memory descriptor is a 64-bit int, got {value!r}")
    return {n: (value >> lsb) & ((1 << w) - 1) for n, (lsb, w) in SMEM_DESC_LAYOUT.items()}


def _require_bits(reg: Reg, bits: int, what: str, helper: str) -> None:
    ty = reg.type
    if ty.bits != bits or ty.kind in (TypeKind.FLOAT, TypeKind.PREDICATE, TypeKind.OPAQUE):
        raise PtxDslError(
            f"{helper}: {what} must be a {bits}-bit integer register, got {reg.name} of type "
            f"{ty.ptx}"
        )


def smem_desc_reg(
    address: object,
    *,
    lbo: int,
    sbo: int,
    swizzle: str | None,
    base_offset: int = 0,
    lbo_mode: str = "relative",
    offset: int = 0,
) -> Reg:
    """Build a shared memory descriptor in a ``b64`` register from a run-time address.

    The fixed fields (``lbo``, ``sbo``, ``swizzle``, ``base_offset``, ``lbo_mode``, see
    :func:`smem_desc`) form the 64-bit constant ``C``; the start address comes from
    ``address``. Emits exactly::

        mov.u32 a, sym+off;            // only for a shared allocation/slice
        add.u32 a, addr, off;          // only for a register address with offset != 0
        shr.u32 t, a, 4;
        cvt.u64.u32 w, t;
        bfi.b64 desc, w, C, 0, 14;     // start address = (a & 0x3FFFF) >> 4

    See https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-shared-memory-descriptor

    Args:
        address: a shared allocation or slice (``smem.alloc(...)``, ``sA[stage]``) or a 32-bit
            register holding a shared-memory address.
        lbo: leading-dimension byte offset.
        sbo: stride-dimension byte offset.
        swizzle: swizzle mode name (see :data:`SWIZZLE_MODES`).
        base_offset: matrix base offset (0..7).
        lbo_mode: ``"relative"`` or ``"absolute"``.
        offset: a constant byte offset added to the address (a multiple of 16).

    Returns:
        The ``b64`` register holding the descriptor.
    """
    const = _smem_fixed_bits(
        lbo=lbo, sbo=sbo, swizzle=swizzle, base_offset=base_offset, lbo_mode=lbo_mode
    )
    if isinstance(offset, bool) or not isinstance(offset, int) or offset % 16:
        raise PtxDslError(f"offset must be an int multiple of 16 bytes, got {offset!r}")
    slice_offset = getattr(address, "offset", None)
    owner = getattr(address, "alloc", None)
    if owner is not None and isinstance(slice_offset, int):
        address, offset = owner, offset + slice_offset
    symbol = getattr(address, "symbol", None)
    if isinstance(symbol, str):
        a = _new(PtxType.U32)
        src: object = Symbol(symbol)
        if offset:
            src = BinaryExpr("+", Symbol(symbol), Immediate(str(offset)))
        emit_inst("mov", ("u32",), (a, src))
    elif isinstance(address, Reg):
        _require_bits(address, 32, "address", "umma.smem_desc_reg")
        a = address
        if offset:
            a = _new(PtxType.U32)
            emit_inst("add", ("u32",), (a, address, offset))
    else:
        what = "ptx.addr(...)" if isinstance(address, Addr) else type(address).__name__
        raise PtxDslError(
            f"umma.smem_desc_reg takes a shared allocation/slice or a 32-bit register with a "
            f"shared address, got {what}"
        )
    t = _new(PtxType.U32)
    emit_inst("shr", ("u32",), (t, a, 4))
    w = _new(PtxType.U64)
    emit_inst("cvt", ("u64", "u32"), (w, t))
    desc = _new(PtxType.B64)
    emit_inst("bfi", ("b64",), (desc, w, Immediate(f"0x{const:016X}"), 0, 14))
    return desc


def smem_desc_advance(desc: Reg, nbytes: int) -> Reg:
    """Move a shared memory descriptor's start address by ``nbytes`` (one instruction).

    Emits ``add.s64 d, desc, nbytes >> 4;`` (the start address field holds the address >> 4).
    The caller keeps the new address inside the 14-bit field (below 256 KiB); a carry out of
    bit 13 would corrupt the reserved bits.

    See https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-shared-memory-descriptor

    Args:
        desc: a 64-bit register holding a descriptor.
        nbytes: the byte offset, a multiple of 16 (negative moves back).

    Returns:
        A new ``b64`` register with the moved descriptor.
    """
    if not isinstance(desc, Reg):
        raise PtxDslError(f"umma.smem_desc_advance takes a descriptor register, got {desc!r}")
    _require_bits(desc, 64, "desc", "umma.smem_desc_advance")
    if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes % 16:
        raise PtxDslError(f"nbytes must be an int multiple of 16, got {nbytes!r}")
    out = _new(PtxType.B64)
    emit_inst("add", ("s64",), (out, desc, nbytes >> 4))
    return out


MULTI_INSTRUCTION: dict[str, str] = {
    "umma.instr_desc_reg": "mov.b32 d, C (no register field); with register fields: "
    "bfi.b32 d, r0, C, lsb0, w0; bfi.b32 d, r1, d, lsb1, w1; ... (one bfi per register field)",
    "umma.smem_desc_reg": "[mov.u32 a, sym+off | add.u32 a, addr, off;] shr.u32 t, a, 4; "
    "cvt.u64.u32 w, t; bfi.b64 desc, w, C, 0, 14",
}
"""The helpers of this module that emit more than one instruction, with exactly what they
emit (merged into ``pyptx.ptx.MULTI_INSTRUCTION_HELPERS`` through the tcgen05 family)."""
