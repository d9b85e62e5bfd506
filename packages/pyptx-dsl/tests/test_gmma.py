"""GMMA shared-memory layouts, matrix descriptors and swizzling (pyptx.dsl.gmma), checked
against the canonical layouts a wgmma descriptor describes, plus the runtime helpers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from dsl_testing import body

from pyptx import PtxDslError, kernel, ptx, reg, smem
from pyptx.dsl import gmma
from pyptx.dsl.gmma import (
    GmmaLayout,
    MatrixDescriptor,
    apply_swizzle,
    gmma_layout,
    matrix_descriptor,
    subtile,
    swizzle_offset,
    wgmma_tile,
)
from pyptx.types import b1, bf16, e4m3, f16, f32, s8, tf32, u32, u64

# ------------------------------------------------------------------------------------ swizzle


@pytest.mark.parametrize(("mode", "width"), [("128B", 128), ("64B", 64), ("32B", 32)])
def test_swizzle_offset_is_the_tma_row_chunk_xor(mode: str, width: int) -> None:
    # TMA view: rows of `width` bytes; the 16-byte chunk index inside a row is XORed with
    # (row / (128 / width)) mod (width / 16).
    period = 8 * width
    for off in range(0, 4 * period, 4):
        row, chunk, byte = off // width, (off % width) // 16, off % 16
        flip = (row // (128 // width)) % (width // 16)
        expected = row * width + (chunk ^ flip) * 16 + byte
        assert swizzle_offset(off, mode) == expected


@pytest.mark.parametrize("mode", ["128B", "64B", "32B", None])
def test_swizzle_is_an_involutive_permutation_of_each_period(mode: str | None) -> None:
    for base in (0, 1024, 8192):
        block = range(base, base + 1024)
        images = [swizzle_offset(o, mode) for o in block]
        assert sorted(images) == list(block)
        assert all(swizzle_offset(swizzle_offset(o, mode), mode) == o for o in block)


def test_swizzle_known_values() -> None:
    assert swizzle_offset(0x80, "128B") == 0x90
    assert swizzle_offset(0x3F0, "128B") == 0x380
    assert swizzle_offset(0x180, "64B") == 0x1B0
    assert swizzle_offset(0x80, "32B") == 0x90
    assert swizzle_offset(0x3F0, None) == 0x3F0
    assert swizzle_offset(0x80, "none") == 0x80
    with pytest.raises(PtxDslError, match="swizzle must be one of"):
        swizzle_offset(0, "16B")
    with pytest.raises(PtxDslError, match="non-negative int offset"):
        swizzle_offset(-16, "128B")


# --------------------------------------------------------------------------------- descriptor


def test_matrix_descriptor_bit_layout() -> None:
    desc = matrix_descriptor(0x400, lbo=16, sbo=1024, swizzle="128B")
    assert desc == (0x400 >> 4) | (1 << 16) | (64 << 32) | (1 << 62) == 0x4000004000010040
    assert matrix_descriptor(0, lbo=0, sbo=0, swizzle="64B") == 2 << 62
    assert matrix_descriptor(0, lbo=0, sbo=0, swizzle="32B") == 3 << 62
    assert (
        matrix_descriptor(16, lbo=128, sbo=256, base_offset=5) == 1 | 8 << 16 | 16 << 32 | 5 << 49
    )
    top = matrix_descriptor(0x3FFF0, lbo=0x3FFF0, sbo=0x3FFF0, swizzle="32B", base_offset=7)
    assert top == 0x3FFF | 0x3FFF << 16 | 0x3FFF << 32 | 7 << 49 | 3 << 62


def test_matrix_descriptor_decode_round_trip() -> None:
    fields = MatrixDescriptor(start_address=0x1230, lbo=8192, sbo=512, swizzle="64B", base_offset=3)
    assert MatrixDescriptor.decode(fields.encode()) == fields
    assert MatrixDescriptor.decode(0x4000004000010040) == MatrixDescriptor(0x400, 16, 1024, "128B")
    with pytest.raises(PtxDslError, match="64-bit unsigned int"):
        MatrixDescriptor.decode(1 << 64)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"start_address": 8, "lbo": 16, "sbo": 16}, "start_address must be a multiple of 16"),
        ({"start_address": 1 << 18, "lbo": 16, "sbo": 16}, "must be below 262144 bytes"),
        ({"start_address": 0, "lbo": -16, "sbo": 16}, "lbo must be a non-negative int"),
        ({"start_address": 0, "lbo": 16, "sbo": 24}, "sbo must be a multiple of 16"),
        ({"start_address": 0, "lbo": 16, "sbo": 16, "base_offset": 8}, "base_offset must be 0..7"),
        ({"start_address": 0, "lbo": 16, "sbo": 16, "swizzle": "256B"}, "swizzle must be one of"),
    ],
)
def test_matrix_descriptor_rejects_bad_fields(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(PtxDslError, match=match) as info:
        matrix_descriptor(**kwargs)  # type: ignore[arg-type]
    assert Path(__file__).name in str(info.value)


# ------------------------------------------------------------------------------------ layouts


@pytest.mark.parametrize(
    ("dtype", "shape", "major", "swizzle", "align", "lbo", "sbo"),
    [
        (bf16, (64, 64), "K", "128B", 1024, 16, 1024),
        (bf16, (128, 128), "K", "128B", 1024, 16, 1024),
        (bf16, (64, 32), "K", "64B", 512, 16, 512),
        (f16, (64, 16), "K", "32B", 256, 16, 256),
        (e4m3, (64, 32), "K", "32B", 256, 16, 256),
        (s8, (128, 128), "K", "128B", 1024, 16, 1024),
        (tf32, (64, 8), "K", "32B", 256, 16, 256),
        (f32, (64, 32), "K", "128B", 1024, 16, 1024),
        (b1, (64, 256), "K", "32B", 256, 16, 256),
        (bf16, (64, 48), "K", "32B", 256, 16, 256),
        (bf16, (16, 128), "MN", "128B", 1024, 16 * 128, 1024),
        (bf16, (64, 64), "MN", "128B", 1024, 64 * 128, 1024),
        (f16, (16, 32), "MN", "64B", 512, 16 * 64, 512),
        (f16, (32, 16), "MN", "32B", 256, 32 * 32, 256),
        (f16, (32, 8), "MN", None, 128, 128, 32 * 16),
    ],
)
def test_canonical_layout_choice(dtype, shape, major, swizzle, align, lbo, sbo) -> None:  # type: ignore[no-untyped-def]
    layout = gmma_layout(dtype, shape, major)
    assert (layout.swizzle, layout.align, layout.lbo, layout.sbo) == (swizzle, align, lbo, sbo)


def test_explicit_swizzle_and_interleave() -> None:
    inter = gmma_layout(bf16, (64, 64), "K", swizzle=None)
    assert (inter.swizzle, inter.lbo, inter.sbo, inter.align) == (None, 64 * 16, 128, 128)
    assert gmma_layout(bf16, (64, 64), "K", swizzle="32B").sbo == 256
    with pytest.raises(PtxDslError, match="swizzle 128B needs rows of a multiple of 128 bytes"):
        gmma_layout(bf16, (64, 32), "K", swizzle="128B")


def _hw_address(layout: GmmaLayout, start: int, mn: int, k: int) -> int:
    """Where wgmma reads element (mn, k) of a sub-matrix whose descriptor starts at ``start``.

    This is the canonical layout of the PTX ISA / CuTe ``make_gmma_desc`` written out in bytes
    (T = 16 bytes, W = swizzle width): K-major interleave ((8,n),2):((T,SBO),LBO), K-major
    swizzled ((8,n),2):((W,SBO),T) over 32 contiguous K bytes, MN-major interleave
    ((T,n),(8,k)):((1,SBO),(T,LBO)), MN-major swizzled ((W,n),(8,k)):((1,LBO),(W,SBO)), with
    the swizzle applied to the resulting address.
    """
    eb = layout.bits
    w = layout.mode.width
    if layout.major == "K":
        kb = k * eb // 8
        if layout.swizzle is None:
            addr = start + (mn % 8) * 16 + (mn // 8) * layout.sbo + (kb // 16) * layout.lbo
            addr += kb % 16
        else:
            addr = start + (mn % 8) * w + (mn // 8) * layout.sbo + kb
    else:
        mnb = mn * eb // 8
        if layout.swizzle is None:
            addr = (
                start + (mnb // 16) * layout.sbo + mnb % 16 + (k % 8) * 16 + (k // 8) * layout.lbo
            )
        else:
            addr = start + mnb % w + (mnb // w) * layout.lbo + (k % 8) * w + (k // 8) * layout.sbo
    return swizzle_offset(addr, layout.swizzle)


@pytest.mark.parametrize(
    ("dtype", "shape", "major", "swizzle", "block_mn"),
    [
        (bf16, (64, 128), "K", "auto", 64),
        (bf16, (128, 64), "K", "64B", 64),
        (bf16, (64, 32), "K", "32B", 64),
        (bf16, (64, 64), "K", None, 64),
        (e4m3, (64, 128), "K", "auto", 64),
        (tf32, (32, 64), "K", "auto", 32),
        (b1, (16, 512), "K", "auto", 16),
        (bf16, (64, 256), "MN", "auto", 256),
        (f16, (32, 128), "MN", "auto", 128),
        (f16, (32, 64), "MN", "64B", 64),
        (f16, (16, 64), "MN", "32B", 32),
        (f16, (32, 64), "MN", None, 64),
    ],
)
def test_layout_matches_what_a_descriptor_describes(dtype, shape, major, swizzle, block_mn) -> None:  # type: ignore[no-untyped-def]
    layout = gmma_layout(dtype, shape, major, swizzle)
    k_step = 32 * 8 // layout.bits  # one wgmma instruction's K
    for mn0 in range(0, layout.mn, block_mn):
        for k0 in range(0, layout.k, k_step):
            start = layout.origin(mn0, k0)
            for mn in range(block_mn):
                for k in range(0, k_step, max(1, 8 // layout.bits)):
                    row, col = (mn0 + mn, k0 + k) if major == "K" else (k0 + k, mn0 + mn)
                    stored = layout.offset(row, col)
                    assert _hw_address(layout, start, mn, k) == stored, (mn0, k0, mn, k)


def test_layout_offsets_fill_each_chunk_contiguously() -> None:
    # One TMA box of rows x W bytes (with the same swizzle) fills one chunk exactly.
    layout = gmma_layout(bf16, (64, 128), "K")
    per_chunk = layout.mode.width // 2
    for chunk in range(2):
        offsets = {
            layout.offset(r, c) // 2 for r in range(64) for c in range(chunk * 64, chunk * 64 + 64)
        }
        assert offsets == set(range(chunk * 64 * per_chunk, (chunk + 1) * 64 * per_chunk))
    assert layout.offset(1, 0) == 0x90 and layout.offset(0, 64) == 64 * 128


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((bf16, (64, 64), "MN"), None),
        ((e4m3, (32, 64), "MN"), "MN-major .* exist only for f16/bf16, got e4m3"),
        ((u32, (64, 64), "K"), "a GMMA tile holds one of"),
        ((bf16, (64, 64), "T"), "major must be 'K' or 'MN'"),
        ((bf16, (64,), "K"), r"shape is \(rows, cols\) or \(stages, rows, cols\)"),
        ((bf16, (60, 64), "K"), "needs a multiple of 8 rows, got 60"),
        ((bf16, (64, 12), "K"), "multiple of 16 bytes"),
        ((bf16, (64, 8), "K"), "K covering whole wgmma steps"),
        ((bf16, (8, 64), "MN"), "needs K .* to be a multiple of 16, got 8"),
        ((b1, (64, 100), "K"), "multiple of 16 bytes"),
    ],
)
def test_gmma_layout_validation(args: tuple[object, ...], match: str | None) -> None:
    if match is None:
        assert gmma_layout(*args).major == "MN"  # type: ignore[arg-type]
        return
    with pytest.raises(PtxDslError, match=match):
        gmma_layout(*args)  # type: ignore[arg-type]


def test_origin_rules() -> None:
    k_major = gmma_layout(bf16, (128, 128), "K")
    assert k_major.origin(64, 0) == 64 * 128
    assert k_major.origin(0, 16) == 32
    assert k_major.origin(8, 80) == 128 * 128 + 8 * 128 + 32
    mn_major = gmma_layout(bf16, (32, 128), "MN")
    assert mn_major.origin(64, 16) == 32 * 128 + 16 * 128
    with pytest.raises(PtxDslError, match="multiple of 8 rows and 32 bytes of K"):
        k_major.origin(4, 0)
    with pytest.raises(PtxDslError, match="multiple of 8 K rows and 128 bytes of MN"):
        mn_major.origin(32, 0)
    with pytest.raises(PtxDslError, match="outside the tile"):
        k_major.origin(128, 0)


# ------------------------------------------------------------------------------------- kernels


def test_wgmma_tile_declares_aligned_shared_memory(assemble) -> None:  # type: ignore[no-untyped-def]
    tiles: list[object] = []

    @kernel(arch="sm_90a")
    def k() -> None:
        tiles.append(wgmma_tile(bf16, (64, 64)))
        tiles.append(wgmma_tile(f16, (2, 16, 64), major="MN", name="sB"))
        tiles.append(wgmma_tile(b1, (64, 256), align=2048))
        tiles.append(wgmma_tile(bf16, (64, 64), swizzle=None))

    text = k.ptx()
    assert [ln.strip() for ln in text.splitlines() if ".shared" in ln] == [
        ".shared .align 1024 .b8 smem_0[8192];",
        ".shared .align 1024 .b8 sB[4096];",
        ".shared .align 2048 .b8 smem_1[2048];",
        ".shared .align 128 .b8 smem_2[8192];",
    ]
    a, b, bits, inter = tiles
    assert isinstance(a, smem.SharedAlloc) and a.swizzle == "128B" and a.gmma_major == "K"
    assert isinstance(a.gmma_layout, GmmaLayout) and a.gmma_layout.mn == 64
    assert isinstance(b, smem.SharedAlloc) and b.gmma_layout.stages == 2  # type: ignore[union-attr]
    assert isinstance(bits, smem.SharedAlloc) and bits.nbytes == 64 * 256 // 8
    assert isinstance(inter, smem.SharedAlloc) and inter.swizzle is None
    assemble(text)


def test_apply_swizzle_emits_three_instructions(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        off = reg.scalar(u32, 0x2A0)
        wide = reg.scalar(u64, 0x2A0)
        out = apply_swizzle(off, "128B")
        assert isinstance(out, type(off)) and out.type is u32
        apply_swizzle(wide, "64B")
        apply_swizzle(off, "32B")
        assert apply_swizzle(off, None) is off
        assert apply_swizzle(0x2A0, "128B") == swizzle_offset(0x2A0, "128B") == 0x2F0

    assert body(k.ptx()) == [
        "mov.u32 %r0, 672;",
        "mov.u64 %rd0, 672;",
        "and.b32 %r1, %r0, 0x380;",
        "shr.u32 %r2, %r1, 3;",
        "xor.b32 %r3, %r0, %r2;",
        "and.b64 %rd1, %rd0, 0x180;",
        "shr.u64 %rd2, %rd1, 3;",
        "xor.b64 %rd3, %rd0, %rd2;",
        "and.b32 %r4, %r0, 0x80;",
        "shr.u32 %r5, %r4, 3;",
        "xor.b32 %r6, %r0, %r5;",
        "ret;",
    ]
    assert "smem.apply_swizzle" in ptx.MULTI_INSTRUCTION_HELPERS
    assemble(k.ptx())


def test_runtime_descriptor_helper(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        sA = wgmma_tile(bf16, (2, 64, 64))
        plain = smem.alloc(f16, (64, 64), align=1024)
        d0 = ptx.wgmma.descriptor(sA[1], k=16)
        assert d0.type is u64
        ptx.wgmma.descriptor(subtile(sA[0], mn=8))
        ptx.wgmma.descriptor(plain, lbo=16, sbo=1024, swizzle="128B", base_offset=1)
        ptx.wgmma.descriptor(smem.base(plain), lbo=4096, sbo=128, swizzle=None)

    assert body(k.ptx()) == [
        "mov.u32 %r0, smem_0+8224;",
        "bfe.u32 %r1, %r0, 4, 14;",
        "cvt.u64.u32 %rd0, %r1;",
        "or.b64 %rd1, %rd0, 0x4000004000010000;",
        "mov.u32 %r2, smem_0+1024;",
        "bfe.u32 %r3, %r2, 4, 14;",
        "cvt.u64.u32 %rd2, %r3;",
        "or.b64 %rd3, %rd2, 0x4000004000010000;",
        "mov.u32 %r4, smem_1;",
        "bfe.u32 %r5, %r4, 4, 14;",
        "cvt.u64.u32 %rd4, %r5;",
        "or.b64 %rd5, %rd4, 0x4002004000010000;",
        "mov.u32 %r6, smem_1;",
        "bfe.u32 %r7, %r6, 4, 14;",
        "cvt.u64.u32 %rd6, %r7;",
        "or.b64 %rd7, %rd6, 0x0000000801000000;",
        "ret;",
    ]
    assert "ptx.wgmma.descriptor" in ptx.MULTI_INSTRUCTION_HELPERS
    assemble(k.ptx())


def _fails(make: Callable[[SimpleNamespace], object], match: str) -> None:
    @kernel(arch="sm_90a")
    def k() -> None:
        ns = SimpleNamespace(
            tile=wgmma_tile(bf16, (64, 64)),
            staged=wgmma_tile(bf16, (2, 64, 64)),
            plain=smem.alloc(bf16, (64, 64)),
            r=reg.scalar(u32),
            w=reg.scalar(u64),
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
        (lambda s: wgmma_tile(bf16, (64, 64), align=512), "alignment of at least 1024 bytes"),
        (lambda s: wgmma_tile(e4m3, (64, 64), major="MN"), "exist only for f16/bf16"),
        (lambda s: apply_swizzle(s.r, "48B"), "swizzle must be one of"),
        (lambda s: apply_swizzle(1.5, "128B"), "32- or 64-bit integer register or an int"),
        (lambda s: ptx.wgmma.descriptor(s.plain), "needs lbo=, sbo= and swizzle="),
        (
            lambda s: ptx.wgmma.descriptor(s.plain, lbo=16, sbo=1024, swizzle="128B", k=16),
            "select a sub-tile of a smem.wgmma_tile allocation only",
        ),
        (
            lambda s: ptx.wgmma.descriptor(s.w, lbo=16, sbo=1024, swizzle="128B"),
            "must be a 32-bit shared address",
        ),
        (lambda s: ptx.wgmma.descriptor(s.tile, k=8), "multiple of 8 rows and 32 bytes of K"),
        (lambda s: ptx.wgmma.descriptor(s.staged), "has 2 stages; index one"),
        (lambda s: ptx.wgmma.descriptor(s.tile[0]), "has no stage dimension"),
        (lambda s: ptx.wgmma.descriptor(s.tile, lbo=24), "lbo must be a multiple of 16"),
        (lambda s: subtile(s.plain, mn=64), "was not allocated with smem.wgmma_tile"),
        (lambda s: ptx.wgmma.descriptor(3.0, lbo=16, sbo=16, swizzle=None), "shared allocation"),
    ],
)
def test_gmma_errors_point_at_the_call(make, match) -> None:  # type: ignore[no-untyped-def]
    _fails(make, match)


def test_module_table_lists_its_multi_instruction_helpers() -> None:
    assert set(gmma.MULTI_INSTRUCTION) <= set(ptx.MULTI_INSTRUCTION_HELPERS)
    assert "bfe.u32 s, a, 4, 14" in ptx.MULTI_INSTRUCTION_HELPERS["ptx.wgmma.descriptor"]
