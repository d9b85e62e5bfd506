"""Atomics: ``atom`` and ``red`` over ops, types, vector widths and state spaces.

The reference applies each lane's update one after the other in lane order, in pure Python:
integers with Python ints, floating point with exact fractions rounded to the format by hand
(nearest even, subnormals, overflow), so it shares no code with the emulator. Every kernel
shape used here is assembled with ptxas once.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from emu_testing import find_ptxas, module, ptxas_accepts, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from pyptx.emu import EmuError, Misaligned, NotEmulated, launch

DATA = Path(__file__).resolve().parent / "data" / "warp"
needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas")

# --------------------------------------------------------------------------- reference numbers

FORMATS = {"f16": (5, 10), "bf16": (8, 7), "f32": (8, 23), "f64": (11, 52)}
"""Exponent and fraction bits of each float format."""


def _decode(code: int, fmt: str) -> tuple[str, int, Fraction]:
    """A float code as ``("nan" | "inf" | "num", sign, magnitude)``."""
    ebits, mbits = FORMATS[fmt]
    sign = code >> (ebits + mbits)
    exp = (code >> mbits) & ((1 << ebits) - 1)
    man = code & ((1 << mbits) - 1)
    bias = (1 << (ebits - 1)) - 1
    if exp == (1 << ebits) - 1:
        return ("nan" if man else "inf", sign, Fraction(0))
    if exp == 0:
        return ("num", sign, Fraction(man, 1 << mbits) * Fraction(2) ** (1 - bias))
    return ("num", sign, (1 + Fraction(man, 1 << mbits)) * Fraction(2) ** (exp - bias))


def _encode(sign: int, value: Fraction, fmt: str) -> int:
    """``(-1)**sign * value`` rounded to nearest even in ``fmt`` (inf past the largest)."""
    ebits, mbits = FORMATS[fmt]
    bias = (1 << (ebits - 1)) - 1
    top = sign << (ebits + mbits)
    if value == 0:
        return top
    e = max(math.floor(math.log2(value)), 1 - bias)
    while Fraction(2) ** e > value and e > 1 - bias:
        e -= 1
    while Fraction(2) ** (e + 1) <= value:
        e += 1
    scaled = value / Fraction(2) ** (e - mbits)
    m = math.floor(scaled)
    rest = scaled - m
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and m % 2 == 1):
        m += 1
    if m == 1 << (mbits + 1):
        m >>= 1
        e += 1
    if e > bias:
        return top | (((1 << ebits) - 1) << mbits)
    if m < 1 << mbits:  # subnormal (or rounded to zero)
        return top | m
    return top | ((e + bias) << mbits) | (m - (1 << mbits))


def _canonical_nan(fmt: str) -> int:
    ebits, mbits = FORMATS[fmt]
    return (1 << (ebits + mbits)) - 1


def _flush(code: int, fmt: str) -> int:
    kind, sign, value = _decode(code, fmt)
    ebits, mbits = FORMATS[fmt]
    if kind == "num" and 0 < value < Fraction(2) ** (2 - (1 << (ebits - 1))):
        return sign << (ebits + mbits)
    return code


def _float_add(x: int, y: int, fmt: str, ftz: bool = False) -> int:
    if ftz:
        x, y = _flush(x, fmt), _flush(y, fmt)
    kx, sx, vx = _decode(x, fmt)
    ky, sy, vy = _decode(y, fmt)
    if "nan" in (kx, ky) or (kx == ky == "inf" and sx != sy):
        return _canonical_nan(fmt)
    ebits, mbits = FORMATS[fmt]
    if "inf" in (kx, ky):
        sign = sx if kx == "inf" else sy
        return (sign << (ebits + mbits)) | (((1 << ebits) - 1) << mbits)
    total = (-vx if sx else vx) + (-vy if sy else vy)
    # An exact zero is -0 only when both operands are -0 (round to nearest).
    out = _encode(int(total < 0), abs(total), fmt) if total else (sx & sy) << (ebits + mbits)
    return _flush(out, fmt) if ftz else out


def _float_key(code: int, fmt: str) -> tuple[Fraction, int]:
    """Orders codes like their values, -0.0 below +0.0 (infinities as huge numbers)."""
    kind, sign, value = _decode(code, fmt)
    if kind == "inf":
        value = Fraction(10) ** 400
    return ((-value if sign else value), 1 - sign)


def _float_minmax(lowest: bool) -> Callable[[int, int, str], int]:
    def pick(x: int, y: int, fmt: str) -> int:
        nx, ny = _decode(x, fmt)[0] == "nan", _decode(y, fmt)[0] == "nan"
        if nx and ny:
            return _canonical_nan(fmt)
        if nx or ny:
            return y if nx else x
        x_first = _float_key(x, fmt) <= _float_key(y, fmt)
        return x if x_first == lowest else y

    return pick


def _signed(v: int, bits: int) -> int:
    return v - (1 << bits) if v >> (bits - 1) else v


def _int_step(op: str, ty: str) -> Callable[[int, int, int], int]:
    bits = 128 if ty == "b128" else int(ty[1:])
    mask = (1 << bits) - 1
    signed = ty[0] == "s"

    def key(v: int) -> int:
        return _signed(v, bits) if signed else v

    steps: dict[str, Callable[[int, int, int], int]] = {
        "add": lambda x, y, z: (x + y) & mask,
        "min": lambda x, y, z: x if key(x) <= key(y) else y,
        "max": lambda x, y, z: x if key(x) >= key(y) else y,
        "and": lambda x, y, z: x & y,
        "or": lambda x, y, z: x | y,
        "xor": lambda x, y, z: x ^ y,
        "exch": lambda x, y, z: y,
        "cas": lambda x, y, z: z if x == y else x,
        "inc": lambda x, y, z: 0 if x >= y else x + 1,
        "dec": lambda x, y, z: y if x == 0 or x > y else x - 1,
    }
    return steps[op]


def _element_step(op: str, ty: str, ftz: bool) -> Callable[[int, int, int], int]:
    fmt = ty.removesuffix("x2")
    if fmt in FORMATS:
        if op == "add":
            return lambda x, y, z: _float_add(x, y, fmt, ftz)
        pick = _float_minmax(op == "min")
        return lambda x, y, z: pick(x, y, fmt)
    return _int_step(op, ty)


def _serial(
    step: Callable[[int, int, int], int],
    mem: list[int],
    where: list[int],
    b: list[int],
    c: list[int],
) -> list[int]:
    """Apply the updates in lane order; the value each one saw (``mem`` is updated)."""
    seen = []
    for k, i in enumerate(where):
        seen.append(mem[i])
        mem[i] = step(mem[i], b[k], c[k])
    return seen


# --------------------------------------------------------------------------- kernels

ELEMENT_BITS = {"b16": 16, "b32": 32, "b64": 64, "u32": 32, "s32": 32, "u64": 64, "s64": 64,
                "b128": 128, "f16": 16, "bf16": 16, "f32": 32, "f64": 64, "f16x2": 32,
                "bf16x2": 32}  # fmt: skip
REG = {16: "%h", 32: "%r", 64: "%rd", 128: "%q"}
SPACES = {
    "global": ".global",
    "shared": ".shared",
    "shared::cta": ".shared::cta",
    "shared::cluster": ".shared::cluster",
    "generic-global": "",
    "generic-shared": "",
}
PARAMS = tuple(f".param .u64 {p}" for p in ("mem", "idx", "bv", "cv", "old"))
SMEM = 256
THREADS = 64


def _regs(first: int, k: int, bits: int) -> str:
    names = [f"{REG[bits]}{first + i}" for i in range(k)]
    return names[0] if k == 1 else "{" + ", ".join(names) + "}"


def _kernel(op: str, ty: str, space: str, vec: int = 0, red: bool = False) -> str:
    """One update per thread: ``mem[idx[t]] op= bv[t]`` (``cv[t]`` for cas); old to ``old[t]``.

    Shared-space kernels run on a copy of ``mem`` in shared memory, copied back at the end.
    """
    bits = ELEMENT_BITS[ty]
    k = max(vec, 1)
    nbytes = k * bits // 8
    shared = "shared" in space
    lines = [
        "\t.reg .pred %p<4>;",
        "\t.reg .b16 %h<40>;",
        "\t.reg .b32 %r<40>;",
        "\t.reg .b64 %rd<40>;",
        "\t.reg .b128 %q<40>;",
        f"\t.shared .align 16 .b8 smem[{SMEM}];",
        "\tld.param.u64 %rd1, [mem];",
        "\tld.param.u64 %rd2, [idx];",
        "\tld.param.u64 %rd3, [bv];",
        "\tld.param.u64 %rd4, [cv];",
        "\tld.param.u64 %rd5, [old];",
        "\tmov.u32 %r1, %tid.x;",
        "\tmov.u64 %rd36, smem;",
    ]
    if shared:
        lines += [
            f"\tsetp.lt.u32 %p1, %r1, {SMEM // 4};",
            "\t@!%p1 bra COPIED;",
            "\tmul.wide.u32 %rd6, %r1, 4;",
            "\tadd.s64 %rd7, %rd1, %rd6;",
            "\tld.global.u32 %r2, [%rd7];",
            "\tadd.s64 %rd8, %rd36, %rd6;",
            "\tst.shared.u32 [%rd8], %r2;",
            "COPIED:",
            "\tbar.sync 0;",
        ]
        base = "%rd36"
        if space == "generic-shared":
            lines.append("\tcvta.shared.u64 %rd37, %rd36;")
            base = "%rd37"
    else:
        base = "%rd1"
    lines += [
        "\tmul.wide.u32 %rd6, %r1, 4;",
        "\tadd.s64 %rd7, %rd2, %rd6;",
        "\tld.global.u32 %r3, [%rd7];",
        f"\tmul.wide.u32 %rd9, %r3, {nbytes};",
        f"\tadd.s64 %rd11, {base}, %rd9;",
        f"\tmul.wide.u32 %rd12, %r1, {nbytes};",
        "\tadd.s64 %rd13, %rd3, %rd12;",
        "\tadd.s64 %rd14, %rd4, %rd12;",
        "\tadd.s64 %rd15, %rd5, %rd12;",
    ]
    step = bits // 8
    for i in range(k):
        lines.append(f"\tld.global.b{bits} {REG[bits]}{10 + i}, [%rd13+{i * step}];")
        if op == "cas":
            lines.append(f"\tld.global.b{bits} {REG[bits]}{20 + i}, [%rd14+{i * step}];")
    vec_mod = f".v{vec}" if vec else ""
    noftz = ".noftz" if ty in ("f16", "bf16", "f16x2", "bf16x2") else ""
    mnemonic = f"{'red' if red else 'atom'}{SPACES[space]}{vec_mod}.{op}{noftz}.{ty}"
    b_op = _regs(10, k, bits)
    if red:
        lines.append(f"\t{mnemonic} [%rd11], {b_op};")
    else:
        c_op = f", {_regs(20, k, bits)}" if op == "cas" else ""
        lines.append(f"\t{mnemonic} {_regs(30, k, bits)}, [%rd11], {b_op}{c_op};")
        for i in range(k):
            lines.append(f"\tst.global.b{bits} [%rd15+{i * step}], {REG[bits]}{30 + i};")
    if shared:
        lines += [
            "\tbar.sync 0;",
            f"\tsetp.lt.u32 %p1, %r1, {SMEM // 4};",
            "\t@!%p1 bra DONE;",
            "\tmul.wide.u32 %rd6, %r1, 4;",
            "\tadd.s64 %rd8, %rd36, %rd6;",
            "\tld.shared.u32 %r2, [%rd8];",
            "\tadd.s64 %rd7, %rd1, %rd6;",
            "\tst.global.u32 [%rd7], %r2;",
            "DONE:",
        ]
    lines.append("\tret;")
    return "\n".join(lines) + "\n"


def _words(values: list[int], bits: int) -> np.ndarray:
    """Element codes to the bytes of a little-endian array of ``bits``-bit elements."""
    raw = b"".join(int(v).to_bytes(bits // 8, "little") for v in values)
    return np.frombuffer(raw, dtype=np.uint8).copy()


def _codes(raw: np.ndarray, bits: int) -> list[int]:
    data = raw.tobytes()
    return [
        int.from_bytes(data[i : i + bits // 8], "little") for i in range(0, len(data), bits // 8)
    ]


def _launch(
    op: str,
    ty: str,
    space: str,
    mem: list[int],
    idx: list[int],
    b: list[int],
    c: list[int],
    *,
    vec: int = 0,
    red: bool = False,
) -> tuple[list[int], list[int]]:
    """Run the kernel; (old values per thread, flattened per element; final memory)."""
    bits = ELEMENT_BITS[ty]
    mem_raw = np.zeros(SMEM, dtype=np.uint8)
    init = _words(mem, bits)
    mem_raw[: init.size] = init
    old = np.zeros(len(b) * bits // 8, dtype=np.uint8)
    args = [mem_raw, np.array(idx, dtype=np.uint32), _words(b, bits), _words(c, bits), old]
    body = _kernel(op, ty, space, vec, red)
    target = "sm_90a"
    run(body, args, params=PARAMS, block=THREADS, target=target)
    return _codes(old, bits), _codes(mem_raw[: init.size], bits)


def _check(
    op: str,
    ty: str,
    space: str,
    mem: list[int],
    idx: list[int],
    b: list[int],
    c: list[int] | None = None,
    *,
    vec: int = 0,
    red: bool = False,
) -> None:
    """Run and compare with the lane-order serialization (per element for vectors)."""
    c = c if c is not None else [0] * len(b)
    k = max(vec, 1)
    lanes = len(idx)
    got_old, got_mem = _launch(op, ty, space, mem, idx, b, c, vec=vec, red=red)
    bits = ELEMENT_BITS[ty]
    pack = 2 if ty.endswith("x2") else 1
    sub = bits // pack
    ftz = ty == "f32" and op == "add" and space in ("global", "generic-global")
    step = _element_step(op, ty.removesuffix("x2") if pack == 2 else ty, ftz)
    # Split packed elements, serialize element by element (lane order), pack again.
    mask = (1 << sub) - 1
    flat_mem = [(v >> (sub * j)) & mask for v in mem for j in range(pack)]
    where, bs, cs = [], [], []
    for t in range(lanes):
        for e in range(k):
            for j in range(pack):
                where.append((idx[t] * k + e) * pack + j)
                bs.append((b[t * k + e] >> (sub * j)) & mask)
                cs.append((c[t * k + e] >> (sub * j)) & mask)
    seen = _serial(step, flat_mem, where, bs, cs)
    want_old = [sum(seen[i * pack + j] << (sub * j) for j in range(pack)) for i in range(len(b))]
    want_mem = [
        sum(flat_mem[i * pack + j] << (sub * j) for j in range(pack)) for i in range(len(mem))
    ]
    assert got_mem == want_mem, "final memory"
    if not red:
        assert got_old == want_old, "old values"


# --------------------------------------------------------------------------- integer ops

INT_CASES = [
    ("add", "u32"), ("add", "s32"), ("add", "u64"),
    ("min", "u32"), ("min", "s32"), ("min", "u64"), ("min", "s64"),
    ("max", "u32"), ("max", "s32"), ("max", "u64"), ("max", "s64"),
    ("and", "b32"), ("or", "b64"), ("xor", "b32"), ("xor", "b64"),
    ("exch", "b32"), ("exch", "b64"), ("exch", "b128"),
    ("cas", "b16"), ("cas", "b32"), ("cas", "b64"), ("cas", "b128"),
    ("inc", "u32"), ("dec", "u32"),
]  # fmt: skip

PATTERNS = {
    "one": lambda rng: [3] * THREADS,
    "four": lambda rng: list(rng.integers(0, 4, THREADS)),
    "pairs": lambda rng: [t // 2 for t in range(THREADS)],
    "distinct": lambda rng: list(rng.permutation(THREADS)),
}


def _int_values(op: str, ty: str, rng: np.random.Generator, n: int) -> list[int]:
    bits = ELEMENT_BITS[ty]
    if op in ("cas",):
        return [int(v) for v in rng.integers(0, 3, n)]
    if op in ("inc", "dec"):
        return [int(v) for v in rng.integers(0, 9, n)]
    return [int.from_bytes(rng.bytes(bits // 8), "little") for _ in range(n)]


@pytest.mark.parametrize("op, ty", INT_CASES)
@pytest.mark.parametrize("pattern", list(PATTERNS))
def test_integer_atomics_on_global_memory(op: str, ty: str, pattern: str) -> None:
    rng = np.random.default_rng(abs(hash((op, ty, pattern))) % 2**32)
    idx = [int(i) for i in PATTERNS[pattern](rng)]
    slots = max(idx) + 1
    if ELEMENT_BITS[ty] * slots > SMEM * 8:
        idx = [i % 16 for i in idx]
        slots = 16
    mem = _int_values(op, ty, rng, slots)
    b = _int_values(op, ty, rng, THREADS)
    c = _int_values(op, ty, rng, THREADS)
    _check(op, ty, "global", mem, idx, b, c)


@pytest.mark.parametrize("op, ty", INT_CASES)
@pytest.mark.parametrize("space", ["shared", "shared::cta", "shared::cluster", "generic-shared",
                                   "generic-global"])  # fmt: skip
def test_integer_atomics_in_every_space(op: str, ty: str, space: str) -> None:
    rng = np.random.default_rng(abs(hash((op, ty, space))) % 2**32)
    idx = [int(i) for i in rng.integers(0, 5, THREADS)]
    mem = _int_values(op, ty, rng, 5)
    _check(op, ty, space, mem, idx, _int_values(op, ty, rng, THREADS),
           _int_values(op, ty, rng, THREADS))  # fmt: skip


@pytest.mark.parametrize("op", ["inc", "dec"])
@pytest.mark.parametrize("bounds", ["uniform", "mixed", "wide"])
def test_inc_dec_wrap_around_their_bound(op: str, bounds: str) -> None:
    rng = np.random.default_rng(7)
    idx = [t % 3 for t in range(THREADS)]
    if bounds == "uniform":
        b = [[4, 0, 9][i] for i in idx]  # one bound per address: the closed form
    elif bounds == "mixed":
        b = [int(v) for v in rng.integers(0, 6, THREADS)]
    else:
        b = [0xFFFF_FFFF, 0xFFFF_FFFE, 1][:1] * THREADS
    mem = [2, 7, 0xFFFF_FFFF] if bounds != "wide" else [0xFFFF_FFF0, 5, 0]
    _check(op, "u32", "global", mem, idx, b)


@pytest.mark.parametrize("op, ty", [("add", "u32"), ("max", "s64"), ("xor", "b32"),
                                    ("inc", "u32")])  # fmt: skip
def test_red_updates_memory_like_atom(op: str, ty: str) -> None:
    rng = np.random.default_rng(11)
    idx = [int(i) for i in rng.integers(0, 3, THREADS)]
    mem = _int_values(op, ty, rng, 3)
    b = _int_values(op, ty, rng, THREADS)
    _check(op, ty, "global", mem, idx, b, red=True)
    _check(op, ty, "shared", mem, idx, b, red=True)


def test_atomics_of_many_ctas_serialize_in_thread_order() -> None:
    body = """
	.reg .b32 %r<6>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.s32 %r4, %r1, %r2, %r3;
	and.b32 %r5, %r4, 1;
	mul.wide.u32 %rd2, %r5, 4;
	add.s64 %rd3, %rd1, %rd2;
	atom.global.add.u32 %r5, [%rd3], %r4;
	mul.wide.u32 %rd4, %r4, 4;
	add.s64 %rd5, %rd1, %rd4;
	st.global.u32 [%rd5+8], %r5;
	ret;
