"""pyptx.dsl.umma: Blackwell instruction and shared-memory descriptors.

Known bit patterns are written out by hand from the PTX ISA tables (field << lsb); the
runtime helpers are traced, compared line by line and assembled with ptxas.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from dsl_testing import body

from pyptx import kernel, ptx, reg, smem
from pyptx.dsl import umma
from pyptx.dsl.errors import PtxDslError
from pyptx.types import (
    bf16,
    e2m1,
    e3m2,
    e4m3,
    e5m2,
    f16,
    f32,
    pred,
    s8,
    s32,
    tf32,
    u8,
    u32,
    u64,
    ue4m3,
    ue8m0,
)

# --------------------------------------------------------------------------- instruction descriptor

IDESC_PATTERNS: list[tuple[str, dict[str, Any], int]] = [
    # f16 kind, bf16 x bf16 -> f32, M=128, N=256: D=1<<4, A=1<<7, B=1<<10, N=32<<17, M=8<<24
    ("bf16_128x256", dict(kind="f16", m=128, n=256, a_type=bf16, b_type=bf16), 0x08400490),
    # f16 x f16 -> f16, M=64, N=8: D=0, N=1<<17, M=4<<24
    ("f16_acc_64x8", dict(kind="f16", m=64, n=8, a_type=f16, b_type=f16, d_type=f16), 0x04020000),
    # tf32, both transposed, M=128, N=128: D=1<<4, A=B=2, transpose bits 15/16, N=16, M=8
    (
        "tf32_transposed",
        dict(
            kind="tf32", m=128, n=128, a_type=tf32, b_type=tf32, transpose_a=True, transpose_b=True
        ),
        0x08218910,
    ),
    # i8 s8 x u8 -> s32 saturating, M=128, N=64: sat 1<<3, D=2<<4, A=1<<7, N=8<<17, M=8<<24
    (
        "i8_saturate",
        dict(kind="i8", m=128, n=64, a_type=s8, b_type=u8, d_type=s32, saturate=True),
        0x081000A8,
    ),
    # f8f6f4 e4m3 x e2m1 -> f32, negate A, max shift 16: B=5<<10, neg 1<<13, shift 2<<30
    (
        "f8f6f4_neg_shift",
        dict(kind="f8f6f4", m=128, n=256, a_type=e4m3, b_type=e2m1, negate_a=True, max_shift=16),
        0x88403410,
    ),
    # sparse f16 x f16 -> f32, M=128, N=128 (0x08200010) plus sparse bit 2 and selector 3
    (
        "f16_sparse",
        dict(kind="f16", m=128, n=128, a_type=f16, b_type=f16, sparse=True, sparsity_selector=3),
        0x08200017,
    ),
    # mxf8f6f4 e5m2 x e3m2, ue8m0, SFA id 1, SFB id 3, M=128, N=128:
    # SFB 3<<4, A 1<<7, B 4<<10, N 16<<17, scale 1<<23, M (128>>7)<<27, SFA 1<<29
    (
        "mxf8f6f4_ids",
        dict(kind="mxf8f6f4", m=128, n=128, a_type=e5m2, b_type=e3m2, a_scale_id=1, b_scale_id=3),
        0x28A010B0,
    ),
    # mxf4nvf4 NVFP4 (ue4m3), M=256, N=256, K=96, ids 2/2: SFB 2<<4, A 1<<7, B 1<<10,
    # N 32<<17, scale 0, M 2<<27, SFA 2<<29, K96 1<<31
    (
        "nvfp4_k96",
        dict(
            kind="mxf4nvf4",
            m=256,
            n=256,
            a_type=e2m1,
            b_type=e2m1,
            scale_type=ue4m3,
            a_scale_id=2,
            b_scale_id=2,
            k=96,
        ),
        0xD04004A0,
    ),
    # mxf4 (ue8m0 default), M=128, N=8: A 1<<7, B 1<<10, N 1<<17, scale 1<<23, M 1<<27
    ("mxf4_128x8", dict(kind="mxf4", m=128, n=8, a_type=e2m1, b_type=e2m1), 0x08820480),
    ("kind_prefix", dict(kind="kind::mxf4", m=128, n=8, a_type=e2m1, b_type=e2m1), 0x08820480),
]


@pytest.mark.parametrize(("args", "expected"), [(a, e) for _, a, e in IDESC_PATTERNS],
                         ids=[n for n, _, _ in IDESC_PATTERNS])  # fmt: skip
def test_instr_desc_known_bits(args: dict[str, Any], expected: int) -> None:
    args = dict(args)
    kind = args.pop("kind")
    assert umma.instr_desc(kind, **args) == expected


def test_block_scaled_m_field_equals_m_over_16_at_bit_24() -> None:
    """The ISA's M >> 7 at bits 27-28 is CUTLASS's M >> 4 at bits 24-28 for M = 128/256."""
    for m in (128, 256):
        v = umma.instr_desc("mxf8f6f4", m=m, n=64, a_type=e4m3, b_type=e4m3)
        assert (v >> 24) & 0x1F == m >> 4


def test_decode_instr_desc_round_trips() -> None:
    v = umma.instr_desc("f16", m=64, n=200, a_type=bf16, b_type=bf16, transpose_b=True)
    fields = umma.decode_instr_desc("f16", v)
    assert fields["n"] == 200 >> 3 and fields["m"] == 64 >> 4
    assert fields["transpose_b"] == 1 and fields["transpose_a"] == 0
    assert fields["a_format"] == fields["b_format"] == 1 and fields["d_format"] == 1
    assert sum(val << umma.INSTR_DESC_LAYOUTS["f16"][k][0] for k, val in fields.items()) == v


def test_layouts_do_not_overlap() -> None:
    for kind, layout in umma.INSTR_DESC_LAYOUTS.items():
        used = 0
        for lsb, width in layout.values():
            mask = ((1 << width) - 1) << lsb
            assert used & mask == 0, kind
            used |= mask
        assert used < 1 << 32
    assert set(umma.INSTR_DESC_KINDS) == {
        "f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4",
    }  # fmt: skip


# --------------------------------------------------------------------------- smem descriptor

SMEM_PATTERNS: list[tuple[str, int, dict[str, Any], int]] = [
    # CUTLASS SM100 K-major 128B: LBO 16 (1<<16), SBO 1024 (64<<32), 0b001<<46, 2<<61
    ("k128b_zero", 0, dict(lbo=16, sbo=1024, swizzle="128B"), 0x4000404000010000),
    ("k128b_0x400", 0x400, dict(lbo=16, sbo=1024, swizzle="128B"), 0x4000404000010040),
    # no swizzle: start 0x1230 -> 0x123, LBO 128 -> 8<<16, SBO 256 -> 16<<32
    ("interleave", 0x1230, dict(lbo=128, sbo=256, swizzle=None), 0x0000401000080123),
    # 32B (6<<61), base offset 3 (<<49), absolute LBO (1<<52), max start address 0x3FFF0
    (
        "all_fields",
        0x3FFF0,
        dict(lbo=0x20, sbo=0x40, swizzle="32B", base_offset=3, lbo_mode="absolute"),
        0xC016400400023FFF,
    ),
    ("b128_atom32", 0, dict(lbo=16, sbo=512, swizzle="128B_base32B"), 0x2000402000010000),
    ("b64", 0, dict(lbo=16, sbo=512, swizzle="64B"), 0x8000402000010000),
    ("none_string", 0, dict(lbo=16, sbo=512, swizzle="none"), 0x0000402000010000),
]


@pytest.mark.parametrize(("start", "args", "expected"), [(s, a, e) for _, s, a, e in SMEM_PATTERNS],
                         ids=[n for n, *_ in SMEM_PATTERNS])  # fmt: skip
def test_smem_desc_known_bits(start: int, args: dict[str, Any], expected: int) -> None:
    assert umma.smem_desc(start, **args) == expected


def test_smem_desc_fixed_version_bits() -> None:
    v = umma.smem_desc(0, lbo=0, sbo=0, swizzle=None)
    assert v == 1 << 46
    assert umma.decode_smem_desc(v)["version"] == 0b001


def test_decode_smem_desc() -> None:
    v = umma.smem_desc(0x2000, lbo=32, sbo=2048, swizzle="64B", base_offset=5)
    assert umma.decode_smem_desc(v) == {
        "start_address": 0x200, "lbo": 2, "sbo": 128, "version": 1,
        "base_offset": 5, "lbo_mode": 0, "swizzle": 4,
    }  # fmt: skip


# --------------------------------------------------------------------------- builder errors


def _here(fn: Callable[[], object], fragment: str) -> None:
    """``fn`` raises PtxDslError containing ``fragment``, located at its own last line."""
    with pytest.raises(PtxDslError) as info:
        fn()
    err = info.value
    lines, start = inspect.getsourcelines(fn)
    assert err.filename is not None and Path(err.filename).name == Path(__file__).name
    assert err.lineno is not None and start <= err.lineno < start + len(lines)
    assert f"{Path(__file__).name}:{err.lineno}" in str(err)
    assert "pyptx/dsl" not in str(err)
    assert fragment in err.message, err.message


BUILDER_ERRORS: list[tuple[str, Callable[[], object], str]] = [
    ("bad_kind", lambda: umma.instr_desc("bf16", m=128, n=8, a_type=bf16, b_type=bf16),
     "kind must be one of f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4"),
    ("bad_m", lambda: umma.instr_desc("f16", m=96, n=8, a_type=bf16, b_type=bf16),
     "M for .kind::f16 must be one of 32, 64, 128, 256, got 96"),
    ("scaled_m", lambda: umma.instr_desc("mxf4", m=64, n=8, a_type=e2m1, b_type=e2m1),
     "M for .kind::mxf4 must be one of 128, 256, got 64"),
    ("bad_n", lambda: umma.instr_desc("f16", m=128, n=12, a_type=bf16, b_type=bf16),
     "N must be a multiple of 8 in 8..256, got 12"),
    ("n_for_m256", lambda: umma.instr_desc("f16", m=256, n=24, a_type=bf16, b_type=bf16),
     "N must be a multiple of 16 when M is 256"),
    ("wrong_type", lambda: umma.instr_desc("f16", m=128, n=8, a_type=e4m3, b_type=bf16),
     "a_type for .kind::f16 must be one of f16, bf16, got 'e4m3'"),
    ("bf16_f16_acc", lambda: umma.instr_desc("f16", m=64, n=8, a_type=bf16, b_type=bf16,
                                             d_type=f16),
     "an f16 accumulator needs f16 A and B"),
    ("tf32_d", lambda: umma.instr_desc("tf32", m=64, n=8, a_type=tf32, b_type=tf32, d_type=f16),
     "d_type for .kind::tf32 must be f32, got 'f16'"),
    ("i8_negate", lambda: umma.instr_desc("i8", m=64, n=8, a_type=s8, b_type=s8, negate_b=True),
     ".kind::i8 does not support negate_b"),
    ("saturate_float", lambda: umma.instr_desc("f16", m=64, n=8, a_type=f16, b_type=f16,
                                               saturate=True),
     "saturate is only defined for .kind::i8"),
    ("mxf4_transpose", lambda: umma.instr_desc("mxf4", m=128, n=8, a_type=e2m1, b_type=e2m1,
                                               transpose_a=True),
     ".kind::mxf4 does not support transpose_a"),
    ("nvf4_scale_type", lambda: umma.instr_desc("mxf4nvf4", m=128, n=8, a_type=e2m1,
                                                b_type=e2m1),
     "needs scale_type=ue4m3 (NVFP4) or scale_type=ue8m0 (MXFP4)"),
    ("mxf8_ue4m3", lambda: umma.instr_desc("mxf8f6f4", m=128, n=8, a_type=e4m3, b_type=e4m3,
                                           scale_type=ue4m3),
     "scale_type for .kind::mxf8f6f4 must be ue8m0, got 'ue4m3'"),
    ("mxf4_scale_id", lambda: umma.instr_desc("mxf4", m=128, n=8, a_type=e2m1, b_type=e2m1,
                                              a_scale_id=1),
     "a_scale_id for .kind::mxf4 must be one of 0, 2, got 1"),
    ("scale_id_on_dense", lambda: umma.instr_desc("f16", m=64, n=8, a_type=f16, b_type=f16,
                                                  b_scale_id=2),
     "are fields of the block-scaled kinds"),
    ("shift_on_scaled", lambda: umma.instr_desc("mxf4", m=128, n=8, a_type=e2m1, b_type=e2m1,
                                                max_shift=8),
     "are not fields of the .kind::mxf4 instruction descriptor"),
    ("k_on_mxf8", lambda: umma.instr_desc("mxf8f6f4", m=128, n=8, a_type=e4m3, b_type=e4m3,
                                          k=96),
     "k= selects K=96 for .kind::mxf4/mxf4nvf4 only"),
    ("bad_shift", lambda: umma.instr_desc("f16", m=64, n=8, a_type=f16, b_type=f16,
                                          max_shift=4),
     "max_shift must be 0, 8, 16 or 32, got 4"),
    ("selector_range", lambda: umma.instr_desc("f16", m=64, n=8, a_type=f16, b_type=f16,
                                               sparsity_selector=4),
     "sparsity_selector for .kind::f16 must be one of 0, 1, 2, 3, got 4"),
    ("flag_not_bool", lambda: umma.instr_desc("f16", m=64, n=8, a_type=f16, b_type=f16,
                                              transpose_a=1),  # type: ignore[arg-type]
     "transpose_a must be True or False, got 1"),
    ("misaligned_start", lambda: umma.smem_desc(0x408, lbo=16, sbo=1024, swizzle="128B"),
     "start_address must be a multiple of 16"),
    ("start_too_far", lambda: umma.smem_desc(1 << 18, lbo=16, sbo=1024, swizzle="128B"),
     "start_address must be a multiple of 16 in 0..262128"),
    ("bad_swizzle", lambda: umma.smem_desc(0, lbo=16, sbo=1024, swizzle="256B"),
     "swizzle must be one of None, 32B, 64B, 128B, 128B_base32B"),
    ("bad_base_offset", lambda: umma.smem_desc(0, lbo=16, sbo=1024, swizzle="128B",
                                               base_offset=8),
     "base_offset is 3 bits (0..7), got 8"),
    ("bad_lbo_mode", lambda: umma.smem_desc(0, lbo=16, sbo=64, swizzle=None, lbo_mode="abs"),
     "lbo_mode must be 'relative' (byte offset) or 'absolute'"),
    ("decode_range", lambda: umma.decode_smem_desc(-1),
     "a shared memory descriptor is a 64-bit int"),
]  # fmt: skip


@pytest.mark.parametrize(("fn", "fragment"), [(f, m) for _, f, m in BUILDER_ERRORS],
                         ids=[n for n, *_ in BUILDER_ERRORS])  # fmt: skip
def test_builder_mistakes(fn: Callable[[], object], fragment: str) -> None:
    _here(fn, fragment)


def test_instr_desc_rejects_registers_outside_a_trace_helper() -> None:
    def k() -> None:
        umma.instr_desc("f16", m=64, n=8, a_type=f16, b_type=f16, negate_a=reg.scalar(u32))

    with pytest.raises(PtxDslError, match=r"for register fields use umma\.instr_desc_reg"):
        kernel(arch="sm_100a")(k).ptx()


# --------------------------------------------------------------------------- runtime helpers


def traced(fn: Callable[[], None], arch: str = "sm_100a") -> str:
    return kernel(arch=arch)(fn).ptx()


def smem_desc_from_alloc() -> None:
    sa = smem.alloc(bf16, (2, 64, 64), swizzle="128B", align=1024)
    umma.smem_desc_reg(sa, lbo=16, sbo=1024, swizzle="128B")
    umma.smem_desc_reg(sa[1], lbo=16, sbo=1024, swizzle="128B", offset=32)


def smem_desc_from_register() -> None:
    a = reg.scalar(u32)
    umma.smem_desc_reg(a, lbo=16, sbo=512, swizzle="64B")
    d = umma.smem_desc_reg(a, lbo=128, sbo=256, swizzle=None, offset=-16)
    umma.smem_desc_advance(d, 32)


def instr_desc_registers() -> None:
    umma.instr_desc_reg("f16", m=128, n=256, a_type=bf16, b_type=bf16)
    sfa, sfb = reg.scalar(u32), reg.scalar(u32)
    umma.instr_desc_reg("mxf8f6f4", m=128, n=128, a_type=e5m2, b_type=e3m2, a_scale_id=sfa,
                        b_scale_id=sfb)  # fmt: skip
    umma.instr_desc_reg("mxf4nvf4", m=128, n=8, a_type=e2m1, b_type=e2m1, scale_type=ue8m0,
                        b_scale_id=sfb)  # fmt: skip


def descriptors_into_mma() -> None:
    slot = smem.alloc(u32, 1, align=16)
    sa = smem.alloc(f16, (128, 64), swizzle="128B", align=1024)
    sb = smem.alloc(f16, (128, 64), swizzle="128B", align=1024)
    ptx.tcgen05.alloc(slot, 128)
    t = smem.load(u32, slot)
    adesc = umma.smem_desc_reg(sa, lbo=16, sbo=1024, swizzle="128B")
    bdesc = umma.smem_desc_reg(sb, lbo=16, sbo=1024, swizzle="128B")
    idesc = umma.instr_desc("f16", m=128, n=128, a_type=f16, b_type=f16, d_type=f32)
    ptx.tcgen05.mma(t, adesc, bdesc, idesc, kind="f16", enable_input_d=reg.scalar(pred))
    ptx.tcgen05.mma(t, umma.smem_desc_advance(adesc, 32), umma.smem_desc_advance(bdesc, 32),
                    umma.instr_desc_reg("f16", m=128, n=128, a_type=f16, b_type=f16),
                    kind="f16", enable_input_d=True)  # fmt: skip
    ptx.tcgen05.dealloc(t, 128)


RUNTIME: list[tuple[Callable[[], None], list[str]]] = [
    (smem_desc_from_alloc, [
        "mov.u32 %r0, smem_0;",
        "shr.u32 %r1, %r0, 4;",
        "cvt.u64.u32 %rd0, %r1;",
        "bfi.b64 %rd1, %rd0, 0x4000404000010000, 0, 14;",
        "mov.u32 %r2, smem_0+8224;",
        "shr.u32 %r3, %r2, 4;",
        "cvt.u64.u32 %rd2, %r3;",
        "bfi.b64 %rd3, %rd2, 0x4000404000010000, 0, 14;",
    ]),
    (smem_desc_from_register, [
        "shr.u32 %r1, %r0, 4;",
        "cvt.u64.u32 %rd0, %r1;",
        "bfi.b64 %rd1, %rd0, 0x8000402000010000, 0, 14;",
        "add.u32 %r2, %r0, -16;",
        "shr.u32 %r3, %r2, 4;",
        "cvt.u64.u32 %rd2, %r3;",
        "bfi.b64 %rd3, %rd2, 0x0000401000080000, 0, 14;",
        "add.s64 %rd4, %rd3, 2;",
    ]),
    (instr_desc_registers, [
        "mov.b32 %r0, 0x08400490;",
        "bfi.b32 %r3, %r1, 0x08A01080, 29, 2;",
        "bfi.b32 %r3, %r2, %r3, 4, 2;",
        "bfi.b32 %r4, %r2, 0x08820480, 4, 2;",
    ]),
    (descriptors_into_mma, [
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [smem_0], 128;",
        "ld.shared.u32 %r0, [smem_0];",
        "mov.u32 %r1, smem_1;",
        "shr.u32 %r2, %r1, 4;",
        "cvt.u64.u32 %rd0, %r2;",
        "bfi.b64 %rd1, %rd0, 0x4000404000010000, 0, 14;",
        "mov.u32 %r3, smem_2;",
        "shr.u32 %r4, %r3, 4;",
        "cvt.u64.u32 %rd2, %r4;",
        "bfi.b64 %rd3, %rd2, 0x4000404000010000, 0, 14;",
        "tcgen05.mma.cta_group::1.kind::f16 [%r0], %rd1, %rd3, 0x08200010, %p0;",
        "add.s64 %rd4, %rd1, 2;",
        "add.s64 %rd5, %rd3, 2;",
        "mov.b32 %r5, 0x08200010;",
        "tcgen05.mma.cta_group::1.kind::f16 [%r0], %rd4, %rd5, %r5, 1;",
        "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r0, 128;",
    ]),
]  # fmt: skip


@pytest.mark.parametrize(("fn", "lines"), RUNTIME, ids=[fn.__name__ for fn, _ in RUNTIME])
@pytest.mark.parametrize("arch", ["sm_100a", "sm_103a", "sm_110a"])
def test_runtime_helpers_emit_and_assemble(
    fn: Callable[[], None], lines: list[str], arch: str, assemble: Callable[[str], None]
) -> None:
    text = traced(fn, arch)
    assert body(text) == [*lines, "ret;"]
    assemble(text)


def test_multi_instruction_rows_reach_ptx_table() -> None:
    for name in ("umma.smem_desc_reg", "umma.instr_desc_reg"):
        assert name in umma.MULTI_INSTRUCTION
        assert ptx.MULTI_INSTRUCTION_HELPERS[name] == umma.MULTI_INSTRUCTION[name]
    assert "bfi.b64 desc, w, C, 0, 14" in umma.MULTI_INSTRUCTION["umma.smem_desc_reg"]


def test_runtime_descriptor_matches_the_constant_builder() -> None:
    """The register-built descriptor's constant part equals smem_desc(0, ...)."""
    text = traced(smem_desc_from_alloc)
    const = umma.smem_desc(0, lbo=16, sbo=1024, swizzle="128B")
    assert f"0x{const:016X}" in text


