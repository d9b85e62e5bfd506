"""Typed atomics: atom and red with every op, spaces, semantics + scope, halves, vectors."""

from __future__ import annotations

from dsl_testing import body, here, raises_at

from pyptx import kernel, ptx, reg, smem
from pyptx.types import (
    b32,
    b64,
    b128,
    bf16,
    bf16x2,
    f16,
    f16x2,
    f32,
    f64,
    s32,
    s64,
    u16,
    u32,
    u64,
)


def test_atom_every_scalar_op(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(u64)
        u = reg.scalar(u32)
        s = reg.scalar(s32)
        b = reg.scalar(b32)
        w = reg.scalar(b64)
        x = reg.scalar(f32)
        d = reg.scalar(f64)
        sl = reg.scalar(s64)
        buf = smem.alloc(u32, 16)
        ptx.atom(u, ptx.addr(p), 1, op="add", space="global")
        ptx.atom(s, p, s, op="min", space="global")
        ptx.atom(sl, p, sl, op="max")
        ptx.atom(u, buf, 7, op="inc", space="shared")
        ptx.atom(u, buf.addr(4), 7, op="dec", space="shared")
        ptx.atom(b, p, 0xF, op="and", space="global")
        ptx.atom(u, p, u, op="or", space="global")
        ptx.atom(w, p, w, op="xor", space="global")
        ptx.atom(b, p, b, b, op="cas", space="global")
        ptx.atom(w, p, w, op="exch", space="global")
        ptx.atom(x, p, 1.0, op="add", space="global")
        ptx.atom(d, p, d, op="add")
        ptx.atom(u, p, u, op="exch", ty=b32)

    assert body(k.ptx()) == [
        "atom.global.add.u32 %r0, [%rd0], 1;",
        "atom.global.min.s32 %r1, [%rd0], %r1;",
        "atom.max.s64 %rd2, [%rd0], %rd2;",
        "atom.shared.inc.u32 %r0, [smem_0], 7;",
        "atom.shared.dec.u32 %r0, [smem_0+4], 7;",
        "atom.global.and.b32 %r2, [%rd0], 15;",
        "atom.global.or.b32 %r0, [%rd0], %r0;",
        "atom.global.xor.b64 %rd1, [%rd0], %rd1;",
        "atom.global.cas.b32 %r2, [%rd0], %r2, %r2;",
        "atom.global.exch.b64 %rd1, [%rd0], %rd1;",
        "atom.global.add.f32 %f0, [%rd0], 0f3F800000;",
        "atom.add.f64 %fd0, [%rd0], %fd0;",
        "atom.exch.b32 %r0, [%rd0], %r0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_atom_semantics_scopes_spaces_and_cache_hint(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        p = reg.scalar(u64)
        pol = reg.scalar(b64)
        u = reg.scalar(u32)
        q = reg.scalar(b128)
        h = reg.scalar(u16)
        ptx.atom(u, p, 1, op="add", sem="acq_rel", scope="gpu", space="global")
        ptx.atom(u, p, 1, op="add", sem="acquire", scope="cluster", space="shared::cluster")
        ptx.atom(u, p, u, op="max", sem="release", scope="cta", space="shared::cta")
        ptx.atom(u, p, u, op="exch", sem="relaxed", scope="sys", ty=b32)
        ptx.atom(u, p, 1, op="add", scope="gpu")
        ptx.atom(u, p, 1, op="add", space="global", cache_policy=pol)
        ptx.atom(q, p, q, q, op="cas", space="global")
        ptx.atom(q, p, q, op="exch", space="shared")
        ptx.atom(h, p, h, h, op="cas", space="shared", ty="b16")

    assert body(k.ptx()) == [
        "atom.acq_rel.gpu.global.add.u32 %r0, [%rd0], 1;",
        "atom.acquire.cluster.shared::cluster.add.u32 %r0, [%rd0], 1;",
        "atom.release.cta.shared::cta.max.u32 %r0, [%rd0], %r0;",
        "atom.relaxed.sys.exch.b32 %r0, [%rd0], %r0;",
        "atom.gpu.add.u32 %r0, [%rd0], 1;",
        "atom.global.add.L2::cache_hint.u32 %r0, [%rd0], 1, %rd1;",
        "atom.global.cas.b128 %rq0, [%rd0], %rq0, %rq0;",
        "atom.shared.exch.b128 %rq0, [%rd0], %rq0;",
        "atom.shared.cas.b16 %rs0, [%rd0], %rs0, %rs0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_atom_half_precision_and_vectors_on_sm_90a(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        p = reg.scalar(u64)
        pol = reg.scalar(b64)
        h = reg.scalar(f16)
        h2 = reg.scalar(f16x2)
        b = reg.scalar(bf16)
        b2 = reg.scalar(bf16x2)
        xs = tuple(reg.scalar(f32) for _ in range(4))
        hs = tuple(reg.scalar(bf16) for _ in range(8))
        ptx.atom(h, p, h, op="add", noftz=True, space="global")
        ptx.atom(h2, p, h2, op="add", noftz=True, space="global", cache_policy=pol)
        ptx.atom(b, p, b, op="add", noftz=True, space="shared")
        ptx.atom(b2, p, b2, op="add", noftz=True)
        ptx.atom(xs, p, xs, op="add", space="global")
        ptx.atom(xs[:2], p, xs[2:], op="add", space="global", sem="relaxed", scope="gpu")
        ptx.atom(hs, p, hs, op="max", noftz=True, space="global")
        ptx.atom((h2, h2), p, (h2, h2), op="min", noftz=True, space="global")

    assert body(k.ptx()) == [
        "atom.global.add.noftz.f16 %rs0, [%rd0], %rs0;",
        "atom.global.add.noftz.L2::cache_hint.f16x2 %r0, [%rd0], %r0, %rd1;",
        "atom.shared.add.noftz.bf16 %rs1, [%rd0], %rs1;",
        "atom.add.noftz.bf16x2 %r1, [%rd0], %r1;",
        "atom.global.add.v4.f32 {%f0, %f1, %f2, %f3}, [%rd0], {%f0, %f1, %f2, %f3};",
        "atom.relaxed.gpu.global.add.v2.f32 {%f0, %f1}, [%rd0], {%f2, %f3};",
        "atom.global.max.noftz.v8.bf16 {%rs2, %rs3, %rs4, %rs5, %rs6, %rs7, %rs8, %rs9}, "
        "[%rd0], {%rs2, %rs3, %rs4, %rs5, %rs6, %rs7, %rs8, %rs9};",
        "atom.global.min.noftz.v2.f16x2 {%r0, %r0}, [%rd0], {%r0, %r0};",
        "ret;",
    ]
    assemble(k.ptx())


def test_red_forms(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        p = reg.scalar(u64)
        pol = reg.scalar(b64)
        u = reg.scalar(u32)
        x = reg.scalar(f32)
        b2 = reg.scalar(bf16x2)
        w = reg.scalar(b64)
        xs = tuple(reg.scalar(f32) for _ in range(4))
        buf = smem.alloc(f32, 4)
        ptx.red(p, u, op="add", space="global")
        ptx.red(p, x, op="add", space="global", sem="release", scope="gpu")
        ptx.red(buf, x, op="add", space="shared::cta", sem="relaxed", scope="cta")
        ptx.red(p, 1, op="inc", ty=u32, space="global")
        ptx.red(p, w, op="or", space="global")
        ptx.red(p, u, op="max", space="shared::cluster", scope="cluster")
        ptx.red(p, b2, op="add", noftz=True, space="global", cache_policy=pol)
        ptx.red(p, xs, op="add", space="global")
        ptx.red(p, (b2, b2), op="max", noftz=True)

    assert body(k.ptx()) == [
        "red.global.add.u32 [%rd0], %r0;",
        "red.release.gpu.global.add.f32 [%rd0], %f0;",
        "red.relaxed.cta.shared::cta.add.f32 [smem_0], %f0;",
        "red.global.inc.u32 [%rd0], 1;",
        "red.global.or.b64 [%rd0], %rd2;",
        "red.cluster.shared::cluster.max.u32 [%rd0], %r0;",
        "red.global.add.noftz.L2::cache_hint.bf16x2 [%rd0], %r1, %rd1;",
        "red.global.add.v4.f32 [%rd0], {%f1, %f2, %f3, %f4};",
        "red.max.noftz.v2.bf16x2 [%rd0], {%r1, %r1};",
        "ret;",
    ]
    assemble(k.ptx())


# ---------------------------------------------------------------------------- errors


def test_error_op_lists_choices() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        u = reg.scalar(u32)
        where.append(here() + 1)
        ptx.atom(u, u, 1, op="sum")

    raises_at(k, where, r"atom expects op= one of 'and', 'or', 'xor', 'cas', 'exch', 'add'")


def test_error_type_not_allowed_for_op() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(u64)
        where.append(here() + 1)
        ptx.atom(reg.scalar(f32), p, 1.0, op="min")

    raises_at(k, where, r"atom\.min cannot take its type from register %f0 of type \.f32")


def test_error_cas_needs_new_value() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(u64)
        b = reg.scalar(b32)
        where.append(here() + 1)
        ptx.atom(b, p, b, op="cas")

    raises_at(k, where, r"atom\.cas\.b32 expects 4 operands \(d, a, b, c\), but got 3")


def test_error_half_add_needs_noftz() -> None:
    where: list[int] = []

    @kernel(arch="sm_90a")
    def k() -> None:
        p = reg.scalar(u64)
        h = reg.scalar(f16x2)
        where.append(here() + 1)
        ptx.atom(h, p, h, op="add")

    raises_at(k, where, r"atom\.add\.f16x2 needs a \.noftz modifier")


def test_error_vector_atom_only_global() -> None:
    where: list[int] = []

    @kernel(arch="sm_90a")
    def k() -> None:
        p = reg.scalar(u64)
        xs = (reg.scalar(f32), reg.scalar(f32))
        where.append(here() + 1)
        ptx.atom(xs, p, xs, op="add", space="shared")

    raises_at(k, where, r"modifier '\.v2' is not valid for atom with \.shared")


def test_error_vector_atom_shapes() -> None:
    where: list[int] = []

    @kernel(arch="sm_90a")
    def k() -> None:
        p = reg.scalar(u64)
        xs = tuple(reg.scalar(f32) for _ in range(4))
        where.append(here() + 1)
        ptx.atom(xs, p, xs[:2], op="add", space="global")

    raises_at(
        k,
        where,
        r"atom\.global\.add\.v4\.f32 operand 2 \(b\) expects a vector of 4 elements \(\.v4\), "
        r"but got 2",
    )

    @kernel(arch="sm_90a")
    def k2() -> None:
        p = reg.scalar(u64)
        xs = tuple(reg.scalar(f32) for _ in range(8))
        where.append(here() + 1)
        ptx.atom(xs, p, xs, op="add", space="global")

    raises_at(
        k2, where, r"atom\.global\.add\.v8\.f32: modifier '\.v8' is not valid for atom with \.f32"
    )


def test_error_red_semantics() -> None:
    where: list[int] = []

    @kernel(arch="sm_90a")
    def k() -> None:
        p = reg.scalar(u64)
        where.append(here() + 1)
        ptx.red(p, reg.scalar(u32), op="add", sem="acquire", scope="gpu")

    raises_at(k, where, r"red expects sem= one of 'relaxed', 'release', but got 'acquire'")


def test_error_red_immediate_needs_ty() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(u64)
        where.append(here() + 1)
        ptx.red(p, 1, op="add")

    raises_at(k, where, r"red needs ty= \(one of \.u32, \.s32, \.u64")


def test_family_exports() -> None:
    from pyptx.ptx import _atomic

    for name in _atomic.__all__:
        fn = getattr(ptx, name)
        assert fn is getattr(_atomic, name)
        assert "https://docs.nvidia.com/cuda/parallel-thread-execution/#" in (fn.__doc__ or "")
    assert _atomic.MULTI_INSTRUCTION == {}
