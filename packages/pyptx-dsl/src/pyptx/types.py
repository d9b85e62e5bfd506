"""PTX types for kernel code: ``from pyptx.types import bf16, f32, u32, pred``.

Each name is the matching :class:`pyptx.ir.PtxType` member, so ``f32 is PtxType.F32``.
"""

from __future__ import annotations

from pyptx.ir import PtxType

__all__ = [
    "PtxType",
    "b1",
    "b8",
    "b16",
    "b32",
    "b64",
    "b128",
    "bf16",
    "bf16x2",
    "e2m1",
    "e2m1x2",
    "e2m1x4",
    "e2m3",
    "e2m3x2",
    "e2m3x4",
    "e3m2",
    "e3m2x2",
    "e3m2x4",
    "e4m3",
    "e4m3x2",
    "e4m3x4",
    "e5m2",
    "e5m2x2",
    "e5m2x4",
    "f16",
    "f16x2",
    "f32",
    "f32x2",
    "f64",
    "pred",
    "s4",
    "s8",
    "s16",
    "s16x2",
    "s32",
    "s64",
    "tf32",
    "u4",
    "u8",
    "u16",
    "u16x2",
    "u32",
    "u64",
    "ue4m3",
    "ue8m0",
    "ue8m0x2",
]  # fmt: skip

b1 = PtxType.B1
b8 = PtxType.B8
b16 = PtxType.B16
b32 = PtxType.B32
b64 = PtxType.B64
b128 = PtxType.B128
u4 = PtxType.U4
u8 = PtxType.U8
u16 = PtxType.U16
u32 = PtxType.U32
u64 = PtxType.U64
s4 = PtxType.S4
s8 = PtxType.S8
s16 = PtxType.S16
s32 = PtxType.S32
s64 = PtxType.S64
u16x2 = PtxType.U16X2
s16x2 = PtxType.S16X2
f16 = PtxType.F16
f16x2 = PtxType.F16X2
bf16 = PtxType.BF16
bf16x2 = PtxType.BF16X2
tf32 = PtxType.TF32
f32 = PtxType.F32
f32x2 = PtxType.F32X2
f64 = PtxType.F64
e4m3 = PtxType.E4M3
e5m2 = PtxType.E5M2
e4m3x2 = PtxType.E4M3X2
e5m2x2 = PtxType.E5M2X2
e4m3x4 = PtxType.E4M3X4
e5m2x4 = PtxType.E5M2X4
e2m1 = PtxType.E2M1
e2m1x2 = PtxType.E2M1X2
e2m1x4 = PtxType.E2M1X4
e2m3 = PtxType.E2M3
e3m2 = PtxType.E3M2
e2m3x2 = PtxType.E2M3X2
e3m2x2 = PtxType.E3M2X2
e2m3x4 = PtxType.E2M3X4
e3m2x4 = PtxType.E3M2X4
ue8m0 = PtxType.UE8M0
ue8m0x2 = PtxType.UE8M0X2
ue4m3 = PtxType.UE4M3
pred = PtxType.PRED
