"""Typed wrappers of the bulk (TMA) copies: cp.async.bulk, .tensor (load/store, 1-5d, tile and
im2col modes, multicast, cta_group), cp.reduce.async.bulk.tensor, prefetches and bulk groups."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from dsl_testing import TABLE, body, table_reason

from pyptx import Layout, PtxDslError, Tile, kernel, ptx, reg, smem
from pyptx.types import b32, b64, bf16, f32, s32, s64, u16, u32, u64

TMA = Tile(256, 256, bf16, layout=Layout.TMA_128B)
PLAIN = Tile(4096, f32)


def _fails(make: Callable[[SimpleNamespace], object], match: str) -> None:
    """Trace a kernel whose body runs ``make`` and check the error points at ``make``'s line."""

    def build():  # type: ignore[no-untyped-def]
        @kernel(arch="sm_90a", in_specs=(TMA, PLAIN))
        def k(a, x) -> None:  # type: ignore[no-untyped-def]
            ns = SimpleNamespace(
                a=a,
                desc=a.tma_desc(),
                g=x.ptr(),
                s=smem.alloc(bf16, (2, 64, 64)),
                bars=smem.mbarrier(2),
                r=reg.scalar(u32),
                h=reg.scalar(u16),
                d=reg.scalar(b64),
                f=reg.scalar(f32),
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


_PROLOGUE = ["mov.u64 %rd0, k_param_0;", "cvta.param.u64 %rd1, %rd0;"]


def _lines_from(text: str, prefix: str) -> list[str]:
    """The body lines from the first one starting with ``prefix`` on (skipping the setup)."""
    lines = body(text)
    first = next(i for i, ln in enumerate(lines) if ln.startswith(prefix))
    return lines[first:]


def _copies(text: str) -> list[str]:
    """The body lines from the first ``cp.`` instruction on."""
    return _lines_from(text, "cp.")


def test_tensor_loads_1d_to_5d_on_hopper(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a", in_specs=(TMA,))
    def k(a) -> None:  # type: ignore[no-untyped-def]
        desc = a.tma_desc()
        sA = smem.alloc(bf16, (2, 64, 64))
        bars = smem.mbarrier(2)
        x = reg.scalar(s32, 64)
        mask = reg.scalar(u16, 3)
        policy = reg.scalar(u64)
        tensor = ptx.cp.async_.bulk.tensor
        tensor(sA[0], desc, (0,), bars[0])
        tensor(sA[1], desc, (x, 0), bars[1], mode="tile")
        tensor(sA[0], desc, (0, x, 1), bars[0], multicast=mask)
        tensor(sA[0], desc, (0, 0, 0, x), bars[0], cache_hint=policy)
        tensor(
            sA[1], desc, (0, 1, 2, 3, x), bars[1], mode="tile", multicast=0b1010, cache_hint=policy
        )

    assert body(k.ptx())[:2] == _PROLOGUE
    assert _copies(k.ptx()) == [
        "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [smem_0], [%rd1, {0}], [mbar_0];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [smem_0+8192], [%rd1, {%r0, 0}], [mbar_0+8];",
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".multicast::cluster [smem_0], [%rd1, {0, %r0, 1}], [mbar_0], %rs0;",
        "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".L2::cache_hint [smem_0], [%rd1, {0, 0, 0, %r0}], [mbar_0], %rd2;",
        "cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        ".multicast::cluster.L2::cache_hint [smem_0+8192], [%rd1, {0, 1, 2, 3, %r0}],"
        " [mbar_0+8], 10, %rd2;",
        "ret;",
    ]
    assemble(k.ptx())


def test_im2col_loads_stores_reductions_and_prefetch(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a", in_specs=(TMA,))
    def k(a) -> None:  # type: ignore[no-untyped-def]
        desc = a.tma_desc()
        sA = smem.alloc(bf16, (2, 64, 64))
        bars = smem.mbarrier(1)
        off = reg.scalar(u16, 1)
        policy = reg.scalar(u64)
        bulk = ptx.cp.async_.bulk
        bulk.tensor(sA[0], desc, (0, 0, 0), bars[0], mode="im2col", im2col=(off,))
        bulk.tensor(
            sA[0], desc, (0, 0, 0, 0, 0), bars[0], mode="im2col", im2col=(0, 1, off), multicast=1
        )
        bulk.tensor.store(desc, (0, 64), sA[1])
        bulk.tensor.store(desc, (0, 0, 0), sA[0], mode="im2col_no_offs", cache_hint=policy)
        bulk.tensor.store(desc, (0, 0), sA[0], mode="tile")
        for op in ("add", "min", "max", "inc", "dec", "and", "or", "xor"):
            ptx.cp.reduce.async_.bulk.tensor(desc, (0, 0), sA[0], op=op)
        ptx.cp.reduce.async_.bulk.tensor(
            desc, (0, 0, 0), sA[1], op="add", mode="im2col_no_offs", cache_hint=policy
        )
        bulk.prefetch.tensor(desc, (0, 64))
        bulk.prefetch.tensor(desc, (0, 0, 0), mode="im2col", im2col=(2,), cache_hint=policy)
        bulk.commit_group()
        bulk.wait_group(1)
        bulk.wait_group(read=True)

    reduce = "cp.reduce.async.bulk.tensor.2d.global.shared::cta.{}.bulk_group [%rd1, {{0, 0}}],"
    assert _copies(k.ptx()) == [
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
        " [smem_0], [%rd1, {0, 0, 0}], [mbar_0], {%rs0};",
        "cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
        ".multicast::cluster [smem_0], [%rd1, {0, 0, 0, 0, 0}], [mbar_0], {0, 1, %rs0}, 1;",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1, {0, 64}], [smem_0+8192];",
        "cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group.L2::cache_hint"
        " [%rd1, {0, 0, 0}], [smem_0], %rd2;",
        "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd1, {0, 0}], [smem_0];",
        *(
            reduce.format(op) + " [smem_0];"
            for op in ("add", "min", "max", "inc", "dec", "and", "or", "xor")
        ),
        "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.im2col_no_offs.bulk_group"
        ".L2::cache_hint [%rd1, {0, 0, 0}], [smem_0+8192], %rd2;",
        "cp.async.bulk.prefetch.tensor.2d.L2.global [%rd1, {0, 64}];",
        "cp.async.bulk.prefetch.tensor.3d.L2.global.im2col.L2::cache_hint [%rd1, {0, 0, 0}],"
        " {2}, %rd2;",
        "cp.async.bulk.commit_group;",
        "cp.async.bulk.wait_group 1;",
        "cp.async.bulk.wait_group.read 0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_non_tensor_bulk_copies(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a", in_specs=(PLAIN,))
    def k(x) -> None:  # type: ignore[no-untyped-def]
        g = x.ptr()
        s = smem.alloc(f32, (2, 256))
        bars = smem.mbarrier(1)
        remote = reg.scalar(u32)
        remote_bar = reg.scalar(u32)
        n = reg.scalar(u32, 512)
        policy = reg.scalar(u64)
        bulk = ptx.cp.async_.bulk
        bulk(s[0], g, 1024, mbar=bars[0])
        bulk(s[1], ptx.addr(g, 1024), n, mbar=bars[0], multicast=3, cache_hint=policy)
        bulk(remote, s[0], 1024, mbar=remote_bar, src_space="shared::cta")
        bulk(g, s[1], 1024, dst_space="global", src_space="shared::cta")
        bulk(
            ptx.addr(g, 4096), s, n, dst_space="global", src_space="shared::cta", cache_hint=policy
        )
        bulk.prefetch(g, 4096)
        bulk.prefetch(ptx.addr(g, 4096), n, cache_hint=policy)

    assert _copies(k.ptx()) == [
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [smem_0], [%rd1], 1024, [mbar_0];",
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
        ".L2::cache_hint [smem_0+1024], [%rd1+1024], %r2, [mbar_0], 3, %rd2;",
        "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"
        " [%r0], [smem_0], 1024, [%r1];",
        "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [smem_0+1024], 1024;",
        "cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint"
        " [%rd1+4096], [smem_0], %r2, %rd2;",
        "cp.async.bulk.prefetch.L2.global [%rd1], 4096;",
        "cp.async.bulk.prefetch.L2.global.L2::cache_hint [%rd1+4096], %r2, %rd2;",
        "ret;",
    ]
    assemble(k.ptx())


def test_blackwell_forms(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_100a", in_specs=(TMA, PLAIN))
    def k(a, x) -> None:  # type: ignore[no-untyped-def]
        desc = a.tma_desc()
        g = x.ptr()
        sA = smem.alloc(bf16, (2, 64, 64))
        bars = smem.mbarrier(2)
        r = reg.scalar(s32, 8)
        bulk = ptx.cp.async_.bulk
        bulk.tensor(sA[0], desc, (0, r), bars[0], dst_space="shared::cta")
        bulk.tensor(sA[0], desc, (0, r), bars[0], dst_space="shared::cta", cta_group=1)
        bulk.tensor(sA[1], desc, (0, r), bars[1], mode="tile", cta_group=2)
        bulk.tensor(sA[1], desc, (0, r), bars[1], multicast=0b11, cta_group=2)
        bulk.tensor(sA[0], desc, (r, 0, 1, 2, 3), bars[0], mode="tile::gather4")
        bulk.tensor.store(desc, (r, 0, 1, 2, 3), sA[0], mode="tile::scatter4")
        bulk.prefetch.tensor(desc, (r, 0, 1, 2, 3), mode="tile::gather4")
        bulk(sA[1], g, 256, mbar=bars[1], dst_space="shared::cta")
        bulk(g, sA[1], 256, dst_space="global", src_space="shared::cta", byte_mask=0x00FF)

    assert _copies(k.ptx()) == [
        "cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes"
        " [smem_0], [%rd1, {0, %r0}], [mbar_0];",
        "cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes.cta_group::1"
        " [smem_0], [%rd1, {0, %r0}], [mbar_0];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        ".cta_group::2 [smem_0+8192], [%rd1, {0, %r0}], [mbar_0+8];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".multicast::cluster.cta_group::2 [smem_0+8192], [%rd1, {0, %r0}], [mbar_0+8], 3;",
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4"
        ".mbarrier::complete_tx::bytes [smem_0], [%rd1, {%r0, 0, 1, 2, 3}], [mbar_0];",
        "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group"
        " [%rd1, {%r0, 0, 1, 2, 3}], [smem_0];",
        "cp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4 [%rd1, {%r0, 0, 1, 2, 3}];",
        "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes"
        " [smem_0+8192], [%rd3], 256, [mbar_0+8];",
        "cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%rd3], [smem_0+8192], 256, 255;",
        "ret;",
    ]
    assemble(k.ptx())


def test_im2col_w_modes(assemble) -> None:  # type: ignore[no-untyped-def]
    # im2colInfo of the im2col::w modes is the vector {wHalo, wOffset}: ptxas rejects two
    # scalars ("Vector expected for argument 4").
    @kernel(arch="sm_100a", in_specs=(TMA,))
    def k(a) -> None:  # type: ignore[no-untyped-def]
        desc = a.tma_desc()
        sA = smem.alloc(bf16, (2, 64, 64))
        bars = smem.mbarrier(1)
        halo = reg.scalar(u16, 1)
        bulk = ptx.cp.async_.bulk
        bulk.tensor(
            sA[0],
            desc,
            (0, 0, 0),
            bars[0],
            mode="im2col::w",
            im2col=(halo, 0),
            dst_space="shared::cta",
        )
        bulk.tensor(
            sA[0], desc, (0, 0, 0, 0), bars[0], mode="im2col::w::128", im2col=(1, 2), cta_group=2
        )
        bulk.prefetch.tensor(desc, (0, 0, 0, 0), mode="im2col::w", im2col=(halo, 3))

    assert _copies(k.ptx()) == [
        "cp.async.bulk.tensor.3d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes"
        " [smem_0], [%rd1, {0, 0, 0}], [mbar_0], {%rs0, 0};",
        "cp.async.bulk.tensor.4d.shared::cluster.global.im2col::w::128"
        ".mbarrier::complete_tx::bytes.cta_group::2 [smem_0], [%rd1, {0, 0, 0, 0}], [mbar_0],"
        " {1, 2};",
        "cp.async.bulk.prefetch.tensor.4d.L2.global.im2col::w [%rd1, {0, 0, 0, 0}], {%rs0, 3};",
        "ret;",
    ]
    assemble(k.ptx())


def test_non_tensor_bulk_reductions(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a", in_specs=(PLAIN,))
    def k(x) -> None:  # type: ignore[no-untyped-def]
        g = x.ptr()
        s = smem.alloc(f32, 256)
        bars = smem.mbarrier(1)
        remote = reg.scalar(u32)
        policy = reg.scalar(u64)
        red = ptx.cp.reduce.async_.bulk
        red(g, s, 1024, op="add", ty=f32)
        red(g, s, 1024, op="add", ty=bf16, cache_hint=policy)
        red(ptx.addr(g, 64), s, 512, op="max", ty=s64)
        red(g, s, 256, op="xor", ty=b64)
        red(remote, s, 256, op="inc", ty=u32, mbar=bars[0], dst_space="shared::cluster")
        red(remote, s, 256, op="and", ty=b32, mbar=bars[0], dst_space="shared::cluster")

    assert _copies(k.ptx()) == [
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd1], [smem_0], 1024;",
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.add.noftz.bf16"
        " [%rd1], [smem_0], 1024, %rd2;",
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.max.s64 [%rd1+64], [smem_0], 512;",
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.b64 [%rd1], [smem_0], 256;",
        "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.inc.u32"
        " [%r0], [smem_0], 256, [mbar_0];",
        "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.and.b32"
        " [%r0], [smem_0], 256, [mbar_0];",
        "ret;",
    ]
    assemble(k.ptx())


def test_tensormap_replace_and_cp_fenceproxy(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a", in_specs=(TMA, PLAIN))
    def k(a, x) -> None:  # type: ignore[no-untyped-def]
        g = x.ptr()
        tmap = smem.alloc(b64, 16, align=128)
        dim = reg.scalar(u32, 64)
        stride = reg.scalar(u64)
        tm = ptx.tensormap
        tm.replace.global_address(tmap, g, space="shared::cta")
        tm.replace.rank(tmap, 1, space="shared::cta")
        tm.replace.box_dim(tmap, 0, 64, space="shared::cta")
        tm.replace.global_dim(tmap, 1, dim, space="shared::cta")
        tm.replace.global_stride(tmap, 0, stride, space="shared::cta")
        tm.replace.element_stride(g, 0, 1)
        tm.replace.elemtype(g, 9)
        tm.replace.interleave_layout(g, 0)
        tm.replace.swizzle_mode(g, 3)
        tm.replace.fill_mode(g, 1)
        tm.cp_fenceproxy(g, tmap)
        tm.cp_fenceproxy(ptx.addr(g, 128), tmap, 128, scope="cta")
        ptx.fence.proxy.tensormap_generic.acquire("gpu", g)

    replace = "tensormap.replace.tile"
    assert _lines_from(k.ptx(), "tensormap.") == [
        f"{replace}.global_address.shared::cta.b1024.b64 [smem_0], %rd1;",
        f"{replace}.rank.shared::cta.b1024.b32 [smem_0], 1;",
        f"{replace}.box_dim.shared::cta.b1024.b32 [smem_0], 0, 64;",
        f"{replace}.global_dim.shared::cta.b1024.b32 [smem_0], 1, %r0;",
        f"{replace}.global_stride.shared::cta.b1024.b64 [smem_0], 0, %rd2;",
        f"{replace}.element_stride.global.b1024.b32 [%rd1], 0, 1;",
        f"{replace}.elemtype.global.b1024.b32 [%rd1], 9;",
        f"{replace}.interleave_layout.global.b1024.b32 [%rd1], 0;",
        f"{replace}.swizzle_mode.global.b1024.b32 [%rd1], 3;",
        f"{replace}.fill_mode.global.b1024.b32 [%rd1], 1;",
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned"
        " [%rd1], [smem_0], 128;",
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cta.sync.aligned"
        " [%rd1+128], [smem_0], 128;",
        "fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;",
        "ret;",
    ]
    assemble(k.ptx())


@pytest.mark.parametrize("arch", ["sm_100a", "sm_120a"])
def test_swizzle_atomicity_on_blackwell(assemble, arch) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch=arch)
    def k() -> None:
        tmap = reg.scalar(u64)
        ptx.tensormap.replace.swizzle_atomicity(tmap, 1)

    assert body(k.ptx()) == [
        "tensormap.replace.tile.swizzle_atomicity.global.b1024.b32 [%rd0], 1;",
        "ret;",
    ]
    assemble(k.ptx())


def test_known_tensor_nd_keyword_spelling(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_100a", in_specs=(TMA,))
    def k(a) -> None:  # type: ignore[no-untyped-def]
        sA = smem.alloc(bf16, (2, 64, 64))
        bar = smem.mbarrier(1)
        ptx.cp.async_.bulk.tensor_2d(dst=sA[0], src=a.tma_desc(), coord=(0, 64), mbar=bar[0])
        ptx.cp.async_.bulk.tensor_3d(
            dst=sA[1], src=a.tma_desc(), coord=(0, 0, 1), mbar=bar[0], multicast_mask=5, cta_group=2
        )
        ptx.cp.async_.bulk.tensor_2d.store(dst=a.tma_desc(), src=sA[1], coord=(0, 64))
        ptx.cp.async_.bulk.tensor_1d(dst=sA[0], src=a.tma_desc(), coord=(7,), mbar=bar[0])

    assert _copies(k.ptx()) == [
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [smem_0], [%rd1, {0, 64}], [mbar_0];",
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".multicast::cluster.cta_group::2 [smem_0+8192], [%rd1, {0, 0, 1}], [mbar_0], 5;",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1, {0, 64}], [smem_0+8192];",
        "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [smem_0], [%rd1, {7}], [mbar_0];",
        "ret;",
    ]
    assemble(k.ptx())


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (
            lambda s: ptx.cp.async_.bulk.tensor(s.s[0], s.a, (0, 0), s.bars[0]),
            r"tensor argument k_param_0; pass its \.tma_desc\(\) instead",
        ),
        (lambda s: ptx.cp.async_.bulk.tensor(s.s, s.r, (0, 0), s.bars[0]), "64-bit register"),
        (
            lambda s: ptx.cp.async_.bulk.tensor(s.s, s.desc, (), s.bars[0]),
            r"unknown modifier '\.0d' for cp\.async\.bulk\.tensor",
        ),
        (
            lambda s: ptx.cp.async_.bulk.tensor(s.s, s.desc, [0] * 6, s.bars[0]),
            r"unknown modifier '\.6d' for cp\.async\.bulk\.tensor",
        ),
        (lambda s: ptx.cp.async_.bulk.tensor(s.s, s.desc, (0, s.f), s.bars[0]), "coordinate 1"),
        (lambda s: ptx.cp.async_.bulk.tensor(s.s, s.desc, (0, 0), s.f), "mbarrier must be a 32-"),
        (
            lambda s: ptx.cp.async_.bulk.tensor(s.s, s.desc, (0, 0), s.bars[0], mode="im2col"),
            r"modifier '\.im2col' is not valid for cp\.async\.bulk\.tensor with \.2d",
        ),
        (
            lambda s: ptx.cp.async_.bulk.tensor(s.s, s.desc, (0, 0, 0), s.bars[0], mode="im2col"),
            r"expects 4 operands \(dstMem, tensorMap, mbar, im2colOffsets\), but got 3",
        ),
        (
            lambda s: ptx.cp.async_.bulk.tensor(
                s.s, s.desc, (0,) * 4, s.bars[0], mode="im2col", im2col=(1,)
            ),
            r"operand 3 \(im2colOffsets\) expects a vector of 2 elements, but got 1",
        ),
        (
            lambda s: ptx.cp.async_.bulk.tensor(s.s, s.desc, (0,) * 3, s.bars[0], im2col=(1,)),
            r"expects 3 operands \(dstMem, tensorMap, mbar\), but got 4",
        ),
        (
            lambda s: ptx.cp.async_.bulk.tensor(
                s.s, s.desc, (0,) * 3, s.bars[0], mode="im2col", im2col=(s.r,)
            ),
            TABLE,
        ),
        (
            lambda s: ptx.cp.async_.bulk.tensor(
                s.s, s.desc, (0,) * 3, s.bars[0], mode="im2col", im2col=(1 << 16,)
            ),
            TABLE,
        ),
        (
            lambda s: ptx.cp.async_.bulk.tensor(
                s.s, s.desc, (0,) * 3, s.bars[0], mode="im2col", im2col=(s.f,)
            ),
            r"im2col\[0\] must be a Python int or an integer register, but got %f0",
        ),
        (
            lambda s: ptx.cp.async_.bulk.tensor(s.s, s.desc, (0, 0), s.bars[0], mode="gather4"),
            "mode must be one of 'tile', 'tile::gather4'",
        ),
        (
            lambda s: ptx.cp.async_.bulk.tensor(s.s, s.desc, (0, 0), s.bars[0], multicast=s.r),
            TABLE,
        ),
        (
            lambda s: ptx.cp.async_.bulk.tensor(s.s, s.desc, (0, 0), s.bars[0], multicast=1 << 16),
            TABLE,
        ),
        (
            lambda s: ptx.cp.async_.bulk.tensor(
                s.s, s.desc, (0, 0), s.bars[0], multicast=1, dst_space="shared::cta"
            ),
            r"'\.multicast::cluster' is not valid for cp\.async\.bulk\.tensor with \.shared::cta",
        ),
        (
            lambda s: ptx.cp.async_.bulk.tensor(s.s, s.desc, (0, 0), s.bars[0], cta_group=3),
            "cta_group must be one of 1, 2",
        ),
        (
            lambda s: ptx.cp.async_.bulk.tensor(s.s, s.desc, (0, 0), s.bars[0], cache_hint=s.r),
            TABLE,
        ),
        (
            lambda s: ptx.cp.async_.bulk.tensor.store(s.desc, (0, 0), s.s, mode="im2col"),
            "mode must be one of 'tile', 'tile::scatter4', 'im2col_no_offs'",
        ),
        (
            lambda s: ptx.cp.reduce.async_.bulk.tensor(s.desc, (0, 0), s.s, op="mul"),
            "op must be one of 'add', 'min', 'max', 'inc', 'dec', 'and', 'or', 'xor'",
        ),
        (
            lambda s: ptx.cp.async_.bulk.tensor_2d(dst=s.s, src=s.desc, coord=(0,), mbar=s.bars[0]),
            "tensor_2d expects coord= with 2 coordinates",
        ),
        (lambda s: ptx.cp.async_.bulk(s.s, s.g, 100, mbar=s.bars[0]), TABLE),
        (
            lambda s: ptx.cp.async_.bulk(s.s, s.g, 128),
            r"expects 4 operands \(dstMem, srcMem, size, mbar\), but got 3",
        ),
        (
            lambda s: ptx.cp.async_.bulk(
                s.g, s.s, 128, dst_space="global", src_space="shared::cta", mbar=s.bars[0]
            ),
            r"bulk_group expects 3 operands \(dstMem, srcMem, size\), but got 4",
        ),
        (
            lambda s: ptx.cp.async_.bulk(s.g, s.s, 128, dst_space="global"),
            "source must be a 64-bit address register",
        ),
        (
            lambda s: ptx.cp.async_.bulk(
                s.r, s.s, 128, mbar=s.bars[0], src_space="shared::cta", multicast=1
            ),
            r"'\.multicast::cluster' is not valid for cp\.async\.bulk with \.shared::cta",
        ),
        (
            lambda s: ptx.cp.async_.bulk(s.s, s.g, 128, mbar=s.bars[0], byte_mask=1),
            r"'\.cp_mask' is not valid for cp\.async\.bulk with \.shared::cluster",
        ),
        (lambda s: ptx.cp.async_.bulk(s.s, s.r, 128, mbar=s.bars[0]), "source must be a 64-bit"),
        (lambda s: ptx.cp.async_.bulk.prefetch(s.g, 8), TABLE),
        (lambda s: ptx.cp.async_.bulk.prefetch(s.g, 1.5), "size must be a Python int or an"),
        (
            lambda s: ptx.cp.reduce.async_.bulk(s.g, s.s, 64, op="add", ty=s64),
            r"'\.s64' is not valid for cp\.reduce\.async\.bulk with \.add "
            r".*takes .*\.u32, \.s32, \.u64, \.f32, \.f64$",
        ),
        (
            lambda s: ptx.cp.reduce.async_.bulk(
                s.r, s.s, 64, op="and", ty=b64, mbar=s.bars[0], dst_space="shared::cluster"
            ),
            r"'\.b64' is not valid for cp\.reduce\.async\.bulk with \.shared::cluster"
            r".*\.and, \.or, \.xor, \.b32$",
        ),
        (
            lambda s: ptx.cp.reduce.async_.bulk(
                s.r, s.s, 64, op="add", ty=u32, dst_space="shared::cluster"
            ),
            r"mbarrier::complete_tx::bytes\.add\.u32 expects 4 operands .*, but got 3",
        ),
        (
            lambda s: ptx.cp.reduce.async_.bulk(s.g, s.s, 64, op="add", ty=u32, mbar=s.bars[0]),
            r"bulk_group\.add\.u32 expects 3 operands \(dstMem, srcMem, size\), but got 4",
        ),
        (lambda s: ptx.tensormap.replace.box_dim(s.g, 5, 64), TABLE),
        (lambda s: ptx.tensormap.replace.global_stride(s.g, 0, s.r), TABLE),
        (lambda s: ptx.tensormap.replace.swizzle_mode(s.g, s.r), "value must be a Python int"),
        (lambda s: ptx.tensormap.replace.rank(s.s, 1), "tensor map must be a 64-bit address"),
        (lambda s: ptx.tensormap.replace.rank(s.g, 1, space="param"), "space must be one of"),
        (lambda s: ptx.tensormap.cp_fenceproxy(s.g, s.s, 64), TABLE),
        (lambda s: ptx.cp.async_.bulk.wait_group(64), TABLE),
        (lambda s: ptx.tensormap.cp_fenceproxy(s.g, s.s, scope="grid"), "scope must be one of"),
        (lambda s: ptx.cp.async_.bulk.wait_group(s.r), "count must be a Python int"),
        (lambda s: ptx.cp.async_.bulk.wait_group(0, read="yes"), "read= takes True or False"),
    ],
)
def test_bulk_errors_point_at_the_call(make, match) -> None:  # type: ignore[no-untyped-def]
    _fails(make, match)
