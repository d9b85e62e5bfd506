"""Typed data-movement wrappers: mov (pack/unpack), ld, st, ldu, prefetch, prefetchu."""

from __future__ import annotations

from dsl_testing import body, here, raises_at

from pyptx import kernel, ptx, reg, smem
from pyptx.types import b16, b32, b64, b128, f16, f32, f64, pred, s8, u16, u32, u64


def test_mov_scalars_and_vector_pack_unpack(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        lo, hi = reg.scalar(u32), reg.scalar(u32)
        pair = reg.scalar(u64)
        h0, h1 = reg.scalar(f16), reg.scalar(f16)
        x = reg.scalar(f32)
        q = reg.scalar(b128)
        p = reg.scalar(pred)
        buf = smem.alloc(f32, 64)
        ptx.mov(lo, ptx.special.tid.x())
        ptx.mov(x, 1.0)
        ptx.mov(lo, 1.0, ty=b32)
        ptx.mov(h0, h1)
        ptx.mov(p, 1)
        ptx.mov(pair, buf)
        ptx.mov(pair, (lo, hi))
        ptx.mov((lo, hi), pair)
        ptx.mov(lo, (h0, h1))
        ptx.mov((h0, h1, h0, h1), pair)
        ptx.mov(q, (pair, pair))
        ptx.mov((pair, pair), q)

    assert body(k.ptx()) == [
        "mov.u32 %r0, %tid.x;",
        "mov.f32 %f0, 0f3F800000;",
        "mov.b32 %r0, 0f3F800000;",
        "mov.b16 %rs0, %rs1;",
        "mov.pred %p0, 1;",
        "mov.u64 %rd0, smem_0;",
        "mov.b64 %rd0, {%r0, %r1};",
        "mov.b64 {%r0, %r1}, %rd0;",
        "mov.b32 %r0, {%rs0, %rs1};",
        "mov.b64 {%rs0, %rs1, %rs0, %rs1}, %rd0;",
        "mov.b128 %rq0, {%rd0, %rd0};",
        "mov.b128 {%rd0, %rd0}, %rq0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_ld_st_spaces_cache_operators_and_vectors(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(u64)
        x, y, z, w = (reg.scalar(f32) for _ in range(4))
        i = reg.scalar(u32)
        c = reg.scalar(s8)
        buf = smem.alloc(f32, (2, 32))
        ptx.ld(x, ptx.addr(p, 16), space="global", cache="cg")
        ptx.ld((x, y, z, w), p, space="global", cache="cs")
        ptx.ld(i, buf[1], space="shared")
        ptx.ld((x, y), buf.addr(8), space="shared")
        ptx.ld(c, p, space="global", cache="lu")
        ptx.ld(i, p)
        ptx.ld(x, p, space="local", cache="cv")
        ptx.ld(i, p, space="global", sem="weak", cache="ca")
        ptx.st(ptx.addr(p, 4), x, space="global", cache="wt")
        ptx.st(p, (x, y, z, w), space="global", cache="cs")
        ptx.st(buf, i, space="shared")
        ptx.st(p, 1.5, ty=f32, space="global")
        ptx.st(p, 7, ty=u16, space="local", cache="wb")
        ptx.st(p, i, pred=None)

    assert body(k.ptx()) == [
        "ld.global.cg.f32 %f0, [%rd0+16];",
        "ld.global.cs.v4.f32 {%f0, %f1, %f2, %f3}, [%rd0];",
        "ld.shared.u32 %r0, [smem_0+128];",
        "ld.shared.v2.f32 {%f0, %f1}, [smem_0+8];",
        "ld.global.lu.s8 %rs0, [%rd0];",
        "ld.u32 %r0, [%rd0];",
        "ld.local.cv.f32 %f0, [%rd0];",
        "ld.weak.global.ca.u32 %r0, [%rd0];",
        "st.global.wt.f32 [%rd0+4], %f0;",
        "st.global.cs.v4.f32 [%rd0], {%f0, %f1, %f2, %f3};",
        "st.shared.u32 [smem_0], %r0;",
        "st.global.f32 [%rd0], 0f3FC00000;",
        "st.local.wb.u16 [%rd0], 7;",
        "st.u32 [%rd0], %r0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_ld_st_memory_model_qualifiers(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        p = reg.scalar(u64)
        i = reg.scalar(u32)
        d = reg.scalar(f64)
        ptx.ld(i, p, sem="relaxed", scope="gpu", space="global")
        ptx.ld(i, p, sem="acquire", scope="cluster", space="shared::cluster")
        ptx.ld(i, p, sem="volatile", space="shared")
        ptx.ld(d, p, sem="acquire", scope="sys")
        ptx.st(p, i, sem="release", scope="gpu", space="global")
        ptx.st(p, i, sem="relaxed", scope="cta", space="shared::cta")
        ptx.st(p, d, sem="volatile", space="global")

    assert body(k.ptx()) == [
        "ld.relaxed.gpu.global.u32 %r0, [%rd0];",
        "ld.acquire.cluster.shared::cluster.u32 %r0, [%rd0];",
        "ld.volatile.shared.u32 %r0, [%rd0];",
        "ld.acquire.sys.f64 %fd0, [%rd0];",
        "st.release.gpu.global.u32 [%rd0], %r0;",
        "st.relaxed.cta.shared::cta.u32 [%rd0], %r0;",
        "st.volatile.global.f64 [%rd0], %fd0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_ld_st_eviction_priorities_cache_hints_and_prefetch_size(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        p = reg.scalar(u64)
        pol = reg.scalar(b64)
        x, y = reg.scalar(f32), reg.scalar(f32)
        i = reg.scalar(u32)
        q = reg.scalar(b128)
        ptx.ld(i, p, space="global", evict="L1::evict_last")
        ptx.ld(x, p, space="global", cache_policy=pol)
        ptx.ld((x, y), p, space="global", prefetch_size="L2::256B")
        ptx.ld(i, p, space="global", cache="cg", prefetch_size="L2::64B")
        ptx.ld(
            (x, y),
            p,
            sem="relaxed",
            scope="gpu",
            space="global",
            evict="L1::evict_first",
            cache_policy=pol,
            prefetch_size="L2::128B",
        )
        ptx.ld(q, p, space="global")
        ptx.st(p, (x, y), space="global", evict="L1::no_allocate")
        ptx.st(p, q, space="global", cache="wt", cache_policy=pol)
        ptx.st(p, i, sem="release", scope="gpu", space="global", evict="L1::evict_unchanged")

    assert body(k.ptx()) == [
        "ld.global.L1::evict_last.u32 %r0, [%rd0];",
        "ld.global.L2::cache_hint.f32 %f0, [%rd0], %rd1;",
        "ld.global.L2::256B.v2.f32 {%f0, %f1}, [%rd0];",
        "ld.global.cg.L2::64B.u32 %r0, [%rd0];",
        "ld.relaxed.gpu.global.L1::evict_first.L2::cache_hint.L2::128B.v2.f32 {%f0, %f1}, "
        "[%rd0], %rd1;",
        "ld.global.b128 %rq0, [%rd0];",
        "st.global.L1::no_allocate.v2.f32 [%rd0], {%f0, %f1};",
        "st.global.wt.L2::cache_hint.b128 [%rd0], %rq0, %rd1;",
        "st.release.gpu.global.L1::evict_unchanged.u32 [%rd0], %r0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_ld_nc_and_256_bit_vectors_on_sm_100a(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_100a")
    def k() -> None:
        p = reg.scalar(u64)
        pol = reg.scalar(b64)
        v = [reg.scalar(f32) for _ in range(8)]
        r = [reg.scalar(u64) for _ in range(4)]
        ptx.ld(v[0], p, space="global", nc=True)
        ptx.ld(tuple(v[:4]), p, space="global", nc=True, cache="cg", cache_policy=pol)
        ptx.ld(tuple(v[:4]), p, space="global", nc=True, evict="L1::no_allocate")
        ptx.ld((v[0], None, *v[2:]), p, space="global")
        ptx.ld(tuple(r), p, space="global", evict="L1::evict_last")
        ptx.st(p, tuple(v), space="global")

    assert body(k.ptx()) == [
        "ld.global.nc.f32 %f0, [%rd0];",
        "ld.global.cg.nc.L2::cache_hint.v4.f32 {%f0, %f1, %f2, %f3}, [%rd0], %rd1;",
        "ld.global.nc.L1::no_allocate.v4.f32 {%f0, %f1, %f2, %f3}, [%rd0];",
        "ld.global.v8.f32 {%f0, _, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd0];",
        "ld.global.L1::evict_last.v4.u64 {%rd2, %rd3, %rd4, %rd5}, [%rd0];",
        "st.global.v8.f32 [%rd0], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};",
        "ret;",
    ]
    assemble(k.ptx())


def test_l2_eviction_priorities_on_256_bit_accesses(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_100a")
    def k() -> None:
        p = reg.scalar(u64)
        v = [reg.scalar(f32) for _ in range(8)]
        r = [reg.scalar(u64) for _ in range(4)]
        ptx.ld((v[0], None, *v[2:]), p, space="global", evict="L2::evict_last")
        ptx.ld(tuple(r), p, space="global", evict=("L1::evict_last", "L2::evict_first"))
        ptx.st(p, tuple(v), space="global", evict="L2::evict_last")

    assert body(k.ptx()) == [
        "ld.global.L2::evict_last.v8.f32 {%f0, _, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd0];",
        "ld.global.L1::evict_last.L2::evict_first.v4.u64 {%rd1, %rd2, %rd3, %rd4}, [%rd0];",
        "st.global.L2::evict_last.v8.f32 [%rd0], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};",
        "ret;",
    ]
    assemble(k.ptx())


def test_mmio_loads_and_stores(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(u64)
        i = reg.scalar(u32)
        ptx.ld(i, p, sem="mmio", scope="sys", space="global")
        ptx.st(p, i, sem="mmio", scope="sys", space="global")

    assert body(k.ptx()) == [
        "ld.mmio.relaxed.sys.global.u32 %r0, [%rd0];",
        "st.mmio.relaxed.sys.global.u32 [%rd0], %r0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_shared_cta_qualifier_on_sm_80(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        buf = smem.alloc(f32, 32)
        x = reg.scalar(f32)
        ptx.ld(x, buf, space="shared::cta")

    assert body(k.ptx()) == ["ld.shared::cta.f32 %f0, [smem_0];", "ret;"]
    assemble(k.ptx())


def test_ldu_prefetch_prefetchu(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        p = reg.scalar(u64)
        x, y = reg.scalar(f32), reg.scalar(f32)
        h = reg.scalar(b16)
        ptx.ldu(x, p, space="global")
        ptx.ldu((x, y), p)
        ptx.ldu(h, ptx.addr(p, 2), space="global")
        ptx.prefetch(p, level="L2", space="global")
        ptx.prefetch(ptx.addr(p, 128), level="L1")
        ptx.prefetch(p, level="L2::evict_last", space="global")
        ptx.prefetch(p, level="L1", space="local")
        ptx.prefetch.tensormap(p)
        ptx.prefetch.tensormap(p, space="param")
        ptx.prefetchu(p)

    assert body(k.ptx()) == [
        "ldu.global.f32 %f0, [%rd0];",
        "ldu.v2.f32 {%f0, %f1}, [%rd0];",
        "ldu.global.b16 %rs0, [%rd0+2];",
        "prefetch.global.L2 [%rd0];",
        "prefetch.L1 [%rd0+128];",
        "prefetch.global.L2::evict_last [%rd0];",
        "prefetch.local.L1 [%rd0];",
        "prefetch.tensormap [%rd0];",
        "prefetch.param.tensormap [%rd0];",
        "prefetchu.L1 [%rd0];",
        "ret;",
    ]
    assemble(k.ptx())


# ---------------------------------------------------------------------------- errors


def test_error_ld_space_lists_choices() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(u64)
        where.append(here() + 1)
        ptx.ld(reg.scalar(u32), p, space="gobal")

    raises_at(k, where, r"ld expects space= one of 'global', 'shared'.*but got 'gobal'")


def test_error_ld_acquire_needs_scope() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(u64)
        where.append(here() + 1)
        ptx.ld(reg.scalar(u32), p, sem="acquire", space="global")

    raises_at(
        k,
        where,
        r"ld\.acquire\.global\.u32 needs a \.scope modifier "
        r"\(one of \.cta, \.cluster, \.gpu, \.sys\)",
    )


def test_error_cache_operator_not_with_relaxed() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(u64)
        where.append(here() + 1)
        ptx.ld(reg.scalar(u32), p, sem="relaxed", scope="gpu", cache="cg")

    raises_at(k, where, r"modifier '\.cg' is not valid for ld with \.relaxed, \.gpu")


def test_error_store_cache_operator_spelling() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(u64)
        where.append(here() + 1)
        ptx.st(p, reg.scalar(u32), space="global", cache="cg2")

    raises_at(k, where, r"st expects cache= one of 'wb', 'cg', 'cs', 'wt'")


def test_error_eviction_priority_spelling() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(u64)
        where.append(here() + 1)
        ptx.ld(reg.scalar(u32), p, space="global", evict="evict_last")

    raises_at(k, where, r"ld expects evict= one of 'L1::evict_normal'.*got 'evict_last'")


def test_error_nc_needs_global() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(u64)
        where.append(here() + 1)
        ptx.ld(reg.scalar(u32), p, space="shared", nc=True)

    raises_at(
        k, where, r"modifier '\.nc' is not valid for ld with \.shared \(ld\.shared\.nc\.u32\)"
    )


def test_error_nc_cache_operator_and_eviction_priority_conflict() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(u64)
        where.append(here() + 1)
        ptx.ld(reg.scalar(u32), p, space="global", nc=True, cache="cg", evict="L1::evict_last")

    raises_at(k, where, r"modifier '\.L1::evict_last' is not valid for ld with \.cg")


def test_error_vector_length() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(u64)
        x = reg.scalar(f32)
        where.append(here() + 1)
        ptx.ld((x, x, x), p, space="global")

    raises_at(k, where, r"ld\.global\.v3\.f32: unknown modifier '\.v3' for ld")


def test_error_address_must_be_address_like() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        where.append(here() + 1)
        ptx.ld(reg.scalar(u32), "x", space="global")

    raises_at(k, where, r"ld expects an address: ptx\.addr\(base, offset\).*the string 'x'")


def test_error_mov_pack_widths_must_fill() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        lo = reg.scalar(u32)
        where.append(here() + 1)
        ptx.mov(reg.scalar(u64), (lo, lo, lo, lo))

    raises_at(k, where, r"mov\.b64 packs 2 or 4 registers that fill its 64 bits")


def test_error_prefetch_eviction_needs_global() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(u64)
        where.append(here() + 1)
        ptx.prefetch(p, level="L2::evict_normal")

    raises_at(k, where, r"prefetch\.L2::evict_normal needs a \.space modifier \(one of \.global\)")


def test_family_exports() -> None:
    from pyptx.ptx import _memory

    for name in _memory.__all__:
        obj = getattr(ptx, name)
        assert obj is getattr(_memory, name)
        fns = [obj.__call__, obj.tensormap] if name == "prefetch" else [obj]
        for fn in fns:
            assert "https://docs.nvidia.com/cuda/parallel-thread-execution/#" in (fn.__doc__ or "")
    assert _memory.MULTI_INSTRUCTION == {}
