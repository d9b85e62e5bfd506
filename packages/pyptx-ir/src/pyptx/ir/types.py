"""PTX fundamental types and state spaces.

Both are declared once as data (:data:`TYPE_INFO`, :class:`StateSpace`) so that the parser,
the verifier, the DSL wrappers and the docs read the same table. Spellings are the PTX ones
without the leading dot (``PtxType.F32.ptx == ".f32"``).

See the PTX ISA, section "Fundamental Types" and "Alternate Floating-Point Data Formats".
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = [
    "TYPE_INFO",
    "PtxType",
    "StateSpace",
    "TypeInfo",
    "TypeKind",
]


class TypeKind(enum.Enum):
    """What a PTX type's bits mean."""

    BITS = "bits"
    """Untyped bits (``.b8`` .. ``.b128``)."""
    UNSIGNED = "unsigned"
    """Unsigned integer (``.u8`` .. ``.u64``, packed ``.u16x2``)."""
    SIGNED = "signed"
    """Signed integer (``.s8`` .. ``.s64``, packed ``.s16x2``)."""
    FLOAT = "float"
    """IEEE or alternate floating point, scalar or packed (``.f32``, ``.bf16x2``, ``.e4m3x4``)."""
    PREDICATE = "predicate"
    """The one-bit ``.pred`` type."""
    OPAQUE = "opaque"
    """Texture, sampler and surface references (``.texref``, ``.samplerref``, ``.surfref``)."""


@dataclass(frozen=True, slots=True)
class TypeInfo:
    """Facts about one PTX type.

    Attributes:
        bits: storage width in bits (the whole packed value for ``x2``/``x4`` types).
        kind: what the bits mean.
        lanes: number of packed elements (1 for scalars, 2 for ``.f16x2``, 4 for ``.e4m3x4``).
        element_bits: width of one element in bits (6 for ``.e2m3``, 4 for ``.e2m1``).
    """

    bits: int
    kind: TypeKind
    lanes: int = 1
    element_bits: int = 0

    @property
    def element_width(self) -> int:
        """Width of one element in bits (``bits`` for scalars)."""
        return self.element_bits or self.bits // self.lanes


class PtxType(enum.Enum):
    """A PTX fundamental type, named by its spelling without the dot."""

    B8 = "b8"
    B16 = "b16"
    B32 = "b32"
    B64 = "b64"
    B128 = "b128"
    U8 = "u8"
    U16 = "u16"
    U32 = "u32"
    U64 = "u64"
    S8 = "s8"
    S16 = "s16"
    S32 = "s32"
    S64 = "s64"
    U16X2 = "u16x2"
    S16X2 = "s16x2"
    U4 = "u4"
    S4 = "s4"
    B1 = "b1"
    F16 = "f16"
    F16X2 = "f16x2"
    BF16 = "bf16"
    BF16X2 = "bf16x2"
    TF32 = "tf32"
    F32 = "f32"
    F32X2 = "f32x2"
    F64 = "f64"
    E4M3 = "e4m3"
    E5M2 = "e5m2"
    E4M3X2 = "e4m3x2"
    E5M2X2 = "e5m2x2"
    E4M3X4 = "e4m3x4"
    E5M2X4 = "e5m2x4"
    E2M1 = "e2m1"
    E2M1X2 = "e2m1x2"
    E2M1X4 = "e2m1x4"
    E2M3 = "e2m3"
    E3M2 = "e3m2"
    E2M3X2 = "e2m3x2"
    E3M2X2 = "e3m2x2"
    E2M3X4 = "e2m3x4"
    E3M2X4 = "e3m2x4"
    UE8M0 = "ue8m0"
    UE8M0X2 = "ue8m0x2"
    UE4M3 = "ue4m3"
    PRED = "pred"
    TEXREF = "texref"
    SAMPLERREF = "samplerref"
    SURFREF = "surfref"

    @property
    def ptx(self) -> str:
        """The PTX spelling with its leading dot, e.g. ``".bf16x2"``."""
        return "." + self.value

    @property
    def info(self) -> TypeInfo:
        """The :class:`TypeInfo` row for this type."""
        return TYPE_INFO[self]

    @property
    def bits(self) -> int:
        """Storage width in bits."""
        return TYPE_INFO[self].bits

    @property
    def kind(self) -> TypeKind:
        """What the bits mean."""
        return TYPE_INFO[self].kind

    @classmethod
    def from_name(cls, name: str) -> PtxType | None:
        """Look a type up by spelling, with or without the leading dot; ``None`` if unknown."""
        return _BY_NAME.get(name[1:] if name.startswith(".") else name)