"""
    out = np.zeros(2 + 4 * 96, dtype=np.uint32)
    run(body, [out], grid=4, block=96)
    t = np.arange(4 * 96)
    sums = [0, 0]
    for i in t:
        assert out[2 + i] == sums[i % 2], i
        sums[i % 2] += int(i)
    assert list(out[:2]) == sums


QUALIFIED = """
	.reg .b32 %r<6>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	createpolicy.fractional.L2::evict_last.b64 %rd2, 0.5;
	atom.acq_rel.gpu.global.add.L2::cache_hint.u32 %r2, [%rd1], 1, %rd2;
	atom.relaxed.cluster.global.max.s32 %r3, [%rd1+4], %r1;
	atom.acquire.sys.exch.b32 %r4, [%rd1+8], %r1;
	red.release.cta.global.add.L2::cache_hint.u32 [%rd1+12], %r1, %rd2;
	red.relaxed.gpu.global.or.b32 [%rd1+16], %r1;
	mul.wide.u32 %rd3, %r1, 12;
	add.s64 %rd4, %rd1, %rd3;
	st.global.u32 [%rd4+20], %r2;
	st.global.u32 [%rd4+24], %r3;
	st.global.u32 [%rd4+28], %r4;
	ret;
"""


def test_sem_scope_and_cache_hints_do_not_change_results() -> None:
    out = np.zeros(5 + 3 * 32, dtype=np.uint32)
    out[1] = 7
    run(QUALIFIED, [out])
    t = np.arange(32)
    assert list(out[:5]) == [32, 31, 31, t.sum(), np.bitwise_or.reduce(t)]
    rows = out[5:].reshape(32, 3)
    np.testing.assert_array_equal(rows[:, 0], t)
    np.testing.assert_array_equal(rows[:, 1], np.maximum.accumulate(np.append(7, t))[:-1])
    np.testing.assert_array_equal(rows[:, 2], np.append(0, t[:-1]))


CLUSTER = """
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<6>;
	.shared .align 4 .u32 counter;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %cluster_ctarank;
	mov.u32 %r7, %ctaid.x;
	mad.lo.s32 %r6, %r7, 32, %r1;
	mov.u32 %r3, counter;
	mapa.shared::cluster.u32 %r4, %r3, 0;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	atom.shared::cluster.add.u32 %r5, [%r4], %r6;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	mul.wide.u32 %rd2, %r6, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3+4], %r5;
	or.b32 %r3, %r1, %r2;
	setp.ne.u32 %p1, %r3, 0;
	@%p1 bra DONE;
	ld.shared.u32 %r5, [counter];
	st.global.u32 [%rd1], %r5;
