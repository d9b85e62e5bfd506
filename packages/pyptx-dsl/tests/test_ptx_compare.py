"""Typed comparison and selection wrappers: setp (pairs, bool ops), set, selp, slct."""

from __future__ import annotations

from dsl_testing import body, here, raises_at

from pyptx import kernel, ptx, reg
from pyptx.types import b32, bf16x2, f16, f16x2, f32, f64, pred, s32, u16, u32, u64


def test_setp_integer_and_float_compares(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        p, q, done = reg.scalar(pred), reg.scalar(pred), reg.scalar(pred)
        i, n = reg.scalar(u32), reg.scalar(u32)
        s = reg.scalar(s32)
        x = reg.scalar(f32)
        d = reg.scalar(f64)
        w = reg.scalar(u64)
        ptx.setp(p, i, n, cmp="lt")
        ptx.setp(p, i, 32, cmp="hs")
        ptx.setp(p, s, -1, cmp="gt")
        ptx.setp(p, x, 0.5, cmp="ltu", ftz=True)
        ptx.setp(p, d, d, cmp="nan")
        ptx.setp(p, w, 0, cmp="ne")
        ptx.setp((p, q), i, n, cmp="eq")
        ptx.setp(p, i, n, cmp="lt", bool_op="and", c=~done)
        ptx.setp((p, q), x, x, cmp="num", bool_op="xor", c=done)
        ptx.setp(p, reg.scalar(b32), 0, cmp="eq", pred=~done)

    assert body(k.ptx()) == [
        "setp.lt.u32 %p0, %r0, %r1;",
        "setp.hs.u32 %p0, %r0, 32;",
        "setp.gt.s32 %p0, %r2, -1;",
        "setp.ltu.ftz.f32 %p0, %f0, 0f3F000000;",
        "setp.nan.f64 %p0, %fd0, %fd0;",
        "setp.ne.u64 %p0, %rd0, 0;",
        "setp.eq.u32 %p0|%p1, %r0, %r1;",
        "setp.lt.and.u32 %p0, %r0, %r1, !%p2;",
        "setp.num.xor.f32 %p0|%p1, %f0, %f0, %p2;",
        "@!%p2 setp.eq.b32 %p0, %r3, 0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_setp_half_types_write_pairs(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        p, q, c = reg.scalar(pred), reg.scalar(pred), reg.scalar(pred)
        h = reg.scalar(f16)
        h2 = reg.scalar(f16x2)
        b2 = reg.scalar(bf16x2)
        ptx.setp(p, h, h, cmp="le", ftz=True)
        ptx.setp((p, q), h2, h2, cmp="gtu")
        ptx.setp((p, q), b2, b2, cmp="ge", bool_op="or", c=c)

    assert body(k.ptx()) == [
        "setp.le.ftz.f16 %p0, %rs0, %rs0;",
        "setp.gtu.f16x2 %p0|%p1, %r0, %r0;",
        "setp.ge.or.bf16x2 %p0|%p1, %r1, %r1, %p2;",
        "ret;",
    ]
    assemble(k.ptx())


def test_set_selp_slct(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(pred)
        x, y = reg.scalar(f32), reg.scalar(f32)
        u = reg.scalar(u32)
        s = reg.scalar(s32)
        h = reg.scalar(u16)
        d = reg.scalar(f64)
        ptx.set(u, x, y, cmp="gt")
        ptx.set(x, s, 0, cmp="lt", dtype=f32)
        ptx.set(s, d, d, cmp="equ", bool_op="and", c=~p)
        ptx.set(u, x, 0.0, cmp="ne", ftz=True)
        ptx.selp(x, 1.0, 0.0, p)
        ptx.selp(u, u, 7, ~p)
        ptx.selp(h, h, h, p)
        ptx.selp(d, d, 2.0, p)
        ptx.slct(u, u, 1, s)
        ptx.slct(x, x, y, y, ftz=True)

    assert body(k.ptx()) == [
        "set.gt.u32.f32 %r0, %f0, %f1;",
        "set.lt.f32.s32 %f0, %r1, 0;",
        "set.equ.and.s32.f64 %r1, %fd0, %fd0, !%p0;",
        "set.ne.ftz.u32.f32 %r0, %f0, 0f00000000;",
        "selp.f32 %f0, 0f3F800000, 0f00000000, %p0;",
        "selp.u32 %r0, %r0, 7, !%p0;",
        "selp.u16 %rs0, %rs0, %rs0, %p0;",
        "selp.f64 %fd0, %fd0, 0d4000000000000000, %p0;",
        "slct.u32.s32 %r0, %r0, 1, %r1;",
        "slct.ftz.f32.f32 %f0, %f0, %f1, %f1;",
        "ret;",
    ]
    assemble(k.ptx())


def test_set_with_half_sources(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        h2 = reg.scalar(f16x2)
        u = reg.scalar(u32)
        ptx.set(h2, h2, h2, cmp="lt", ftz=True)
        ptx.set(u, h2, h2, cmp="ge")

    assert body(k.ptx()) == [
        "set.lt.ftz.f16x2.f16x2 %r0, %r0, %r0;",
        "set.ge.u32.f16x2 %r1, %r0, %r0;",
        "ret;",
    ]
    assemble(k.ptx())


# ---------------------------------------------------------------------------- errors


def test_error_setp_needs_cmp_from_the_right_list() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(pred)
        x = reg.scalar(f32)
        where.append(here() + 1)
        ptx.setp(p, x, x, cmp="hs")

    raises_at(k, where, r"modifier '\.f32' is not valid for setp with \.hs")


def test_error_setp_bool_op_without_c() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(pred)
        i = reg.scalar(u32)
        where.append(here() + 1)
        ptx.setp(p, i, i, cmp="lt", bool_op="and")

    raises_at(k, where, r"setp\.lt\.and\.u32 expects 4 operands \(p, a, b, c\), but got 3")


def test_error_setp_packed_type_needs_pair() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        h2 = reg.scalar(f16x2)
        where.append(here() + 1)
        ptx.setp(reg.scalar(pred), h2, h2, cmp="lt")

    raises_at(k, where, r"setp\.lt\.f16x2 operand 0 \(p\) expects a 'd\|p' pair")


def test_error_setp_destination_must_be_a_predicate() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        i = reg.scalar(u32)
        where.append(here() + 1)
        ptx.setp(i, i, i, cmp="lt")

    raises_at(k, where, r"operand 0 \(p\) expects a \.pred register, but %r0 is declared")


def test_error_setp_ftz_on_integers() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        i = reg.scalar(s32)
        where.append(here() + 1)
        ptx.setp(reg.scalar(pred), i, i, cmp="lt", ftz=True)

    raises_at(k, where, r"modifier '\.ftz' is not valid for setp with \.s32")


def test_error_selp_selector_must_be_predicate() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        u = reg.scalar(u32)
        where.append(here() + 1)
        ptx.selp(u, u, u, u)

    raises_at(k, where, r"selp\.u32 operand 3 \(c\) expects a \.pred register")


def test_family_exports() -> None:
    from pyptx.ptx import _compare

    for name in _compare.__all__:
        fn = getattr(ptx, name)
        assert fn is getattr(_compare, name)
        assert "https://docs.nvidia.com/cuda/parallel-thread-execution/#" in (fn.__doc__ or "")
    assert _compare.MULTI_INSTRUCTION == {}
