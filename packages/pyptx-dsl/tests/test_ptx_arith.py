"""Typed arithmetic wrappers: integer, float, half and packed forms, one instruction each."""

from __future__ import annotations

from dsl_testing import body, here, raises_at

from pyptx import kernel, ptx, reg
from pyptx.types import (
    b32,
    bf16,
    bf16x2,
    f16,
    f16x2,
    f32,
    f32x2,
    f64,
    pred,
    s16x2,
    s32,
    s64,
    u16,
    u32,
    u64,
)


def test_integer_add_sub_forms(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        a, b, d = reg.scalar(u32), reg.scalar(u32), reg.scalar(u32)
        s = reg.scalar(s32)
        h = reg.scalar(s16x2)
        w = reg.scalar(u16)
        ptx.add(d, a, b)
        ptx.add(s, s, -1, sat=True)
        ptx.add(h, h, h)
        ptx.add(w, w, 3)
        ptx.sub(d, a, 7)
        ptx.sub(s, s, s, sat=True)
        ptx.add(d, a, b, ty=s32)

    assert body(k.ptx()) == [
        "add.u32 %r2, %r0, %r1;",
        "add.sat.s32 %r3, %r3, -1;",
        "add.s16x2 %r4, %r4, %r4;",
        "add.u16 %rs0, %rs0, 3;",
        "sub.u32 %r2, %r0, 7;",
        "sub.sat.s32 %r3, %r3, %r3;",
        "add.s32 %r2, %r0, %r1;",
        "ret;",
    ]
    assemble(k.ptx())


def test_carry_chain_64_bit_add_and_madc(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        a0, a1, b0, b1, lo, hi = (reg.scalar(u32) for _ in range(6))
        ptx.add(lo, a0, b0, cc=True)
        ptx.addc(hi, a1, b1, cc=True)
        ptx.addc(hi, hi, 0)
        ptx.sub(lo, a0, b0, cc=True)
        ptx.subc(hi, a1, b1)
        ptx.mad(lo, a0, b0, lo, mode="lo", cc=True)
        ptx.madc(hi, a0, b0, hi, mode="hi", cc=True)
        ptx.madc(hi, a1, b1, hi, mode="lo")
        ptx.subc(hi, a1, b1, cc=True)

    assert body(k.ptx()) == [
        "add.cc.u32 %r4, %r0, %r2;",
        "addc.cc.u32 %r5, %r1, %r3;",
        "addc.u32 %r5, %r5, 0;",
        "sub.cc.u32 %r4, %r0, %r2;",
        "subc.u32 %r5, %r1, %r3;",
        "mad.lo.cc.u32 %r4, %r0, %r2, %r4;",
        "madc.hi.cc.u32 %r5, %r0, %r2, %r5;",
        "madc.lo.u32 %r5, %r1, %r3, %r5;",
        "subc.cc.u32 %r5, %r1, %r3;",
        "ret;",
    ]
    assemble(k.ptx())


def test_integer_mul_mad_and_friends(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        a, b, d = reg.scalar(u32), reg.scalar(u32), reg.scalar(u32)
        s = reg.scalar(s32)
        w = reg.scalar(u64)
        ptx.mul(d, a, b, mode="lo")
        ptx.mul(d, a, b, mode="hi")
        ptx.mul(w, a, 4, mode="wide")
        ptx.mad(w, a, b, w, mode="wide")
        ptx.mad(s, s, s, s, mode="hi", sat=True)
        ptx.mul24(d, a, b, mode="lo")
        ptx.mad24(s, s, s, s, mode="hi", sat=True)
        ptx.mad24(d, a, b, d, mode="lo")
        ptx.sad(d, a, b, d)
        ptx.div(d, a, b)
        ptx.rem(s, s, 3)
        ptx.abs(s, s)
        ptx.neg(s, s)

    assert body(k.ptx()) == [
        "mul.lo.u32 %r2, %r0, %r1;",
        "mul.hi.u32 %r2, %r0, %r1;",
        "mul.wide.u32 %rd0, %r0, 4;",
        "mad.wide.u32 %rd0, %r0, %r1, %rd0;",
        "mad.hi.sat.s32 %r3, %r3, %r3, %r3;",
        "mul24.lo.u32 %r2, %r0, %r1;",
        "mad24.hi.sat.s32 %r3, %r3, %r3, %r3;",
        "mad24.lo.u32 %r2, %r0, %r1, %r2;",
        "sad.u32 %r2, %r0, %r1, %r2;",
        "div.u32 %r2, %r0, %r1;",
        "rem.s32 %r3, %r3, 3;",
        "abs.s32 %r3, %r3;",
        "neg.s32 %r3, %r3;",
        "ret;",
    ]
    assemble(k.ptx())


def test_integer_min_max_relu(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        s = reg.scalar(s32)
        h = reg.scalar(s16x2)
        u = reg.scalar(u64)
        ptx.min(s, s, 0, relu=True)
        ptx.max(h, h, h, relu=True)
        ptx.max(u, u, u)
        ptx.min(s, s, s)

    assert body(k.ptx()) == [
        "min.relu.s32 %r0, %r0, 0;",
        "max.relu.s16x2 %r1, %r1, %r1;",
        "max.u64 %rd0, %rd0, %rd0;",
        "min.s32 %r0, %r0, %r0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_float_rounding_ftz_sat(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        x, y = reg.scalar(f32), reg.scalar(f32)
        d = reg.scalar(f64)
        ptx.add(x, x, y)
        ptx.add(x, x, 1.5, rnd="rz", ftz=True, sat=True)
        ptx.sub(x, x, y, rnd="rm")
        ptx.mul(x, x, y, rnd="rp", ftz=True)
        ptx.mul(d, d, 2.0, rnd="rn")
        ptx.mad(x, x, y, x, rnd="rn", ftz=True, sat=True)
        ptx.mad(d, d, d, d, rnd="rz")
        ptx.div(x, x, y, approx=True, ftz=True)
        ptx.div(x, x, y, full=True)
        ptx.div(x, x, y, rnd="rn", ftz=True)
        ptx.div(d, d, d, rnd="rp")
        ptx.abs(x, x, ftz=True)
        ptx.neg(d, d)

    assert body(k.ptx()) == [
        "add.f32 %f0, %f0, %f1;",
        "add.rz.ftz.sat.f32 %f0, %f0, 0f3FC00000;",
        "sub.rm.f32 %f0, %f0, %f1;",
        "mul.rp.ftz.f32 %f0, %f0, %f1;",
        "mul.rn.f64 %fd0, %fd0, 0d4000000000000000;",
        "mad.rn.ftz.sat.f32 %f0, %f0, %f1, %f0;",
        "mad.rz.f64 %fd0, %fd0, %fd0, %fd0;",
        "div.approx.ftz.f32 %f0, %f0, %f1;",
        "div.full.f32 %f0, %f0, %f1;",
        "div.rn.ftz.f32 %f0, %f0, %f1;",
        "div.rp.f64 %fd0, %fd0, %fd0;",
        "abs.ftz.f32 %f0, %f0;",
        "neg.f64 %fd0, %fd0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_float_min_max_nan_xorsign(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        x, y = reg.scalar(f32), reg.scalar(f32)
        h = reg.scalar(f16x2)
        b = reg.scalar(bf16x2)
        ptx.min(x, x, y, ftz=True, nan=True)
        ptx.max(x, x, y, xorsign_abs=True)
        ptx.min(h, h, h, nan=True, xorsign_abs=True)
        ptx.max(b, b, b, nan=True)
        ptx.min(reg.scalar(f64), 1.0, 2.0)

    assert body(k.ptx()) == [
        "min.ftz.NaN.f32 %f0, %f0, %f1;",
        "max.xorsign.abs.f32 %f0, %f0, %f1;",
        "min.NaN.xorsign.abs.f16x2 %r0, %r0, %r0;",
        "max.NaN.bf16x2 %r1, %r1, %r1;",
        "min.f64 %fd0, 0d3FF0000000000000, 0d4000000000000000;",
        "ret;",
    ]
    assemble(k.ptx())


def test_three_input_min_max_on_sm_100a(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_100a")
    def k() -> None:
        x, y, z = reg.scalar(f32), reg.scalar(f32), reg.scalar(f32)
        ptx.min(x, x, y, z)
        ptx.max(x, x, y, z, nan=True, abs=True)
        ptx.min(x, x, y, z, ftz=True)

    assert body(k.ptx()) == [
        "min.f32 %f0, %f0, %f1, %f2;",
        "max.NaN.abs.f32 %f0, %f0, %f1, %f2;",
        "min.ftz.f32 %f0, %f0, %f1, %f2;",
        "ret;",
    ]
    assemble(k.ptx())


def test_half_precision_arithmetic(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        h, h2 = reg.scalar(f16), reg.scalar(f16x2)
        b, b2 = reg.scalar(bf16), reg.scalar(bf16x2)
        ptx.add(h, h, h, rnd="rn", ftz=True, sat=True)
        ptx.sub(h2, h2, h2)
        ptx.mul(h2, h2, h2, rnd="rn", ftz=True)
        ptx.add(b, b, b, rnd="rn")
        ptx.mul(b2, b2, b2)
        ptx.fma(h2, h2, h2, h2, rnd="rn", ftz=True, sat=True)
        ptx.fma(h, h, h, h, rnd="rn", relu=True)
        ptx.fma(b2, b2, b2, b2, rnd="rn", relu=True)
        ptx.fma(b, b, b, b, rnd="rn", oob=True)
        ptx.fma(h2, h2, h2, h2, rnd="rn", oob=True, relu=True)
        ptx.neg(b2, b2)
        ptx.abs(h2, h2, ftz=True)

    assert body(k.ptx()) == [
        "add.rn.ftz.sat.f16 %rs0, %rs0, %rs0;",
        "sub.f16x2 %r0, %r0, %r0;",
        "mul.rn.ftz.f16x2 %r0, %r0, %r0;",
        "add.rn.bf16 %rs1, %rs1, %rs1;",
        "mul.bf16x2 %r1, %r1, %r1;",
        "fma.rn.ftz.sat.f16x2 %r0, %r0, %r0, %r0;",
        "fma.rn.relu.f16 %rs0, %rs0, %rs0, %rs0;",
        "fma.rn.relu.bf16x2 %r1, %r1, %r1, %r1;",
        "fma.rn.oob.bf16 %rs1, %rs1, %rs1, %rs1;",
        "fma.rn.oob.relu.f16x2 %r0, %r0, %r0, %r0;",
        "neg.bf16x2 %r1, %r1;",
        "abs.ftz.f16x2 %r0, %r0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_packed_f32x2_and_mixed_precision_on_sm_100a(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_100a")
    def k() -> None:
        v = reg.scalar(f32x2)
        x = reg.scalar(f32)
        h = reg.scalar(f16)
        b = reg.scalar(bf16)
        ptx.add(v, v, v, rnd="rn", ftz=True)
        ptx.sub(v, v, v)
        ptx.mul(v, v, v, rnd="rz")
        ptx.fma(v, v, v, v, rnd="rm", ftz=True)
        ptx.add(x, h, x, atype=f16, rnd="rn", sat=True)
        ptx.sub(x, b, x, atype=bf16)
        ptx.fma(x, h, h, x, rnd="rz", atype=f16, sat=True)

    assert body(k.ptx()) == [
        "add.rn.ftz.f32x2 %rd0, %rd0, %rd0;",
        "sub.f32x2 %rd0, %rd0, %rd0;",
        "mul.rz.f32x2 %rd0, %rd0, %rd0;",
        "fma.rm.ftz.f32x2 %rd0, %rd0, %rd0, %rd0;",
        "add.rn.sat.f32.f16 %f0, %rs0, %f0;",
        "sub.f32.bf16 %f0, %rs1, %f0;",
        "fma.rz.sat.f32.f16 %f0, %rs0, %rs0, %f0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_fma_and_special_functions(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        x, y = reg.scalar(f32), reg.scalar(f32)
        d = reg.scalar(f64)
        h2 = reg.scalar(f16x2)
        b2 = reg.scalar(bf16x2)
        p = reg.scalar(pred)
        ptx.fma(x, x, y, x, rnd="rn", ftz=True, sat=True)
        ptx.fma(d, d, d, d, rnd="rp")
        ptx.rcp(x, y, approx=True, ftz=True)
        ptx.rcp(x, y, rnd="rz")
        ptx.rcp(d, d, rnd="rn")
        ptx.rcp(d, d, approx=True, ftz=True)
        ptx.sqrt(x, y, approx=True)
        ptx.sqrt(x, y, rnd="rn", ftz=True)
        ptx.sqrt(d, d, rnd="rm")
        ptx.rsqrt(x, y, ftz=True)
        ptx.rsqrt(d, d)
        ptx.rsqrt(d, d, ftz=True)
        ptx.sin(x, y)
        ptx.cos(x, y, ftz=True)
        ptx.lg2(x, y, ftz=True)
        ptx.ex2(x, y)
        ptx.ex2(h2, h2)
        ptx.ex2(b2, b2, ftz=True)
        ptx.tanh(x, y)
        ptx.tanh(b2, b2)
        ptx.copysign(x, x, y)
        ptx.copysign(d, d, d)
        ptx.testp(p, x, op="notanumber")
        ptx.testp(p, d, op="subnormal", pred=~p)

    assert body(k.ptx()) == [
        "fma.rn.ftz.sat.f32 %f0, %f0, %f1, %f0;",
        "fma.rp.f64 %fd0, %fd0, %fd0, %fd0;",
        "rcp.approx.ftz.f32 %f0, %f1;",
        "rcp.rz.f32 %f0, %f1;",
        "rcp.rn.f64 %fd0, %fd0;",
        "rcp.approx.ftz.f64 %fd0, %fd0;",
        "sqrt.approx.f32 %f0, %f1;",
        "sqrt.rn.ftz.f32 %f0, %f1;",
        "sqrt.rm.f64 %fd0, %fd0;",
        "rsqrt.approx.ftz.f32 %f0, %f1;",
        "rsqrt.approx.f64 %fd0, %fd0;",
        "rsqrt.approx.ftz.f64 %fd0, %fd0;",
        "sin.approx.f32 %f0, %f1;",
        "cos.approx.ftz.f32 %f0, %f1;",
        "lg2.approx.ftz.f32 %f0, %f1;",
        "ex2.approx.f32 %f0, %f1;",
        "ex2.approx.f16x2 %r0, %r0;",
        "ex2.approx.ftz.bf16x2 %r1, %r1;",
        "tanh.approx.f32 %f0, %f1;",
        "tanh.approx.bf16x2 %r1, %r1;",
        "copysign.f32 %f0, %f0, %f1;",
        "copysign.f64 %fd0, %fd0, %fd0;",
        "testp.notanumber.f32 %p0, %f0;",
        "@!%p0 testp.subnormal.f64 %p0, %fd0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_guard_predicate_and_return_value(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(pred)
        a = reg.scalar(u32)
        out = ptx.add(reg.scalar(u32), a, 1, pred=p)
        ptx.mul(out, out, out, mode="lo", pred=~p)

    assert body(k.ptx()) == [
        "@%p0 add.u32 %r1, %r0, 1;",
        "@!%p0 mul.lo.u32 %r1, %r1, %r1;",
        "ret;",
    ]
    assemble(k.ptx())


# ---------------------------------------------------------------------------- errors


def test_error_integer_mul_needs_mode() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        a = reg.scalar(u32)
        where.append(here() + 1)
        ptx.mul(a, a, a)

    raises_at(k, where, r"mul\.u32 needs a \.mode modifier \(one of \.hi, \.lo\)")


def test_error_rounding_on_integer_add() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        a = reg.scalar(s32)
        where.append(here() + 1)
        ptx.add(a, a, a, rnd="rn")

    raises_at(k, where, r"modifier '\.rn' is not valid for add with \.s32")


def test_error_bad_rounding_spelling_lists_choices() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        x = reg.scalar(f32)
        where.append(here() + 1)
        ptx.add(x, x, x, rnd="nearest")

    raises_at(
        k, where, r"unknown modifier '\.nearest' for add; expected one of .*\.rn, \.rz, \.rm, \.rp"
    )


def test_error_sat_only_on_s32() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        a = reg.scalar(u32)
        where.append(here() + 1)
        ptx.add(a, a, a, sat=True)

    raises_at(k, where, r"modifier '\.sat' is not valid for add with \.u32")


def test_error_type_cannot_be_inferred_from_bit_register() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        a = reg.scalar(b32)
        where.append(here() + 1)
        ptx.add(a, a, 1)

    raises_at(k, where, r"add cannot take its type from register %r0 of type \.b32; pass ty=")


def test_error_fma_needs_rounding() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        x = reg.scalar(f32)
        where.append(here() + 1)
        ptx.fma(x, x, x, x)

    raises_at(k, where, r"fma\.f32 needs a \.rnd modifier \(one of \.rn, \.rz, \.rm, \.rp\)")


def test_error_div_float_needs_exactly_one_kind() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        x = reg.scalar(f32)
        where.append(here() + 1)
        ptx.div(x, x, x, approx=True, rnd="rn")

    raises_at(k, where, r"modifier '\.rn' is not valid for div with \.approx")


def test_error_three_input_min_is_f32_only() -> None:
    where: list[int] = []

    @kernel(arch="sm_100a")
    def k() -> None:
        a = reg.scalar(s32)
        where.append(here() + 1)
        ptx.min(a, a, a, a)

    raises_at(k, where, r"min\.s32 expects 3 operands \(d, a, b\), but got 4")


def test_error_relu_only_on_s32_and_s16x2() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        a = reg.scalar(u32)
        where.append(here() + 1)
        ptx.max(a, a, a, relu=True)

    raises_at(k, where, r"modifier '\.relu' is not valid for max with \.u32")


def test_error_destination_must_be_a_register() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        a = reg.scalar(u32)
        where.append(here() + 1)
        ptx.add(5, a, a)  # type: ignore[arg-type]

    raises_at(k, where, r"add\.u32 operand 0 \(d\) expects a register, but got the immediate 5")


def test_error_ex2_bf16_requires_ftz() -> None:
    where: list[int] = []

    @kernel(arch="sm_90a")
    def k() -> None:
        b = reg.scalar(bf16)
        where.append(here() + 1)
        ptx.ex2(b, b)

    raises_at(k, where, r"ex2\.approx\.bf16 needs a \.ftz modifier")


def test_error_testp_op_lists_choices() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        x = reg.scalar(f32)
        where.append(here() + 1)
        ptx.testp(reg.scalar(pred), x, op="nan")

    raises_at(k, where, r"unknown modifier '\.nan' for testp; expected one of \.finite, \.infinite")


def test_error_madc_needs_mode_and_mad_cc_rejects_wide() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        a, w = reg.scalar(u32), reg.scalar(u64)
        where.append(here() + 1)
        ptx.mad(w, a, a, w, mode="wide", cc=True)

    raises_at(k, where, r"modifier '\.cc' is not valid for mad with \.wide")

    @kernel(arch="sm_80")
    def k2() -> None:
        a = reg.scalar(s64)
        where.append(here() + 1)
        ptx.madc(a, a, a, a)

    raises_at(k2, where, r"madc\.s64 needs a \.mode modifier \(one of \.hi, \.lo\)")


def test_every_family_name_is_exported_and_documented() -> None:
    from pyptx.ptx import _arith

    for name in _arith.__all__:
        fn = getattr(ptx, name)
        assert fn is getattr(_arith, name)
        doc = fn.__doc__ or ""
        assert "https://docs.nvidia.com/cuda/parallel-thread-execution/#" in doc, name
    assert _arith.MULTI_INSTRUCTION == {}
