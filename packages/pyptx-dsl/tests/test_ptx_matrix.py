"""Typed wrappers of ldmatrix, stmatrix and movmatrix: shapes, .num inference and checks,
.trans rules, 6/4-bit source formats (sm_100a/sm_120a) and address forms."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from dsl_testing import body

from pyptx import PtxDslError, kernel, ptx, reg, smem
from pyptx.types import b8, b16, b32, f16, u32, u64


def test_ldmatrix_m8n8_forms_on_sm80(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        tile = smem.alloc(f16, (2, 64, 64))
        r4 = reg.array(b32, 4)
        ptx.ldmatrix(r4[:1], tile)
        ptx.ldmatrix(r4[:2], tile[1], trans=True)
        ptx.ldmatrix(r4, ptx.addr(tile, 32), num="x4")
        base = smem.base(tile)
        got = ptx.ldmatrix(r4, base, num=4, trans=True)
        assert tuple(got) == tuple(r4)
        p = base == 0
        ptx.ldmatrix(r4[2:], base, pred=p)

    assert body(k.ptx()) == [
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r0}, [smem_0];",
        "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r0, %r1}, [smem_0+8192];",
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r0, %r1, %r2, %r3}, [smem_0+32];",
        "mov.u32 %r4, smem_0;",
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r0, %r1, %r2, %r3}, [%r4];",
        "setp.eq.u32 %p0, %r4, 0;",
        "@%p0 ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r2, %r3}, [%r4];",
        "ret;",
    ]
    assemble(k.ptx())


def test_ldmatrix_shared_cta_space(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        tile = smem.alloc(f16, 1024)
        ptx.ldmatrix(reg.array(b32, 4), tile, space="shared::cta", trans=True)

    assert body(k.ptx())[0] == (
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16 {%r0, %r1, %r2, %r3}, [smem_0];"
    )
    assert k.ptx().startswith(".version 7.8\n")  # .shared::cta needs PTX 7.8 (sm_80 starts at 7.0)
    assemble(k.ptx())


def test_ldmatrix_generic_address(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        a = reg.scalar(u64)
        ptx.ldmatrix(reg.array(b32, 2), a, space=None)

    assert body(k.ptx())[0] == "ldmatrix.sync.aligned.m8n8.x2.b16 {%r0, %r1}, [%rd0];"
    assemble(k.ptx())


@pytest.mark.parametrize("arch", ["sm_100a", "sm_120a"])
def test_ldmatrix_8bit_and_packed_shapes(assemble, arch) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch=arch)
    def k() -> None:
        tile = smem.alloc(b8, 4096)
        r = reg.array(b32, 4)
        ptx.ldmatrix(r[:2], tile, shape="m16n16", ty=b8, trans=True)
        ptx.ldmatrix(r, tile, shape="m16n16", ty=b8, trans=True, num=2)
        ptx.ldmatrix(r[:2], tile, shape="m16n16", ty="b8x16", src_fmt="b6x16_p32", trans=True)
        ptx.ldmatrix(r, tile, shape="m16n16", ty="b8x16", src_fmt="b4x16_p64", trans=True)
        ptx.ldmatrix(r[:1], tile, shape="m8n16", ty="b8x16", src_fmt="b6x16_p32")
        ptx.ldmatrix(r, tile, shape="m8n16", ty="b8x16", src_fmt="b4x16_p64", num="x4")

    assert body(k.ptx()) == [
        "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r0, %r1}, [smem_0];",
        "ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8 {%r0, %r1, %r2, %r3}, [smem_0];",
        "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8x16.b6x16_p32 {%r0, %r1}, [smem_0];",
        "ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8x16.b4x16_p64 {%r0, %r1, %r2, %r3}, "
        "[smem_0];",
        "ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b6x16_p32 {%r0}, [smem_0];",
        "ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64 {%r0, %r1, %r2, %r3}, [smem_0];",
        "ret;",
    ]
    assemble(k.ptx())


def test_stmatrix_forms(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        tile = smem.alloc(f16, (2, 64, 64))
        r = reg.array(b32, 4)
        ptx.stmatrix(tile, r[:1])
        ptx.stmatrix(tile[1], r[:2], trans=True)
        ptx.stmatrix(ptx.addr(tile, 64), r, space="shared::cta")
        a = reg.scalar(u64)
        ptx.stmatrix(a, r, num="x4", space=None)

    assert body(k.ptx()) == [
        "stmatrix.sync.aligned.m8n8.x1.shared.b16 [smem_0], {%r0};",
        "stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [smem_0+8192], {%r0, %r1};",
        "stmatrix.sync.aligned.m8n8.x4.shared::cta.b16 [smem_0+64], {%r0, %r1, %r2, %r3};",
        "stmatrix.sync.aligned.m8n8.x4.b16 [%rd0], {%r0, %r1, %r2, %r3};",
        "ret;",
    ]
    assemble(k.ptx())


@pytest.mark.parametrize("arch", ["sm_100a", "sm_120a"])
def test_stmatrix_m16n8_b8(assemble, arch) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch=arch)
    def k() -> None:
        tile = smem.alloc(b8, 4096)
        r = reg.array(b32, 4)
        ptx.stmatrix(tile, r[:1], shape="m16n8", ty=b8, trans=True)
        ptx.stmatrix(tile, r, shape="m16n8", ty=b8, trans=True)

    assert body(k.ptx())[:2] == [
        "stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 [smem_0], {%r0};",
        "stmatrix.sync.aligned.m16n8.x4.trans.shared.b8 [smem_0], {%r0, %r1, %r2, %r3};",
    ]
    assemble(k.ptx())


def test_movmatrix(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        a = reg.scalar(b32)
        t = ptx.movmatrix(None, a)
        d = reg.scalar(u32)
        assert ptx.movmatrix(d, t) is d

    assert body(k.ptx()) == [
        "movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r0;",
        "movmatrix.sync.aligned.m8n8.trans.b16 %r2, %r1;",
        "ret;",
    ]
    assemble(k.ptx())


def _fails(make: Callable[[SimpleNamespace], object], match: str) -> None:
    @kernel(arch="sm_100a")
    def k() -> None:
        ns = SimpleNamespace(
            tile=smem.alloc(f16, 1024),
            r1=reg.array(b32, 1),
            r2=reg.array(b32, 2),
            r3=reg.array(b32, 3),
            r4=reg.array(b32, 4),
            h=reg.scalar(b16),
        )
        make(ns)

    with pytest.raises(PtxDslError, match=match) as info:
        k.ptx()
    msg = str(info.value)
    assert f"{Path(__file__).name}:{make.__code__.co_firstlineno}:" in msg
    assert "pyptx/dsl" not in msg and "pyptx/ptx" not in msg


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (
            lambda s: ptx.ldmatrix(s.r2, s.tile, num=4),
            r"operand 0 \(d\) expects a vector of 4 elements, but got 2",
        ),
        (
            lambda s: ptx.ldmatrix(s.r3, s.tile),
            r"unknown modifier '\.x3' for ldmatrix; expected one of \.sync, \.aligned,",
        ),
        (
            lambda s: ptx.ldmatrix(s.r4, s.tile, num=8),
            r"unknown modifier '\.x8' for ldmatrix; expected one of \.sync, \.aligned,",
        ),
        (
            lambda s: ptx.ldmatrix(s.r4, s.tile, num="y4"),
            r"unknown modifier '\.xy4' for ldmatrix; did you mean '\.x4'\? expected one",
        ),
        (
            lambda s: ptx.ldmatrix(s.r4, s.tile, ty=b8),
            r"modifier '\.b8' is not valid for ldmatrix with \.m8n8, \.x4",
        ),
        (
            lambda s: ptx.ldmatrix(s.r4, s.tile, shape="m16n8"),
            r"unknown modifier '\.m16n8' for ldmatrix; did you mean '\.m16n16'\?",
        ),
        (
            lambda s: ptx.ldmatrix(s.r2, s.tile, shape="m16n16", ty=b8),
            r"needs a \.trans modifier \(one of \.trans\), but got none; e\.g\.",
        ),
        (
            lambda s: ptx.ldmatrix(s.r4, s.tile, shape="m16n16", ty=b8, trans=True, num=4),
            r"modifier '\.x4' is not valid for ldmatrix with \.m16n16, \.b8",
        ),
        (
            lambda s: ptx.ldmatrix(s.r1, s.tile, shape="m16n16", ty=b8, trans=True, num=1),
            r"operand 0 \(d\) expects a vector of 2 elements, but got 1",
        ),
        (
            lambda s: ptx.ldmatrix(
                s.r1, s.tile, shape="m8n16", ty="b8x16", src_fmt="b4x16_p64", trans=True
            ),
            r"modifier '\.trans' is not valid for ldmatrix with \.m8n16",
        ),
        (
            lambda s: ptx.ldmatrix([s.h], s.tile),
            r"operand 0 \(d\) expects a 32\-bit register for \.b32, but %rs0 is declared",
        ),
        (lambda s: ptx.ldmatrix(s.r1, "smem"), "takes a shared address"),
        (
            lambda s: ptx.ldmatrix(s.r1, s.tile, space="global"),
            r"unknown modifier '\.global' for ldmatrix; expected one of \.sync,",
        ),
        (
            lambda s: ptx.stmatrix(s.tile, s.r2, num="x4"),
            r"operand 1 \(r\) expects a vector of 4 elements \(\.x4\), but got 2",
        ),
        (
            lambda s: ptx.stmatrix(s.tile, s.r4, shape="m16n8", ty=b8),
            r"needs a \.trans modifier \(one of \.trans\), but got none; e\.g\.",
        ),
        (
            lambda s: ptx.stmatrix(s.tile, s.r4, shape="m16n8"),
            r"modifier '\.m16n8' is not valid for stmatrix with \.b16",
        ),
        (
            lambda s: ptx.movmatrix(None, s.h),
            r"operand 1 \(a\) expects a 32\-bit register for \.b32, but %rs0 is declared",
        ),
        (
            lambda s: ptx.movmatrix(None, s.r1[0], shape="m16n16"),
            r"unknown modifier '\.m16n16' for movmatrix; expected one of \.sync,",
        ),
        (
            lambda s: ptx.movmatrix(None, s.r1[0], ty=b8),
            r"unknown modifier '\.b8' for movmatrix; expected one of \.sync, \.aligned,",
        ),
    ],
)
def test_matrix_errors_point_at_the_call(make, match) -> None:  # type: ignore[no-untyped-def]
    _fails(make, match)


def test_docstrings_link_the_isa_and_show_the_ptx() -> None:
    for fn in (ptx.ldmatrix, ptx.stmatrix, ptx.movmatrix):
        doc = fn.__doc__ or ""
        anchor = f"#warp-level-matrix-instructions-{fn.__name__}"
        assert f"https://docs.nvidia.com/cuda/parallel-thread-execution/{anchor}" in doc
        assert f"{fn.__name__}.sync.aligned." in doc