def _helper_line(fn: Callable[[], None]) -> PtxDslError:
    with pytest.raises(PtxDslError) as info:
        traced(fn)
    err = info.value
    lines, start = inspect.getsourcelines(fn)
    marked = start + next(i for i, t in enumerate(lines) if "# <- error" in t)
    assert err.lineno == marked and err.filename is not None
    assert Path(err.filename).name == Path(__file__).name
    assert "pyptx/dsl" not in str(err)
    return err


def _desc_from_u64() -> None:
    umma.smem_desc_reg(reg.scalar(u64), lbo=16, sbo=64, swizzle=None)  # <- error


def _desc_from_addr() -> None:
    umma.smem_desc_reg(ptx.addr(reg.scalar(u32)), lbo=16, sbo=64, swizzle=None)  # <- error


def _desc_bad_offset() -> None:
    umma.smem_desc_reg(reg.scalar(u32), lbo=16, sbo=64, swizzle=None, offset=8)  # <- error


def _advance_bad_bytes() -> None:
    umma.smem_desc_advance(reg.scalar(u64), 24)  # <- error


def _advance_narrow() -> None:
    umma.smem_desc_advance(reg.scalar(u32), 32)  # <- error


def _idesc_wide_field() -> None:
    sfa = reg.scalar(u64)
    umma.instr_desc_reg("mxf4", m=128, n=8, a_type=e2m1, b_type=e2m1, a_scale_id=sfa)  # <- error


