"""Typed logic, shift and bit-manipulation wrappers (lop3 with a Python LUT included)."""

from __future__ import annotations

from dsl_testing import body, here, raises_at

from pyptx import kernel, ptx, reg
from pyptx.types import b16, b32, b64, f32, pred, s32, s64, u32, u64


def test_boolean_ops_take_bit_types_by_width(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        a, b = reg.scalar(u32), reg.scalar(u32)
        x = reg.scalar(f32)
        w = reg.scalar(u64)
        h = reg.scalar(b16)
        p, q = reg.scalar(pred), reg.scalar(pred)
        ptx.and_(a, a, 0xFF)
        ptx.or_(x, x, b)
        ptx.xor(w, w, w)
        ptx.not_(h, h)
        ptx.and_(p, p, q)
        ptx.or_(p, p, q)
        ptx.xor(p, p, q)
        ptx.not_(p, q)
        ptx.cnot(a, b)
        ptx.cnot(w, w, ty=b64)

    assert body(k.ptx()) == [
        "and.b32 %r0, %r0, 255;",
        "or.b32 %f0, %f0, %r1;",
        "xor.b64 %rd0, %rd0, %rd0;",
        "not.b16 %rs0, %rs0;",
        "and.pred %p0, %p0, %p1;",
        "or.pred %p0, %p0, %p1;",
        "xor.pred %p0, %p0, %p1;",
        "not.pred %p0, %p1;",
        "cnot.b32 %r0, %r1;",
        "cnot.b64 %rd0, %rd0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_lop3_immediate_and_python_lut(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        a, b, c, d = (reg.scalar(b32) for _ in range(4))
        ptx.lop3(d, a, b, c, 0x96)
        ptx.lop3(d, a, b, c, lambda x, y, z: (x & y) | (~x & z))
        ptx.lop3(d, a, b, c, lambda x, y, z: x ^ y ^ z)

    assert body(k.ptx()) == [
        "lop3.b32 %r3, %r0, %r1, %r2, 150;",
        "lop3.b32 %r3, %r0, %r1, %r2, 202;",
        "lop3.b32 %r3, %r0, %r1, %r2, 150;",
        "ret;",
    ]
    assemble(k.ptx())


def test_lop3_predicate_form(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        a, b, c, d = (reg.scalar(b32) for _ in range(4))
        p, q = reg.scalar(pred), reg.scalar(pred)
        out = ptx.lop3((d, p), a, b, c, 0xF0, bool_op="or", q=q)
        assert out == (d, p)
        ptx.lop3((d, p), a, b, c, lambda x, y, z: x & y, bool_op="and", q=~q)

    assert body(k.ptx()) == [
        "lop3.or.b32 %r3|%p0, %r0, %r1, %r2, 240, %p1;",
        "lop3.and.b32 %r3|%p0, %r0, %r1, %r2, 192, !%p1;",
        "ret;",
    ]
    assemble(k.ptx())


def test_shifts_funnel_shifts_and_permutes(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        a, b, d = reg.scalar(u32), reg.scalar(u32), reg.scalar(u32)
        s = reg.scalar(s32)
        w = reg.scalar(s64)
        ptx.shl(d, a, 3)
        ptx.shl(w, w, b)
        ptx.shr(d, a, 1)
        ptx.shr(s, s, 31)
        ptx.shr(d, a, b, ty=b32)
        ptx.shf.l(d, a, b, 8, mode="wrap")
        ptx.shf.r(d, a, b, d, mode="clamp")
        ptx.prmt(d, a, b, 0x5410)
        ptx.prmt(d, a, b, d, mode="ecl")

    assert body(k.ptx()) == [
        "shl.b32 %r2, %r0, 3;",
        "shl.b64 %rd0, %rd0, %r1;",
        "shr.u32 %r2, %r0, 1;",
        "shr.s32 %r3, %r3, 31;",
        "shr.b32 %r2, %r0, %r1;",
        "shf.l.wrap.b32 %r2, %r0, %r1, 8;",
        "shf.r.clamp.b32 %r2, %r0, %r1, %r2;",
        "prmt.b32 %r2, %r0, %r1, 21520;",
        "prmt.b32.ecl %r2, %r0, %r1, %r2;",
        "ret;",
    ]
    assemble(k.ptx())


def test_bit_field_and_counting_ops(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        a, d = reg.scalar(u32), reg.scalar(u32)
        s = reg.scalar(s32)
        w = reg.scalar(u64)
        ptx.bfe(d, a, 4, 8)
        ptx.bfe(s, s, 0, 5)
        ptx.bfi(d, a, d, 8, 4)
        ptx.bfi(w, w, w, 0, 16)
        ptx.popc(d, a)
        ptx.popc(d, w)
        ptx.clz(d, s)
        ptx.brev(d, a)
        ptx.brev(w, w)
        ptx.bfind(d, s)
        ptx.bfind(d, w, shiftamt=True)
        ptx.fns(d, a, 0, 3)
        ptx.bmsk(d, a, 4, mode="clamp")
        ptx.szext(s, s, 8, mode="wrap")
        ptx.szext(d, a, d, mode="clamp")

    assert body(k.ptx()) == [
        "bfe.u32 %r1, %r0, 4, 8;",
        "bfe.s32 %r2, %r2, 0, 5;",
        "bfi.b32 %r1, %r0, %r1, 8, 4;",
        "bfi.b64 %rd0, %rd0, %rd0, 0, 16;",
        "popc.b32 %r1, %r0;",
        "popc.b64 %r1, %rd0;",
        "clz.b32 %r1, %r2;",
        "brev.b32 %r1, %r0;",
        "brev.b64 %rd0, %rd0;",
        "bfind.s32 %r1, %r2;",
        "bfind.shiftamt.u64 %r1, %rd0;",
        "fns.b32 %r1, %r0, 0, 3;",
        "bmsk.clamp.b32 %r1, %r0, 4;",
        "szext.wrap.s32 %r2, %r2, 8;",
        "szext.clamp.u32 %r1, %r0, %r1;",
        "ret;",
    ]
    assemble(k.ptx())


def test_dot_products(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        a, b = reg.scalar(u32), reg.scalar(s32)
        d = reg.scalar(s32)
        u = reg.scalar(u32)
        ptx.dp4a(u, a, a, u)
        ptx.dp4a(d, a, b, d)
        ptx.dp4a(d, b, b, d, atype=s32, btype=s32)
        ptx.dp2a(d, b, a, d, mode="lo")
        ptx.dp2a(u, a, a, u, mode="hi")

    assert body(k.ptx()) == [
        "dp4a.u32.u32 %r3, %r0, %r0, %r3;",
        "dp4a.u32.s32 %r2, %r0, %r1, %r2;",
        "dp4a.s32.s32 %r2, %r1, %r1, %r2;",
        "dp2a.lo.s32.u32 %r2, %r1, %r0, %r2;",
        "dp2a.hi.u32.u32 %r3, %r0, %r0, %r3;",
        "ret;",
    ]
    assemble(k.ptx())


# ---------------------------------------------------------------------------- errors


def test_error_lop3_lut_out_of_range() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        a = reg.scalar(b32)
        where.append(here() + 1)
        ptx.lop3(a, a, a, a, 256)

    raises_at(k, where, r"lop3 expects lut= an int in 0\.\.255 or a function")


def test_error_lop3_lut_function_must_return_int() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        a = reg.scalar(b32)
        where.append(here() + 1)
        ptx.lop3(a, a, a, a, lambda x, y, z: x and 1.5)

    raises_at(k, where, r"lop3's lut function must return an int")


def test_error_lop3_predicate_form_needs_all_parts() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        a = reg.scalar(b32)
        where.append(here() + 1)
        ptx.lop3(a, a, a, a, 0x80, bool_op="or")

    raises_at(k, where, r"lop3\.or\.b32 expects 6 operands \(d, a, b, c, immLut, q\), but got 5")


def test_error_shf_mode_required() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        a = reg.scalar(u32)
        where.append(here() + 1)
        ptx.shf.l(a, a, a, 1, mode=None)  # type: ignore[arg-type]

    raises_at(k, where, r"shf\.l\.b32 needs a \.mode modifier \(one of \.clamp, \.wrap\)")


def test_error_prmt_mode_lists_choices() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        a = reg.scalar(u32)
        where.append(here() + 1)
        ptx.prmt(a, a, a, 0, mode="f8e")

    raises_at(
        k, where, r"unknown modifier '\.f8e' for prmt; did you mean '\.f4e'\? expected one of"
    )


def test_error_and_on_a_constant_only_needs_ty() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        where.append(here() + 1)
        ptx.and_(reg.scalar(pred), 1, 0, ty=u32)

    raises_at(
        k,
        where,
        r"unknown modifier '\.u32' for and; did you mean '\.b32'\? expected one of \.pred, \.b16",
    )


def test_family_exports() -> None:
    from pyptx.ptx import _logic

    for name in _logic.__all__:
        obj = getattr(ptx, name)
        assert obj is getattr(_logic, name)
        fns = [obj.l, obj.r] if name == "shf" else [obj]
        for fn in fns:
            assert "https://docs.nvidia.com/cuda/parallel-thread-execution/#" in (fn.__doc__ or "")
    assert _logic.MULTI_INSTRUCTION == {}
