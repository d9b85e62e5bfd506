"""Typed wrappers of wgmma (sm_90a): fence/commit_group/wait_group, mma_async dense and sparse
over every type family, accumulator sizes, and descriptors synthesized from GMMA tiles."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from dsl_testing import body

from pyptx import PtxDslError, kernel, ptx, reg, smem
from pyptx.dsl.gmma import subtile, wgmma_tile
from pyptx.types import b1, b32, b64, bf16, e4m3, e5m2, f16, f32, pred, s8, s32, tf32, u8, u32, u64


def _vec(prefix: str, start: int, n: int) -> str:
    return "{" + ", ".join(f"{prefix}{start + i}" for i in range(n)) + "}"


def test_fence_commit_wait(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        ptx.wgmma.fence()
        ptx.wgmma.commit_group()
        ptx.wgmma.wait_group(0)
        ptx.wgmma.wait_group(3)

    assert body(k.ptx()) == [
        "wgmma.fence.sync.aligned;",
        "wgmma.commit_group.sync.aligned;",
        "wgmma.wait_group.sync.aligned 0;",
        "wgmma.wait_group.sync.aligned 3;",
        "ret;",
    ]
    assemble(k.ptx())


def test_bf16_descriptor_example(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        acc = reg.wgmma_frag(64)
        da = reg.scalar(b64)
        db = reg.scalar(b64)
        p = reg.scalar(pred)
        ptx.wgmma.mma_async(acc, da, db, dtype_a=bf16)
        ptx.wgmma.mma_async(acc, da, db, shape="m64n64k16", dtype_a=bf16, scale_d=p,
                            scale_a=-1, trans_a=1, trans_b=True)  # fmt: skip
        ptx.wgmma.mma_async(acc, da, db, shape=(64, 64, 16), dtype_a=bf16, scale_d=~p,
                            scale_b=-1, pred=p)  # fmt: skip
        ptx.wgmma.mma_async(acc, da, db, dtype_a=bf16, scale_d=0)

    acc = _vec("%f", 0, 32)
    head = "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"
    assert body(k.ptx()) == [
        f"{head} {acc}, %rd0, %rd1, 1, 1, 1, 0, 0;",
        f"{head} {acc}, %rd0, %rd1, %p0, -1, 1, 1, 1;",
        f"@%p0 {head} {acc}, %rd0, %rd1, !%p0, 1, -1, 0, 0;",
        f"{head} {acc}, %rd0, %rd1, 0, 1, 1, 0, 0;",
        "ret;",
    ]
    assemble(k.ptx())


# (modifiers after "wgmma.mma_async.", dtype_a, dtype_b, dtype_d, A from registers, kwargs,
#  the operand tail after the descriptors / registers)
DENSE = [
    ("sync.aligned.m64n8k16.f32.f16.f16", f16, f16, f32, False, {}, "1, 1, 1, 0, 0"),
    ("sync.aligned.m64n256k16.f16.f16.f16", f16, f16, f16, False, {}, "1, 1, 1, 0, 0"),
    ("sync.aligned.m64n120k16.f32.f16.f16", f16, f16, f32, True, {"trans_b": 1}, "1, 1, 1, 1"),
    ("sync.aligned.m64n96k16.f32.bf16.bf16", bf16, bf16, f32, True, {"scale_a": -1}, "1, -1, 1, 0"),
    ("sync.aligned.m64n128k8.f32.tf32.tf32", tf32, tf32, f32, False, {}, "1, 1, 1"),
    ("sync.aligned.m64n16k8.f32.tf32.tf32", tf32, tf32, f32, True, {"scale_b": -1}, "1, 1, -1"),
    ("sync.aligned.m64n64k32.f32.e4m3.e5m2", e4m3, e5m2, f32, False, {}, "1, 1, 1"),
    ("sync.aligned.m64n200k32.f16.e5m2.e5m2", e5m2, e5m2, f16, True, {}, "1, 1, 1"),
    ("sync.aligned.m64n24k32.satfinite.s32.s8.u8", s8, u8, s32, False, {"satfinite": True}, "1"),
    ("sync.aligned.m64n256k32.s32.u8.u8", u8, u8, s32, True, {}, "1"),
    ("sync.aligned.m64n240k32.s32.s8.s8", s8, s8, s32, False, {"scale_d": 0}, "0"),
    ("sync.aligned.m64n48k256.s32.b1.b1.and.popc", b1, b1, s32, False, {"bit_op": "and"}, "1"),
    ("sync.aligned.m64n8k256.s32.b1.b1.and.popc", b1, b1, s32, True, {"bit_op": "and"}, "1"),
]


@pytest.mark.parametrize(("mods", "ta", "tb", "td", "a_regs", "extra", "tail"), DENSE,
                         ids=[row[0] for row in DENSE])  # fmt: skip
def test_dense_forms(assemble, mods, ta, tb, td, a_regs, extra, tail) -> None:  # type: ignore[no-untyped-def]
    n = int(mods.split(".")[2].split("n")[1].split("k")[0])
    count = n // 4 if td is f16 else n // 2

    @kernel(arch="sm_90a")
    def k() -> None:
        acc = reg.wgmma_frag(n, td)
        a = reg.array(b32, 4) if a_regs else reg.scalar(b64)
        b = reg.scalar(b64)
        ptx.wgmma.mma_async(acc, a, b, dtype_a=ta, dtype_b=tb, dtype_d=td, **extra)

    text = k.ptx()
    line = body(text)[0]
    acc = _vec("%f" if td is f32 else "%r", 0, count)
    a_op = _vec("%r", count if td is not f32 else 0, 4) if a_regs else "%rd0"
    b_op = "%rd0" if a_regs else "%rd1"
    assert line == f"wgmma.mma_async.{mods} {acc}, {a_op}, {b_op}, {tail};"
    assemble(text)


# (modifiers, dtype_a, dtype_d, selector, A from registers, operand tail after meta/selector)
SPARSE = [
    ("sp.sync.aligned.m64n64k32.f32.bf16.bf16", bf16, f32, 1, False, "1, 1, 1, 0, 0"),
    ("sp.sync.aligned.m64n32k32.f16.f16.f16", f16, f16, 0, True, "1, 1, 1, 0"),
    ("sp.sync.aligned.m64n64k16.f32.tf32.tf32", tf32, f32, 1, False, "1, 1, 1"),
    ("sp.sync.aligned.m64n128k64.f32.e4m3.e4m3", e4m3, f32, 0, False, "1, 1, 1"),
    ("sp.sync.aligned.m64n64k64.s32.s8.s8", s8, s32, 0, True, "1"),
]


@pytest.mark.parametrize(("mods", "ta", "td", "sel", "a_regs", "tail"), SPARSE,
                         ids=[row[0] for row in SPARSE])  # fmt: skip
def test_sparse_forms(assemble, mods, ta, td, sel, a_regs, tail) -> None:  # type: ignore[no-untyped-def]
    n = int(mods.split(".")[3].split("n")[1].split("k")[0])
    count = n // 4 if td is f16 else n // 2

    @kernel(arch="sm_90a")
    def k() -> None:
        acc = reg.wgmma_frag(n, td)
        a = reg.array(b32, 4) if a_regs else reg.scalar(b64)
        b = reg.scalar(b64)
        meta = reg.scalar(u32)
        ptx.wgmma.mma_async.sp(acc, a, b, meta, sel, dtype_a=ta, dtype_d=td)

    line = body(k.ptx())[0]
    r0 = count if td is not f32 else 0
    acc = _vec("%f" if td is f32 else "%r", 0, count)
    a_op = _vec("%r", r0, 4) if a_regs else "%rd0"
    b_op = "%rd0" if a_regs else "%rd1"
    meta = f"%r{r0 + (4 if a_regs else 0)}"
    assert line == f"wgmma.mma_async.{mods} {acc}, {a_op}, {b_op}, {meta}, {sel}, {tail};"
    assemble(k.ptx())


def test_tile_operands_build_and_reuse_descriptors(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        sA = wgmma_tile(bf16, (2, 64, 64))
        sB = wgmma_tile(bf16, (2, 64, 64), major="MN")
        acc = reg.wgmma_frag(64)
        ptx.wgmma.fence()
        for stage in range(2):
            for kk in range(2):
                ptx.wgmma.mma_async(acc, sA[stage], sB[stage], k_block=kk)
        ptx.wgmma.mma_async(acc, sA[0], sB[0])
        ptx.wgmma.commit_group()

    head = f"wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {_vec('%f', 0, 32)}"
    assert body(k.ptx()) == [
        "wgmma.fence.sync.aligned;",
        "mov.u32 %r0, smem_0;",
        "bfe.u32 %r1, %r0, 4, 14;",
        "cvt.u64.u32 %rd0, %r1;",
        "or.b64 %rd1, %rd0, 0x4000004000010000;",
        "mov.u32 %r2, smem_1;",
        "bfe.u32 %r3, %r2, 4, 14;",
        "cvt.u64.u32 %rd2, %r3;",
        "or.b64 %rd3, %rd2, 0x4000004002000000;",
        f"{head}, %rd1, %rd3, 1, 1, 1, 0, 1;",
        "add.s64 %rd4, %rd1, 2;",
        "add.s64 %rd5, %rd3, 128;",
        f"{head}, %rd4, %rd5, 1, 1, 1, 0, 1;",
        "add.s64 %rd6, %rd1, 512;",
        "add.s64 %rd7, %rd3, 512;",
        f"{head}, %rd6, %rd7, 1, 1, 1, 0, 1;",
        "add.s64 %rd8, %rd1, 514;",
        "add.s64 %rd9, %rd3, 640;",
        f"{head}, %rd8, %rd9, 1, 1, 1, 0, 1;",
        f"{head}, %rd1, %rd3, 1, 1, 1, 0, 1;",
        "wgmma.commit_group.sync.aligned;",
        "ret;",
    ]
    assert "ptx.wgmma.mma_async(a=/b= GMMA tiles) and .sp" in ptx.MULTI_INSTRUCTION_HELPERS
    assemble(k.ptx())


def test_tile_descriptors_are_rebuilt_where_the_cached_one_may_not_have_run(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        sA = wgmma_tile(f16, (64, 16))
        sB = wgmma_tile(f16, (8, 16))
        acc = reg.wgmma_frag(8)
        p = reg.scalar(pred)
        with ptx.if_(p):
            ptx.wgmma.mma_async(acc, sA, sB)  # builds both descriptors inside the branch
        ptx.wgmma.mma_async(acc, sA, sB)  # the branch may not have run: rebuild
        ptx.wgmma.mma_async(acc, sA, sB)  # dominated by the previous call: reuse
        n = reg.scalar(u32)
        for _ in ptx.range_(0, n):  # guarded loop: the body may run zero times
            ptx.wgmma.mma_async(acc, sA, sB)  # reuse (built before the loop)
        ptx.wgmma.mma_async(acc, sA, sB)  # still reuse

    lines = body(k.ptx())
    assert sum(ln.startswith("bfe.u32") for ln in lines) == 4
    assert sum(ln.startswith("wgmma.mma_async") for ln in lines) == 5
    assert lines[0] == "@!%p0 bra $L__endif_0;"
    assert lines[1].startswith("mov.u32 %r0, smem_0") and lines[9].startswith("wgmma.")
    assert lines[10] == "$L__endif_0:"
    assemble(k.ptx())


def test_descriptors_built_inside_a_guarded_loop_are_not_reused_after_it(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        sA = wgmma_tile(f16, (64, 16))
        sB = wgmma_tile(f16, (8, 16))
        acc = reg.wgmma_frag(8)
        n = reg.scalar(u32)
        for _ in ptx.range_(0, n):
            ptx.wgmma.mma_async(acc, sA, sB)
            ptx.wgmma.mma_async(acc, sA, sB)  # same iteration: reuse
        ptx.wgmma.mma_async(acc, sA, sB)  # the loop may not have run: rebuild

    lines = body(k.ptx())
    assert sum(ln.startswith("bfe.u32") for ln in lines) == 4
    assemble(k.ptx())


def test_subtile_register_a_and_sparse_tiles(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        sA = wgmma_tile(bf16, (128, 64))
        sB = wgmma_tile(bf16, (128, 64))  # K-major B: (N, K)
        sAs = wgmma_tile(bf16, (64, 32))  # compressed sparse A: K/2 columns
        acc = reg.wgmma_frag(128)
        ptx.wgmma.mma_async(acc, subtile(sA, mn=64), sB, k_block=3)
        ptx.wgmma.mma_async(acc, reg.array(b32, 4), subtile(sB, k=16), scale_d=0)
        ptx.wgmma.mma_async.sp(acc, sAs, sB, reg.scalar(u32), 1, k_block=1)

    lines = body(k.ptx())
    head = "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"
    acc = _vec("%f", 0, 64)
    assert lines[4] == "add.s64 %rd2, %rd1, 518;"  # A rows 64.. (64*128 B) + 3 K steps (3*32 B)
    assert lines[9] == "add.s64 %rd5, %rd4, 6;"  # B: 3 K steps
    assert lines[10] == f"{head} {acc}, %rd2, %rd5, 1, 1, 1, 0, 0;"
    assert lines[11:13] == [
        "add.s64 %rd6, %rd4, 2;",  # B sub-tile at k=16
        f"{head} {acc}, {_vec('%r', 4, 4)}, %rd6, 0, 1, 1, 0;",
    ]
    assert lines[-2].startswith("wgmma.mma_async.sp.sync.aligned.m64n128k32.f32.bf16.bf16 ")
    assert lines[-2].endswith(", %rd9, %rd10, %r8, 1, 1, 1, 1, 0, 0;")
    assemble(k.ptx())


def test_auto_and_masked_descriptors(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        sA = wgmma_tile(bf16, (64, 64))
        ptx.wgmma.auto_descriptor(sA, k=32)
        base = reg.scalar(u64)
        ptx.wgmma.masked_descriptor(base, byte_offset=-8192, mask=262016,
                                    high=4611686293305344000)  # fmt: skip
        ptx.wgmma.masked_descriptor(base, lbo=16, sbo=1024)

    assert body(k.ptx()) == [
        "mov.u32 %r0, smem_0+64;",
        "bfe.u32 %r1, %r0, 4, 14;",
        "cvt.u64.u32 %rd0, %r1;",
        "or.b64 %rd1, %rd0, 0x4000004000010000;",
        # the sequence nvcc -arch=sm_90a writes for a swizzled operand
        "add.s64 %rd3, %rd2, -8192;",
        "and.b64 %rd4, %rd3, 262016;",
        "shr.u64 %rd5, %rd4, 4;",
        "or.b64 %rd6, %rd5, 4611686293305344000;",
        "and.b64 %rd7, %rd2, 262016;",
        "shr.u64 %rd8, %rd7, 4;",
        "or.b64 %rd9, %rd8, 4611686293305360384;",  # 0x4000004000010000
        "ret;",
    ]
    for name in ("ptx.wgmma.auto_descriptor", "ptx.wgmma.masked_descriptor"):
        assert name in ptx.MULTI_INSTRUCTION_HELPERS
    assemble(k.ptx())


def _fails(make: Callable[[SimpleNamespace], object], match: str) -> None:
    @kernel(arch="sm_90a")
    def k() -> None:
        ns = SimpleNamespace(
            acc=reg.wgmma_frag(64),
            acc16=reg.wgmma_frag(64, f16),
            iacc=reg.wgmma_frag(64, s32),
            d=reg.scalar(b64),
            r=reg.scalar(u32),
            r4=reg.array(b32, 4),
            p=reg.scalar(pred),
            sA=wgmma_tile(bf16, (64, 64)),
            sB=wgmma_tile(bf16, (64, 64)),
            sBmn=wgmma_tile(bf16, (64, 64), major="MN"),
            sT=wgmma_tile(tf32, (64, 32)),
            staged=wgmma_tile(bf16, (2, 64, 64)),
            plain=smem.alloc(bf16, (64, 64)),
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
            lambda s: ptx.wgmma.mma_async(s.acc, s.d, s.d, shape="m64n128k16", dtype_a=bf16),
            r"operand 0 \(d\) expects a vector of 64 elements, but got",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.acc16, s.d, s.d, shape="m64n128k16", dtype_a=f16),
            r"operand 0 \(d\) expects a vector of 32 elements, but got",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.acc[:30], s.d, s.d, dtype_a=bf16),
            r"unknown modifier '\.m64n60k16' for wgmma\.mma_async; did",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.iacc[:20], s.d, s.d, dtype_a=s8),
            r"modifier '\.m64n40k32' is not valid for wgmma\.mma_async",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.acc, s.d, s.d, shape="m64n64k32", dtype_a=bf16),
            r"modifier '\.m64n64k32' is not valid for wgmma\.mma_async",
        ),
        (lambda s: ptx.wgmma.mma_async(s.acc, s.d, s.d), "needs dtype_a="),
        (
            lambda s: ptx.wgmma.mma_async(s.acc, s.d, s.d, dtype_a=f32),
            r"'\.f32' repeats the \.dtype modifier of wgmma\.mma_async,",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.acc, s.d, s.d, dtype_a=f16, dtype_b=bf16),
            r"modifier '\.bf16' is not valid for wgmma\.mma_async with",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.acc, s.d, s.d, dtype_a=bf16, dtype_d=f16),
            r"modifier '\.f16' is not valid for wgmma\.mma_async with",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.iacc, s.d, s.d, dtype_a=s8, scale_a=-1),
            r"expects 4 operands \(d, a, b\-desc, scale\-d\), but got 5",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.acc, s.d, s.d, dtype_a=tf32, trans_b=1),
            r"expects 6 operands \(d, a, b\-desc, scale\-d, imm\-scale\-a,",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.acc, s.r4, s.d, dtype_a=bf16, trans_a=1),
            r"operand 1 \(a\) expects a register, but got the vector",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.acc, s.d, s.d, dtype_a=bf16, scale_a=2),
            r"operand 4 \(imm\-scale\-a\) must be one of 1, \-1, but got 2",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.acc, s.d, s.d, dtype_a=bf16, scale_d=2),
            r"operand 3 \(scale\-d\) must be one of 0, 1, but got 2",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.acc, s.d, s.d, dtype_a=bf16, scale_d=s.r),
            r"operand 3 \(scale\-d\) expects a \.pred register, but %r48",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.acc, s.r, s.d, dtype_a=bf16),
            r"operand 1 \(a\) expects a 64\-bit register for \.b64, but",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.acc, s.d, s.r, dtype_a=bf16),
            r"operand 2 \(b\-desc\) expects a 64\-bit register for \.b64,",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.acc, s.r4[:2], s.d, dtype_a=bf16),
            r"operand 1 \(a\) expects a vector of 4 elements, but got 2",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.iacc, s.d, s.d, dtype_a=b1),
            r"needs a \.op modifier \(one of \.and\), but got none; e\.g\.",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.acc, s.d, s.d, dtype_a=bf16, satfinite=True),
            r"modifier '\.satfinite' is not valid for wgmma\.mma_async",
        ),
        (
            lambda s: ptx.wgmma.mma_async.sp(s.iacc, s.d, s.d, s.r, 0, dtype_a=b1),
            r"modifier '\.s32' is not valid for wgmma\.mma_async\.sp",
        ),
        (
            lambda s: ptx.wgmma.mma_async.sp(s.acc, s.d, s.d, s.r, 2, dtype_a=bf16),
            r"operand 4 \(sp\-sel\) must be one of 0, 1, but got 2",
        ),
        (
            lambda s: ptx.wgmma.mma_async.sp(s.acc, s.d, s.d, s.r, 1, dtype_a=e4m3),
            r"operand 4 \(sp\-sel\) must be one of 0, but got 1",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.acc, s.sA, s.sB, k_block=4),
            r"A reads MN 0..64 and K 0..80, beyond the 64x64 \(MN x K\) tile",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.acc, subtile(s.sA, mn=8), s.sB),
            "A reads MN 8..72",
        ),
        (lambda s: ptx.wgmma.mma_async(s.acc, s.d, s.d, dtype_a=bf16, k_block=1), "k_block= sel"),
        (
            lambda s: ptx.wgmma.mma_async(s.acc, s.sA, s.sB, dtype_a=f16),
            "dtype_a=f16 but the A tile holds bf16",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.acc, s.sA, s.sBmn, trans_b=0),
            "trans_b=0 contradicts the MN-major B tile",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.acc, s.sT, s.sB),
            r"modifier '\.bf16' is not valid for wgmma\.mma_async with",
        ),
        (
            lambda s: ptx.wgmma.mma_async(s.acc, s.plain, s.sB),
            r"smem_\d+ was not allocated with smem.wgmma_tile",
        ),
        (lambda s: ptx.wgmma.mma_async(s.acc, s.staged, s.sB), "has 2 stages; index one"),
        (lambda s: ptx.wgmma.mma_async(s.acc, s.sA[0], s.sB), "has no stage dimension"),
        (lambda s: ptx.wgmma.wait_group(-1), "non-negative int count"),
        (lambda s: ptx.wgmma.auto_descriptor(s.plain), "was not allocated with smem.wgmma_tile"),
        (lambda s: ptx.wgmma.masked_descriptor(s.r, high=0), "takes a 64-bit address register"),
        (lambda s: ptx.wgmma.masked_descriptor(s.d), "needs high=, or lbo= and sbo="),
        (lambda s: ptx.wgmma.masked_descriptor(s.d, high=-1), "high must be a 64-bit unsigned"),
        (lambda s: ptx.wgmma.masked_descriptor(s.d, high=0, mask=1.0), "mask must be an int"),
    ],
)
def test_wgmma_errors_point_at_the_call(make, match) -> None:  # type: ignore[no-untyped-def]
    _fails(make, match)


def test_docstrings_link_the_isa_and_show_the_ptx() -> None:
    w = ptx.wgmma
    for fn in (w.fence, w.commit_group, w.wait_group, w.mma_async.__call__, w.mma_async.sp,
               w.descriptor, w.auto_descriptor, w.masked_descriptor):  # fmt: skip
        doc = fn.__doc__ or ""
        assert (
            "https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup" in doc
        )
        assert "Emits" in doc or "emits" in doc
