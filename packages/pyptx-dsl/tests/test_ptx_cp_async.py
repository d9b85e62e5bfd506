"""Typed wrappers of Ampere cp.async: ca/cg copies, groups, waits and the mbarrier hand-off."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from dsl_testing import TABLE, body, table_reason

from pyptx import PtxDslError, Tile, kernel, ptx, reg, smem
from pyptx.types import b64, f16, f32, pred, u32, u64


def _fails(make: Callable[[SimpleNamespace], object], match: str) -> None:
    """Trace a kernel whose body runs ``make`` and check the error points at ``make``'s line."""

    def build():  # type: ignore[no-untyped-def]
        @kernel(arch="sm_80", in_specs=(Tile(1024, f32),))
        def k(x) -> None:  # type: ignore[no-untyped-def]
            ns = SimpleNamespace(
                x=x,
                g=x.ptr(),
                s=smem.alloc(f32, (2, 64)),
                bars=smem.mbarrier(1),
                p=reg.scalar(pred),
                r=reg.scalar(u32),
                f=reg.scalar(f32),
                h=reg.scalar(u32),
            )
            make(ns)

        return k

    if match is TABLE:
        match = re.escape(table_reason(build()))
    with pytest.raises(PtxDslError, match=match) as info:
        build().ptx()
    msg = str(info.value)
    assert f"{Path(__file__).name}:{make.__code__.co_firstlineno}:" in msg
    assert "pyptx/dsl" not in msg and "pyptx/ptx" not in msg


