"""Warp-level matrix instructions: mma, ldmatrix, stmatrix, movmatrix and wmma.

The expected results never come from the emulator: fragments are placed with layouts written
here independently of the implementation (CuTe's (thread, value) -> element layouts from
CUTLASS's ``mma_traits_sm{70,80,89,90,120}.hpp``, which encode the PTX ISA's fragment
figures), small floating-point formats are decoded by a table built here, and products are
computed with numpy in ``float64`` (exact for the values chosen) or with exact rationals.
The kernels compiled by nvcc (``data/matrix/*.cu``, see their headers) check the same
instructions as real compiler output, against plain ``A @ B + C``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from emu_testing import module, ptxas_accepts, run
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from pyptx.emu import Deadlock, EmuError, Misaligned, NotEmulated, launch
from pyptx.emu._ops.matrix_fma import fma

DATA = Path(__file__).parent / "data" / "matrix"
RNG = np.random.default_rng(20240531)
WARPS = 4  # two CTAs of two warps each: the executors work on all four at once
GRID, BLOCK = 2, 64


# ----------------------------------------------------------------------------- layouts


def _flatten(shape: object, stride: object) -> tuple[list[int], list[int]]:
    if isinstance(shape, tuple):
        assert isinstance(stride, tuple)
        out_shape: list[int] = []
        out_stride: list[int] = []
        for s, d in zip(shape, stride, strict=True):
            a, b = _flatten(s, d)
            out_shape += a
            out_stride += b
        return out_shape, out_stride
    assert isinstance(shape, int) and isinstance(stride, int)
    return [shape], [stride]


def _evaluate(shape: object, stride: object, index: int) -> int:
    """A CuTe layout at a 1-D coordinate (colexicographic, first mode fastest)."""
    shapes, strides = _flatten(shape, stride)
    out = 0
    for s, d in zip(shapes, strides, strict=True):
        out += (index % s) * d
        index //= s
    return out


@dataclass(frozen=True)
class Cute:
    """A CuTe (thread, value) -> element layout of a ``rows x cols`` (column-major) matrix."""

    thr: tuple[object, object]
    val: tuple[object, object]
    rows: int

    def coords(self, values: int) -> tuple[np.ndarray, np.ndarray]:
        """``(32, values)`` row and column of each lane's elements."""
        row = np.zeros((32, values), dtype=np.int64)
        col = np.zeros((32, values), dtype=np.int64)
        for t in range(32):
            base = _evaluate(self.thr[0], self.thr[1], t)
            for v in range(values):
                index = base + _evaluate(self.val[0], self.val[1], v)
                row[t, v], col[t, v] = index % self.rows, index // self.rows
        return row, col


def T(*shape_stride: object) -> tuple[object, object]:
    return shape_stride[0], shape_stride[1]


# (T32, V) layouts from CUTLASS (thread mode ((4, 8)) = (threadID_in_group, groupID)).
C16x8 = Cute(T((4, 8), (32, 1)), T((2, 2), (16, 8)), 16)
C8x8 = Cute(T((4, 8), (16, 1)), T(2, 8), 8)
A16 = {  # (K, bits) -> A layout for M = 16 (columns = K)
    (8, 16): Cute(T((4, 8), (32, 1)), T((2, 2), (16, 8)), 16),
    (16, 16): Cute(T((4, 8), (32, 1)), T((2, 2, 2), (16, 8, 128)), 16),
    (4, 32): Cute(T((4, 8), (16, 1)), T(2, 8), 16),
    (8, 32): Cute(T((4, 8), (16, 1)), T((2, 2), (8, 64)), 16),
    (4, 64): Cute(T((4, 8), (16, 1)), T(2, 8), 16),
    (8, 64): Cute(T((4, 8), (16, 1)), T((2, 2), (8, 64)), 16),
    (16, 64): Cute(T((4, 8), (16, 1)), T((2, 4), (8, 64)), 16),
    (16, 8): Cute(T((4, 8), (64, 1)), T((4, 2), (16, 8)), 16),
    (32, 8): Cute(T((4, 8), (64, 1)), T((4, 2, 2), (16, 8, 256)), 16),
    (32, 4): Cute(T((4, 8), (128, 1)), T((8, 2), (16, 8)), 16),
    (64, 4): Cute(T((4, 8), (128, 1)), T((8, 2, 2), (16, 8, 512)), 16),
    (128, 1): Cute(T((4, 8), (512, 1)), T((32, 2), (16, 8)), 16),
    (256, 1): Cute(T((4, 8), (512, 1)), T((32, 2, 2), (16, 8, 2048)), 16),
}
A8 = {  # M = 8 (m8n8k*): A and B share the layout
    (4, 64): Cute(T((4, 8), (8, 1)), T(1, 0), 8),
    (16, 8): Cute(T((4, 8), (32, 1)), T(4, 8), 8),
    (32, 4): Cute(T((4, 8), (64, 1)), T(8, 8), 8),
    (128, 1): Cute(T((4, 8), (256, 1)), T(32, 8), 8),
}
B8 = {  # (K, bits) -> B layout (rows = N = 8, columns = K)
    (8, 16): Cute(T((4, 8), (16, 1)), T(2, 8), 8),
    (16, 16): Cute(T((4, 8), (16, 1)), T((2, 2), (8, 64)), 8),
    (4, 32): Cute(T((4, 8), (8, 1)), T(1, 0), 8),
    (8, 32): Cute(T((4, 8), (8, 1)), T(2, 32), 8),
    (4, 64): Cute(T((4, 8), (8, 1)), T(1, 0), 8),
    (8, 64): Cute(T((4, 8), (8, 1)), T(2, 32), 8),
    (16, 64): Cute(T((4, 8), (8, 1)), T(4, 32), 8),
    (16, 8): Cute(T((4, 8), (32, 1)), T(4, 8), 8),
    (32, 8): Cute(T((4, 8), (32, 1)), T((4, 2), (8, 128)), 8),
    (32, 4): Cute(T((4, 8), (64, 1)), T(8, 8), 8),
    (64, 4): Cute(T((4, 8), (64, 1)), T((8, 2), (8, 256)), 8),
    (128, 1): Cute(T((4, 8), (256, 1)), T(32, 8), 8),
    (256, 1): Cute(T((4, 8), (256, 1)), T((32, 2), (8, 1024)), 8),
}

# m8n8k4 on .f16 (CUTLASS mma_traits_sm70): logical thread t of a quad pair is lane
# (t % 4) + 16 * (t // 4) (+ 4q for quad pair q).
QP_ROW = Cute(T(8, 1), T(4, 8), 8)  # (T8, V4) -> (8, 4): K-major
QP_COL = Cute(T((4, 2), (8, 4)), T(4, 1), 8)  # M-/N-major
QP_C16 = Cute(T(8, 1), T(8, 8), 8)
QP_C32 = Cute(T((2, 2, 2), (1, 16, 4)), T((2, 2, 2), (8, 2, 32)), 8)


