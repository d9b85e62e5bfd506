"""Typed conversion wrappers: cvt (all forms, packed low-precision ones included) and cvta."""

from __future__ import annotations

from dsl_testing import body, here, raises_at

from pyptx import kernel, ptx, reg, smem
from pyptx.types import (
    b16,
    bf16,
    bf16x2,
    e2m1x2,
    e2m1x4,
    e2m3x2,
    e3m2x2,
    e3m2x4,
    e4m3x2,
    e4m3x4,
    e5m2x2,
    f16,
    f16x2,
    f32,
    f64,
    s8,
    s32,
    tf32,
    u8,
    u16,
    u32,
    u64,
    ue8m0x2,
)


def test_standard_conversions_with_rounding_ftz_sat(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        x = reg.scalar(f32)
        d = reg.scalar(f64)
        i = reg.scalar(s32)
        u = reg.scalar(u32)
        b = reg.scalar(u8)
        h = reg.scalar(f16)
        w = reg.scalar(u64)
        ptx.cvt(i, x, rnd="rzi")
        ptx.cvt(u, d, rnd="rni", sat=True)
        ptx.cvt(x, i, rnd="rn")
        ptx.cvt(d, x)
        ptx.cvt(x, d, rnd="rm", ftz=True, sat=True)
        ptx.cvt(x, x, rnd="rpi")
        ptx.cvt(b, i, sat=True)
        ptx.cvt(w, u)
        ptx.cvt(h, x, rnd="rn")
        ptx.cvt(x, h)
        ptx.cvt(reg.scalar(s8), b, dtype=s8, atype=u8)
        ptx.cvt(i, 2.5, rnd="rzi", atype=f32)

    assert body(k.ptx()) == [
        "cvt.rzi.s32.f32 %r0, %f0;",
        "cvt.rni.sat.u32.f64 %r1, %fd0;",
        "cvt.rn.f32.s32 %f0, %r0;",
        "cvt.f64.f32 %fd0, %f0;",
        "cvt.rm.ftz.sat.f32.f64 %f0, %fd0;",
        "cvt.rpi.f32.f32 %f0, %f0;",
        "cvt.sat.u8.s32 %rs0, %r0;",
        "cvt.u64.u32 %rd0, %r1;",
        "cvt.rn.f16.f32 %rs1, %f0;",
        "cvt.f32.f16 %f0, %rs1;",
        "cvt.s8.u8 %rs2, %rs0;",
        "cvt.rzi.s32.f32 %r0, 0f40200000;",
        "ret;",
    ]
    assemble(k.ptx())


def test_f16_bf16_tf32_from_f32_with_relu_satfinite(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        x, y = reg.scalar(f32), reg.scalar(f32)
        h, b = reg.scalar(f16), reg.scalar(bf16)
        h2, b2 = reg.scalar(f16x2), reg.scalar(bf16x2)
        t = reg.scalar(tf32)
        ptx.cvt(h, x, rnd="rn", relu=True, satfinite=True)
        ptx.cvt(b, x, rnd="rz", relu=True)
        ptx.cvt(b, x, rnd="rn")
        ptx.cvt(h2, x, y, rnd="rn", relu=True)
        ptx.cvt(b2, x, y, rnd="rz", satfinite=True)
        ptx.cvt(t, x, rnd="rna", satfinite=True)
        ptx.cvt(t, x, rnd="rz")

    assert body(k.ptx()) == [
        "cvt.rn.relu.satfinite.f16.f32 %rs0, %f0;",
        "cvt.rz.relu.bf16.f32 %rs1, %f0;",
        "cvt.rn.bf16.f32 %rs1, %f0;",
        "cvt.rn.relu.f16x2.f32 %r0, %f0, %f1;",
        "cvt.rz.satfinite.bf16x2.f32 %r1, %f0, %f1;",
        "cvt.rna.satfinite.tf32.f32 %r2, %f0;",
        "cvt.rz.tf32.f32 %r2, %f0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_fp8_pairs_on_sm_89(assemble) -> None:  # type: ignore[no-untyped-def]
    # sm_89 gained the fp8 conversions in PTX 8.1 (sm_90 had them in 7.8).
    @kernel(arch="sm_89", version=(8, 1))
    def k() -> None:
        x, y = reg.scalar(f32), reg.scalar(f32)
        q = reg.scalar(e4m3x2)
        r = reg.scalar(e5m2x2)
        h2 = reg.scalar(f16x2)
        ptx.cvt(q, x, y, rnd="rn", satfinite=True)
        ptx.cvt(r, x, y, rnd="rn", satfinite=True, relu=True)
        ptx.cvt(q, h2, rnd="rn", satfinite=True)
        ptx.cvt(h2, q, rnd="rn")
        ptx.cvt(h2, r, rnd="rn", relu=True)
        ptx.cvt(reg.scalar(b16), x, y, dtype=e4m3x2, rnd="rn", satfinite=True)

    assert body(k.ptx()) == [
        "cvt.rn.satfinite.e4m3x2.f32 %rs0, %f0, %f1;",
        "cvt.rn.satfinite.relu.e5m2x2.f32 %rs1, %f0, %f1;",
        "cvt.rn.satfinite.e4m3x2.f16x2 %rs0, %r0;",
        "cvt.rn.f16x2.e4m3x2 %r0, %rs0;",
        "cvt.rn.relu.f16x2.e5m2x2 %r0, %rs1;",
        "cvt.rn.satfinite.e4m3x2.f32 %rs2, %f0, %f1;",
        "ret;",
    ]
    assemble(k.ptx())


def test_fp6_fp4_ue8m0_and_stochastic_rounding_on_sm_100a(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_100a")
    def k() -> None:
        x, y, z, w = (reg.scalar(f32) for _ in range(4))
        bits = reg.scalar(u32)
        h2, b2 = reg.scalar(f16x2), reg.scalar(bf16x2)
        f6 = reg.scalar(e3m2x2)
        g6 = reg.scalar(e2m3x2)
        ue = reg.scalar(ue8m0x2)
        q4 = reg.scalar(e4m3x4)
        s6 = reg.scalar(e3m2x4)
        t = reg.scalar(tf32)
        ptx.cvt(t, x, rnd="rn", satfinite=True, relu=True)
        ptx.cvt(f6, x, y, rnd="rn", satfinite=True)
        ptx.cvt(g6, x, y, rnd="rn", satfinite=True, relu=True)
        ptx.cvt(h2, f6, rnd="rn", relu=True)
        ptx.cvt(ue, x, y, rnd="rz", satfinite=True)
        ptx.cvt(ue, b2, rnd="rp")
        ptx.cvt(b2, ue, rnd="rn")
        ptx.cvt(h2, x, y, rnd="rs", rbits=bits)
        ptx.cvt(b2, x, y, rnd="rs", relu=True, satfinite=True, rbits=bits)
        ptx.cvt(q4, (x, y, z, w), rnd="rs", satfinite=True, rbits=bits)
        ptx.cvt(s6, (x, y, z, w), rnd="rs", relu=True, satfinite=True, rbits=bits)

    assert body(k.ptx()) == [
        "cvt.rn.satfinite.relu.tf32.f32 %r5, %f0;",
        "cvt.rn.satfinite.e3m2x2.f32 %rs0, %f0, %f1;",
        "cvt.rn.satfinite.relu.e2m3x2.f32 %rs1, %f0, %f1;",
        "cvt.rn.relu.f16x2.e3m2x2 %r1, %rs0;",
        "cvt.rz.satfinite.ue8m0x2.f32 %rs2, %f0, %f1;",
        "cvt.rp.ue8m0x2.bf16x2 %rs2, %r2;",
        "cvt.rn.bf16x2.ue8m0x2 %r2, %rs2;",
        "cvt.rs.f16x2.f32 %r1, %f0, %f1, %r0;",
        "cvt.rs.relu.satfinite.bf16x2.f32 %r2, %f0, %f1, %r0;",
        "cvt.rs.satfinite.e4m3x4.f32 %r3, {%f0, %f1, %f2, %f3}, %r0;",
        "cvt.rs.relu.satfinite.e3m2x4.f32 %r4, {%f0, %f1, %f2, %f3}, %r0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_e2m1x4_stochastic_rounding_into_16_bits(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_100a")
    def k() -> None:
        x, y, z, w = (reg.scalar(f32) for _ in range(4))
        bits = reg.scalar(u32)
        f4 = reg.scalar(e2m1x4)
        ptx.cvt(f4, (x, y, z, w), rnd="rs", relu=True, satfinite=True, rbits=bits)

    assert body(k.ptx()) == [
        "cvt.rs.relu.satfinite.e2m1x4.f32 %rs0, {%f0, %f1, %f2, %f3}, %r0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_e2m1x2_uses_an_8_bit_register(assemble) -> None:  # type: ignore[no-untyped-def]
    # ptxas wants a .b8 register for .e2m1x2; the allocator stores that type in %rb (.b8).
    @kernel(arch="sm_100a")
    def k() -> None:
        x, y = reg.scalar(f32), reg.scalar(f32)
        h2 = reg.scalar(f16x2)
        q = reg.scalar(e2m1x2)
        ptx.cvt(q, x, y, rnd="rn", satfinite=True, relu=True)
        ptx.cvt(h2, q, rnd="rn")

    text = k.ptx()
    assert ".reg .b8 %rb<1>;" in text
    assert body(text) == [
        "cvt.rn.satfinite.relu.e2m1x2.f32 %rb0, %f0, %f1;",
        "cvt.rn.f16x2.e2m1x2 %r0, %rb0;",
        "ret;",
    ]
    assemble(text)


def test_cvt_pack_narrow_types(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        a, b = reg.scalar(s32), reg.scalar(s32)
        d = reg.scalar(u32)
        ptx.cvt.pack(d, a, b, d, dtype="u4")
        ptx.cvt.pack(d, a, b, d, dtype=s8)
        ptx.cvt.pack(d, a, b, d, dtype="s2")

    assert body(k.ptx()) == [
        "cvt.pack.sat.u4.s32.b32 %r2, %r0, %r1, %r2;",
        "cvt.pack.sat.s8.s32.b32 %r2, %r0, %r1, %r2;",
        "cvt.pack.sat.s2.s32.b32 %r2, %r0, %r1, %r2;",
        "ret;",
    ]
    assemble(k.ptx())


def test_cvt_pack_16_bit_pairs(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        a, b = reg.scalar(s32), reg.scalar(s32)
        d = reg.scalar(u32)
        ptx.cvt.pack(d, a, b, dtype="s16")
        ptx.cvt.pack(d, a, b, dtype=u16)

    assert body(k.ptx()) == [
        "cvt.pack.sat.s16.s32 %r2, %r0, %r1;",
        "cvt.pack.sat.u16.s32 %r2, %r0, %r1;",
        "ret;",
    ]
    assemble(k.ptx())


def test_cvta_to_and_from_generic(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        buf = smem.alloc(f32, (2, 64))
        g = reg.scalar(u64)
        s = reg.scalar(u64)
        ptx.cvta(g, buf, space="shared")
        ptx.cvta(g, buf[1], space="shared::cta")
        ptx.cvta.to(s, g, space="shared")
        ptx.cvta.to(g, g, space="global")
        ptx.cvta(g, s, space="local")
        ptx.cvta.to(g, g, space="param", ty=u64)

    assert body(k.ptx()) == [
        "cvta.shared.u64 %rd0, smem_0;",
        "cvta.shared::cta.u64 %rd0, smem_0+256;",
        "cvta.to.shared.u64 %rd1, %rd0;",
        "cvta.to.global.u64 %rd0, %rd0;",
        "cvta.local.u64 %rd0, %rd1;",
        "cvta.to.param.u64 %rd0, %rd0;",
        "ret;",
    ]
    assemble(k.ptx())


# ---------------------------------------------------------------------------- errors


def test_error_float_to_int_needs_integer_rounding() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        i, x = reg.scalar(s32), reg.scalar(f32)
        where.append(here() + 1)
        ptx.cvt(i, x, rnd="rn")

    raises_at(
        k,
        where,
        r"modifier '\.rn' does not combine with .* cvt\.rn\.s32\.f32; "
        r"the closest form of cvt takes \.rni",
    )


def test_error_int_to_float_needs_rounding() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        i, x = reg.scalar(s32), reg.scalar(f32)
        where.append(here() + 1)
        ptx.cvt(x, i)

    raises_at(k, where, r"cvt\.f32\.s32 needs a \.rnd modifier \(one of \.rn, \.rz, \.rm, \.rp\)")


def test_error_fp8_needs_satfinite() -> None:
    where: list[int] = []

    @kernel(arch="sm_89")
    def k() -> None:
        x = reg.scalar(f32)
        q = reg.scalar(e4m3x2)
        where.append(here() + 1)
        ptx.cvt(q, x, x, rnd="rn")

    raises_at(k, where, r"cvt\.rn\.e4m3x2\.f32 needs a \.satfinite modifier")


def test_error_fp8_pair_needs_two_sources() -> None:
    where: list[int] = []

    @kernel(arch="sm_89")
    def k() -> None:
        x = reg.scalar(f32)
        q = reg.scalar(e4m3x2)
        where.append(here() + 1)
        ptx.cvt(q, x, rnd="rn", satfinite=True)

    raises_at(
        k, where, r"cvt\.rn\.satfinite\.e4m3x2\.f32 expects 3 operands \(d, a, b\), but got 2"
    )


def test_error_x4_needs_rbits() -> None:
    where: list[int] = []

    @kernel(arch="sm_100a")
    def k() -> None:
        x = reg.scalar(f32)
        q = reg.scalar(e4m3x4)
        where.append(here() + 1)
        ptx.cvt(q, (x, x, x, x), rnd="rs", satfinite=True)

    raises_at(
        k, where, r"cvt\.rs\.satfinite\.e4m3x4\.f32 expects 3 operands \(d, a, rbits\), but got 2"
    )


def test_error_untyped_destination_needs_dtype() -> None:
    where: list[int] = []

    @kernel(arch="sm_89")
    def k() -> None:
        x = reg.scalar(f32)
        where.append(here() + 1)
        ptx.cvt(reg.scalar(b16), x, x, rnd="rn", satfinite=True)

    raises_at(k, where, r"cvt cannot take its type from register %rs0 of type \.b16; pass dtype=")


def test_error_cvta_space_lists_choices() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        g = reg.scalar(u64)
        where.append(here() + 1)
        ptx.cvta.to(g, g, space="texture")

    raises_at(
        k, where, r"unknown modifier '\.texture' for cvta; expected one of \.to, \.const, \.global"
    )


def test_error_cvta_needs_a_64_bit_register() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        s = reg.scalar(u32)
        where.append(here() + 1)
        ptx.cvta.to(s, s, space="shared")

    raises_at(
        k,
        where,
        r"cvta\.to\.shared\.u64 operand 0 \(d\) expects a 64-bit register for \.u64, but %r0",
    )


def test_error_cvt_pack_type() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        a = reg.scalar(s32)
        where.append(here() + 1)
        ptx.cvt.pack(reg.scalar(u32), a, a, dtype="u4")

    raises_at(k, where, r"cvt\.pack\.sat\.u4\.s32 needs a \.btype modifier \(one of \.b32\)")


def test_family_exports() -> None:
    from pyptx.ptx import _convert

    assert ptx.cvt is _convert.cvt and ptx.cvta is _convert.cvta
    for fn in (ptx.cvt.__call__, ptx.cvt.pack, ptx.cvta.__call__, ptx.cvta.to):
        assert "https://docs.nvidia.com/cuda/parallel-thread-execution/#" in (fn.__doc__ or "")
    assert _convert.MULTI_INSTRUCTION == {}