_B, _U, _S, _F = TypeKind.BITS, TypeKind.UNSIGNED, TypeKind.SIGNED, TypeKind.FLOAT

TYPE_INFO: dict[PtxType, TypeInfo] = {
    PtxType.B8: TypeInfo(8, _B),
    PtxType.B16: TypeInfo(16, _B),
    PtxType.B32: TypeInfo(32, _B),
    PtxType.B64: TypeInfo(64, _B),
    PtxType.B128: TypeInfo(128, _B),
    PtxType.U8: TypeInfo(8, _U),
    PtxType.U16: TypeInfo(16, _U),
    PtxType.U32: TypeInfo(32, _U),
    PtxType.U64: TypeInfo(64, _U),
    PtxType.S8: TypeInfo(8, _S),
    PtxType.S16: TypeInfo(16, _S),
    PtxType.S32: TypeInfo(32, _S),
    PtxType.S64: TypeInfo(64, _S),
    PtxType.U16X2: TypeInfo(32, _U, 2),
    PtxType.S16X2: TypeInfo(32, _S, 2),
    PtxType.U4: TypeInfo(4, _U),
    PtxType.S4: TypeInfo(4, _S),
    PtxType.B1: TypeInfo(1, _B),
    PtxType.F16: TypeInfo(16, _F),
    PtxType.F16X2: TypeInfo(32, _F, 2),
    PtxType.BF16: TypeInfo(16, _F),
    PtxType.BF16X2: TypeInfo(32, _F, 2),
    PtxType.TF32: TypeInfo(32, _F),
    PtxType.F32: TypeInfo(32, _F),
    PtxType.F32X2: TypeInfo(64, _F, 2),
    PtxType.F64: TypeInfo(64, _F),
    PtxType.E4M3: TypeInfo(8, _F),
    PtxType.E5M2: TypeInfo(8, _F),
    PtxType.E4M3X2: TypeInfo(16, _F, 2),
    PtxType.E5M2X2: TypeInfo(16, _F, 2),
    PtxType.E4M3X4: TypeInfo(32, _F, 4),
    PtxType.E5M2X4: TypeInfo(32, _F, 4),
    PtxType.E2M1: TypeInfo(4, _F),
    PtxType.E2M1X2: TypeInfo(8, _F, 2),
    PtxType.E2M1X4: TypeInfo(16, _F, 4),
    PtxType.E2M3: TypeInfo(8, _F, 1, 6),
    PtxType.E3M2: TypeInfo(8, _F, 1, 6),
    PtxType.E2M3X2: TypeInfo(16, _F, 2, 6),
    PtxType.E3M2X2: TypeInfo(16, _F, 2, 6),
    PtxType.E2M3X4: TypeInfo(32, _F, 4, 6),
    PtxType.E3M2X4: TypeInfo(32, _F, 4, 6),
    PtxType.UE8M0: TypeInfo(8, _F),
    PtxType.UE8M0X2: TypeInfo(16, _F, 2),
    PtxType.UE4M3: TypeInfo(8, _F, 1, 7),
    PtxType.PRED: TypeInfo(1, TypeKind.PREDICATE),
    PtxType.TEXREF: TypeInfo(64, TypeKind.OPAQUE),
    PtxType.SAMPLERREF: TypeInfo(64, TypeKind.OPAQUE),
    PtxType.SURFREF: TypeInfo(64, TypeKind.OPAQUE),
}

_BY_NAME: dict[str, PtxType] = {t.value: t for t in PtxType}


class StateSpace(enum.Enum):
    """A PTX state space, named by its spelling without the dot.

    The ``::`` sub-spaces (``shared::cta``, ``shared::cluster``, ``param::entry``,
    ``param::func``) are distinct members so that a declaration keeps its spelling.
    """

    REG = "reg"
    SREG = "sreg"
    CONST = "const"
    GLOBAL = "global"
    LOCAL = "local"
    PARAM = "param"
    PARAM_ENTRY = "param::entry"
    PARAM_FUNC = "param::func"
    SHARED = "shared"
    SHARED_CTA = "shared::cta"
    SHARED_CLUSTER = "shared::cluster"
    TEX = "tex"

    @property
    def ptx(self) -> str:
        """The PTX spelling with its leading dot, e.g. ``".shared::cta"``."""
        return "." + self.value

    @classmethod
    def from_name(cls, name: str) -> StateSpace | None:
        """Look a state space up by spelling, with or without the dot; ``None`` if unknown."""
        return _SPACE_BY_NAME.get(name[1:] if name.startswith(".") else name)


_SPACE_BY_NAME: dict[str, StateSpace] = {s.value: s for s in StateSpace}
