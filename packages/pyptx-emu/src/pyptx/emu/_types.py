"""How PTX types live in numpy: register storage, value containers, and bit conversions.

Registers are stored as raw bits (``uint8`` .. ``uint64``, ``bool`` for predicates), one
element per thread, so every value is bit-exact and a ``.b32`` register can hold an ``.f32``
or a packed ``.f16x2`` alike. An instruction reads its operands as *values* of the type it
names: a numpy array whose dtype is :func:`value_dtype` of that type. Types numpy has no
arithmetic for (``.bf16``, the packed and 8/6/4-bit float formats, ``.tf32``) travel as their
bits in an unsigned integer; the semantics convert them with :mod:`._numeric`.
"""

from __future__ import annotations

import numpy as np

from pyptx.ir import PtxType, TypeKind

__all__ = [
    "STORAGE_BY_BITS",
    "bits_of",
    "from_bits",
    "is_signed",
    "storage_dtype",
    "to_bits",
    "value_dtype",
]

STORAGE_BY_BITS: dict[int, np.dtype] = {
    8: np.dtype(np.uint8),
    16: np.dtype(np.uint16),
    32: np.dtype(np.uint32),
    64: np.dtype(np.uint64),
}
"""The unsigned dtype that stores a register of each width."""

_SIGNED_BY_BITS: dict[int, np.dtype] = {
    8: np.dtype(np.int8),
    16: np.dtype(np.int16),
    32: np.dtype(np.int32),
    64: np.dtype(np.int64),
}

_NATIVE_FLOATS: dict[PtxType, np.dtype] = {
    PtxType.F16: np.dtype(np.float16),
    PtxType.F32: np.dtype(np.float32),
    PtxType.F64: np.dtype(np.float64),
}


def bits_of(ty: PtxType) -> int:
    """The storage width of ``ty`` in bits, rounded up to a whole byte (``.e2m1`` -> 8)."""
    if ty is PtxType.PRED:
        return 1
    return max(8, ty.bits)


def storage_dtype(ty: PtxType) -> np.dtype:
    """The dtype of a register declared with type ``ty``.

    Raises:
        KeyError: the type cannot be a register (``.b128`` is stored as two ``.b64`` halves
            by the caller; opaque types are not registers).
    """
    if ty is PtxType.PRED:
        return np.dtype(np.bool_)
    return STORAGE_BY_BITS[bits_of(ty)]


def value_dtype(ty: PtxType) -> np.dtype:
    """The dtype in which an instruction of type ``ty`` sees its operands.

    Signed integers are signed, ``.f16``/``.f32``/``.f64`` are numpy floats, ``.pred`` is
    ``bool``; everything else (bits, unsigned, ``.bf16``, packed and small float formats) is
    the unsigned integer of its width.
    """
    if ty is PtxType.PRED:
        return np.dtype(np.bool_)
    native = _NATIVE_FLOATS.get(ty)
    if native is not None:
        return native
    bits = bits_of(ty)
    if ty.kind is TypeKind.SIGNED and ty.info.lanes == 1:
        return _SIGNED_BY_BITS[bits]
    return STORAGE_BY_BITS[bits]


def is_signed(ty: PtxType) -> bool:
    """Whether values of ``ty`` sign-extend when widened (signed integers only)."""
    return ty.kind is TypeKind.SIGNED


def to_bits(values: np.ndarray, bits: int) -> np.ndarray:
    """The raw bits of ``values`` as the unsigned dtype of width ``bits`` (a view if possible).

    Values narrower than ``bits`` are zero- or sign-extended by their own dtype (signed
    dtypes sign-extend); wider ones are truncated to their low bits.
    """
    target = STORAGE_BY_BITS[bits]
    if values.dtype == np.bool_:
        return values.astype(target)
    have = values.dtype.itemsize * 8
    if have == bits:
        return values.view(target) if values.dtype != target else values
    if values.dtype.kind == "f":
        values = values.view(STORAGE_BY_BITS[have])
    return values.astype(target)


def from_bits(raw: np.ndarray, ty: PtxType) -> np.ndarray:
    """Values of type ``ty`` from raw register bits (any unsigned width).

    A wider register is truncated to the type's width (``cvt.u16.u32`` reading a ``.b32``
    register); a narrower one is extended by the type's signedness.
    """
    want = value_dtype(ty)
    if ty is PtxType.PRED:
        return raw.astype(np.bool_) if raw.dtype != np.bool_ else raw
    bits = bits_of(ty)
    have = raw.dtype.itemsize * 8
    if raw.dtype == np.bool_:
        raw = raw.astype(STORAGE_BY_BITS[bits])
        have = bits
    if have != bits:
        if have > bits:
            raw = raw.astype(STORAGE_BY_BITS[bits])
        elif is_signed(ty):
            raw = raw.view(_SIGNED_BY_BITS[have]).astype(_SIGNED_BY_BITS[bits])
        else:
            raw = raw.astype(STORAGE_BY_BITS[bits])
    if raw.dtype == want:
        return raw
    return raw.view(want)


def immediate_value(value: int | float, ty: PtxType) -> np.generic:
    """A PTX immediate as a numpy scalar of :func:`value_dtype` ``(ty)``.

    Integers wrap to the type's width (two's complement); an integer given for a float type
    is converted to that float; a float given for an integer or bit type is an error.

    Raises:
        ValueError: a float immediate for a non-float type.
    """
    want = value_dtype(ty)
    if want == np.bool_:
        return np.bool_(bool(value))
    if want.kind == "f":
        return want.type(value)
    if isinstance(value, float):
        raise ValueError(f"a floating-point immediate cannot be a .{ty.value} operand")
    bits = bits_of(ty)
    wrapped = int(value) & ((1 << bits) - 1)
    if want.kind == "i" and wrapped >= 1 << (bits - 1):
        wrapped -= 1 << bits
    return want.type(wrapped)