DONE:
	ret;
"""


def test_shared_cluster_atomics_reach_another_ctas_memory() -> None:
    # Both CTAs of the cluster add into rank 0's counter through mapa addresses.
    out = np.zeros(1 + 64, dtype=np.uint32)
    run(CLUSTER, [out], grid=2, block=32, cluster=2)
    t = np.arange(64)
    assert out[0] == t.sum()
    np.testing.assert_array_equal(out[1:], np.cumsum(np.append(0, t))[:-1])


@needs_ptxas
def test_qualified_and_cluster_kernels_assemble() -> None:
    for body in (QUALIFIED, CLUSTER):
        ok, err = ptxas_accepts(module(body), "sm_90a")
        assert ok, err


def test_a_hot_counter_of_thousands_of_lanes_is_fast_and_exact() -> None:
    # 8192 lanes on one address: the prefix scan, the inc closed form and the in-order float
    # accumulation avoid a round per lane.
    body = """
	.reg .b32 %r<8>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.s32 %r4, %r1, %r2, %r3;
	atom.global.add.u32 %r5, [%rd1], 3;
	atom.global.inc.u32 %r6, [%rd1+4], 1000;
	cvt.rn.f32.u32 %f1, %r4;
	mul.f32 %f1, %f1, 0f3E800000;
	atom.shared.add.f32 %f2, [sbuf], %f1;
	bar.sync 0;
	ld.shared.f32 %f3, [sbuf];
	mul.wide.u32 %rd2, %r4, 12;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3+16], %r5;
	st.global.u32 [%rd3+20], %r6;
	st.global.f32 [%rd3+24], %f2;
	ret;
