"""Typed wrappers of mma.sync.aligned and mma.sp: every shape/type family, fragment sizes,
block scaling (sm_120a), and errors that name the expected register count."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from dsl_testing import body

from pyptx import PtxDslError, kernel, ptx, reg
from pyptx.types import (
    b1,
    b32,
    bf16,
    e2m1,
    e2m3,
    e3m2,
    e4m3,
    e5m2,
    f16,
    f16x2,
    f32,
    f64,
    s4,
    s8,
    s32,
    tf32,
    u4,
    u8,
    u16,
    ue4m3,
    ue8m0,
)

_ACC = {f32: f32, f16: f16x2, s32: s32, f64: f64}


def _regs(ty: object, n: int) -> object:
    return reg.array(_ACC.get(ty, b32), n)  # type: ignore[call-overload]


def _vec(prefix: str, start: int, n: int) -> str:
    return "{" + ", ".join(f"{prefix}{start + i}" for i in range(n)) + "}"


_TYPES = {t.value: t for t in (b1, bf16, e2m1, e2m3, e3m2, e4m3, e5m2, f16, f32, f64, s4, s8,
                                s32, tf32, u4, u8)}  # fmt: skip


def _parse(mods: str) -> tuple[str, list[object], dict[str, object]]:
    """Shape, [d, a, b, c] types and keyword flags, read back from a PTX modifier string."""
    skip = ("sp", "sp::ordered_metadata", "sync", "aligned", "row", "col")
    parts = [p for p in mods.split(".") if p not in skip]
    extra: dict[str, object] = {}
    types = []
    for p in parts[1:]:
        if p.startswith("kind::"):
            extra["kind"] = p[6:]
        elif p == "satfinite":
            extra["satfinite"] = True
        elif p in ("xor", "and"):
            extra["bit_op"] = p
        elif p in _TYPES:
            types.append(_TYPES[p])
    return parts[0], types, extra


# (arch, the modifiers after "mma.sync.aligned.", registers of (A, B, C, D))
DENSE = [
    ("sm_80", "m8n8k4.row.col.f32.f16.f16.f32", (2, 2, 8, 8)),
    ("sm_80", "m8n8k4.row.col.f16.f16.f16.f16", (2, 2, 4, 4)),
    ("sm_80", "m8n8k4.row.col.f32.f16.f16.f16", (2, 2, 4, 8)),
    ("sm_80", "m16n8k8.row.col.f16.f16.f16.f16", (2, 1, 2, 2)),
    ("sm_80", "m16n8k16.row.col.f32.f16.f16.f32", (4, 2, 4, 4)),
    ("sm_80", "m16n8k8.row.col.f32.bf16.bf16.f32", (2, 1, 4, 4)),
    ("sm_80", "m16n8k16.row.col.f32.bf16.bf16.f32", (4, 2, 4, 4)),
    ("sm_80", "m16n8k4.row.col.f32.tf32.tf32.f32", (2, 1, 4, 4)),
    ("sm_80", "m16n8k8.row.col.f32.tf32.tf32.f32", (4, 2, 4, 4)),
    ("sm_80", "m8n8k4.row.col.f64.f64.f64.f64", (1, 1, 2, 2)),
    ("sm_90a", "m16n8k4.row.col.f64.f64.f64.f64", (2, 1, 4, 4)),
    ("sm_90a", "m16n8k8.row.col.f64.f64.f64.f64", (4, 2, 4, 4)),
    ("sm_90a", "m16n8k16.row.col.f64.f64.f64.f64", (8, 4, 4, 4)),
    ("sm_89", "m16n8k16.row.col.f32.e4m3.e5m2.f32", (2, 1, 4, 4)),
    ("sm_89", "m16n8k16.row.col.f16.e4m3.e4m3.f16", (2, 1, 2, 2)),
    ("sm_89", "m16n8k32.row.col.f32.e5m2.e4m3.f32", (4, 2, 4, 4)),
    ("sm_120a", "m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32", (4, 2, 4, 4)),
    ("sm_120a", "m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e4m3.f16", (4, 2, 2, 2)),
    ("sm_80", "m8n8k16.row.col.s32.s8.u8.s32", (1, 1, 2, 2)),
    ("sm_80", "m16n8k16.row.col.satfinite.s32.u8.s8.s32", (2, 1, 4, 4)),
    ("sm_80", "m16n8k32.row.col.s32.s8.s8.s32", (4, 2, 4, 4)),
    ("sm_80", "m8n8k32.row.col.s32.s4.u4.s32", (1, 1, 2, 2)),
    ("sm_80", "m16n8k32.row.col.s32.u4.u4.s32", (2, 1, 4, 4)),
    ("sm_80", "m16n8k64.row.col.satfinite.s32.s4.s4.s32", (4, 2, 4, 4)),
    ("sm_80", "m8n8k128.row.col.s32.b1.b1.s32.xor.popc", (1, 1, 2, 2)),
    ("sm_80", "m16n8k128.row.col.s32.b1.b1.s32.and.popc", (2, 1, 4, 4)),
    ("sm_80", "m16n8k256.row.col.s32.b1.b1.s32.xor.popc", (4, 2, 4, 4)),
]


@pytest.mark.parametrize(("arch", "mods", "counts"), DENSE, ids=[m for _, m, _ in DENSE])
def test_dense_forms_emit_and_assemble(assemble, arch, mods, counts) -> None:  # type: ignore[no-untyped-def]
    shape, (td, ta, tb, tc), extra = _parse(mods)
    na, nb, nc, nd = counts

    @kernel(arch=arch)
    def k() -> None:
        d = _regs(td, nd)
        a = _regs(ta, na)
        b = _regs(tb, nb)
        c = _regs(tc, nc)
        ptx.mma(d, a, b, c, shape=shape, dtype_a=ta, dtype_b=tb, dtype_d=td, dtype_c=tc, **extra)

    text = k.ptx()
    lines = body(text)
    assert len(lines) == 2 and lines[1] == "ret;"
    assert lines[0].startswith(f"mma.sync.aligned.{mods} ")
    # every operand is a brace vector of exactly the expected length
    vectors = lines[0].split(" ", 1)[1].rstrip(";").split("}, ")
    assert [v.count("%") for v in vectors] == [nd, na, nb, nc]
    assemble(text)


def test_bf16_example_exact_text(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        acc = reg.array(f32, 4)
        a = reg.array(b32, 4)
        b = reg.array(b32, 2)
        ptx.mma(acc, a, b, acc, shape=(16, 8, 16), dtype_a=bf16)
        p = acc[0] < 0.0
        ptx.mma(acc, a, b, acc, shape="m16n8k16", dtype_a=bf16, pred=p)

    assert body(k.ptx()) == [
        f"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {_vec('%f', 0, 4)}, "
        f"{_vec('%r', 0, 4)}, {_vec('%r', 4, 2)}, {_vec('%f', 0, 4)};",
        "setp.lt.f32 %p0, %f0, 0f00000000;",
        f"@%p0 mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {_vec('%f', 0, 4)}, "
        f"{_vec('%r', 0, 4)}, {_vec('%r', 4, 2)}, {_vec('%f', 0, 4)};",
        "ret;",
    ]
    assemble(k.ptx())


def test_m8n8k4_f16_takes_any_layouts(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        acc = reg.array(f32, 8)
        a = reg.array(f16x2, 2)
        b = reg.array(f16x2, 2)
        ptx.mma(acc, a, b, acc, shape="m8n8k4", dtype_a=f16, layout_a="col", layout_b="row")

    line = body(k.ptx())[0]
    assert line.startswith("mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f32 {%f0, ")
    assemble(k.ptx())


# (arch, the modifiers after "mma.", sparsity selector, registers of (A, B, C/D))
SPARSE = [
    ("sm_80", "sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 3, (2, 2, 4)),
    ("sm_80", "sp.sync.aligned.m16n8k32.row.col.f16.f16.f16.f16", 1, (4, 4, 2)),
    ("sm_80", "sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 2, (2, 2, 4)),
    ("sm_80", "sp.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32", 1, (4, 4, 4)),
    ("sm_80", "sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 3, (2, 2, 4)),
    ("sm_80", "sp.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32", 1, (4, 4, 4)),
    ("sm_89", "sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e5m2.f32", 0, (4, 4, 4)),
    (
        "sm_120a",
        "sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m1.e4m3.f32",
        0,
        (4, 4, 4),
    ),
    ("sm_80", "sp.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32", 1, (2, 2, 4)),
    (
        "sm_80",
        "sp::ordered_metadata.sync.aligned.m16n8k64.row.col.satfinite.s32.u8.u8.s32",
        0,
        (4, 4, 4),
    ),
    ("sm_80", "sp.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32", 1, (2, 2, 4)),
    ("sm_80", "sp.sync.aligned.m16n8k128.row.col.s32.u4.s4.s32", 0, (4, 4, 4)),
]


@pytest.mark.parametrize(
    ("arch", "mods", "sel", "counts"),
    SPARSE,
    ids=[getattr(row, "values", row)[1] for row in SPARSE],
)
def test_sparse_forms_emit_and_assemble(assemble, arch, mods, sel, counts) -> None:  # type: ignore[no-untyped-def]
    shape, (td, ta, tb, _), extra = _parse(mods)
    na, nb, nc = counts

    @kernel(arch=arch)
    def k() -> None:
        d = _regs(td, nc)
        a = _regs(ta, na)
        b = _regs(tb, nb)
        meta = reg.scalar(b32)
        ordered = mods.startswith("sp::ordered_metadata")
        ptx.mma.sp(d, a, b, d, meta, sel, shape=shape, dtype_a=ta, dtype_b=tb, dtype_d=td,
                   ordered=ordered, **extra)  # fmt: skip

    text = k.ptx()
    line = body(text)[0]
    assert line.startswith(f"mma.{mods} ")
    assert line.endswith(f", %r{na + nb + (0 if td is f32 else nc)}, {sel};")
    assemble(text)


def test_block_scaled_forms_on_sm120a(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_120a")
    def k() -> None:
        acc = reg.array(f32, 4)
        a = reg.array(b32, 4)
        b = reg.array(b32, 2)
        sfa = reg.scalar(b32)
        sfb = reg.scalar(b32)
        tid = reg.scalar(u16)
        ptx.mma(acc, a, b, acc, shape="m16n8k64", dtype_a=e2m1, kind="mxf4",
                scale_a=(sfa, 2, 1), scale_b=(sfb, 0, tid))  # fmt: skip
        ptx.mma(acc, a, b, acc, shape="m16n8k64", dtype_a=e2m1, kind="mxf4nvf4",
                scale_vec="4X", stype=ue4m3, scale_a=(sfa, 0, 0), scale_b=(sfb, 0, 0))  # fmt: skip
        ptx.mma(
            acc,
            a,
            b,
            acc,
            shape="m16n8k64",
            dtype_a=e2m1,
            kind="mxf4nvf4",
            scale_vec="2X",
            scale_a=(sfa, 0, 0),
            scale_b=(sfb, 0, 0),
        )
        ptx.mma(acc, a, b, acc, shape="m16n8k32", dtype_a=e4m3, dtype_b=e2m1, kind="mxf8f6f4",
                scale_vec="1X", stype=ue8m0, scale_a=(sfa, 3, 1), scale_b=(sfb, 1, 3))  # fmt: skip

    f, ra, rb = _vec("%f", 0, 4), _vec("%r", 0, 4), _vec("%r", 4, 2)
    assert body(k.ptx()) == [
        "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0 "
        f"{f}, {ra}, {rb}, {f}, %r6, {{2, 1}}, %r7, {{0, %rs0}};",
        "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1."
        f"e2m1.f32.ue4m3 {f}, {ra}, {rb}, {f}, %r6, {{0, 0}}, %r7, {{0, 0}};",
        "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1."
        f"e2m1.f32.ue8m0 {f}, {ra}, {rb}, {f}, %r6, {{0, 0}}, %r7, {{0, 0}};",
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3."
        f"e2m1.f32.ue8m0 {f}, {ra}, {rb}, {f}, %r6, {{3, 1}}, %r7, {{1, 3}};",
        "ret;",
    ]
    assemble(k.ptx())


def test_block_scaled_sparse_forms_on_sm120a(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_120a")
    def k() -> None:
        acc = reg.array(f32, 4)
        a = reg.array(b32, 4)
        b = reg.array(b32, 4)
        sfa = reg.scalar(b32)
        sfb = reg.scalar(b32)
        meta = reg.scalar(b32)
        ptx.mma.sp(acc, a, b, acc, meta, 0, shape="m16n8k64", dtype_a=e3m2, kind="mxf8f6f4",
                   ordered=True, scale_a=(sfa, 0, 0), scale_b=(sfb, 0, 0))  # fmt: skip
        ptx.mma.sp(acc, a, b, acc, meta, 0, shape="m16n8k128", dtype_a=e2m1, kind="mxf4",
                   ordered=True, scale_vec="2X", scale_a=(sfa, 0, 0),
                   scale_b=(sfb, 0, 0))  # fmt: skip

    f, ra, rb = _vec("%f", 0, 4), _vec("%r", 0, 4), _vec("%r", 4, 4)
    assert body(k.ptx()) == [
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.f32."
        f"e3m2.e3m2.f32.ue8m0 {f}, {ra}, {rb}, {f}, %r10, 0, %r8, {{0, 0}}, %r9, {{0, 0}};",
        "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4.block_scale."
        f"scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0 {f}, {ra}, {rb}, {f}, %r10, 0, %r8, {{0, 0}}, "
        "%r9, {0, 0};",
        "ret;",
    ]
    assemble(k.ptx())


def test_mxf4nvf4_4x_with_ue8m0_needs_ptx_9_1(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_120a", version=(9, 1))
    def k() -> None:
        acc = reg.array(f32, 4)
        sf = reg.scalar(b32)
        ptx.mma(acc, reg.array(b32, 4), reg.array(b32, 2), acc, shape="m16n8k64",
                dtype_a=e2m1, kind="mxf4nvf4", scale_vec="4X", stype=ue8m0,
                scale_a=(sf, 0, 0), scale_b=(sf, 0, 0))  # fmt: skip

    assert ".scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0 " in body(k.ptx())[0]
    assemble(k.ptx())


def _fails(make: Callable[[SimpleNamespace], object], match: str, arch: str = "sm_90a") -> None:
    @kernel(arch=arch)
    def k() -> None:
        ns = SimpleNamespace(
            f4=reg.array(f32, 4),
            f8=reg.array(f32, 8),
            r1=reg.array(b32, 1),
            r2=reg.array(b32, 2),
            r4=reg.array(b32, 4),
            h2=reg.array(f16, 2),
            e=reg.scalar(b32),
            sf=reg.scalar(b32),
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
            lambda s: ptx.mma(s.f4, s.r2, s.r2, s.f4, shape="m16n8k16", dtype_a=bf16),
            r"operand 1 \(a\) expects a vector of 4 elements, but got 2",
        ),
        (
            lambda s: ptx.mma(s.f4, s.r4, s.r4, s.f4, shape="m16n8k16", dtype_a=f16),
            r"operand 2 \(b\) expects a vector of 2 elements, but got 4",
        ),
        (
            lambda s: ptx.mma(s.f4, s.r2, s.r2, s.f4, shape="m8n8k4", dtype_a=f16),
            r"operand 0 \(d\) expects a vector of 8 elements, but got 4",
        ),
        (
            lambda s: ptx.mma(s.f8, s.r4, s.r2, s.f8, shape="m16n8k8", dtype_a=tf32),
            r"operand 0 \(d\) expects a vector of 4 elements, but got 8",
        ),
        (
            lambda s: ptx.mma(s.f4, s.h2, s.r1, s.f4, shape="m16n8k8", dtype_a=f16),
            r"operand 1 \(a\) expects a 32\-bit register for \.f16, but",
        ),
        (
            lambda s: ptx.mma(s.f4, s.r4, s.r2, s.f4, shape="m16n8k32", dtype_a=bf16),
            r"modifier '\.m16n8k32' is not valid for mma with \.bf16,",
        ),
        (lambda s: ptx.mma(s.f4, s.r4, s.r2, s.f4, shape="16x8x16", dtype_a=bf16), "shape must be"),
        (
            lambda s: ptx.mma(s.f4, s.r4, s.r2, s.f4, shape="m16n8k32", dtype_a=e2m1),
            r"needs a \.kind modifier \(one of \.kind::f8f6f4\), but got",
        ),
        (
            lambda s: ptx.mma(s.f4, s.r4, s.r2, s.f4, shape="m16n8k16", dtype_a=f16, dtype_b=bf16),
            r"modifier '\.bf16' is not valid for mma with \.f16",
        ),
        (
            lambda s: ptx.mma(s.f4, s.r4, s.r2, s.f4, shape="m16n8k16", dtype_a=f16, dtype_c=f16),
            r"modifier '\.f32' does not combine with the other",
        ),
        (
            lambda s: ptx.mma(s.f4, s.r4, s.r2, s.f4, shape="m16n8k16", dtype_a=bf16, dtype_d=f16),
            r"modifier '\.bf16' is not valid for mma with \.f16, \.f16",
        ),
        (
            lambda s: ptx.mma(
                s.f4, s.r4, s.r2, s.f4, shape="m16n8k16", dtype_a=f16, satfinite=True
            ),
            r"modifier '\.satfinite' is not valid for mma with \.f32,",
        ),
        (
            lambda s: ptx.mma(s.f4, s.r4, s.r2, s.f4, shape="m16n8k256", dtype_a=b1),
            r"needs a \.bitop modifier \(one of \.xor, \.and\), but got",
        ),
        (
            lambda s: ptx.mma(
                s.f4, s.r4, s.r2, s.f4, shape="m16n8k16", dtype_a=f16, layout_a="col"
            ),
            r"'\.col' repeats the \.blayout modifier of mma, already",
        ),
        (
            lambda s: ptx.mma.sp(s.f4, s.r4, s.r4, s.f4, s.e, 2, shape="m16n8k32", dtype_a=f16),
            r"operand 5 \(f\) must be one of 0, 1, but got 2",
        ),
        (
            lambda s: ptx.mma.sp(s.f4, s.r4, s.r4, s.f4, s.e, 1, shape="m16n8k64", dtype_a=s8),
            r"operand 5 \(f\) must be one of 0, but got 1",
        ),
        (
            lambda s: ptx.mma.sp(s.f4, s.r4, s.r2, s.f4, s.e, 0, shape="m16n8k32", dtype_a=bf16),
            r"operand 2 \(b\) expects a vector of 4 elements, but got 2",
        ),
        (
            lambda s: ptx.mma.sp(s.f4, s.r4, s.r2, s.f4, s.e, 0, shape="m16n8k8", dtype_a=f16),
            r"modifier '\.m16n8k8' is not valid for mma\.sp with \.f16,",
        ),
        (
            lambda s: ptx.mma.sp(
                s.f4, s.r4, s.r4, s.f4, s.e, 0, shape="m16n8k64", dtype_a=e2m1, kind="f8f6f4"
            ),
            r"\(kind::f8f6f4\) is spelled mma\.sp::ordered_metadata, not",
        ),
        (
            lambda s: ptx.mma(
                s.f4,
                s.r4,
                s.r2,
                s.f4,
                shape="m16n8k64",
                dtype_a=e2m1,
                kind="mxf4nvf4",
                scale_a=(s.sf, 0, 0),
                scale_b=(s.sf, 0, 0),
            ),
            r"needs a \.scale_vec modifier \(one of \.scale_vec::2X\),",
        ),
        (
            lambda s: ptx.mma(
                s.f4,
                s.r4,
                s.r2,
                s.f4,
                shape="m16n8k64",
                dtype_a=e2m1,
                kind="mxf4nvf4",
                scale_vec="2X",
                stype=ue4m3,
                scale_a=(s.sf, 0, 0),
                scale_b=(s.sf, 0, 0),
            ),
            r"modifier '\.ue4m3' is not valid for mma with",
        ),
        (
            lambda s: ptx.mma(
                s.f4,
                s.r4,
                s.r2,
                s.f4,
                shape="m16n8k64",
                dtype_a=e2m1,
                kind="mxf4",
                scale_a=(s.sf, 0, 0),
            ),
            r"expects 8 operands \(d, a, b, c, scale-a-data, a-ids, scale-b-data, b-ids\)",
        ),
        (
            lambda s: ptx.mma(
                s.f4,
                s.r4,
                s.r2,
                s.f4,
                shape="m16n8k32",
                dtype_a=e2m1,
                kind="mxf4",
                scale_a=(s.sf, 0, 0),
                scale_b=(s.sf, 0, 0),
            ),
            r"modifier '\.kind::mxf4' is not valid for mma with",
        ),
        (
            lambda s: ptx.mma(
                s.f4,
                s.r4,
                s.r2,
                s.f4,
                shape="m16n8k64",
                dtype_a=e2m1,
                kind="mxf4",
                scale_a=(s.sf, 5, 0),
                scale_b=(s.sf, 0, 0),
            ),
            r"operand 5 \(a-ids\) element 0 must be one of 0, 2, but got 5",
        ),
        (
            lambda s: ptx.mma(
                s.f4,
                s.r4,
                s.r2,
                s.f4,
                shape="m16n8k64",
                dtype_a=e2m1,
                kind="mxf4",
                scale_a=s.sf,
                scale_b=(s.sf, 0, 0),
            ),
            r"scale_a must be \(scale_data_reg, byte_id, thread_id\)",
        ),
        (
            lambda s: ptx.mma(s.f4, s.r4, s.r2, s.f4, shape="m16n8k16", dtype_a="f17"),
            "dtype_a must be a PTX type",
        ),
    ],
)
def test_mma_errors_point_at_the_call(make, match) -> None:  # type: ignore[no-untyped-def]
    _fails(make, match, "sm_120a")  # a target with every form, so the reason is the form's


def test_mxf4nvf4_4x_ue8m0_at_ptx_9_0_asks_for_9_1() -> None:
    """The gate is the ISA table's (its form for 4X with ue8m0 needs PTX 9.1), not the DSL's."""
    with pytest.raises(
        PtxDslError,
        match=r"\(kind::mxf4nvf4 4X ue8m0 block scaled\) needs PTX ISA 9\.1 or newer, but the "
        r"kernel declares \.version 9\.0; use \.version 9\.1",
    ):
        _mxf4nvf4_4x_ue8m0.ptx()


@kernel(arch="sm_120a", version=(9, 0))
def _mxf4nvf4_4x_ue8m0() -> None:
    acc = reg.array(f32, 4)
    sf = reg.scalar(b32)
    ptx.mma(acc, reg.array(b32, 4), reg.array(b32, 2), acc, shape="m16n8k64", dtype_a=e2m1,
            kind="mxf4nvf4", scale_vec="4X", stype=ue8m0, scale_a=(sf, 0, 0),
            scale_b=(sf, 0, 0))  # fmt: skip


def test_mxf4nvf4_4x_ue8m0_lowers_the_version_to_what_the_table_asks() -> None:
    @kernel(arch="sm_120a")
    def unpinned() -> None:
        _mxf4nvf4_4x_ue8m0.fn()

    assert ".version 9.1" in unpinned.ptx()


def test_docstrings_link_the_isa_and_show_the_ptx() -> None:
    for fn in (ptx.mma.__call__, ptx.mma.sp):
        doc = fn.__doc__ or ""
        assert "https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-" in doc
        assert "mma" in doc and "sync.aligned" in doc and "Emits" in doc
