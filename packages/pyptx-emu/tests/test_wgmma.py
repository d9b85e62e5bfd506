"""wgmma: descriptors, canonical shared-memory layouts, fragments, async groups, arithmetic.

Every expected value here is computed independently of the emulator: shared-memory tiles are
written the way TMA and CUTLASS lay them out (core matrices placed by LBO/SBO, 16-byte chunks
XORed with the row phase of the swizzle), register fragments and accumulators are placed and
read back with the per-type formulas of the PTX ISA's fragment figures, element values are
decoded here, and results come from numpy matmul on values whose sums are exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from emu_testing import module, ptxas_accepts, run
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from pyptx.emu import DataRace, EmuError, NotEmulated, OutOfBounds, UninitializedRead, launch
from pyptx.emu._ops import _gmma_layout as layout

DATA = Path(__file__).parent / "data" / "wgmma"
RNG = np.random.default_rng(90)
SWIZZLE_MODE = {None: 0, 128: 1, 64: 2, 32: 3}

# ----------------------------------------------------------------------------- element types


def bf16_bits(x: np.ndarray) -> np.ndarray:
    return (np.asarray(x, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)


def e5m2_value(codes: np.ndarray) -> np.ndarray:
    # e5m2 is the top byte of an IEEE half.
    return (codes.astype(np.uint16) << 8).view(np.float16).astype(np.float64)


def e4m3_value(codes: np.ndarray) -> np.ndarray:
    c = codes.astype(np.int64)
    sign = np.where(c & 0x80, -1.0, 1.0)
    exp, man = (c >> 3) & 0xF, c & 7
    mag = np.where(exp == 0, man / 8 * 2.0**-6, (1 + man / 8) * 2.0 ** (exp - 7))
    mag = np.where((exp == 15) & (man == 7), np.nan, mag)
    return sign * mag


@dataclass(frozen=True)
class Kind:
    """One input type: PTX name, bytes per element, K of the shape."""

    name: str
    width: int  # bytes (b1: bits per element, packed 8 per byte)
    k: int

    def encode(self, values: np.ndarray) -> np.ndarray:
        """Element values -> row bytes (rows, 32) in K order."""
        if self.name == "b1":
            return np.packbits(values.astype(np.uint8), axis=1, bitorder="little")
        raw = {
            "f16": lambda v: v.astype("<f2"),
            "bf16": lambda v: bf16_bits(v).astype("<u2"),
            "tf32": lambda v: v.astype("<f4"),
            "s8": lambda v: v.astype(np.int8),
            "u8": lambda v: v.astype(np.uint8),
            "e4m3": lambda v: v.astype(np.uint8),  # given as codes
            "e5m2": lambda v: v.astype(np.uint8),
        }[self.name](values)
        return np.ascontiguousarray(raw).view(np.uint8).reshape(values.shape[0], 32)

    def value(self, data: np.ndarray) -> np.ndarray:
        """What the elements are worth (fp8 given as codes)."""
        if self.name == "e4m3":
            return e4m3_value(data)
        if self.name == "e5m2":
            return e5m2_value(data)
        return data.astype(np.float64)

    def sample(self, rows: int) -> np.ndarray:
        """Random elements whose products and sums stay exact."""
        shape = (rows, self.k)
        if self.name in ("f16", "bf16", "tf32"):
            return RNG.integers(-16, 17, size=shape) / 4.0
        if self.name == "s8":
            return RNG.integers(-128, 128, size=shape)
        if self.name == "u8":
            return RNG.integers(0, 256, size=shape)
        if self.name == "b1":
            return RNG.integers(0, 2, size=shape)
        # fp8 codes with exponents in a window (sums stay exact in float64 and float32)
        exp_bits = 3 if self.name == "e4m3" else 2
        exp = (
            RNG.integers(4, 10, size=shape)
            if self.name == "e4m3"
            else RNG.integers(12, 18, size=shape)
        )
        man = RNG.integers(0, 1 << exp_bits, size=shape)
        sign = RNG.integers(0, 2, size=shape)
        return (sign << 7) | (exp << exp_bits) | man


KINDS = {
    k.name: k
    for k in (
        Kind("f16", 2, 16),
        Kind("bf16", 2, 16),
        Kind("tf32", 4, 8),
        Kind("e4m3", 1, 32),
        Kind("e5m2", 1, 32),
        Kind("s8", 1, 32),
        Kind("u8", 1, 32),
        Kind("b1", 1, 256),
    )
}

# ----------------------------------------------------------------------------- smem layouts


def swizzle_row(row_bytes: np.ndarray, row_in_group: int, span: int) -> np.ndarray:
    """One ``span``-byte row as TMA writes it: 16-byte chunk c moves to c ^ phase."""
    phase = (row_in_group * span // 128) % (span // 16)
    out = np.empty_like(row_bytes)
    for c in range(span // 16):
        d = c ^ phase
        out[d * 16 : d * 16 + 16] = row_bytes[c * 16 : c * 16 + 16]
    return out


def put_k_major(
    img: np.ndarray, base: int, rows: np.ndarray, span: int | None, lbo: int, sbo: int
) -> None:
    """Rows of K bytes (R, B) at ``base``, K-major.

    No swizzle: 8-row x 16-byte core matrices, 128 contiguous bytes each, core (rows 8i..,
    bytes 16j..) at ``base + i * sbo + j * lbo``. Swizzled: rows ``span`` bytes apart within
    8-row groups that are ``sbo`` apart, chunks XORed as TMA does (B may be ``span`` wide:
    further K blocks of the same atom).
    """
    r_count, width = rows.shape
    if span is None:
        for i in range(r_count // 8):
            for j in range(width // 16):
                core = rows[8 * i : 8 * i + 8, 16 * j : 16 * j + 16]
                at = base + i * sbo + j * lbo
                img[at : at + 128] = core.reshape(-1)
        return
    padded = np.zeros((r_count, span), dtype=np.uint8)
    padded[:, :width] = rows
    for r in range(r_count):
        at = base + (r // 8) * sbo + (r % 8) * span
        img[at : at + span] = swizzle_row(padded[r], r % 8, span)


def put_mn_major(
    img: np.ndarray, base: int, mat: np.ndarray, span: int | None, lbo: int, sbo: int
) -> None:
    """A (MN, K) matrix of 16-bit elements (bits) at ``base``, MN-major.

    No swizzle: core matrices of 8 K rows x 8 MN elements (16 bytes per K row, 128 bytes),
    core (MN 8i.., K 8j..) at ``base + i * sbo + j * lbo``. Swizzled: atoms of ``span / 2`` MN
    elements, ``lbo`` apart; inside, K row k at ``(k // 8) * sbo + (k % 8) * span``, chunks
    XORed as TMA does.
    """
    mn, k_count = mat.shape
    raw = mat.astype("<u2")
    if span is None:
        for i in range(mn // 8):
            for j in range(k_count // 8):
                core = np.ascontiguousarray(raw[8 * i : 8 * i + 8, 8 * j : 8 * j + 8].T)
                at = base + i * sbo + j * lbo
                img[at : at + 128] = core.view(np.uint8).reshape(-1)
        return
    per_atom = span // 2
    for atom in range(-(-mn // per_atom)):
        block = np.zeros((per_atom, k_count), dtype="<u2")
        part = raw[atom * per_atom : (atom + 1) * per_atom]
        block[: part.shape[0]] = part
        for k in range(k_count):
            row = np.ascontiguousarray(block[:, k]).view(np.uint8)
            at = base + atom * lbo + (k // 8) * sbo + (k % 8) * span
            img[at : at + span] = swizzle_row(row, k % 8, span)


def descriptor(start: int, lbo: int, sbo: int, span: int | None, base_offset: int = 0) -> int:
    """A wgmma matrix descriptor (PTX ISA "Matrix Descriptor Format")."""
    enc = lambda x: (x & 0x3FFFF) >> 4  # noqa: E731
    return (
        enc(start)
        | enc(lbo) << 16
        | enc(sbo) << 32
        | (base_offset & 7) << 49
        | SWIZZLE_MODE[span] << 62
    )


# ----------------------------------------------------------------------------- fragments


@cache
def d_coords(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Row/column of accumulator element d_i of thread t (ISA figures 149/151/153/155)."""
    rows = np.zeros((128, n // 2), dtype=np.int64)
    cols = np.zeros((128, n // 2), dtype=np.int64)
    for t in range(128):
        warp, lane = divmod(t, 32)
        g, q = divmod(lane, 4)
        for i in range(n // 2):
            # d0 d1 at (g, 2q), (g, 2q+1); d2 d3 at row g + 8; repeated every 8 columns.
            rows[t, i] = 16 * warp + g + (8 if i % 4 >= 2 else 0)
            cols[t, i] = 8 * (i // 4) + 2 * q + i % 2
    return rows, cols


def a_registers(kind: Kind, a: np.ndarray) -> np.ndarray:
    """The four A registers (uint32) of each warpgroup thread for a 64 x K matrix A.

    Fragment layouts of ISA figures 148, 150, 152, 154 (element a_i of thread t):
    16-bit: a_i at row g + 8 * (i//2 % 2), col 2q + i%2 + 8 * (i // 4), two per register;
    tf32: a_i at row g + 8 * (i % 2), col q + 4 * (i // 2);
    8-bit: a_i at row g + 8 * (i//4 % 2), col 4q + i%4 + 16 * (i // 8), four per register;
    b1: a_i at row g + 8 * (i//32 % 2), col 32q + i%32 + 128 * (i // 64), 32 per register.
    """
    data = kind.encode(a)  # (64, 32) row bytes, used only to get element bits
    regs = np.zeros((128, 4), dtype=np.uint32)
    for t in range(128):
        warp, lane = divmod(t, 32)
        g, q = divmod(lane, 4)
        r0 = 16 * warp + g
        if kind.width == 2:
            elems = data.view("<u2")
            for i in range(8):
                r, c = r0 + 8 * ((i // 2) % 2), 2 * q + i % 2 + 8 * (i // 4)
                regs[t, i // 2] |= np.uint32(int(elems[r, c]) << (16 * (i % 2)))
        elif kind.width == 4:
            elems = data.view("<u4")
            for i in range(4):
                regs[t, i] = elems[r0 + 8 * (i % 2), q + 4 * (i // 2)]
        elif kind.name == "b1":
            for i in range(128):
                r, c = r0 + 8 * ((i // 32) % 2), 32 * q + i % 32 + 128 * (i // 64)
                regs[t, i // 32] |= np.uint32(int(a[r, c]) << (i % 32))
        else:
            for i in range(16):
                r, c = r0 + 8 * ((i // 4) % 2), 4 * q + i % 4 + 16 * (i // 8)
                regs[t, i // 4] |= np.uint32(int(data[r, c]) << (8 * (i % 4)))
    return regs


def unpack_d(out: np.ndarray, n: int, dtype: str) -> np.ndarray:
    """Per-thread accumulator registers (128, regs) uint32 -> the 64 x N matrix D."""
    if dtype == "f16":
        elems = np.ascontiguousarray(out).view("<f2").astype(np.float64)
    elif dtype == "f32":
        elems = np.ascontiguousarray(out).view("<f4").astype(np.float64)
    else:
        elems = np.ascontiguousarray(out).view("<i4").astype(np.int64)
    rows, cols = d_coords(n)
    d = np.zeros((64, n), dtype=elems.dtype)
    d[rows, cols] = elems
    return d


def pack_d(d: np.ndarray, dtype: str) -> np.ndarray:
    """The 64 x N matrix D -> per-thread accumulator registers (128, regs) uint32."""
    n = d.shape[1]
    rows, cols = d_coords(n)
    elems = d[rows, cols]
    np_type = {"f16": "<f2", "f32": "<f4", "s32": "<i4"}[dtype]
    return np.ascontiguousarray(elems.astype(np_type)).view(np.uint32)


# ----------------------------------------------------------------------------- kernels

PARAMS = (
    ".param .u64 smem_in",
    ".param .u64 c_in",
    ".param .u64 a_in",
    ".param .u64 descs",
    ".param .u64 d_out",
    ".param .u32 scale",
)


def stores(regs: int, first_slot: int = 0, first_reg: int = 0) -> str:
    """Store ``%d{first_reg}..`` to this thread's output slots from ``first_slot``."""
    return "\n".join(
        f"\tst.global.b32 [%rd14+{4 * (first_slot + i)}], %d{first_reg + i};" for i in range(regs)
    )


def kernel(
    insn: str,
    regs: int,
    smem: int,
    *,
    body: str | None = None,
    slots: int | None = None,
    load_c: bool = True,
    before: str = "",
) -> str:
    """A kernel: copy this CTA's smem image in, load C, A registers and descriptors, run
    ``insn`` (operands ``{%d..}``, ``{%a0..%a3}`` or ``%rd20``, ``%rd21``, ``%p1``) between
    fence, commit and wait, store D (``body`` replaces that sequence and the stores).

    Descriptors come in with start addresses relative to ``smem``; the kernel adds the
    address of ``smem`` (>> 4), as CUTLASS does when it advances a descriptor. Each thread
    has ``slots`` (default ``regs``) output words.
    """
    slots = slots or regs
    loads = "\n".join(f"\tld.global.b32 %d{i}, [%rd12+{4 * i}];" for i in range(regs))
    if body is None:
        body = f"""
	wgmma.fence.sync.aligned;
	{insn}
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 0;
{stores(regs)}"""
    return f"""
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<24>;
	.reg .b32 %d<{regs}>;
	.reg .b32 %a<4>;
	.shared .align 1024 .b8 smem[{smem}];
	ld.param.u64 %rd1, [smem_in];
	ld.param.u64 %rd2, [c_in];
	ld.param.u64 %rd3, [a_in];
	ld.param.u64 %rd4, [descs];
	ld.param.u64 %rd5, [d_out];
	ld.param.u32 %r9, [scale];
	setp.ne.u32 %p1, %r9, 0;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mul.wide.u32 %rd6, %r2, {smem};
	add.s64 %rd6, %rd1, %rd6;
	mov.u64 %rd7, smem;
	shl.b32 %r4, %r1, 4;
	shl.b32 %r5, %r3, 4;
COPY:
	setp.ge.u32 %p2, %r4, {smem};
	@%p2 bra COPIED;
	mul.wide.u32 %rd8, %r4, 1;
	add.s64 %rd9, %rd6, %rd8;
	ld.global.v4.u32 {{%r10, %r11, %r12, %r13}}, [%rd9];
	add.s64 %rd10, %rd7, %rd8;
	st.shared.v4.u32 [%rd10], {{%r10, %r11, %r12, %r13}};
	add.u32 %r4, %r4, %r5;
	bra COPY;
COPIED:
	bar.sync 0;
	fence.proxy.async.shared::cta;
	mad.lo.u32 %r6, %r2, %r3, %r1;
	mul.wide.u32 %rd11, %r6, {regs * 4};
	add.s64 %rd12, %rd2, %rd11;
	mul.wide.u32 %rd11, %r6, {slots * 4};
	add.s64 %rd14, %rd5, %rd11;
{loads if load_c else ""}
	mul.wide.u32 %rd13, %r6, 16;
	add.s64 %rd13, %rd3, %rd13;
	ld.global.v4.b32 {{%a0, %a1, %a2, %a3}}, [%rd13];
	shr.u32 %r7, %r6, 7;
	mul.wide.u32 %rd15, %r7, 16;
	add.s64 %rd15, %rd4, %rd15;
	ld.global.u64 %rd20, [%rd15];
	ld.global.u64 %rd21, [%rd15+8];
	shr.u64 %rd16, %rd7, 4;
	add.s64 %rd20, %rd20, %rd16;
	add.s64 %rd21, %rd21, %rd16;
{before}
{body}
	ret;
"""


def d_list(regs: int, first: int = 0) -> str:
    return "{" + ", ".join(f"%d{first + i}" for i in range(regs)) + "}"


def mma_insn(
    n: int,
    dtype: str,
    atype: str,
    btype: str,
    *,
    reg_a: bool = False,
    scale_a: int = 1,
    scale_b: int = 1,
    trans_a: bool = False,
    trans_b: bool = False,
    satfinite: bool = False,
    scale_d: str = "%p1",
) -> str:
    kind = KINDS[atype]
    regs = n // 4 if dtype == "f16" else n // 2
    tail = ".and.popc" if atype == "b1" else (".satfinite" if satfinite else "")
    a = "{%a0, %a1, %a2, %a3}" if reg_a else "%rd20"
    imms = ""
    if dtype != "s32":
        imms = f", {scale_a}, {scale_b}"
        if atype in ("f16", "bf16"):
            imms += f", {int(trans_b)}" if reg_a else f", {int(trans_a)}, {int(trans_b)}"
    return (
        f"wgmma.mma_async.sync.aligned.m64n{n}k{kind.k}.{dtype}.{atype}.{btype}{tail}"
        f" {d_list(regs)}, {a}, %rd21, {scale_d}{imms};"
    )


def launch_wgmma(
    body: str,
    smem_images: np.ndarray,
    descs: np.ndarray,
    c_regs: np.ndarray,
    *,
    a_regs: np.ndarray | None = None,
    scale: int = 1,
    block: int = 128,
    slots: int | None = None,
    check_races: bool = False,
) -> np.ndarray:
    """Run ``body`` over ``len(smem_images)`` CTAs; return the output slots (ctas, block, n)."""
    ctas = smem_images.shape[0]
    out = np.zeros((ctas, block, slots or c_regs.shape[-1]), dtype=np.uint32)
    if a_regs is None:
        a_regs = np.zeros((ctas, block, 4), dtype=np.uint32)
    run(
        body,
        [
            np.ascontiguousarray(smem_images),
            np.ascontiguousarray(c_regs, dtype=np.uint32),
            np.ascontiguousarray(a_regs, dtype=np.uint32),
            np.ascontiguousarray(descs, dtype=np.uint64),
            out,
            scale,
        ],
        params=PARAMS,
        grid=ctas,
        block=block,
        check_races=check_races,
    )
    return out


def product(kind_a: Kind, a: np.ndarray, kind_b: Kind, b: np.ndarray) -> np.ndarray:
    """A (64 x K) times B given as N x K (both in element values), exact."""
    return kind_a.value(a) @ kind_b.value(b).T


def expected_d(acc: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "f16":
        return acc.astype(np.float16).astype(np.float64)
    if dtype == "f32":
        return acc.astype(np.float32).astype(np.float64)
    return acc


# ----------------------------------------------------------------------------- layout unit checks


def test_descriptor_fields_follow_the_isa_bit_positions() -> None:
    desc = np.array(
        [
            descriptor(0x3FFF0, 0x20, 0x400, 128, 5),
            descriptor(0x1230, 0xFFF0, 0x10, 32),
            descriptor(0x400, 16, 256, None),
        ],
        dtype=np.uint64,
    )
    start, lbo, sbo, base, mode = layout.fields(desc)
    assert start.tolist() == [0x3FFF0, 0x1230, 0x400]
    assert lbo.tolist() == [0x20, 0xFFF0, 16]
    assert sbo.tolist() == [0x400, 0x10, 256]
    assert base.tolist() == [5, 0, 0]
    assert mode.tolist() == [1, 3, 0]


def _cute(shape: tuple, stride: tuple, coord: tuple) -> int:
    """A CuTe layout (nested shape/stride) at a nested coordinate."""
    if isinstance(shape, int):
        return coord * stride
    return sum(_cute(s, d, c) for s, d, c in zip(shape, stride, coord, strict=True))


def _split(index: int, shape: tuple | int) -> tuple | int:
    """Column-major split of a 1-D index into a (nested) CuTe coordinate."""
    if isinstance(shape, int):
        return index
    out = []
    for s in shape:
        size = int(np.prod(s)) if isinstance(s, int) else int(np.prod(_flatten(s)))
        out.append(_split(index % size, s))
        index //= size
    return tuple(out)


def _flatten(shape: tuple | int) -> list[int]:
    return [shape] if isinstance(shape, int) else [x for s in shape for x in _flatten(s)]


# The ISA's worked examples (9.7.15.5.1.2.1.3, figures 166-170): exact CuTe layouts of a whole
# tile in elements, with the LBO and SBO the ISA gives for them.
ISA_EXAMPLES = [
    # (major, span, width, mn_shape, k_shape, exact stride, lbo bytes, sbo bytes)
    ("K", None, 4, (8, 2), (4, 4), ((4, 32), (1, 64)), 64 * 4, 32 * 4),
    ("K", 32, 4, (8, 2), (4, 4), ((8, 64), (1, 4)), 16, 64 * 4),
    ("MN", None, 2, (8, 1, 2), (8, 2), ((1, 8, 64), (8, 128)), 128 * 2, 64 * 2),
    ("MN", 32, 2, (8, 2, 2), (8, 2), ((1, 8, 128), (16, 256)), 128 * 2, 256 * 2),
    ("MN", 64, 2, (8, 4, 2), (8, 2), ((1, 8, 256), (32, 512)), 256 * 2, 512 * 2),
]


@pytest.mark.parametrize("example", ISA_EXAMPLES, ids=lambda e: f"{e[0]}-{e[1]}-{e[2]}B")
def test_operand_offsets_match_the_isa_worked_examples(example: tuple) -> None:
    major, span, width, mn_shape, k_shape, stride, lbo, sbo = example
    rows = int(np.prod(mn_shape))
    k_per_mma = 32 // width
    table = layout.operand_offsets(rows, major == "MN", SWIZZLE_MODE[span], lbo, sbo, width)
    for r in range(rows):
        for k in range(k_per_mma):
            coord = (_split(r, mn_shape), _split(k, k_shape))
            element = _cute((mn_shape, k_shape), stride, coord)
            got = table[r, k * width : (k + 1) * width]
            np.testing.assert_array_equal(got, element * width + np.arange(width))


# ----------------------------------------------------------------------------- end to end

SMEM = 40960
A_BASE, B_BASE = 0, 8192


def _operand(
    img: np.ndarray,
    base: int,
    kind: Kind,
    values: np.ndarray,
    major: str,
    span: int | None,
) -> int:
    """Write one operand (rows x K values) at ``base``; return its descriptor."""
    rows = values.shape[0]
    if major == "K":
        if span is None:
            lbo, sbo = 128, 256  # K columns next to each other, 8-row groups 256 apart
        else:
            lbo, sbo = 16, 8 * span
        put_k_major(img, base, kind.encode(values), span, lbo, sbo)
    else:
        bits = kind.encode(values).view("<u2")  # (rows, K) 16-bit
        if span is None:
            lbo, sbo = (rows // 8) * 128, 128  # 8-row K groups after all MN cores
        else:
            lbo, sbo = 2 * 8 * span, 8 * span  # atoms of 16 K rows
        put_mn_major(img, base, bits, span, lbo, sbo)
    return descriptor(base, lbo, sbo, span)


CASES = [
    # (dtype, atype, btype, n, major_a, span_a, major_b, span_b)
    ("f32", "bf16", "bf16", 64, "K", 128, "K", 128),
    ("f32", "bf16", "bf16", 32, "K", 64, "K", 64),
    ("f32", "f16", "f16", 24, "K", 32, "K", 32),
    ("f32", "f16", "f16", 16, "K", None, "K", None),
    ("f32", "bf16", "bf16", 64, "MN", 128, "MN", 128),
    ("f32", "f16", "f16", 32, "MN", 64, "MN", 64),
    ("f16", "f16", "f16", 16, "MN", 32, "MN", 32),
    ("f32", "bf16", "bf16", 16, "MN", None, "MN", None),
    ("f32", "f16", "f16", 128, "K", 128, "MN", 128),
    ("f32", "bf16", "bf16", 40, "MN", None, "K", 64),
    ("f32", "tf32", "tf32", 16, "K", 128, "K", None),
    ("f32", "tf32", "tf32", 8, "K", 32, "K", 64),
    ("f32", "e4m3", "e4m3", 32, "K", 128, "K", 128),
    ("f16", "e4m3", "e5m2", 16, "K", 64, "K", None),
    ("f32", "e5m2", "e4m3", 24, "K", None, "K", 32),
    ("f16", "e5m2", "e5m2", 8, "K", 128, "K", 64),
    ("s32", "s8", "s8", 32, "K", 128, "K", 128),
    ("s32", "u8", "u8", 16, "K", None, "K", 32),
    ("s32", "s8", "u8", 48, "K", 64, "K", None),
    ("s32", "u8", "s8", 8, "K", 32, "K", 128),
    ("s32", "b1", "b1", 16, "K", 128, "K", None),
    ("s32", "b1", "b1", 24, "K", None, "K", 64),
]


def _case_id(case: tuple) -> str:
    dtype, at, bt, n, ma, sa, mb, sb = case
    return f"{dtype}.{at}.{bt}-n{n}-A{ma}{sa or 0}-B{mb}{sb or 0}"


def _run_case(case: tuple, *, ctas: int = 1, scale: int = 1, reg_a: bool = False) -> None:
    dtype, atype, btype, n, major_a, span_a, major_b, span_b = case
    ka, kb = KINDS[atype], KINDS[btype]
    regs = n // 4 if dtype == "f16" else n // 2
    imgs = np.zeros((ctas, SMEM), dtype=np.uint8)
    descs = np.zeros((ctas, 2), dtype=np.uint64)
    c_regs = np.zeros((ctas, 128, regs), dtype=np.uint32)
    a_regs = np.zeros((ctas, 128, 4), dtype=np.uint32)
    expected = []
    for c in range(ctas):
        a, b = ka.sample(64), kb.sample(n)
        c_init = (RNG.integers(-64, 65, size=(64, n)) / (1 if dtype == "s32" else 8)).astype(
            np.float64 if dtype != "s32" else np.int64
        )
        descs[c, 0] = _operand(imgs[c], A_BASE, ka, a, major_a, span_a)
        descs[c, 1] = _operand(imgs[c], B_BASE, kb, b, major_b, span_b)
        c_regs[c] = pack_d(c_init, dtype)
        if reg_a:
            a_regs[c] = a_registers(ka, a)
        prod = product(ka, a, kb, b)
        if dtype == "s32":
            expected.append(prod.astype(np.int64) + (c_init if scale else 0))
        else:
            expected.append(expected_d(prod + (c_init if scale else 0), dtype))
    insn = mma_insn(
        n, dtype, atype, btype, reg_a=reg_a, trans_a=major_a == "MN", trans_b=major_b == "MN"
    )
    body = kernel(insn, regs, SMEM)
    out = launch_wgmma(body, imgs, descs, c_regs, a_regs=a_regs if reg_a else None, scale=scale)
    for c in range(ctas):
        np.testing.assert_array_equal(unpack_d(out[c], n, dtype), expected[c])


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_descriptor_operands_every_layout_and_type(case: tuple) -> None:
    _run_case(case)


REGISTER_CASES = [
    ("f32", "f16", "f16", 16, "K", None, "K", 128),
    ("f32", "bf16", "bf16", 32, "K", None, "MN", 64),
    ("f16", "f16", "f16", 8, "K", None, "K", 32),
    ("f32", "tf32", "tf32", 24, "K", None, "K", 64),
    ("f32", "e4m3", "e5m2", 16, "K", None, "K", 128),
    ("s32", "s8", "u8", 16, "K", None, "K", None),
    ("s32", "b1", "b1", 8, "K", None, "K", 32),
]


@pytest.mark.parametrize("case", REGISTER_CASES, ids=_case_id)
def test_register_a_fragments(case: tuple) -> None:
    _run_case(case, reg_a=True)


def test_scale_d_false_replaces_the_accumulator_in_many_ctas() -> None:
    _run_case(("f32", "bf16", "bf16", 16, "K", 128, "K", 64), ctas=3, scale=0)


def test_largest_shape_n256() -> None:
    _run_case(("f32", "bf16", "bf16", 256, "K", 128, "K", 128))


@pytest.mark.parametrize(("scale_a", "scale_b"), [(-1, 1), (1, -1), (-1, -1)])
def test_imm_scale_negates(scale_a: int, scale_b: int) -> None:
    ka = KINDS["f16"]
    a, b = ka.sample(64), ka.sample(8)
    img = np.zeros((1, SMEM), dtype=np.uint8)
    descs = np.array(
        [[_operand(img[0], A_BASE, ka, a, "K", 64), _operand(img[0], B_BASE, ka, b, "K", 64)]],
        dtype=np.uint64,
    )
    c = RNG.integers(-8, 9, size=(64, 8)).astype(np.float64)
    insn = mma_insn(8, "f32", "f16", "f16", scale_a=scale_a, scale_b=scale_b)
    out = launch_wgmma(kernel(insn, 4, SMEM), img, descs, pack_d(c, "f32")[None])
    np.testing.assert_array_equal(unpack_d(out[0], 8, "f32"), scale_a * scale_b * (a @ b.T) + c)


def test_tf32_drops_the_low_13_bits() -> None:
    kind = KINDS["tf32"]
    a = np.full((64, 8), 1.0, dtype=np.float32)
    b = np.zeros((8, 8), dtype=np.float32)
    # 1 + 2**-10 is a tf32 value; 1 + 2**-11 and 1 + 2**-20 lie below tf32 precision.
    b[0] = 1 + 2.0**-10
    b[1] = 1 + 2.0**-11
    b[2] = 1 + 2.0**-10 + 2.0**-20
    img = np.zeros((1, SMEM), dtype=np.uint8)
    descs = np.array(
        [
            [
                _operand(img[0], A_BASE, kind, a, "K", 128),
                _operand(img[0], B_BASE, kind, b, "K", 128),
            ]
        ],
        dtype=np.uint64,
    )
    out = launch_wgmma(
        kernel(mma_insn(8, "f32", "tf32", "tf32"), 4, SMEM),
        img,
        descs,
        np.zeros((1, 128, 4)),
        scale=0,
    )
    d = unpack_d(out[0], 8, "f32")
    assert (d[:, 0] == 8 * (1 + 2.0**-10)).all()
    assert (d[:, 1] == 8.0).all()
    assert (d[:, 2] == 8 * (1 + 2.0**-10)).all()
    assert (d[:, 3:] == 0).all()


def _bf16_operands(n: int, span: int | None = 128, ctas: int = 1) -> tuple[np.ndarray, ...]:
    """Random bf16 A (64 x 16) and B (n x 16) per CTA, K-major; images and descriptors."""
    kind = KINDS["bf16"]
    imgs = np.zeros((ctas, SMEM), dtype=np.uint8)
    descs = np.zeros((ctas, 2), dtype=np.uint64)
    a = np.stack([kind.sample(64) for _ in range(ctas)])
    b = np.stack([kind.sample(n) for _ in range(ctas)])
    for c in range(ctas):
        descs[c, 0] = _operand(imgs[c], A_BASE, kind, a[c], "K", span)
        descs[c, 1] = _operand(imgs[c], B_BASE, kind, b[c], "K", span)
    return imgs, descs, a, b


# ----------------------------------------------------------------------------- async model


def test_accumulators_read_before_the_wait_keep_their_old_values() -> None:
    imgs, descs, a, b = _bf16_operands(8)
    old = RNG.integers(-9, 10, size=(64, 8)).astype(np.float64)
    insn = mma_insn(8, "f32", "bf16", "bf16")
    body = f"""
	wgmma.fence.sync.aligned;
	{insn}
	wgmma.commit_group.sync.aligned;
{stores(4, 0)}
	wgmma.wait_group.sync.aligned 0;
{stores(4, 4)}"""
    out = launch_wgmma(
        kernel(insn, 4, SMEM, body=body, slots=8), imgs, descs, pack_d(old, "f32")[None], slots=8
    )
    np.testing.assert_array_equal(unpack_d(out[0, :, :4], 8, "f32"), old)
    np.testing.assert_array_equal(unpack_d(out[0, :, 4:], 8, "f32"), a[0] @ b[0].T + old)


def test_wait_group_n_completes_all_but_the_n_most_recent_groups() -> None:
    imgs, descs, a, b = _bf16_operands(8)
    old = RNG.integers(-9, 10, size=(64, 16)).astype(np.float64)
    first = mma_insn(8, "f32", "bf16", "bf16")
    second = first.replace(d_list(4), d_list(4, 4))
    body = f"""
	wgmma.fence.sync.aligned;
	{first}
	wgmma.commit_group.sync.aligned;
	{second}
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 1;
{stores(8, 0)}
	wgmma.wait_group.sync.aligned 0;
{stores(8, 8)}"""
    c = np.concatenate([pack_d(old[:, :8], "f32"), pack_d(old[:, 8:], "f32")], axis=1)
    out = launch_wgmma(kernel(first, 8, SMEM, body=body, slots=16), imgs, descs, c[None], slots=16)
    ab = a[0] @ b[0].T
    after_one, after_all = out[0, :, :8], out[0, :, 8:]
    np.testing.assert_array_equal(unpack_d(after_one[:, :4], 8, "f32"), ab + old[:, :8])
    np.testing.assert_array_equal(unpack_d(after_one[:, 4:], 8, "f32"), old[:, 8:])
    np.testing.assert_array_equal(unpack_d(after_all[:, 4:], 8, "f32"), ab + old[:, 8:])


def test_uncommitted_operations_are_not_waited_for() -> None:
    imgs, descs, _, _ = _bf16_operands(8)
    old = RNG.integers(-9, 10, size=(64, 8)).astype(np.float64)
    insn = mma_insn(8, "f32", "bf16", "bf16")
    body = f"""
	wgmma.fence.sync.aligned;
	{insn}
	wgmma.wait_group.sync.aligned 0;
{stores(4)}"""
    out = launch_wgmma(kernel(insn, 4, SMEM, body=body), imgs, descs, pack_d(old, "f32")[None])
    np.testing.assert_array_equal(unpack_d(out[0], 8, "f32"), old)


def test_k_loop_chains_one_accumulator_through_a_swizzle_atom() -> None:
    """CUTLASS's mainloop: 4 K blocks of 16 in one 128B-swizzled atom, start address + 32 bytes
    per block (descriptor + 2), scale-d false on the first, all in one group."""
    a = RNG.integers(-16, 17, size=(64, 64)) / 4.0
    b = RNG.integers(-16, 17, size=(24, 64)) / 4.0
    img = np.zeros((1, SMEM), dtype=np.uint8)
    to_bytes = lambda x: np.ascontiguousarray(bf16_bits(x)).view(np.uint8)  # noqa: E731
    put_k_major(img[0], A_BASE, to_bytes(a), 128, 16, 1024)
    put_k_major(img[0], B_BASE, to_bytes(b), 128, 16, 1024)
    descs = np.array(
        [[descriptor(A_BASE, 16, 1024, 128), descriptor(B_BASE, 16, 1024, 128)]], dtype=np.uint64
    )
    insn = mma_insn(24, "f32", "bf16", "bf16", scale_d="%p3")
    body = f"""
	wgmma.fence.sync.aligned;
	mov.u32 %r14, 0;
KLOOP:
	setp.ne.u32 %p3, %r14, 0;
	{insn}
	add.s64 %rd20, %rd20, 2;
	add.s64 %rd21, %rd21, 2;
	add.u32 %r14, %r14, 1;
	setp.lt.u32 %p2, %r14, 4;
	@%p2 bra KLOOP;
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 0;
{stores(12)}"""
    nan = np.full((1, 128, 12), 0x7FC00000, dtype=np.uint32)  # never read: scale-d is false first
    out = launch_wgmma(kernel(insn, 12, SMEM, body=body), img, descs, nan)
    np.testing.assert_array_equal(unpack_d(out[0], 24, "f32"), a @ b.T)


def test_two_warpgroups_per_cta_use_their_own_descriptors() -> None:
    kind = KINDS["f16"]
    ctas = 2
    imgs = np.zeros((ctas, SMEM), dtype=np.uint8)
    descs = np.zeros((ctas * 2, 2), dtype=np.uint64)
    c_regs = np.zeros((ctas, 256, 4), dtype=np.uint32)
    expected = {}
    for c in range(ctas):
        for wg in range(2):
            a, b = kind.sample(64), kind.sample(8)
            base = wg * 8192
            descs[2 * c + wg] = [
                _operand(imgs[c], base, kind, a, "K", 64),
                _operand(imgs[c], base + 4096, kind, b, "MN", None),
            ]
            expected[c, wg] = a @ b.T
    insn = mma_insn(8, "f32", "f16", "f16", trans_b=True)
    out = launch_wgmma(kernel(insn, 4, SMEM), imgs, descs, c_regs, block=256, scale=0)
    for (c, wg), want in expected.items():
        got = unpack_d(out[c, 128 * wg : 128 * (wg + 1)], 8, "f32")
        np.testing.assert_array_equal(got, want)


def test_warps_that_reach_the_wgmma_at_different_times_still_run_it_together() -> None:
    imgs, descs, a, b = _bf16_operands(16)
    # Odd warps take a detour first; the warpgroup meets again at wgmma.fence.
    detour = """
	shr.u32 %r8, %r1, 5;
	and.b32 %r8, %r8, 1;
	setp.eq.u32 %p3, %r8, 1;
	@%p3 bra DETOUR;
	bra JOIN;
DETOUR:
	add.u32 %r8, %r8, 1;
	add.u32 %r8, %r8, 1;
JOIN:"""
    insn = mma_insn(16, "f32", "bf16", "bf16")
    out = launch_wgmma(
        kernel(insn, 8, SMEM, before=detour), imgs, descs, np.zeros((1, 128, 8)), scale=0
    )
    np.testing.assert_array_equal(unpack_d(out[0], 16, "f32"), a[0] @ b[0].T)


# ----------------------------------------------------------------------------- accumulators


def test_scale_d_false_never_reads_an_uninitialized_accumulator() -> None:
    imgs, descs, a, b = _bf16_operands(8)
    insn = mma_insn(8, "f32", "bf16", "bf16", scale_d="0")
    out = launch_wgmma(
        kernel(insn, 4, SMEM, load_c=False), imgs, descs, np.zeros((1, 128, 4)), scale=1
    )
    np.testing.assert_array_equal(unpack_d(out[0], 8, "f32"), a[0] @ b[0].T)


def test_scale_d_true_reads_the_accumulator_and_names_the_wgmma() -> None:
    imgs, descs, _, _ = _bf16_operands(8)
    insn = mma_insn(8, "f32", "bf16", "bf16", scale_d="!%p1")
    with pytest.raises(UninitializedRead, match=r"accumulator of the wgmma\.mma_async at PTX line"):
        launch_wgmma(
            kernel(insn, 4, SMEM, load_c=False), imgs, descs, np.zeros((1, 128, 4)), scale=0
        )


@pytest.mark.parametrize("satfinite", [False, True])
def test_s32_accumulation_wraps_or_saturates(satfinite: bool) -> None:
    kind = KINDS["s8"]
    a = np.full((64, 32), 127)
    b = np.zeros((8, 32), dtype=np.int64)
    b[:4] = 127  # columns 0-3: +516128 per row; 4-7: -524288
    b[4:] = -128
    img = np.zeros((1, SMEM), dtype=np.uint8)
    descs = np.array(
        [[_operand(img[0], A_BASE, kind, a, "K", 32), _operand(img[0], B_BASE, kind, b, "K", 32)]],
        dtype=np.uint64,
    )
    c = np.zeros((64, 8), dtype=np.int64)
    c[:, :4] = 2**31 - 1000
    c[:, 4:] = -(2**31) + 1000
    exact = a @ b.T + c
    insn = mma_insn(8, "s32", "s8", "s8", satfinite=satfinite)
    out = launch_wgmma(kernel(insn, 4, SMEM), img, descs, pack_d(c, "s32")[None])
    want = np.clip(exact, -(2**31), 2**31 - 1) if satfinite else (exact + 2**31) % 2**32 - 2**31
    np.testing.assert_array_equal(unpack_d(out[0], 8, "s32"), want)
    assert (want != exact).all()


def test_f16_accumulators_pack_two_elements_per_register_and_round_once() -> None:
    kind = KINDS["f16"]
    a = RNG.integers(-2048, 2049, size=(64, 16)) / 2.0
    b = RNG.integers(-4, 5, size=(8, 16)).astype(np.float64)
    # D[0, 0] = 1 + 2**-11 + 2**-24: just above half an f16 ulp, so it rounds up to
    # 1 + 2**-10; rounding through f32 first would tie to 1 + 2**-11, then to 1.0.
    a[0], b[0] = 0.0, 0.0
    a[0, :3] = [1.0, 2.0**-11, 2.0**-24]
    b[0, :3] = 1.0
    img = np.zeros((1, SMEM), dtype=np.uint8)
    descs = np.array(
        [
            [
                _operand(img[0], A_BASE, kind, a, "K", 128),
                _operand(img[0], B_BASE, kind, b, "K", 128),
            ]
        ],
        dtype=np.uint64,
    )
    c = RNG.integers(-64, 65, size=(64, 8)) / 8.0
    c[0, 0] = 0.0
    out = launch_wgmma(
        kernel(mma_insn(8, "f16", "f16", "f16"), 2, SMEM), img, descs, pack_d(c, "f16")[None]
    )
    exact = a @ b.T + c
    assert (exact.astype(np.float16) != exact).any()  # some results do round
    d = unpack_d(out[0], 8, "f16")
    assert d[0, 0] == 1 + 2.0**-10
    np.testing.assert_array_equal(d, exact.astype(np.float16))


def _f16_bits(draw_seed: int, window: int, specials: float) -> np.ndarray:
    rng = np.random.default_rng(draw_seed)
    shape = (72, 16)
    exp = rng.integers(window, window + 5, size=shape)
    bits = (rng.integers(0, 2, size=shape) << 15) | (exp << 10) | rng.integers(0, 1024, size=shape)
    special = rng.random(shape) < specials
    pool = np.array([0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFFFF, 0x0000, 0x8000, 0x0001, 0x03FF])
    bits = np.where(special, rng.choice(pool, size=shape), bits)
    return bits.astype(np.uint16)


@settings(max_examples=examples(25), deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    window=st.integers(0, 26),
    specials=st.sampled_from([0.0, 0.02, 0.2]),
)
def test_f16_bit_patterns_give_the_exact_sum_rounded_once(
    seed: int, window: int, specials: float
) -> None:
    """Finite inputs within five binades (subnormals when the window starts at 0) sum
    exactly; infinities and NaNs follow IEEE rules, and a NaN result is 0x7fffffff."""
    bits = _f16_bits(seed, window, specials)
    a_bits, b_bits = bits[:64], bits[64:]
    img = np.zeros((1, SMEM), dtype=np.uint8)
    put_k_major(img[0], A_BASE, a_bits.view(np.uint8), 64, 16, 512)
    put_k_major(img[0], B_BASE, b_bits.view(np.uint8), None, 128, 256)
    descs = np.array(
        [[descriptor(A_BASE, 16, 512, 64), descriptor(B_BASE, 128, 256, None)]], dtype=np.uint64
    )
    out = launch_wgmma(
        kernel(mma_insn(8, "f32", "f16", "f16"), 4, SMEM),
        img,
        descs,
        np.zeros((1, 128, 4)),
        scale=0,
    )
    a = a_bits.view(np.float16).astype(np.float64)
    b = b_bits.view(np.float16).astype(np.float64)
    with np.errstate(all="ignore"):
        exact = (a[:, None, :] * b[None, :, :]).sum(axis=2)
        want = exact.astype(np.float32)
    want_bits = np.where(np.isnan(want), np.uint32(0x7FFFFFFF), want.view(np.uint32))
    rows, cols = d_coords(8)
    np.testing.assert_array_equal(out[0], want_bits[rows, cols])


# ----------------------------------------------------------------------------- faults


def test_a_partial_warpgroup_cannot_issue() -> None:
    imgs, descs, _, _ = _bf16_operands(8)
    insn = mma_insn(8, "f32", "bf16", "bf16")
    with pytest.raises(EmuError, match="all 128 threads of the warpgroup"):
        launch_wgmma(kernel(insn, 4, SMEM), imgs, descs, np.zeros((1, 64, 4)), block=64)


def test_an_exited_warp_of_the_warpgroup_is_reported() -> None:
    imgs, descs, _, _ = _bf16_operands(8)
    leave = """
	setp.ge.u32 %p3, %r1, 96;
	@%p3 exit;"""
    insn = mma_insn(8, "f32", "bf16", "bf16")
    with pytest.raises(EmuError, match="only 96 of this one are running"):
        launch_wgmma(kernel(insn, 4, SMEM, before=leave), imgs, descs, np.zeros((1, 128, 4)))


def test_a_warp_that_never_arrives_is_a_deadlock_naming_the_warpgroup() -> None:
    imgs, descs, _, _ = _bf16_operands(8)
    stall = """
	setp.ge.u32 %p3, %r1, 96;
	@%p3 bar.sync 1;"""
    insn = mma_insn(8, "f32", "bf16", "bf16")
    with pytest.raises(EmuError, match="other warps of its warpgroup"):
        launch_wgmma(kernel(insn, 4, SMEM, before=stall), imgs, descs, np.zeros((1, 128, 4)))


def test_descriptor_beyond_shared_memory_is_out_of_bounds() -> None:
    imgs, descs, _, _ = _bf16_operands(8)
    descs[0, 1] = descriptor(SMEM - 512, 16, 1024, 128)
    insn = mma_insn(8, "f32", "bf16", "bf16")
    with pytest.raises(OutOfBounds, match=r"matrix B .* outside the 40960 bytes"):
        launch_wgmma(kernel(insn, 4, SMEM), imgs, descs, np.zeros((1, 128, 4)))


def test_descriptors_must_agree_across_the_warpgroup() -> None:
    imgs, descs, _, _ = _bf16_operands(8)
    skew = """
	shr.u32 %r8, %r1, 6;
	mul.wide.u32 %rd17, %r8, 64;
	add.s64 %rd21, %rd21, %rd17;"""
    insn = mma_insn(8, "f32", "bf16", "bf16")
    with pytest.raises(EmuError, match="b-desc operand must be the same in every thread"):
        launch_wgmma(kernel(insn, 4, SMEM, before=skew), imgs, descs, np.zeros((1, 128, 4)))


def test_a_nonzero_matrix_base_offset_is_not_emulated() -> None:
    imgs, descs, _, _ = _bf16_operands(8)
    descs[0, 0] = descriptor(A_BASE, 16, 1024, 128, base_offset=3)
    insn = mma_insn(8, "f32", "bf16", "bf16")
    with pytest.raises(NotEmulated, match="matrix base offset to 3"):
        launch_wgmma(kernel(insn, 4, SMEM), imgs, descs, np.zeros((1, 128, 4)))


def test_changing_an_a_register_before_the_wait_is_reported() -> None:
    imgs, descs, a, _ = _bf16_operands(8)
    insn = mma_insn(8, "f32", "bf16", "bf16", reg_a=True)
    body = f"""
	wgmma.fence.sync.aligned;
	{insn}
	wgmma.commit_group.sync.aligned;
	mov.b32 %a2, 7;
	wgmma.wait_group.sync.aligned 0;"""
    regs = a_registers(KINDS["bf16"], a[0])[None]
    with pytest.raises(EmuError, match=r"A fragment register 2 of the wgmma\.mma_async"):
        launch_wgmma(
            kernel(insn, 4, SMEM, body=body), imgs, descs, np.zeros((1, 128, 4)), a_regs=regs
        )


@pytest.mark.parametrize("overwrite", [False, True])
def test_overwriting_operands_before_the_wait_is_a_race(overwrite: bool) -> None:
    imgs, descs, a, b = _bf16_operands(8)
    insn = mma_insn(8, "f32", "bf16", "bf16")
    store = f"\tst.shared.u32 [smem+{B_BASE + 4}], %r1;" if overwrite else ""
    body = f"""
	wgmma.fence.sync.aligned;
	{insn}
	wgmma.commit_group.sync.aligned;
	setp.eq.u32 %p3, %r1, 0;
	@%p3 bra SKIP;
{store}
SKIP:
	wgmma.wait_group.sync.aligned 0;
{stores(4)}"""
    body = body.replace("@%p3 bra SKIP", "@!%p3 bra SKIP")
    run_it = lambda: launch_wgmma(  # noqa: E731
        kernel(insn, 4, SMEM, body=body),
        imgs,
        descs,
        np.zeros((1, 128, 4)),
        scale=0,
        check_races=True,
    )
    if overwrite:
        with pytest.raises(DataRace, match="matrix B, row 0"):
            run_it()
    else:
        np.testing.assert_array_equal(unpack_d(run_it()[0], 8, "f32"), a[0] @ b[0].T)


def test_sparse_wgmma_is_not_emulated() -> None:
    body = """
	.reg .b64 %rd<4>;
	.reg .b32 %r<2>;
	.reg .f32 %f<4>;
	mov.b64 %rd1, 0;
	mov.b32 %r1, 0;
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f0, %f1, %f2, %f3},
		%rd1, %rd1, %r1, 0, 0, 1, 1, 0, 0;
	ret;"""
    assert ptxas_accepts(module(body, params=()), "sm_90a")[0]
    with pytest.raises(NotEmulated, match=r"wgmma\.mma_async\.sp"):
        run(body, [], params=(), block=128)


# ----------------------------------------------------------------------------- real PTX


def _every_form() -> list[str]:
    forms = []
    for dtype, atype, btype, n, ma, _, mb, _ in CASES:
        forms.append(mma_insn(n, dtype, atype, btype, trans_a=ma == "MN", trans_b=mb == "MN"))
    for dtype, atype, btype, n, _, _, mb, _ in REGISTER_CASES:
        forms.append(mma_insn(n, dtype, atype, btype, reg_a=True, trans_b=mb == "MN"))
    forms += [
        mma_insn(256, "f32", "bf16", "bf16"),
        mma_insn(8, "f32", "f16", "f16", scale_a=-1, scale_b=-1),
        mma_insn(8, "s32", "s8", "s8", satfinite=True),
        mma_insn(24, "f32", "bf16", "bf16", scale_d="%p3"),
        mma_insn(8, "f32", "bf16", "bf16", scale_d="0"),
        mma_insn(8, "f32", "bf16", "bf16", scale_d="!%p1"),
    ]
    return forms


def test_every_hand_written_form_assembles_with_ptxas() -> None:
    entries = []
    for i, insn in enumerate(_every_form()):
        regs = int(insn.split("{")[1].split("}")[0].count("%d"))
        text = kernel(insn, regs, SMEM).replace("%p3", "%p1")
        head = "(\n\t" + ",\n\t".join(PARAMS) + "\n)"
        entries.append(f".visible .entry k{i}{head}\n{{{text}}}\n")
    ptx = module("ret;", params=()).split(".visible")[0] + "\n".join(entries)
    ok, message = ptxas_accepts(ptx, "sm_90a")
    assert ok, message


def test_nvcc_compiled_kernels_match_numpy() -> None:
    """tests/data/wgmma/wgmma_kernels.cu compiled by nvcc (see the file for the command)."""
    ptx = (DATA / "wgmma_kernels.ptx").read_text()
    bits = lambda x: bf16_bits(x)  # noqa: E731
    a = RNG.integers(-16, 17, size=(64, 64)) / 4.0
    b = RNG.integers(-16, 17, size=(64, 64)) / 4.0
    c1 = np.zeros((64, 64), dtype=np.float32)
    a2 = (RNG.integers(-16, 17, size=(64, 16)) / 4.0).astype(np.float16)
    b2 = (RNG.integers(-16, 17, size=(16, 32)) / 4.0).astype(np.float16)
    c2_in = RNG.integers(-64, 65, size=(64, 32)).astype(np.float32)
    c2 = np.zeros((64, 32), dtype=np.float32)
    a3 = RNG.integers(-128, 128, size=(64, 32)).astype(np.int8)
    b3 = RNG.integers(-128, 128, size=(16, 32)).astype(np.int8)
    c3_in = RNG.integers(-1000, 1000, size=(64, 16)).astype(np.int32)
    c3_in[::2] += 2**31 - 3000
    c3_in[1::4] -= 2**31 - 3000
    c3 = np.zeros((64, 16), dtype=np.int32)
    launch(ptx, "wgmma_bf16_sw128_kloop", grid=1, block=128, args=[bits(a), bits(b), c1])
    launch(
        ptx,
        "wgmma_f16_rega_ntrans",
        grid=1,
        block=128,
        args=[a2.view(np.uint16), b2.view(np.uint16), c2_in, c2],
    )
    launch(ptx, "wgmma_s8_interleave_satfinite", grid=1, block=128, args=[a3, b3, c3_in, c3])
    np.testing.assert_array_equal(c1, a @ b.T)
    np.testing.assert_array_equal(c2, -(a2.astype(np.float64) @ b2.astype(np.float64)) + c2_in)
    exact = a3.astype(np.int64) @ b3.astype(np.int64).T + c3_in
    assert (exact > 2**31 - 1).any() and (exact < -(2**31)).any()
    np.testing.assert_array_equal(c3, np.clip(exact, -(2**31), 2**31 - 1))