"""
    prelude_body = "\t.shared .align 4 .f32 sbuf;\n" + body
    n = 8192
    out = np.zeros(4 + 3 * n, dtype=np.uint32)
    run(prelude_body.replace("cvt.rn.f32.u32 %f1, %r4;\n\tmul.f32 %f1, %f1, 0f3E800000;",
                             "mov.b32 %f1, 0f3E800000;"), [out], grid=8, block=1024)  # fmt: skip
    rows = out[4:].reshape(n, 3)
    t = np.arange(n)
    assert out[0] == 3 * n
    np.testing.assert_array_equal(rows[:, 0], 3 * t)
    np.testing.assert_array_equal(rows[:, 1], t % 1001)
    assert out[1] == n % 1001
    # Per CTA, 1024 adds of 0.25 in lane order (exact).
    np.testing.assert_array_equal(rows[:, 2].view(np.float32), (t % 1024) * 0.25)


# --------------------------------------------------------------------------- floating point


def _float_codes(fmt: str) -> st.SearchStrategy[int]:
    ebits, mbits = FORMATS[fmt]
    width = 1 + ebits + mbits
    special = [0, 1 << (width - 1), (1 << mbits) - 1, 1, ((1 << ebits) - 1) << mbits,
               (((1 << ebits) - 1) << mbits) | 1, 1 << mbits, (1 << (width - 1)) | 1]  # fmt: skip
    # Mostly "ordinary" codes of a narrow exponent range (sums interact), plus anything.
    bias = (1 << (ebits - 1)) - 1
    near = st.builds(
        lambda s, e, m: (s << (width - 1)) | ((bias + e) << mbits) | m,
        st.integers(0, 1),
        st.integers(-3, 3),
        st.integers(0, (1 << mbits) - 1),
    )
    return st.one_of(near, near, st.sampled_from(special), st.integers(0, (1 << width) - 1))


FLOAT_CASES = [
    ("add", "f32", "global"),
    ("add", "f32", "shared"),
    ("add", "f32", "generic-shared"),
    ("add", "f64", "global"),
    ("add", "f16", "global"),
    ("add", "bf16", "shared"),
    ("add", "f16x2", "global"),
    ("add", "bf16x2", "generic-global"),
]


@pytest.mark.parametrize("op, ty, space", FLOAT_CASES)
@settings(max_examples=examples(12), deadline=None)
@given(data=st.data())
def test_float_add_rounds_each_update_in_order(op: str, ty: str, space: str, data: Any) -> None:
    fmt = ty.removesuffix("x2")
    pack = 2 if ty.endswith("x2") else 1
    codes = _float_codes(fmt)
    bits = FORMATS[fmt][0] + FORMATS[fmt][1] + 1

    def value() -> int:
        return sum(data.draw(codes) << (bits * j) for j in range(pack))

    slots = data.draw(st.integers(1, 6))
    idx = data.draw(st.lists(st.integers(0, slots - 1), min_size=THREADS, max_size=THREADS))
    mem = [value() for _ in range(slots)]
    b = [value() for _ in range(THREADS)]
    _check(op, ty, space, mem, idx, b)


def test_f32_add_on_global_flushes_subnormal_partial_sums() -> None:
    def f32(x: float) -> int:
        return int(np.float32(x).view(np.uint32))

    tiny = 2.0**-126
    b = [f32(1.5 * tiny), f32(-1.0 * tiny), f32(tiny), f32(2.0**-130)] * (THREADS // 4)
    idx = [0] * THREADS
    _check("add", "f32", "global", [0], idx, b)  # flushed: 0.5 * tiny never survives
    _check("add", "f32", "shared", [0], idx, b)  # kept
    got_old, _ = _launch("add", "f32", "shared", [0], idx, b, [0] * THREADS)
    assert got_old[2] == f32(0.5 * tiny)


HALF_MINMAX = [("min", "f16", 8), ("max", "bf16", 4), ("min", "f16x2", 2), ("max", "bf16x2", 4)]


@pytest.mark.parametrize("op, ty, vec", HALF_MINMAX)
@settings(
    max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.large_base_example]
)
@given(data=st.data())
def test_half_min_max_vectors(op: str, ty: str, vec: int, data: Any) -> None:
    fmt = ty.removesuffix("x2")
    pack = 2 if ty.endswith("x2") else 1
    codes = _float_codes(fmt)

    def value() -> int:
        return sum(data.draw(codes) << (16 * j) for j in range(pack))

    slots = data.draw(st.integers(1, 4))
    idx = data.draw(st.lists(st.integers(0, slots - 1), min_size=THREADS, max_size=THREADS))
    mem = [value() for _ in range(slots * vec)]
    b = [value() for _ in range(THREADS * vec)]
    _check(op, ty, "global", mem, idx, b, vec=vec)


@pytest.mark.parametrize("ty, vec", [("f32", 2), ("f32", 4), ("f16", 8), ("bf16x2", 4),
                                     ("f16x2", 2)])  # fmt: skip
@pytest.mark.parametrize("red", [False, True])
def test_vector_adds(ty: str, vec: int, red: bool) -> None:
    rng = np.random.default_rng(13)
    fmt = ty.removesuffix("x2")
    pack = 2 if ty.endswith("x2") else 1
    bits = FORMATS[fmt][0] + FORMATS[fmt][1] + 1

    def value(x: float) -> int:
        dtype = {"f32": np.float32, "f16": np.float16}.get(fmt)
        if dtype is not None:
            return int(np.array(x, dtype=dtype).view(f"u{bits // 8}"))
        return int(np.array(x, dtype=np.float32).view(np.uint32)) >> 16

    def packed() -> int:
        return sum(value(float(rng.normal())) << (bits * j) for j in range(pack))

    idx = [int(i) for i in rng.integers(0, 3, THREADS)]
    mem = [packed() for _ in range(3 * vec)]
    b = [packed() for _ in range(THREADS * vec)]
    _check("add", ty, "global", mem, idx, b, vec=vec, red=red)


# --------------------------------------------------------------------------- kernels and errors


@needs_ptxas
@pytest.mark.parametrize(
    "op, ty, space, vec, red",
    [(op, ty, "global", 0, False) for op, ty in INT_CASES]
    + [(op, ty, sp, 0, False) for op, ty in (("add", "u32"), ("cas", "b128"), ("exch", "b64"))
       for sp in SPACES]
    + [(op, ty, sp, 0, False) for op, ty, sp in FLOAT_CASES]
    + [(op, ty, "global", vec, False) for op, ty, vec in HALF_MINMAX]
    + [("add", ty, "global", vec, red) for ty, vec in (("f32", 4), ("f16", 8), ("bf16x2", 4))
       for red in (False, True)]
    + [("add", "u32", "global", 0, True), ("max", "s64", "shared", 0, True),
       ("inc", "u32", "global", 0, True)],
)  # fmt: skip
def test_kernels_assemble(op: str, ty: str, space: str, vec: int, red: bool) -> None:
    ptx = module(_kernel(op, ty, space, vec, red), params=PARAMS)
    ok, err = ptxas_accepts(ptx, "sm_90a")
    assert ok, err


def test_atomics_on_local_memory_are_an_error() -> None:
    body = """
	.reg .b32 %r<3>;
	.reg .b64 %rd<4>;
	.local .align 4 .b8 buf[16];
	mov.u64 %rd1, buf;
	cvta.local.u64 %rd2, %rd1;
	atom.add.u32 %r1, [%rd2], 1;
	ret;