@pytest.mark.parametrize(
    ("fn", "fragment"),
    [
        (_desc_from_u64, "address must be a 32-bit integer register, got %rd0 of type .u64"),
        (_desc_from_addr, "takes a shared allocation/slice or a 32-bit register"),
        (_desc_bad_offset, "offset must be an int multiple of 16 bytes, got 8"),
        (_advance_bad_bytes, "nbytes must be an int multiple of 16, got 24"),
        (_advance_narrow, "desc must be a 64-bit integer register, got %r0 of type .u32"),
        (_idesc_wide_field, "a_scale_id must be a 32-bit integer register"),
    ],
    ids=lambda v: getattr(v, "__name__", "msg"),
)
def test_runtime_helper_mistakes(fn: Callable[[], None], fragment: str) -> None:
    err = _helper_line(fn)
    assert fragment in err.message, err.message


def test_smem_desc_reg_follows_dynamic_shared_memory(assemble: Callable[[str], None]) -> None:
    """Above 48 KB allocations become dyn_smem offsets; the descriptor's mov follows them."""

    def big() -> None:
        slot = smem.alloc(u32, 1, align=16)
        sa = smem.alloc(bf16, (4, 128, 64), swizzle="128B", align=1024)
        ptx.tcgen05.alloc(slot, 32)
        umma.smem_desc_reg(sa[3], lbo=16, sbo=1024, swizzle="128B", offset=32)

    text = traced(big)
    assert body(text)[:2] == [
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [dyn_smem], 32;",
        "mov.u32 %r0, dyn_smem+1024+49184;",
    ]
    assemble(text)