def _quad_pair(layout: Cute, values: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(group, row, col) of each lane's elements for a quad-pair layout (8 logical threads)."""
    group = np.zeros((32, values), dtype=np.int64)
    row = np.zeros((32, values), dtype=np.int64)
    col = np.zeros((32, values), dtype=np.int64)
    for q in range(4):
        for t in range(8):
            lane = (t % 4) + 16 * (t // 4) + 4 * q
            base = _evaluate(layout.thr[0], layout.thr[1], t)
            for v in range(values):
                index = base + _evaluate(layout.val[0], layout.val[1], v)
                group[lane, v], row[lane, v], col[lane, v] = q, index % 8, index // 8
    return group, row, col


# ----------------------------------------------------------------------------- formats


def _minifloat(exp_bits: int, man_bits: int, bias: int, special: str | None) -> np.ndarray:
    """Values of every code of a small float format (this file's own decoder)."""
    out = []
    for code in range(1 << (1 + exp_bits + man_bits)):
        sign = -1.0 if code >> (exp_bits + man_bits) else 1.0
        e = (code >> man_bits) & ((1 << exp_bits) - 1)
        m = code & ((1 << man_bits) - 1)
        top = (1 << exp_bits) - 1
        if special == "ieee" and e == top:
            out.append(sign * math.inf if m == 0 else math.nan)
            continue
        if special == "e4m3" and e == top and m == (1 << man_bits) - 1:
            out.append(math.nan)
            continue
        if e == 0:
            out.append(sign * m * 2.0 ** (1 - bias - man_bits))
        else:
            out.append(sign * (1 + m / (1 << man_bits)) * 2.0 ** (e - bias))
    return np.array(out)


MINI = {
    "e4m3": _minifloat(4, 3, 7, "e4m3"),
    "e5m2": _minifloat(5, 2, 15, "ieee"),
    "e3m2": _minifloat(3, 2, 3, None),
    "e2m3": _minifloat(2, 3, 1, None),
    "e2m1": _minifloat(2, 1, 1, None),
}


def _encode_mini(values: np.ndarray, ty: str) -> np.ndarray:
    table = MINI[ty]
    codes = np.empty(values.shape, dtype=np.uint64)
    for v in np.unique(values):
        hit = np.flatnonzero(table == v)
        assert hit.size, f"{v} is not a .{ty} value"
        codes[values == v] = hit[0]
    return codes


def _small_values(ty: str, shape: tuple[int, ...], small: bool) -> np.ndarray:
    """Random values of ``ty`` whose products and dot products are exact in the accumulators."""
    if ty in ("e3m2", "e2m3", "e2m1"):
        finite = MINI[ty][np.isfinite(MINI[ty])]
        if small:
            finite = finite[np.abs(finite) <= 2]
        return RNG.choice(finite, size=shape)
    top = 3 if small else 8
    ints = RNG.integers(-top, top + 1, size=shape).astype(np.float64)
    if ty == "e5m2":
        ints = np.where(np.isin(np.abs(ints), (5, 7)), np.sign(ints) * 4, ints)
    if small:
        return ints
    return ints * np.exp2(RNG.integers(-2, 3, size=shape))


def _codes(values: np.ndarray, ty: str, contained: bool = False) -> np.ndarray:
    """Register codes (unsigned) of ``values`` as the multiplicand type ``ty``.

    ``contained``: fp4 in the 8-bit container of ``kind::f8f6f4`` (its middle four bits).
    """
    if ty == "f16":
        return values.astype(np.float16).view(np.uint16).astype(np.uint64)
    if ty == "bf16":
        bits = values.astype(np.float32).view(np.uint32)
        assert (bits & 0xFFFF == 0).all()
        return (bits >> 16).astype(np.uint64)
    if ty == "tf32":
        bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
        assert (bits & 0x1FFF == 0).all()
        # The hardware ignores the low 13 mantissa bits: fill them with noise.
        return bits | RNG.integers(0, 1 << 13, size=values.shape).astype(np.uint64)
    if ty == "f64":
        return values.astype(np.float64).view(np.uint64)
    if ty in MINI:
        codes = _encode_mini(values, ty)
        if contained and ty == "e2m1":
            return codes << np.uint64(2)
        return codes
    # integers
    bits = {"s8": 8, "u8": 8, "s4": 4, "u4": 4, "b1": 1}[ty]
    return values.astype(np.int64).astype(np.uint64) & np.uint64((1 << bits) - 1)


def _pack(codes: np.ndarray, bits: int, width: int) -> np.ndarray:
    """``(..., e)`` codes into ``(..., e * bits / width)`` registers, lowest bits first."""
    per = width // bits
    shaped = codes.reshape(*codes.shape[:-1], -1, per).astype(object)
    regs = np.zeros(shaped.shape[:-1], dtype=object)
    for j in range(per):
        regs = regs + (shaped[..., j] << (j * bits))
    return regs.astype(np.uint64)


def _unpack(regs: np.ndarray, bits: int, width: int) -> np.ndarray:
    per = width // bits
    out = np.zeros((*regs.shape, per), dtype=np.uint64)
    for j in range(per):
        out[..., j] = (regs.astype(np.uint64) >> np.uint64(j * bits)) & np.uint64((1 << bits) - 1)
    return out.reshape(*regs.shape[:-1], -1)


# ----------------------------------------------------------------------------- harness


def _mma_kernel(insn: str, ra: int, rb: int, rc: int, rd: int, wab: int, acc: str) -> str:
    """A kernel body: each thread loads its A/B/C registers, runs ``insn``, stores D."""
    creg = {"f32": "f32", "f64": "f64"}.get(acc, "b32")
    wc = 64 if acc == "f64" else 32
    lines = [
        f".reg .b{wab} %a<{ra}>;",
        f".reg .b{wab} %b<{rb}>;",
        f".reg .{creg} %c<{rc}>;",
        f".reg .{creg} %d<{rd}>;",
        ".reg .b32 %t<4>;",
        ".reg .b64 %q<12>;",
        "ld.param.u64 %q1, [pa];",
        "ld.param.u64 %q2, [pb];",
        "ld.param.u64 %q3, [pc];",
        "ld.param.u64 %q4, [pd];",
        "mov.u32 %t1, %ctaid.x;",
        "mov.u32 %t2, %ntid.x;",
        "mov.u32 %t3, %tid.x;",
        "mad.lo.s32 %t0, %t1, %t2, %t3;",
    ]

    def load(name: str, n: int, width: int, src: int, tmp: int) -> None:
        lines.append(f"mul.wide.u32 %q{tmp}, %t0, {n * width // 8};")
        lines.append(f"add.s64 %q{tmp}, %q{src}, %q{tmp};")
        for i in range(n):
            lines.append(f"ld.global.b{width} %{name}{i}, [%q{tmp}+{i * width // 8}];")

    load("a", ra, wab, 1, 5)
    load("b", rb, wab, 2, 6)
    load("c", rc, wc, 3, 7)

    def vec(name: str, n: int) -> str:
        return "{" + ", ".join(f"%{name}{i}" for i in range(n)) + "}"

    lines.append(f"{insn} {vec('d', rd)}, {vec('a', ra)}, {vec('b', rb)}, {vec('c', rc)};")
    lines.append(f"mul.wide.u32 %q8, %t0, {rd * wc // 8};")
    lines.append("add.s64 %q8, %q4, %q8;")
    for i in range(rd):
        lines.append(f"st.global.b{wc} [%q8+{i * wc // 8}], %d{i};")
    lines.append("ret;")
    return "\n".join(lines)


MMA_PARAMS = (".param .u64 pa", ".param .u64 pb", ".param .u64 pc", ".param .u64 pd")


@functools.cache
def _assembles(ptx: str, arch: str) -> tuple[bool, str]:
    return ptxas_accepts(ptx, arch)


@dataclass(frozen=True)
class Form:
    """One mma form: its instruction, where it assembles and its types."""

    insn: str
    arch: str
    version: str
    m: int
    n: int
    k: int
    atype: str
    btype: str
    ctype: str
    dtype: str
    kind: str | None = None

    @property
    def id(self) -> str:
        return self.insn.replace("mma.sync.aligned.", "")


_BITS = {
    "f16": 16, "bf16": 16, "tf32": 32, "f64": 64, "s8": 8, "u8": 8, "s4": 4, "u4": 4,
    "b1": 1, "e4m3": 8, "e5m2": 8, "e3m2": 8, "e2m3": 8, "e2m1": 8,
}  # fmt: skip


def _form(shape: str, types: str, arch: str, version: str, extra: str = "") -> Form:
    m, rest = shape[1:].split("n")
    n, k = rest.split("k")
    d, a, b, c = types.split(".")
    kind = "kind::f8f6f4" if "kind::f8f6f4" in extra else None
    layout = ".row.col" if not extra.startswith(".col") and not extra.startswith(".row") else ""
    insn = f"mma.sync.aligned.{shape}{layout}{extra}.{types}"
    return Form(insn, arch, version, int(m), int(n), int(k), a, b, c, d, kind)


FORMS = [
    _form("m16n8k8", "f32.f16.f16.f32", "sm_80", "7.0"),
    _form("m16n8k8", "f16.f16.f16.f16", "sm_80", "7.0"),
    _form("m16n8k16", "f32.f16.f16.f32", "sm_80", "7.0"),
    _form("m16n8k16", "f16.f16.f16.f16", "sm_80", "7.0"),
    _form("m16n8k8", "f32.bf16.bf16.f32", "sm_80", "7.0"),
    _form("m16n8k16", "f32.bf16.bf16.f32", "sm_80", "7.0"),
    _form("m16n8k4", "f32.tf32.tf32.f32", "sm_80", "7.0"),
    _form("m16n8k8", "f32.tf32.tf32.f32", "sm_80", "7.0"),
    _form("m8n8k4", "f64.f64.f64.f64", "sm_80", "7.0"),
    _form("m16n8k4", "f64.f64.f64.f64", "sm_90", "7.8"),
    _form("m16n8k8", "f64.f64.f64.f64", "sm_90", "7.8"),
    _form("m16n8k16", "f64.f64.f64.f64", "sm_90", "7.8"),
    _form("m8n8k16", "s32.s8.s8.s32", "sm_80", "7.0"),
    _form("m16n8k16", "s32.u8.s8.s32", "sm_80", "7.0"),
    _form("m16n8k32", "s32.s8.u8.s32", "sm_80", "7.0"),
    _form("m16n8k32", "s32.u8.u8.s32", "sm_80", "7.0", ".satfinite"),
    _form("m8n8k32", "s32.s4.s4.s32", "sm_80", "7.0"),
    _form("m16n8k32", "s32.u4.s4.s32", "sm_80", "7.0"),
    _form("m16n8k64", "s32.s4.u4.s32", "sm_80", "7.0", ".satfinite"),
    _form("m16n8k16", "f32.e4m3.e5m2.f32", "sm_89", "8.7"),
    _form("m16n8k16", "f16.e5m2.e4m3.f16", "sm_89", "8.7"),
    _form("m16n8k32", "f32.e4m3.e4m3.f32", "sm_89", "8.4"),
    _form("m16n8k32", "f32.e5m2.e5m2.f32", "sm_89", "8.4"),
    _form("m16n8k32", "f16.e4m3.e5m2.f16", "sm_89", "8.7"),
    _form("m16n8k32", "f32.e3m2.e2m3.f32", "sm_120a", "8.7", ".kind::f8f6f4"),
    _form("m16n8k32", "f32.e2m1.e4m3.f32", "sm_120a", "8.7", ".kind::f8f6f4"),
    _form("m16n8k32", "f16.e2m1.e2m1.f16", "sm_120a", "8.7", ".kind::f8f6f4"),
]


def _fragments(form: Form) -> tuple[tuple[np.ndarray, ...], ...]:
    """(group, row, col) of A (M x K), B (K x N), C, D elements for each lane, per CuTe."""
    m, n, k = form.m, form.n, form.k
    bits = _BITS[form.atype]
    if (m, n, k) == (8, 8, 4) and form.atype == "f16":
        alay = form.insn.split(".")[4]
        blay = form.insn.split(".")[5]
        a = _quad_pair(QP_ROW if alay == "row" else QP_COL, 4)
        # B is described N x K by CuTe: .col is K-major (the "Row" layout), .row N-major.
        bg, bn, bk = _quad_pair(QP_ROW if blay == "col" else QP_COL, 4)
        c = _quad_pair(QP_C16 if form.ctype == "f16" else QP_C32, 8)
        d = _quad_pair(QP_C16 if form.dtype == "f16" else QP_C32, 8)
        return a, (bg, bk, bn), c, d
    ea, eb, ec = m * k // 32, k * n // 32, m * n // 32
    a_lay = (A16 if m == 16 else A8)[(k, bits)]
    b_lay = (B8 if m == 16 else A8)[(k, bits)]
    c_lay = C16x8 if m == 16 else C8x8
    ar, ac = a_lay.coords(ea)
    bn_, bk_ = b_lay.coords(eb)
    cr, cc = c_lay.coords(ec)
    z = np.zeros_like
    return (z(ar), ar, ac), (z(bn_), bk_, bn_), (z(cr), cr, cc), (z(cr), cr, cc)


def _regs(
    values: np.ndarray, frag: tuple[np.ndarray, ...], ty: str, kind: str | None
) -> tuple[np.ndarray, int]:
    """(warps, G, rows, cols) values -> (warps * 32, regs) register words, and their width.

    ``kind``: ``"kind::f8f6f4"`` (fp6/fp4 in byte containers) or ``"mxf4"`` (packed fp4).
    """
    g, r, c = frag
    per_lane = values[:, g, r, c]  # (warps, 32, e)
    bits = _BITS.get(ty, 32)
    if ty in ("f32", "s32"):
        codes = per_lane.astype(np.float32 if ty == "f32" else np.int64)
        if ty == "f32":
            return codes.view(np.uint32).reshape(-1, codes.shape[-1]), 32
        return (codes & 0xFFFFFFFF).astype(np.uint32).reshape(-1, codes.shape[-1]), 32
    if kind == "mxf4":
        bits = 4
    codes = _codes(per_lane, ty, contained=kind == "kind::f8f6f4")
    width = 64 if bits == 64 else 32
    regs = _pack(codes, bits, width)
    dtype = np.uint64 if width == 64 else np.uint32
    return regs.astype(dtype).reshape(-1, regs.shape[-1]), width


def _run_mma(
    form: Form, a: np.ndarray, b: np.ndarray, c: np.ndarray, raw: list[np.ndarray] | None = None
) -> np.ndarray:
    """Run ``form`` on (warps, G, ...) matrices; D as (warps, G, M, N) values.

    ``raw``, when given, receives the D registers as stored (one row per thread).
    """
    fa, fb, fc, fd = _fragments(form)
    ra, wab = _regs(a, fa, form.atype, form.kind)
    rb, _ = _regs(b, fb, form.btype, form.kind)
    if form.ctype == "f16":
        rc = _pack(_codes(c[:, fc[0], fc[1], fc[2]], "f16"), 16, 32).astype(np.uint32)
        rc = rc.reshape(-1, rc.shape[-1])
    elif form.ctype == "f64":
        rc = c[:, fc[0], fc[1], fc[2]].astype(np.float64).reshape(WARPS * 32, -1)
    else:
        rc, _ = _regs(c, fc, form.ctype, None)
    ed = fd[1].shape[1]
    rd_count = ed // 2 if form.dtype == "f16" else ed
    out = np.zeros((WARPS * 32, rd_count), dtype=np.float64 if form.dtype == "f64" else np.uint32)
    body = _mma_kernel(form.insn, ra.shape[1], rb.shape[1], rc.shape[1], rd_count, wab, form.ctype)
    body = body.replace(f".reg .{_creg(form.ctype)} %d", f".reg .{_creg(form.dtype)} %d")
    run(
        body,
        [ra, rb, rc, out],
        params=MMA_PARAMS,
        grid=GRID,
        block=BLOCK,
        target=form.arch,
        version=form.version,
    )
    if raw is not None:
        raw.append(out)
    if form.dtype == "f16":
        vals = _unpack(out, 16, 32).astype(np.uint16).view(np.float16).astype(np.float64)
    elif form.dtype == "f32":
        vals = out.view(np.float32).astype(np.float64)
    elif form.dtype == "s32":
        vals = out.view(np.int32).astype(np.int64)
    else:
        vals = out
    vals = vals.reshape(WARPS, 32, -1)
    g, r, cc = fd
    d = np.zeros((WARPS, *c.shape[1:]), dtype=vals.dtype)
    d[:, g, r, cc] = vals
    return d


def _creg(ty: str) -> str:
    return {"f32": "f32", "f64": "f64"}.get(ty, "b32")


def _random_operands(form: Form) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    groups = 4 if (form.m, form.n, form.k) == (8, 8, 4) and form.atype == "f16" else 1
    sa = (WARPS, groups, form.m, form.k)
    sb = (WARPS, groups, form.k, form.n)
    sc = (WARPS, groups, form.m, form.n)
    if form.atype in ("s8", "u8", "s4", "u4", "b1"):

        def ints(ty: str, shape: tuple[int, ...]) -> np.ndarray:
            lo, hi = {"s8": (-128, 128), "u8": (0, 256), "s4": (-8, 8), "u4": (0, 16)}.get(
                ty, (0, 2)
            )
            return RNG.integers(lo, hi, size=shape)

        c = RNG.integers(-(1 << 20), 1 << 20, size=sc)
        return ints(form.atype, sa), ints(form.btype, sb), c
    small = form.dtype == "f16" or form.ctype == "f16"
    a = _small_values(form.atype, sa, small)
    b = _small_values(form.btype, sb, small)
    c = RNG.integers(-8, 9, size=sc).astype(np.float64)
    if not small:
        c = c * 0.25
    return a, b, c


def _expected(form: Form, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    if form.atype == "b1":
        raise AssertionError("b1 has its own test")
    if a.dtype.kind in "iu":
        return a.astype(np.int64) @ b.astype(np.int64) + c
    exact = a @ b + c
    if form.dtype == "f32":
        assert (exact.astype(np.float32) == exact).all(), "test values must be exact in f32"
    if form.dtype == "f16":
        assert (exact.astype(np.float16) == exact).all(), "test values must be exact in f16"
    return exact


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.id)
def test_mma_matches_numpy_with_the_isa_fragment_layouts(form: Form) -> None:
    a, b, c = _random_operands(form)
    d = _run_mma(form, a, b, c)
    np.testing.assert_array_equal(d, _expected(form, a, b, c))


QUAD_FORMS = [
    _form("m8n8k4", f"{d}.f16.f16.{c}", "sm_80", "7.0", f".{al}.{bl}")
    for al in ("row", "col")
    for bl in ("row", "col")
    for d, c in (("f32", "f32"), ("f16", "f16"), ("f32", "f16"))
]


@pytest.mark.parametrize("form", QUAD_FORMS, ids=lambda f: f.id)
def test_m8n8k4_quad_pairs_compute_four_independent_products(form: Form) -> None:
    a, b, c = _random_operands(form)
    d = _run_mma(form, a, b, c)
    np.testing.assert_array_equal(d, a @ b + c)


@pytest.mark.parametrize("form", FORMS + QUAD_FORMS, ids=lambda f: f.id)
def test_ptxas_accepts_each_mma_form(form: Form) -> None:
    fa, fb, fc, fd = _fragments(form)
    bits = _BITS[form.atype]
    width = 64 if bits == 64 else 32
    ra = fa[1].shape[1] * bits // width
    rb = fb[1].shape[1] * bits // width
    rc = fc[1].shape[1] // (2 if form.ctype == "f16" else 1)
    rd = fd[1].shape[1] // (2 if form.dtype == "f16" else 1)
    body = _mma_kernel(form.insn, max(ra, 1), max(rb, 1), rc, rd, width, form.ctype)
    body = body.replace(f".reg .{_creg(form.ctype)} %d", f".reg .{_creg(form.dtype)} %d")
    ptx = module(body, params=MMA_PARAMS, target=form.arch, version=form.version)
    ok, msg = _assembles(ptx, form.arch)
    assert ok, msg


@pytest.mark.parametrize("op", ["xor", "and"])
@pytest.mark.parametrize("shape", ["m8n8k128", "m16n8k128", "m16n8k256"])
def test_single_bit_mma_counts_set_bits(op: str, shape: str) -> None:
    form = _form(shape, "s32.b1.b1.s32", "sm_80", "7.1", "")
    form = replace(form, insn=form.insn + f".{op}.popc")
    a, b, c = _random_operands(form)
    d = _run_mma(form, a, b, c)
    ai, bi = a.astype(np.int64), b.astype(np.int64)
    if op == "and":
        count = ai @ bi
    else:
        count = ai.sum(-1)[..., :, None] + bi.sum(-2)[..., None, :] - 2 * (ai @ bi)
    np.testing.assert_array_equal(d, count + c)
    fa, fb, fc, _ = _fragments(form)
    body = _mma_kernel(
        form.insn,
        fa[1].shape[1] // 32,
        fb[1].shape[1] // 32,
        fc[1].shape[1],
        fc[1].shape[1],
        32,
        "s32",
    )
    ptx = module(body, params=MMA_PARAMS, target="sm_80", version="7.1")
    assert _assembles(ptx, "sm_80")[0]


# ----------------------------------------------------------------------------- integers


def test_integer_mma_wraps_without_satfinite_and_clamps_with_it() -> None:
    plain = _form("m16n8k32", "s32.s8.s8.s32", "sm_80", "7.0")
    sat = _form("m16n8k32", "s32.s8.s8.s32", "sm_80", "7.0", ".satfinite")
    a = np.full((WARPS, 1, 16, 32), -128)
    b = np.full((WARPS, 1, 32, 8), -128)
    c = np.full((WARPS, 1, 16, 8), (1 << 31) - 1 - 1000)
    c[:, :, 8:, :] = -(1 << 31)
    b[:, :, :, 4:] = 127  # negative products in the right half
    exact = a @ b + c
    wrapped = ((exact + (1 << 31)) % (1 << 32)) - (1 << 31)
    np.testing.assert_array_equal(_run_mma(plain, a, b, c), wrapped)
    np.testing.assert_array_equal(_run_mma(sat, a, b, c), np.clip(exact, -(1 << 31), (1 << 31) - 1))
    assert (exact > (1 << 31) - 1).any() and (exact < -(1 << 31)).any()


# ----------------------------------------------------------------------------- rounding


def _f32_of(x: Fraction) -> float:
    """``x`` rounded once to the nearest ``float32`` (ties to even)."""
    lo = float(np.float32(float(x)))  # candidates around x; pick the nearest exactly
    cands = {
        lo,
        float(np.nextafter(np.float32(lo), np.float32(np.inf))),
        float(np.nextafter(np.float32(lo), np.float32(-np.inf))),
    }
    best = min(cands, key=lambda v: (abs(Fraction(v) - x), np.float32(v).view(np.uint32) & 1))
    return best


def test_float_mma_rounds_the_exact_sum_once() -> None:
    form = _form("m16n8k16", "f32.f16.f16.f32", "sm_80", "7.0")
    a = np.zeros((WARPS, 1, 16, 16))
    b = np.zeros((WARPS, 1, 16, 8))
    c = np.zeros((WARPS, 1, 16, 8))
    # row i of A times column j of B: a few products of very different sizes
    a[:, 0, :, 0] = 1.0
    a[:, 0, :, 1] = 2.0**-15
    a[:, 0, :, 2] = 2.0**-12
    b[:, 0, 0, :] = 1.0
    b[:, 0, 1, :] = 2.0**-9  # 2**-24: half an ulp of 1.0 in f32
    b[:, 0, 2, :] = np.array([0, 1, 2, 3, 0, 0, 0, 0]) * 2.0**-12  # + k * 2**-24
    c[:, 0, :, :] = RNG.choice([0.0, 2.0**-24, -(2.0**-23), 3.0], size=(WARPS, 16, 8))
    d = _run_mma(form, a, b, c)
    for w in range(WARPS):
        for i in range(16):
            for j in range(8):
                exact = sum(
                    Fraction(float(a[w, 0, i, kk])) * Fraction(float(b[w, 0, kk, j]))
                    for kk in range(16)
                ) + Fraction(float(c[w, 0, i, j]))
                assert d[w, 0, i, j] == _f32_of(exact), (w, i, j)


def test_float_mma_keeps_a_cancelling_sum_exact() -> None:
    # 2**24 + 1 - 2**24: summed in float64 (the emulator's documented model) this is 1;
    # a step-by-step float32 sum would lose the 1.
    form = _form("m16n8k16", "f32.f16.f16.f32", "sm_80", "7.0")
    a = np.zeros((WARPS, 1, 16, 16))
    b = np.zeros((WARPS, 1, 16, 8))
    a[..., 0], a[..., 1], a[..., 2] = 4096.0, 1.0, -4096.0
    b[:, :, 0, :], b[:, :, 1, :], b[:, :, 2, :] = 4096.0, 1.0, 4096.0
    d = _run_mma(form, a, b, np.zeros((WARPS, 1, 16, 8)))
    np.testing.assert_array_equal(d, np.ones_like(d))


def test_f16_accumulator_rounds_to_nearest_even_and_nans_are_canonical() -> None:
    form = _form("m16n8k16", "f16.f16.f16.f16", "sm_80", "7.0")
    a = np.zeros((WARPS, 1, 16, 16))
    b = np.zeros((WARPS, 1, 16, 8))
    c = np.zeros((WARPS, 1, 16, 8))
    a[..., 0] = 1024.0
    b[:, :, 0, :] = 1.0
    a[..., 1] = 0.5
    b[:, :, 1, :] = np.array([1, 2, 3, 0, 0, 0, 0, 0])  # 1024 + 0.5k: ties at 0.5, 1.5
    a[:, :, 3, 2] = np.inf
    b[:, :, 2, :] = 1.0
    b[:, :, 2, 5] = 0.0  # inf * 0 = NaN in row 3, column 5
    raw: list[np.ndarray] = []
    d = _run_mma(form, a, b, c, raw)
    expect = np.full((16, 8), 1024.0)
    expect[:, 1] = 1025.0  # 1025 is exact
    expect[:, 2] = 1026.0  # 1025.5 ties to even -> 1026
    expect[3, :] = np.inf
    expect[3, 5] = np.nan
    np.testing.assert_array_equal(d[0, 0], expect)
    # the NaN is written as the canonical 0x7fff
    fd = _fragments(form)[3]
    lane, elem = (int(x[0]) for x in np.nonzero((fd[1] == 3) & (fd[2] == 5)))
    halves = raw[0].view(np.uint16).reshape(WARPS, 32, -1)
    assert (halves[:, lane, elem] == 0x7FFF).all()


def test_tf32_ignores_the_low_mantissa_bits() -> None:
    form = _form("m16n8k8", "f32.tf32.tf32.f32", "sm_80", "7.0")
    a = np.ones((WARPS, 1, 16, 8))
    b = np.ones((WARPS, 1, 8, 8))
    # _codes adds random noise below bit 13 of every tf32 operand
    d = _run_mma(form, a, b, np.zeros((WARPS, 1, 16, 8)))
    np.testing.assert_array_equal(d, np.full_like(d, 8.0))


def _round_fraction(x: Fraction, mode: str) -> float:
    """``x`` rounded once to ``float64`` in ``mode`` (this file's own implementation)."""
    if x == 0:
        return 0.0
    near = float(x)
    if Fraction(near) == x or mode == "rn":
        return near
    below = near if Fraction(near) < x else math.nextafter(near, -math.inf)
    above = near if Fraction(near) > x else math.nextafter(near, math.inf)
    if mode == "rm":
        return below
    if mode == "rp":
        return above
    return below if x > 0 else above


@pytest.mark.parametrize("rnd", ["", ".rn", ".rz", ".rm", ".rp"])
def test_f64_mma_is_a_chain_of_fused_multiply_adds(rnd: str) -> None:
    form = _form("m8n8k4", "f64.f64.f64.f64", "sm_80", "7.0", rnd)
    a = RNG.choice([1.0, 3.0, -1.0, 2.0**-30, 1 + 2.0**-40], size=(WARPS, 1, 8, 4))
    b = RNG.choice([1.0, 2.0**-23, -(2.0**-24), 2.0**-50, 5.0], size=(WARPS, 1, 4, 8))
    c = RNG.choice([1.0, -1.0, 2.0**60, 0.1], size=(WARPS, 1, 8, 8))
    d = _run_mma(form, a, b, c)
    mode = rnd[1:] or "rn"
    for w in range(WARPS):
        for i in range(8):
            for j in range(8):
                acc = float(c[w, 0, i, j])
                for kk in range(4):
                    exact = Fraction(float(a[w, 0, i, kk])) * Fraction(float(b[w, 0, kk, j]))
                    acc = _round_fraction(exact + Fraction(acc), mode)
                assert d[w, 0, i, j] == acc, (rnd, w, i, j)
    ptx = module(
        _mma_kernel(form.insn, 1, 1, 2, 2, 64, "f64"),
        params=MMA_PARAMS,
        target="sm_80",
        version="7.0",
    )
    assert _assembles(ptx, "sm_80")[0]


_FINITE = st.floats(allow_nan=False, allow_infinity=False, width=64)


@settings(max_examples=examples(300), deadline=None)
@given(_FINITE, _FINITE, _FINITE, st.sampled_from(["rn", "rz", "rm", "rp"]))
def test_fma_helper_rounds_once_in_every_mode(a: float, b: float, c: float, mode: str) -> None:
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    got = float(fma(np.array([a]), np.array([b]), np.array([c]), mode)[0])
    big = float.fromhex("0x1.fffffffffffffp+1023")
    if abs(exact) > Fraction(big):
        expect_mag = {
            "rn": math.inf if abs(exact) >= Fraction(big) + Fraction(2) ** 970 else big,
            "rz": big,
            "rm": big if exact > 0 else math.inf,
            "rp": math.inf if exact > 0 else big,
        }[mode]
        assert got == (expect_mag if exact > 0 else -expect_mag)
    elif exact == 0:
        assert got == 0.0
    else:
        assert got == _round_fraction(exact, mode)


# ----------------------------------------------------------------------------- block scaling


def _ue8m0(e: np.ndarray) -> np.ndarray:
    return np.exp2(e.astype(np.float64) - 127)


_SCALE_LOADS = """
.reg .b32 %sa, %sb;
.reg .b64 %s<4>;
ld.param.u64 %s1, [psa];
ld.param.u64 %s2, [psb];
mul.wide.u32 %s3, %t0, 4;
add.s64 %s1, %s1, %s3;
add.s64 %s2, %s2, %s3;
ld.global.b32 %sa, [%s1];
ld.global.b32 %sb, [%s2];
"""
_UE4M3 = {0x38: 1.0, 0x40: 2.0, 0x30: 0.5, 0x3C: 1.5}  # unsigned e4m3, bias 7


@pytest.mark.parametrize(
    ("kind", "vec", "stype", "ids"),
    [
        ("kind::mxf8f6f4", "", "ue8m0", ((0, 0), (0, 0))),
        ("kind::mxf8f6f4", ".scale_vec::1X", "ue8m0", ((3, 1), (2, 3))),
        ("kind::mxf4", "", "ue8m0", ((2, 1), (0, 2))),
        ("kind::mxf4nvf4", ".scale_vec::2X", "ue8m0", ((0, 0), (2, 1))),
        ("kind::mxf4nvf4", ".scale_vec::4X", "ue4m3", ((0, 1), (0, 1))),
    ],
)
def test_block_scaled_mma(
    kind: str, vec: str, stype: str, ids: tuple[tuple[int, int], tuple[int, int]]
) -> None:
    k = 32 if kind == "kind::mxf8f6f4" else 64
    atype = "e4m3" if k == 32 else "e2m1"
    blocks = {"": 1 if k == 32 else 2, ".scale_vec::1X": 1, ".scale_vec::2X": 2}.get(vec, 4)
    insn = (
        f"mma.sync.aligned.{kind}.block_scale{vec}.m16n8k{k}.row.col.f32.{atype}.{atype}.f32"
        f".{stype}"
    )
    a = RNG.choice([0.0, 0.5, 1.0, -1.5, 2.0, 3.0], size=(WARPS, 1, 16, k))
    b = RNG.choice([0.0, 1.0, -2.0, 0.5], size=(WARPS, 1, k, 8))
    c = RNG.integers(-4, 5, size=(WARPS, 1, 16, 8)).astype(np.float64)
    if stype == "ue8m0":  # 2 ** (code - 127)
        sa_codes = RNG.integers(124, 131, size=(WARPS, 32, 4))
        sb_codes = RNG.integers(124, 131, size=(WARPS, 32, 4))
        sa_val, sb_val = np.exp2(sa_codes - 127.0), np.exp2(sb_codes - 127.0)
    else:
        sa_codes = RNG.choice(list(_UE4M3), size=(WARPS, 32, 4))
        sb_codes = RNG.choice(list(_UE4M3), size=(WARPS, 32, 4))
        sa_val, sb_val = np.vectorize(_UE4M3.get)(sa_codes), np.vectorize(_UE4M3.get)(sb_codes)
    (byte_a, tid_a), (byte_b, tid_b) = ids
    rows = np.arange(16)
    lane_a = 4 * (rows % 8) + 2 * tid_a + rows // 8
    lane_b = 4 * np.arange(8) + tid_b
    kb = np.arange(k) // (k // blocks)
    scale_a = sa_val[:, lane_a][:, :, byte_a + kb]  # (w, 16, k)
    scale_b = sb_val[:, lane_b][:, :, byte_b + kb]  # (w, 8, k)
    expect = (a[:, 0] * scale_a) @ (b[:, 0] * np.swapaxes(scale_b, 1, 2)) + c[:, 0]

    bits = 8 if k == 32 else 4
    a_lay, b_lay = A16[(k, bits)], B8[(k, bits)]
    ar, ac = a_lay.coords(16 * k // 32)
    bn, bk = b_lay.coords(8 * k // 32)
    z = np.zeros_like
    ra, _ = _regs(a, (z(ar), ar, ac), atype, None if k == 32 else "mxf4")
    rb, _ = _regs(b, (z(bn), bk, bn), atype, None if k == 32 else "mxf4")
    cr, cc = C16x8.coords(4)
    rc, _ = _regs(c, (z(cr), cr, cc), "f32", None)
    sa = _pack(sa_codes.astype(np.uint64), 8, 32).astype(np.uint32).reshape(-1)
    sb = _pack(sb_codes.astype(np.uint64), 8, 32).astype(np.uint32).reshape(-1)
    out = np.zeros((WARPS * 32, 4), dtype=np.uint32)
    body = _mma_kernel(insn, ra.shape[1], rb.shape[1], 4, 4, 32, "f32")
    selectors = f", %sa, {{{byte_a}, {tid_a}}}, %sb, {{{byte_b}, {tid_b}}};"
    head, tail = body.split(f"{insn} ")
    tail = tail.replace("{%c0, %c1, %c2, %c3};", "{%c0, %c1, %c2, %c3}" + selectors, 1)
    body = head + _SCALE_LOADS + f"{insn} " + tail
    params = (*MMA_PARAMS, ".param .u64 psa", ".param .u64 psb")
    run(
        body,
        [ra, rb, rc, out, sa, sb],
        params=params,
        grid=GRID,
        block=BLOCK,
        target="sm_120a",
        version="8.7",
    )
    d = np.zeros((WARPS, 16, 8))
    d[:, cr, cc] = out.view(np.float32).reshape(WARPS, 32, 4)
    np.testing.assert_array_equal(d, expect)
    ok, msg = _assembles(module(body, params=params, target="sm_120a", version="8.7"), "sm_120a")
    assert ok, msg


def test_the_scale_lanes_used_above_match_cutlass_for_selector_zero() -> None:
    # test_block_scaled_mma takes row m's factor from lane 4 * (m % 8) + 2 * thread-id-a +
    # m // 8. For {byte, thread} = {0, 0} that must agree with CUTLASS's SFALayout for
    # mxf8f6f4 16x8x32 (threads 2 and 3 of each quad repeat threads 0 and 1: stride 0).
    sfa = Cute(T((2, 2, 8), (8, 0, 1)), T(32, 16), 16)
    rows, _ = sfa.coords(32)
    for lane in range(32):
        if (lane >> 1) & 1:
            continue
        m = 4 * (rows[lane, 0] % 8) + rows[lane, 0] // 8
        assert m == lane


# ----------------------------------------------------------------------------- ldmatrix


def _shared_kernel(core: str, smem_bytes: int, nregs: int, load: bool) -> str:
    """Copy 16 bytes per thread of input into this warp's shared area, run ``core``.

    ``%addr`` is this warp's shared base plus the thread's row offset from ``rows``; the
    registers ``%r0..`` are read from ``regs`` before (stmatrix) or written to ``regs``
    after (ldmatrix); the shared area is copied to ``out`` at the end.
    """
    per_thread = smem_bytes // 32
    lines = [
        f".shared .align 16 .b8 smem[{2 * smem_bytes}];",
        f".reg .b32 %r<{max(nregs, 1)}>;",
        ".reg .b32 %t<8>;",
        ".reg .b64 %q<16>;",
        ".reg .b32 %v<4>;",
        "ld.param.u64 %q1, [inp];",
        "ld.param.u64 %q2, [rows];",
        "ld.param.u64 %q3, [regs];",
        "ld.param.u64 %q4, [out];",
        "mov.u32 %t1, %ctaid.x;",
        "mov.u32 %t2, %ntid.x;",
        "mov.u32 %t3, %tid.x;",
        "mad.lo.s32 %t0, %t1, %t2, %t3;",  # global thread
        "shr.u32 %t4, %t3, 5;",  # warp in CTA
        f"mul.lo.u32 %t5, %t4, {smem_bytes};",
        "mov.u32 %t6, smem;",
        "add.u32 %t5, %t5, %t6;",  # this warp's shared base
        "and.b32 %t7, %t3, 31;",
        f"mul.lo.u32 %t7, %t7, {per_thread};",
        "add.u32 %t7, %t5, %t7;",  # this thread's slice
        f"mul.wide.u32 %q5, %t0, {per_thread};",
        "add.s64 %q5, %q1, %q5;",
    ]
    for off in range(0, per_thread, 16):
        lines.append(f"ld.global.v4.u32 {{%v0, %v1, %v2, %v3}}, [%q5+{off}];")
        lines.append(f"st.shared.v4.u32 [%t7+{off}], {{%v0, %v1, %v2, %v3}};")
    lines += [
        "mul.wide.u32 %q6, %t0, 4;",
        "add.s64 %q6, %q2, %q6;",
        "ld.global.u32 %t6, [%q6];",
        "add.u32 %t6, %t5, %t6;",  # row address
        f"mul.wide.u32 %q7, %t0, {4 * max(nregs, 1)};",
        "add.s64 %q7, %q3, %q7;",
    ]
    if not load:
        lines += [f"ld.global.b32 %r{i}, [%q7+{4 * i}];" for i in range(nregs)]
    lines += ["bar.warp.sync -1;", core.replace("%addr", "%t6"), "bar.warp.sync -1;"]
    if load:
        lines += [f"st.global.b32 [%q7+{4 * i}], %r{i};" for i in range(nregs)]
    for off in range(0, per_thread, 16):
        lines.append(f"ld.shared.v4.u32 {{%v0, %v1, %v2, %v3}}, [%t7+{off}];")
        lines.append(f"mul.wide.u32 %q8, %t0, {per_thread};")
        lines.append("add.s64 %q8, %q4, %q8;")
        lines.append(f"st.global.v4.u32 [%q8+{off}], {{%v0, %v1, %v2, %v3}};")
    lines.append("ret;")
    return "\n".join(lines)


SHARED_PARAMS = (".param .u64 inp", ".param .u64 rows", ".param .u64 regs", ".param .u64 out")


def _row_offsets(count: int, row_bytes: int, area: int) -> np.ndarray:
    """(warps, 32) shared offsets: a random permutation of 16-byte-aligned rows per warp."""
    slots = area // row_bytes
    out = np.zeros((WARPS, 32), dtype=np.uint32)
    for w in range(WARPS):
        perm = RNG.permutation(slots)[:count] * row_bytes
        out[w, :count] = perm
        out[w, count:] = RNG.integers(0, slots, 32 - count) * row_bytes  # unused lanes
    return out


def _vec(n: int) -> str:
    return "{" + ", ".join(f"%r{i}" for i in range(n)) + "}"


@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("num", [1, 2, 4])
def test_ldmatrix_m8n8_b16(num: int, trans: bool) -> None:
    insn = f"ldmatrix.sync.aligned.m8n8.x{num}{'.trans' if trans else ''}.shared.b16"
    area = 1024
    data = RNG.integers(0, 1 << 16, size=(WARPS, area // 2), dtype=np.uint16)
    rows = _row_offsets(8 * num, 16, area)
    regs = np.zeros((WARPS * 32, num), dtype=np.uint32)
    body = _shared_kernel(f"{insn} {_vec(num)}, [%addr];", area, num, load=True)
    run(
        body,
        [data, rows.copy(), regs, np.zeros_like(data)],
        params=SHARED_PARAMS,
        grid=GRID,
        block=BLOCK,
        target="sm_80",
        version="7.0",
    )
    halves = regs.view(np.uint16).reshape(WARPS, 32, num, 2)
    for w in range(WARPS):
        for j in range(num):
            # matrix j: row r is the 8 halves at the address of lane 8j + r
            mat = np.stack([data[w, rows[w, 8 * j + r] // 2 :][:8] for r in range(8)])
            if trans:
                mat = mat.T
            # thread 4r + c // 2 holds row r, columns c (low half) and c + 1 (high half)
            for r in range(8):
                for cpair in range(4):
                    got = halves[w, 4 * r + cpair, j]
                    assert tuple(got) == tuple(mat[r, 2 * cpair : 2 * cpair + 2]), (w, j, r)
    ptx = module(body, params=SHARED_PARAMS, target="sm_80", version="7.0")
    assert _assembles(ptx, "sm_80")[0]


@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("num", [1, 2, 4])
def test_stmatrix_m8n8_b16_inverts_ldmatrix(num: int, trans: bool) -> None:
    t = ".trans" if trans else ""
    area = 1024
    rows = _row_offsets(8 * num, 16, area)
    regs = RNG.integers(0, 1 << 32, size=(WARPS * 32, num), dtype=np.uint64).astype(np.uint32)
    core = f"stmatrix.sync.aligned.m8n8.x{num}{t}.shared.b16 [%addr], {_vec(num)};"
    body = _shared_kernel(core, area, num, load=False)
    zeros = np.zeros((WARPS, area // 2), dtype=np.uint16)
    out = np.zeros_like(zeros)
    run(
        body,
        [zeros, rows.copy(), regs, out],
        params=SHARED_PARAMS,
        grid=GRID,
        block=BLOCK,
        target="sm_90",
        version="7.8",
    )
    halves = regs.view(np.uint16).reshape(WARPS, 32, num, 2)
    expect = np.zeros_like(zeros)
    for w in range(WARPS):
        for j in range(num):
            mat = np.zeros((8, 8), dtype=np.uint16)
            for lane in range(32):
                mat[lane // 4, 2 * (lane % 4) : 2 * (lane % 4) + 2] = halves[w, lane, j]
            if trans:
                mat = mat.T
            for r in range(8):
                start = rows[w, 8 * j + r] // 2
                expect[w, start : start + 8] = mat[r]
    np.testing.assert_array_equal(out, expect)
    # and the loaded matrix comes back: ldmatrix of what stmatrix wrote gives the registers
    load = _shared_kernel(
        f"ldmatrix.sync.aligned.m8n8.x{num}{t}.shared.b16 {_vec(num)}, [%addr];",
        area,
        num,
        load=True,
    )
    back = np.zeros_like(regs)
    run(
        load,
        [out, rows.copy(), back, np.zeros_like(out)],
        params=SHARED_PARAMS,
        grid=GRID,
        block=BLOCK,
        target="sm_90",
        version="7.8",
    )
    np.testing.assert_array_equal(back, regs)
    ptx = module(body, params=SHARED_PARAMS, target="sm_90", version="7.8")
    assert _assembles(ptx, "sm_90")[0]


@pytest.mark.parametrize("num", [1, 2])
def test_ldmatrix_m16n16_trans_b8(num: int) -> None:
    insn = f"ldmatrix.sync.aligned.m16n16.x{num}.trans.shared.b8"
    area = 1024
    data = RNG.integers(0, 256, size=(WARPS, area), dtype=np.uint8)
    rows = _row_offsets(16 * num, 16, area)
    nregs = 2 * num
    regs = np.zeros((WARPS * 32, nregs), dtype=np.uint32)
    body = _shared_kernel(f"{insn} {_vec(nregs)}, [%addr];", area, nregs, load=True)
    run(
        body,
        [data, rows.copy(), regs, np.zeros_like(data)],
        params=SHARED_PARAMS,
        grid=GRID,
        block=BLOCK,
        target="sm_100a",
        version="8.6",
    )
    got = regs.view(np.uint8).reshape(WARPS, 32, num, 2, 4)
    # CUTLASS SM100_U8x8_LDSM_T (copy_traits_sm100.hpp): after CuTe's byte shuffle
    # (dst0 = {t0.x, t0.y, t1.x, t1.y}, dst1 = {t0.z, t0.w, t1.z, t1.w}) the (thread, value)
    # -> bit map is ((4,8),(8,2,2,2)):((256,8),(1,128,64,1024)) over 16 rows of 128 bits,
    # whose rows the source lanes address in the order ((2,2,4,2)):((128,1024,256,0)).
    dst_thr, dst_val = T((4, 8), (256, 8)), T((8, 2, 2, 2), (1, 128, 64, 1024))
    src_row_of_lane = [_evaluate((2, 2, 4, 2), (1, 8, 2, 0), t) for t in range(32)]
    for w in range(WARPS):
        for j in range(num):
            mem = np.stack(
                [data[w, rows[w, 16 * j + r] :][:16] for r in range(16)]
            )  # memory row r = address of lane 16j + r
            ref = np.zeros((16, 16), dtype=np.uint8)  # CuTe's reference rows
            for lane in range(16):
                ref[src_row_of_lane[lane]] = mem[lane]
            for lane in range(32):
                shuffled = np.zeros((2, 4), dtype=np.uint8)
                for v in range(0, 32 * 2, 8):
                    bit = _evaluate(*dst_thr, lane) + _evaluate(*dst_val, v)
                    shuffled[v // 32, (v % 32) // 8] = ref[bit // 128, (bit % 128) // 8]
                raw = got[w, lane, j]  # undo CuTe's shuffle to compare raw registers
                cute = np.array(
                    [
                        [raw[0, 0], raw[0, 1], raw[1, 0], raw[1, 1]],
                        [raw[0, 2], raw[0, 3], raw[1, 2], raw[1, 3]],
                    ]
                )
                np.testing.assert_array_equal(cute, shuffled)
    ptx = module(body, params=SHARED_PARAMS, target="sm_100a", version="8.6")
    assert _assembles(ptx, "sm_100a")[0]


@pytest.mark.parametrize("num", [1, 2, 4])
def test_stmatrix_m16n8_trans_b8(num: int) -> None:
    core = f"stmatrix.sync.aligned.m16n8.x{num}.trans.shared.b8 [%addr], {_vec(num)};"
    area = 1024
    rows = _row_offsets(8 * num, 16, area)
    regs = RNG.integers(0, 1 << 32, size=(WARPS * 32, num), dtype=np.uint64).astype(np.uint32)
    body = _shared_kernel(core, area, num, load=False)
    zeros = np.zeros((WARPS, area), dtype=np.uint8)
    out = np.zeros_like(zeros)
    run(
        body,
        [zeros, rows.copy(), regs, out],
        params=SHARED_PARAMS,
        grid=GRID,
        block=BLOCK,
        target="sm_100a",
        version="8.6",
    )
    bytes_ = regs.view(np.uint8).reshape(WARPS, 32, num, 4)
    # CUTLASS SM100_U8x4_STSM_T: (thread, value) -> bit ((4,8),(8,2,2)):((256,8),(1,128,64)),
    # stored as 8 rows of 128 bits at the addresses of lanes 0..7 (+8 per matrix).
    src_thr, src_val = T((4, 8), (256, 8)), T((8, 2, 2), (1, 128, 64))
    expect = np.zeros_like(zeros)
    for w in range(WARPS):
        for j in range(num):
            ref = np.zeros((8, 16), dtype=np.uint8)
            for lane in range(32):
                for q in range(4):
                    bit = _evaluate(*src_thr, lane) + _evaluate(*src_val, 8 * q)
                    ref[bit // 128, (bit % 128) // 8] = bytes_[w, lane, j, q]
            for r in range(8):
                start = rows[w, 8 * j + r]
                expect[w, start : start + 16] = ref[r]
    np.testing.assert_array_equal(out, expect)
    ptx = module(body, params=SHARED_PARAMS, target="sm_100a", version="8.6")
    assert _assembles(ptx, "sm_100a")[0]


def test_movmatrix_transposes_the_fragment() -> None:
    body = """
	.reg .b32 %r<4>;
	.reg .b64 %q<4>;
	ld.param.u64 %q1, [out];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.s32 %r0, %r1, %r2, %r3;
	mul.wide.u32 %q2, %r0, 4;
	add.s64 %q2, %q1, %q2;
	ld.global.b32 %r1, [%q2];
	movmatrix.sync.aligned.m8n8.trans.b16 %r2, %r1;
	st.global.b32 [%q2], %r2;
	ret;
"""
    regs = RNG.integers(0, 1 << 32, size=WARPS * 32, dtype=np.uint64).astype(np.uint32)
    before = regs.view(np.uint16).reshape(WARPS, 8, 8).copy()  # lane 4r + c/2 holds [r, c]
    run(body, [regs], grid=GRID, block=BLOCK, target="sm_80", version="7.8")
    after = regs.view(np.uint16).reshape(WARPS, 8, 8)
    np.testing.assert_array_equal(after, np.swapaxes(before, 1, 2))
    assert _assembles(module(body, target="sm_80", version="7.8"), "sm_80")[0]


# ----------------------------------------------------------------------------- errors


MMA16 = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"


def _simple_mma_body(before: str = "", guard: str = "") -> str:
    return f"""
	.reg .b32 %r<8>;
	.reg .f32 %f<8>;
	.reg .pred %p<2>;
	mov.b32 %r0, 0;
	mov.b32 %r1, 0;
	mov.b32 %r2, 0;
	mov.b32 %r3, 0;
	mov.b32 %r4, 0;
	mov.b32 %r5, 0;
	mov.u32 %r6, %tid.x;
	setp.lt.u32 %p1, %r6, 16;
	{before}
	{guard}{MMA16} {{%f0, %f1, %f2, %f3}}, {{%r0, %r1, %r2, %r3}}, {{%r4, %r5}},
		{{0f00000000, 0f00000000, 0f00000000, 0f00000000}};
	bar.sync 0;
	ret;
"""


def test_mma_with_immediate_accumulators_runs() -> None:
    assert _assembles(module(_simple_mma_body(), target="sm_80", version="7.0"), "sm_80")[0]
    run(_simple_mma_body(), [np.zeros(1, np.uint64)], target="sm_80", version="7.0")


def test_mma_waits_for_lanes_that_arrive_later() -> None:
    # Lanes 0..15 take a detour and reach the mma after lanes 16..31 (which wait for them).
    form = _form("m16n8k16", "f32.f16.f16.f32", "sm_80", "7.0")
    a, b, c = _random_operands(form)
    fa, fb, fc, _ = _fragments(form)
    ra, _ = _regs(a, fa, "f16", None)
    rb, _ = _regs(b, fb, "f16", None)
    rc, _ = _regs(c, fc, "f32", None)
    out = np.zeros((WARPS * 32, 4), np.uint32)
    body = _mma_kernel(form.insn, 4, 2, 4, 4, 32, "f32")
    line = next(ln for ln in body.splitlines() if ln.startswith(form.insn))
    detour = "\n".join(
        [
            ".reg .pred %late;",
            "setp.lt.u32 %late, %t3, 16;",
            "@%late bra LATE;",
            "EARLY:",
            line,
            "bra DONE;",
            "LATE:",
            "bra EARLY;",
            "DONE:",
        ]
    )
    body = body.replace(line, detour)
    run(body, [ra, rb, rc, out], params=MMA_PARAMS, grid=GRID, block=BLOCK)
    d = np.zeros((WARPS, 1, 16, 8))
    d[:, 0, fc[1], fc[2]] = out.view(np.float32).reshape(WARPS, 32, 4)
    np.testing.assert_array_equal(d, a @ b + c)


def test_mma_in_a_warp_with_exited_threads_is_an_error() -> None:
    with pytest.raises(EmuError, match="exited"):
        run(_simple_mma_body(before="@%p1 exit;"), [np.zeros(1, np.uint64)])


def test_mma_under_a_divergent_guard_deadlocks() -> None:
    with pytest.raises(Deadlock, match="mma"):
        run(_simple_mma_body(guard="@%p1 "), [np.zeros(1, np.uint64)])


def test_mma_sp_and_decompressing_ldmatrix_are_not_emulated() -> None:
    sp = """
	.reg .b32 %r<8>;
	.reg .f32 %f<8>;
	mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1},
		{%r2, %r3}, {%f4, %f5, %f6, %f7}, %r4, 0;
	ret;
"""
    with pytest.raises(NotEmulated, match=r"mma\.sp"):
        run(sp, [np.zeros(1, np.uint64)], target="sm_80", version="7.1")
    unpack = """
	.reg .b32 %r<4>;
	.shared .align 16 .b8 s[256];
	mov.u32 %r0, s;
	ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b4x16_p64 {%r1}, [%r0];
	ret;
"""
    with pytest.raises(NotEmulated, match="b8x16"):
        run(unpack, [np.zeros(1, np.uint64)], target="sm_100a", version="8.6")


def test_wmma_shapes_outside_m16n16_are_not_emulated() -> None:
    body = """
	.reg .b32 %r<9>;
	.reg .b64 %q<2>;
	ld.param.u64 %q0, [out];
	wmma.load.a.sync.aligned.row.m32n8k16.global.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7},
		[%q0], 16;
	ret;
"""
    assert _assembles(module(body), "sm_90a")[0]
    with pytest.raises(NotEmulated, match="m32n8k16"):
        run(body, [np.zeros(512, np.uint16)])


def test_ldmatrix_row_addresses_must_be_16_byte_aligned() -> None:
    body = _shared_kernel(
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r0}, [%addr];", 1024, 1, load=True
    )
    rows = _row_offsets(8, 16, 1024)
    rows[1, 3] += 8
    data = np.zeros((WARPS, 512), np.uint16)
    with pytest.raises(Misaligned):
        run(
            body,
            [data, rows, np.zeros((WARPS * 32, 1), np.uint32), data.copy()],
            params=SHARED_PARAMS,
            grid=GRID,
            block=BLOCK,
        )


def test_generic_ldmatrix_reads_shared_memory() -> None:
    body = """
	.shared .align 16 .b16 tile[64];
	.reg .b32 %r<4>;
	.reg .b16 %h<2>;
	.reg .b64 %q<6>;
	ld.param.u64 %q0, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %q1, %r1, 4;
	mov.u64 %q3, tile;
	add.s64 %q3, %q3, %q1;
	mul.lo.u32 %r2, %r1, 2;
	cvt.u16.u32 %h0, %r2;
	add.u32 %r2, %r2, 1;
	cvt.u16.u32 %h1, %r2;
	st.shared.v2.u16 [%q3], {%h0, %h1};
	bar.warp.sync -1;
	and.b32 %r2, %r1, 7;
	mul.wide.u32 %q2, %r2, 16;
	mov.u64 %q3, tile;
	add.s64 %q3, %q3, %q2;
	cvta.shared.u64 %q4, %q3;
	ldmatrix.sync.aligned.m8n8.x1.trans.b16 {%r3}, [%q4];
	add.s64 %q5, %q0, %q1;
	st.global.u32 [%q5], %r3;
	ret;
"""
    out = np.zeros(32, np.uint32)
    run(body, [out])
    halves = out.view(np.uint16).reshape(8, 4, 2)  # lane 4r + c holds M^T[r][2c], [2c+1]
    element = np.arange(64).reshape(8, 8)  # tile[i] = i
    np.testing.assert_array_equal(halves.reshape(8, 8), element.T)
    assert _assembles(module(body), "sm_90a")[0]


def test_generic_ldmatrix_address_outside_shared_memory_is_an_error() -> None:
    body = """
	.reg .b32 %r<2>;
	.reg .b64 %q<2>;
	ld.param.u64 %q0, [out];
	ldmatrix.sync.aligned.m8n8.x1.b16 {%r0}, [%q0];
	ret;
"""
    with pytest.raises(EmuError, match="shared"):
        run(body, [np.zeros(64, np.uint64)])


# ----------------------------------------------------------------------------- nvcc output


def _kernel_names(ptx: str) -> dict[str, str]:
    names = {}
    for line in ptx.splitlines():
        if line.startswith(".visible .entry "):
            mangled = line.split()[2].split("(")[0]
            plain = mangled[2:].lstrip("0123456789")
            digits = mangled[2 : len(mangled) - len(plain)]
            names[plain[: int(digits)]] = mangled
    return names


MMA_PTX = (DATA / "mma_kernels.ptx").read_text()
WMMA_PTX = (DATA / "wmma_kernels.ptx").read_text()
MMA_NAMES = _kernel_names(MMA_PTX)
WMMA_NAMES = _kernel_names(WMMA_PTX)


def _compiled(ptx: str, names: dict[str, str], kernel: str, args: list) -> None:
    launch(ptx, names[kernel], grid=GRID, block=BLOCK, args=args)


def _tiles(shape: tuple[int, ...], values: np.ndarray) -> np.ndarray:
    return RNG.choice(values, size=(WARPS, *shape))


def test_nvcc_mma_f16_with_ldmatrix() -> None:
    a = _tiles((16, 16), np.arange(-4, 5) * 0.5)
    bt = _tiles((8, 16), np.arange(-4, 5) * 0.25)
    c = _tiles((16, 8), np.arange(-8, 9) * 0.125)
    d = np.zeros((WARPS, 16, 8), np.float32)
    _compiled(
        MMA_PTX,
        MMA_NAMES,
        "mma_f16_ldmatrix",
        [a.astype(np.float16), bt.astype(np.float16), c.astype(np.float32), d],
    )
    np.testing.assert_array_equal(d, a @ np.swapaxes(bt, 1, 2) + c)


def _bf16(values: np.ndarray) -> np.ndarray:
    return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def test_nvcc_mma_bf16_with_ldmatrix_trans() -> None:
    a = _tiles((16, 16), np.arange(-4, 5) * 2.0)
    b = _tiles((16, 8), np.arange(-4, 5) * 0.5)
    c = _tiles((16, 8), np.arange(-8, 9) * 1.0)
    d = np.zeros((WARPS, 16, 8), np.float32)
    _compiled(MMA_PTX, MMA_NAMES, "mma_bf16_brow", [_bf16(a), _bf16(b), c.astype(np.float32), d])
    np.testing.assert_array_equal(d, a @ b + c)


def test_nvcc_mma_f16_accumulators() -> None:
    a = _tiles((16, 8), np.arange(-3, 4) * 1.0)
    bt = _tiles((8, 8), np.arange(-3, 4) * 1.0)
    c = _tiles((16, 8), np.arange(-3, 4) * 0.5)
    d = np.zeros((WARPS, 16, 8), np.float16)
    _compiled(
        MMA_PTX,
        MMA_NAMES,
        "mma_f16_k8_f16acc",
        [a.astype(np.float16), bt.astype(np.float16), c.astype(np.float16), d],
    )
    np.testing.assert_array_equal(d, a @ np.swapaxes(bt, 1, 2) + c)


def test_nvcc_mma_tf32() -> None:
    a = _tiles((16, 8), np.arange(-8, 9) * 0.5)
    bt = _tiles((8, 8), np.arange(-8, 9) * 0.25)
    c = _tiles((16, 8), np.arange(-4, 5) * 1.0)
    noisy = a.astype(np.float32).view(np.uint32) | RNG.integers(0, 1 << 13, a.shape).astype(
        np.uint32
    )
    d = np.zeros((WARPS, 16, 8), np.float32)
    _compiled(
        MMA_PTX,
        MMA_NAMES,
        "mma_tf32_k8",
        [noisy.view(np.float32), bt.astype(np.float32), c.astype(np.float32), d],
    )
    np.testing.assert_array_equal(d, a @ np.swapaxes(bt, 1, 2) + c)


def test_nvcc_mma_integers() -> None:
    a = RNG.integers(-128, 128, size=(WARPS, 16, 32)).astype(np.int8)
    bt = RNG.integers(0, 256, size=(WARPS, 8, 32)).astype(np.uint8)
    c = RNG.integers(-(1 << 31), 1 << 31, size=(WARPS, 16, 8)).astype(np.int32)
    d = np.zeros_like(c)
    _compiled(
        MMA_PTX, MMA_NAMES, "mma_s8u8_satfinite", [a.view(np.uint32), bt.view(np.uint32), c, d]
    )
    exact = a.astype(np.int64) @ np.swapaxes(bt, 1, 2).astype(np.int64) + c
    np.testing.assert_array_equal(d, np.clip(exact, -(1 << 31), (1 << 31) - 1))

    a4 = RNG.integers(-8, 8, size=(WARPS, 16, 64))
    b4 = RNG.integers(-8, 8, size=(WARPS, 8, 64))
    c4 = RNG.integers(-1000, 1000, size=(WARPS, 16, 8)).astype(np.int32)
    d4 = np.zeros_like(c4)
    packed_a = _pack((a4 & 15).astype(np.uint64), 4, 32).astype(np.uint32)
    packed_b = _pack((b4 & 15).astype(np.uint64), 4, 32).astype(np.uint32)
    _compiled(MMA_PTX, MMA_NAMES, "mma_s4", [packed_a, packed_b, c4, d4])
    np.testing.assert_array_equal(d4, a4 @ np.swapaxes(b4, 1, 2) + c4)

    ab = RNG.integers(0, 2, size=(WARPS, 16, 256))
    bb = RNG.integers(0, 2, size=(WARPS, 8, 256))
    db = np.zeros_like(c4)
    _compiled(
        MMA_PTX,
        MMA_NAMES,
        "mma_b1_xor",
        [
            _pack(ab.astype(np.uint64), 1, 32).astype(np.uint32),
            _pack(bb.astype(np.uint64), 1, 32).astype(np.uint32),
            c4,
            db,
        ],
    )
    xor = (ab[:, :, None, :] != bb[:, None, :, :]).sum(-1)
    np.testing.assert_array_equal(db, xor + c4)


def test_nvcc_mma_f64_and_e4m3() -> None:
    a = _tiles((16, 16), np.arange(-8, 9) * 0.5)
    bt = _tiles((8, 16), np.arange(-8, 9) * 0.25)
    c = _tiles((16, 8), np.arange(-8, 9) * 1.0)
    d = np.zeros((WARPS, 16, 8))
    _compiled(MMA_PTX, MMA_NAMES, "mma_f64_k16", [a, bt, c, d])
    np.testing.assert_array_equal(d, a @ np.swapaxes(bt, 1, 2) + c)

    a8 = _tiles((16, 32), np.arange(-8, 9) * 0.5)
    b8 = _tiles((8, 32), np.arange(-8, 9) * 1.0)
    d8 = np.zeros((WARPS, 16, 8), np.float32)
    codes_a = _encode_mini(a8, "e4m3").astype(np.uint8)
    codes_b = _encode_mini(b8, "e4m3").astype(np.uint8)
    _compiled(
        MMA_PTX,
        MMA_NAMES,
        "mma_e4m3",
        [codes_a.view(np.uint32), codes_b.view(np.uint32), c.astype(np.float32), d8],
    )
    np.testing.assert_array_equal(d8, a8 @ np.swapaxes(b8, 1, 2) + c)


def test_nvcc_mma_m8n8k4_quad_pairs() -> None:
    a = _tiles((4, 8, 4), np.arange(-4, 5) * 0.5)
    b = _tiles((4, 4, 8), np.arange(-4, 5) * 0.5)
    c = _tiles((4, 8, 8), np.arange(-4, 5) * 1.0)
    d = np.zeros((WARPS, 4, 8, 8), np.float32)
    _compiled(
        MMA_PTX,
        MMA_NAMES,
        "mma_f16_m8n8k4",
        [
            a.astype(np.float16).view(np.uint16),
            b.astype(np.float16).view(np.uint16),
            c.astype(np.float32),
            d,
        ],
    )
    np.testing.assert_array_equal(d, a @ b + c)


def test_nvcc_ldmatrix_movmatrix_stmatrix_round_trip() -> None:
    data = RNG.integers(0, 1 << 16, size=(WARPS, 4, 8, 8), dtype=np.uint16)
    same = np.zeros_like(data)
    transposed = np.zeros_like(data)
    _compiled(MMA_PTX, MMA_NAMES, "ldst_roundtrip", [data, same, transposed])
    np.testing.assert_array_equal(same, data)
    np.testing.assert_array_equal(transposed, np.swapaxes(data, 2, 3))


@pytest.mark.parametrize(
    ("kernel", "k", "atype", "ctype"),
    [
        ("wmma_f16_f32", 16, "f16", "f32"),
        ("wmma_f16_f16", 16, "f16", "f16"),
        ("wmma_bf16", 16, "bf16", "f32"),
        ("wmma_tf32", 8, "tf32", "f32"),
        ("wmma_s8", 16, "s8", "s32"),
    ],
)
def test_nvcc_wmma(kernel: str, k: int, atype: str, ctype: str) -> None:
    if atype == "s8":
        a = RNG.integers(-128, 128, size=(WARPS, 16, k))
        b = RNG.integers(-128, 128, size=(WARPS, 16, k))  # column-major B: (n, k)
        c = RNG.integers(-(1 << 20), 1 << 20, size=(WARPS, 16, 16))
    else:
        small = ctype == "f16"
        a = _small_values("f16", (WARPS, 16, k), small)
        b = _small_values("f16", (WARPS, 16, k), small)
        c = RNG.integers(-4, 5, size=(WARPS, 16, 16)).astype(np.float64)
    args: list[np.ndarray] = []
    for mat in (a, b):
        if atype == "f16":
            args.append(mat.astype(np.float16))
        elif atype == "bf16":
            args.append(_bf16(mat))
        elif atype == "tf32":
            bits = mat.astype(np.float32).view(np.uint32)
            args.append(
                (bits | RNG.integers(0, 1 << 13, bits.shape).astype(np.uint32)).view(np.float32)
            )
        else:
            args.append(mat.astype(np.int8))
    expect = a @ np.swapaxes(b, 1, 2) + c
    if ctype == "f16":
        # C loaded and D stored column-major
        args.append(np.swapaxes(c, 1, 2).copy().astype(np.float16))
        d = np.zeros((WARPS, 16, 16), np.float16)
        args.append(d)
        _compiled(WMMA_PTX, WMMA_NAMES, kernel, args)
        np.testing.assert_array_equal(np.swapaxes(d, 1, 2), expect)
        return
    dt = np.int32 if ctype == "s32" else np.float32
    args.append(c.astype(dt))
    d = np.zeros((WARPS, 16, 16), dt)
    args.append(d)
    _compiled(WMMA_PTX, WMMA_NAMES, kernel, args)
    np.testing.assert_array_equal(d, expect)


def test_nvcc_wmma_elementwise_fragment_ops() -> None:
    a = _small_values("f16", (WARPS, 16, 16), False)
    b = _small_values("f16", (WARPS, 16, 16), False)
    d = np.zeros((WARPS, 16, 16), np.float32)
    _compiled(WMMA_PTX, WMMA_NAMES, "wmma_scaled", [a.astype(np.float16), b.astype(np.float16), d])
    np.testing.assert_array_equal(d, 2 * (a @ np.swapaxes(b, 1, 2)))


@pytest.mark.parametrize("name", ["mma_kernels", "wmma_kernels"])
def test_ptxas_accepts_the_nvcc_output(name: str) -> None:
    text = (DATA / f"{name}.ptx").read_text()
    arch = "sm_90a" if name == "mma_kernels" else "sm_80"
    ok, msg = _assembles(text, arch)
    assert ok, msg