"""
    with pytest.raises(EmuError, match="need global or shared memory, but the address points to"
                                       " local memory"):  # fmt: skip
        run(body, [np.zeros(1, dtype=np.uint32)])


def test_vector_atomics_on_shared_memory_are_an_error() -> None:
    body = _kernel("add", "f32", "generic-shared", vec=2)
    with pytest.raises(EmuError, match="need global memory"):
        _launch("add", "f32", "generic-shared", [0] * 4, [0] * THREADS, [0] * 2 * THREADS,
                [0] * 2 * THREADS, vec=2)  # fmt: skip
    assert "atom.v2.add.f32" in body


def test_misaligned_atomics_fault() -> None:
    body = """
	.reg .b32 %r<3>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	atom.global.add.u64 %rd2, [%rd1+4], 1;
	ret;
"""
    with pytest.raises(Misaligned):
        run(body, [np.zeros(4, dtype=np.uint32)])


@pytest.mark.parametrize(
    "insn, what",
    [
        # The ISA table knows these are not instructions (each operation has its own types).
        ("atom.global.add.b32 %r1, [%rd1], 1;", "is not an instruction of the PTX ISA table"),
        ("atom.global.inc.s32 %r1, [%rd1], 1;", "is not an instruction of the PTX ISA table"),
        (
            "atom.global.v2.f32.min {%r1, %r2}, [%rd1], {%r1, %r2};",
            "is not an instruction of the PTX ISA table",
        ),
        ("multimem.red.global.add.u32 [%rd1], %r1;", "multicast object"),
    ],
)
def test_undefined_combinations_are_not_emulated(insn: str, what: str) -> None:
    body = f"""
	.reg .b32 %r<3>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, 0;
	mov.u32 %r2, 0;
	{insn}
	ret;