def test_ca_and_cg_copies(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80", in_specs=(Tile(1024, f16),))
    def k(x) -> None:  # type: ignore[no-untyped-def]
        g = x.ptr()
        s = smem.alloc(f16, (2, 128))
        ptx.cp.async_.ca(s[0], g, 4)
        ptx.cp.async_.ca(s.addr(16), ptx.addr(g, 8), 8)
        ptx.cp.async_.ca(s[1], g, 16)
        ptx.cp.async_.cg(s[1].addr(32), ptx.addr(g, 32), 16)
        ptx.cp.async_.cg(s[0], g)

    assert body(k.ptx()) == [
        "ld.param.u64 %rd0, [k_param_0];",
        "cvta.to.global.u64 %rd1, %rd0;",
        "cp.async.ca.shared.global [smem_0], [%rd1], 4;",
        "cp.async.ca.shared.global [smem_0+16], [%rd1+8], 8;",
        "cp.async.ca.shared.global [smem_0+256], [%rd1], 16;",
        "cp.async.cg.shared.global [smem_0+288], [%rd1+32], 16;",
        "cp.async.cg.shared.global [smem_0], [%rd1], 16;",
        "ret;",
    ]
    assemble(k.ptx())


def test_src_size_ignore_src_hints_and_register_addresses(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80", version=(7, 8), in_specs=(Tile(1024, f32),))
    def k(x) -> None:  # type: ignore[no-untyped-def]
        g = x.ptr()
        s = smem.alloc(f32, 256)
        base = smem.base(s)
        n = reg.scalar(u32, 12)
        p = n < 8
        policy = reg.scalar(u64)
        ptx.cp.async_.ca(s, g, 16, src_size=n)
        ptx.cp.async_.ca(base, g, 8, src_size=4)
        ptx.cp.async_.cg(s, g, 16, ignore_src=p)
        ptx.cp.async_.ca(s, g, 4, ignore_src=~p, pred=p)
        ptx.cp.async_.cg(s, g, 16, cache_hint=policy)
        ptx.cp.async_.cg(s, g, 16, src_size=n, cache_hint=policy, prefetch="128B")
        ptx.cp.async_.ca(ptx.addr(base, 64), g, 16, prefetch="256B", space="shared::cta")
        ptx.cp.async_.cg(s, g, prefetch="64B", ignore_src=p, cache_hint=policy)

    assert body(k.ptx()) == [
        "ld.param.u64 %rd0, [k_param_0];",
        "cvta.to.global.u64 %rd1, %rd0;",
        "mov.u32 %r0, smem_0;",
        "mov.u32 %r1, 12;",
        "setp.lt.u32 %p0, %r1, 8;",
        "cp.async.ca.shared.global [smem_0], [%rd1], 16, %r1;",
        "cp.async.ca.shared.global [%r0], [%rd1], 8, 4;",
        "cp.async.cg.shared.global [smem_0], [%rd1], 16, %p0;",
        "@%p0 cp.async.ca.shared.global [smem_0], [%rd1], 4, !%p0;",
        "cp.async.cg.shared.global.L2::cache_hint [smem_0], [%rd1], 16, %rd2;",
        "cp.async.cg.shared.global.L2::cache_hint.L2::128B [smem_0], [%rd1], 16, %r1, %rd2;",
        "cp.async.ca.shared::cta.global.L2::256B [%r0+64], [%rd1], 16;",
        "cp.async.cg.shared.global.L2::cache_hint.L2::64B [smem_0], [%rd1], 16, %p0, %rd2;",
        "ret;",
    ]
    assemble(k.ptx())


def test_ignore_src_raises_the_inferred_ptx_version(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80", in_specs=(Tile(1024, f32),))
    def k(x) -> None:  # type: ignore[no-untyped-def]
        p = reg.scalar(pred)
        ptx.cp.async_.cg(smem.alloc(f32, 4), x.ptr(), ignore_src=p)

    assemble(k.ptx())


def test_groups_waits_and_mbarrier_arrive(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80", in_specs=(Tile(1024, f32),))
    def k(x) -> None:  # type: ignore[no-untyped-def]
        g = x.ptr()
        s = smem.alloc(f32, (4, 32))
        bars = smem.mbarrier(2)
        for stage in range(2):
            ptx.cp.async_.cg(s[stage], ptx.addr(g, 128 * stage))
            ptx.cp.async_.commit_group()
        ptx.cp.async_.wait_group(1)
        ptx.cp.async_.wait_group(0)
        ptx.cp.async_.wait_all()
        ptx.cp.async_.mbarrier.arrive(bars[0])
        ptx.cp.async_.mbarrier.arrive(bars[1], noinc=True)
        ptx.cp.async_.mbarrier.arrive(bars[1], noinc=True, space="shared::cta")
        ptx.cp.async_.mbarrier.arrive(bars[0], space=None)

    assert body(k.ptx()) == [
        "ld.param.u64 %rd0, [k_param_0];",
        "cvta.to.global.u64 %rd1, %rd0;",
        "cp.async.cg.shared.global [smem_0], [%rd1], 16;",
        "cp.async.commit_group;",
        "cp.async.cg.shared.global [smem_0+128], [%rd1+128], 16;",
        "cp.async.commit_group;",
        "cp.async.wait_group 1;",
        "cp.async.wait_group 0;",
        "cp.async.wait_all;",
        "cp.async.mbarrier.arrive.shared.b64 [mbar_0];",
        "cp.async.mbarrier.arrive.noinc.shared.b64 [mbar_0+8];",
        "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [mbar_0+8];",
        "cp.async.mbarrier.arrive.b64 [mbar_0];",
        "ret;",
    ]
    assemble(k.ptx())


def test_generic_mbarrier_address_register(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        bar_addr = reg.scalar(b64)
        ptx.cp.async_.mbarrier.arrive(bar_addr, space=None)

    assert body(k.ptx()) == ["cp.async.mbarrier.arrive.b64 [%rd0];", "ret;"]
    assemble(k.ptx())


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda s: ptx.cp.async_.ca(s.s, s.g, 12), TABLE),
        (lambda s: ptx.cp.async_.cg(s.s, s.g, 8), TABLE),
        (lambda s: ptx.cp.async_.ca(s.s, s.g, True), "size must be a Python int or an integer"),
        (lambda s: ptx.cp.async_.ca(s.s, s.g, 8, src_size=9), r"src_size must be in \[0, 8\]"),
        (lambda s: ptx.cp.async_.ca(s.s, s.g, 8, src_size=s.f), "src_size must be a Python int"),
        (
            lambda s: ptx.cp.async_.cg(s.s, s.g, src_size=4, ignore_src=s.p),
            r"cp\.async\.cg\.shared\.global expects 3 to 4 operands .*, but got 5",
        ),
        (lambda s: ptx.cp.async_.cg(s.s, s.g, ignore_src=s.r), "ignore_src must be a predicate"),
        (lambda s: ptx.cp.async_.cg(s.s, s.g, cache_hint=s.r), TABLE),
        (lambda s: ptx.cp.async_.cg(s.s, s.g, prefetch="512B"), "prefetch must be one of '64B'"),
        (lambda s: ptx.cp.async_.cg(s.s, s.g, space="global"), "space must be one of 'shared'"),
        (lambda s: ptx.cp.async_.cg(s.s, s.h), "source must be a 64-bit address register"),
        (lambda s: ptx.cp.async_.cg(s.s, s.x), r"pass \.ptr\(\) instead"),
        (lambda s: ptx.cp.async_.cg(s.s, s.s), "source must be a 64-bit address register"),
        (lambda s: ptx.cp.async_.cg(s.f, s.g), "destination must be a 32- or 64-bit address"),
        (lambda s: ptx.cp.async_.wait_group(s.r), "count must be a Python int, but got %r"),
        (lambda s: ptx.cp.async_.wait_group(64), TABLE),
        (lambda s: ptx.cp.async_.mbarrier.arrive(s.bars[0], space="shared::cluster"), "space"),
        (lambda s: ptx.cp.async_.mbarrier.arrive(s.bars[0], noinc=1), "noinc= takes True"),
    ],
)
def test_cp_async_errors_point_at_the_call(make, match) -> None:  # type: ignore[no-untyped-def]
    _fails(make, match)