"""
    with pytest.raises(NotEmulated, match=what):
        run(body, [np.zeros(4, dtype=np.uint32)])


def test_nvcc_atomics_kernel() -> None:
    ptx = (DATA / "warp_kernels.ptx").read_text(encoding="utf-8")
    grid, block = 2, 96
    n = grid * block
    counters = np.array([5, 2, 1, 0, 0, 0, -1, 0x1234], dtype=np.int32)
    cas = np.zeros(1, dtype=np.uint64)
    fsum = np.array([1.0], dtype=np.float32)
    dsum = np.array([0.5], dtype=np.float64)
    h2 = np.array([0.0, 0.0], dtype=np.float16)
    b2 = np.zeros(2, dtype=np.uint16)
    old = np.zeros((n, 8), dtype=np.uint32)
    hist = np.zeros(9, dtype=np.int32)
    launch(ptx, "atomics", grid=grid, block=block,
           args=[counters, cas, fsum, dsum, h2, b2, old, hist])  # fmt: skip
    t = np.arange(n)
    # Results that any serialization gives.
    assert counters[0] == 5 + t.sum()
    assert counters[1] == (2 + n) % 6
    assert counters[3] == max(0, int(((t * 37) % 101 - 50).max()))
    assert counters[4] == min(0, int(((t * 37) % 101 - 50).min()))
    assert counters[5] == -1  # every bit set
    assert counters[7] == np.bitwise_xor.reduce(np.append(t * 0x01010101, 0x1234)).astype(np.int32)
    assert fsum[0] == 1.0 + 0.25 * t.sum()
    assert dsum[0] == 0.5 + 0.125 * t.sum()
    np.testing.assert_array_equal(h2, np.array([n, 0.5 * (t % 4).sum()], dtype=np.float16))
    # bf16 partial sums round (8 significant bits): thread order, rounded at every step.
    want = [0, 0]
    for i in t:
        for j, x in enumerate((2.0, -0.25 * (i % 8))):
            code = int(np.float32(x).view(np.uint32)) >> 16
            want[j] = _float_add(want[j], code, "bf16")
    assert list(b2) == want
    np.testing.assert_array_equal(hist[:8], np.bincount((t * 7) % 8, minlength=8))
    assert hist[8] == n
    # The old values form a serialization: for add, sorted olds step by the added values.
    order = np.argsort(old[:, 0].view(np.int32), kind="stable")
    np.testing.assert_array_equal(
        old[order, 0].view(np.int32), 5 + np.cumsum(np.append(0, t[order]))[:-1]
    )
    # inc by 5 from 2 and dec by 3 from 1 see the same sequences in any order.
    assert sorted(old[:, 1]) == sorted((2 + np.arange(n)) % 6)
    dec = [1]
    for _ in range(n - 1):
        dec.append(3 if dec[-1] == 0 or dec[-1] > 3 else dec[-1] - 1)
    assert sorted(old[:, 2]) == sorted(dec)
    # The emulator's order is thread order: each CAS finds its own index, all succeed.
    np.testing.assert_array_equal(old[:, 7], t)
    assert cas[0] == n
    np.testing.assert_array_equal(old[:, 6].view(np.int32), np.append(-1, t[:-1]))
