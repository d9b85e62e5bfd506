"""The floating-point test harness: launch one instruction over many threads, draw operands
with the special values of each format, compare with exact references (shared by
test_floating, test_compare and test_convert)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from emu_testing import module, ptxas_accepts, run
from float_reference import ref
from hypothesis import strategies as st

UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def body(
    insn: str,
    ins: dict[str, int],
    outs: dict[str, int],
    preds_in: Sequence[str] = (),
    preds_out: Sequence[str] = (),
) -> tuple[str, list[str]]:
    """A kernel body running ``insn`` on thread ``i``'s element of every array.

    ``insn`` names its operands ``{a}``, ``{d}``...; ``ins``/``outs`` give each register's
    width in bits; predicates travel as ``u32`` 0/1 arrays.
    """
    names = [*ins, *preds_in, *outs, *preds_out]
    params = [f".param .u64 p_{n}" for n in names] + [".param .u32 p_n"]
    lines = [".reg .pred %guard;", ".reg .b32 %i<4>;", ".reg .b64 %addr<3>;"]
    lines += [f".reg .b{w} %v_{n};" for n, w in {**ins, **outs}.items()]
    for n in (*preds_in, *preds_out):
        lines += [f".reg .pred %v_{n};", f".reg .b32 %t_{n};"]
    lines += [
        "mov.u32 %i0, %tid.x;",
        "mov.u32 %i1, %ctaid.x;",
        "mov.u32 %i2, %ntid.x;",
        "mad.lo.u32 %i0, %i1, %i2, %i0;",
        "ld.param.u32 %i3, [p_n];",
        "setp.ge.u32 %guard, %i0, %i3;",
        "@%guard ret;",
    ]

    def address(n: str, size: int) -> list[str]:
        return [
            f"ld.param.u64 %addr0, [p_{n}];",
            f"mul.wide.u32 %addr1, %i0, {size};",
            "add.s64 %addr2, %addr0, %addr1;",
        ]

    for n, w in ins.items():
        lines += [*address(n, w // 8), f"ld.global.b{w} %v_{n}, [%addr2];"]
    for n in preds_in:
        lines += [*address(n, 4), f"ld.global.b32 %t_{n}, [%addr2];"]
        lines.append(f"setp.ne.b32 %v_{n}, %t_{n}, 0;")
    lines.append(insn.format(**{n: f"%v_{n}" for n in names}))
    for n, w in outs.items():
        lines += [*address(n, w // 8), f"st.global.b{w} [%addr2], %v_{n};"]
    for n in preds_out:
        lines += [*address(n, 4), f"selp.b32 %t_{n}, 1, 0, %v_{n};"]
        lines.append(f"st.global.b32 [%addr2], %t_{n};")
    lines.append("ret;")
    return "\n".join("\t" + line for line in lines), params


def launch_op(
    insn: str,
    ins: dict[str, np.ndarray],
    outs: dict[str, int],
    *,
    preds_in: dict[str, np.ndarray] | None = None,
    preds_out: Sequence[str] = (),
    target: str = "sm_90a",
    version: str = "8.7",
) -> dict[str, np.ndarray]:
    """Run ``insn`` once per element of the input arrays (unsigned bit patterns)."""
    preds_in = preds_in or {}
    widths = {n: a.dtype.itemsize * 8 for n, a in ins.items()}
    text, params = body(insn, widths, outs, list(preds_in), preds_out)
    n = len(next(iter(ins.values())))
    results = {k: np.zeros(n, dtype=UINT[w]) for k, w in outs.items()}
    flags = {k: np.zeros(n, dtype=np.uint32) for k in preds_out}
    args = [*ins.values(), *(np.asarray(v, dtype=np.uint32) for v in preds_in.values())]
    args += [*results.values(), *flags.values(), n]
    block = 128
    grid = (n + block - 1) // block
    run(text, args, params=params, grid=grid, block=block, target=target, version=version)
    return {**results, **{k: v.astype(bool) for k, v in flags.items()}}


def assembles(
    forms: Sequence[tuple[str, dict[str, int], dict[str, int]]],
    target: str,
    version: str = "8.7",
) -> None:
    """Assemble every form (instruction, operand widths; 1 = predicate) with ptxas at once.

    One kernel holds every form, each on its own registers; a rejected form is named by the
    line ptxas reports.
    """
    lines = [".reg .b64 %out;", "ld.param.u64 %out, [out];"]
    where: dict[int, str] = {}
    for k, (insn, ins, outs) in enumerate(forms):
        names = {}
        for n, w in {**ins, **outs}.items():
            reg = f"%f{k}_{n}"
            names[n] = reg
            lines.append(f".reg .{'pred' if w == 1 else f'b{w}'} {reg};")
        for n, w in ins.items():
            if w == 1:
                lines.append(f"setp.ne.b32 {names[n]}, 0, 1;")
            elif w == 8:
                lines.append(f"ld.global.b8 {names[n]}, [%out];")  # mov has no .b8
            else:
                lines.append(f"mov.b{w} {names[n]}, 1;")
        lines.append(insn.format(**names))
        where[len(lines)] = insn
        for n, w in outs.items():
            if w != 1:
                lines.append(f"st.global.b{w} [%out], {names[n]};")
    text = module("\n".join("\t" + line for line in lines), target=target, version=version)
    ok, message = ptxas_accepts(text, target)
    if not ok:
        head = text.count("\n", 0, text.index("\tld.param.u64 %out"))
        rejected = []
        for found in re.finditer(r"line (\d+);", message):
            rejected.append(where.get(int(found.group(1)) - head + 1, found.group(0)))
        pytest.fail(f"ptxas rejects for {target}: {rejected}\n{message}")


# ------------------------------------------------------------------------ operands

SPECIAL32 = [
    0x0000_0000, 0x8000_0000, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0x7F80_0001, 0xFFC1_2345,
    0x0000_0001, 0x807F_FFFF, 0x0080_0000, 0x7F7F_FFFF, 0xFF7F_FFFF, 0x3F80_0000, 0xBF80_0000,
    0x3F00_0000, 0x4040_0000, 0x3EAA_AAAB, 0x0040_0000, 0x3F80_0001, 0x4B80_0000,
]  # fmt: skip
SPECIAL64 = [
    0x0, 0x8000_0000_0000_0000, 0x7FF0_0000_0000_0000, 0xFFF0_0000_0000_0000,
    0x7FF8_0000_0000_0000, 0x7FF0_0000_0000_0001, 0xFFF8_1234_5678_9ABC, 0x1,
    0x800F_FFFF_FFFF_FFFF, 0x0010_0000_0000_0000, 0x7FEF_FFFF_FFFF_FFFF, 0x3FF0_0000_0000_0000,
    0xBFF0_0000_0000_0000, 0x3FD5_5555_5555_5555, 0x3FF0_0000_0000_0001,
]  # fmt: skip
SPECIAL16 = [
    0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE12, 0x0001, 0x83FF, 0x0400, 0x7BFF,
    0xFBFF, 0x3C00, 0xBC00, 0x3800, 0x4200, 0x3555, 0x3C01,
]  # fmt: skip
SPECIAL_BF16 = [
    0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0xFFC5, 0x0001, 0x807F, 0x0080, 0x7F7F,
    0xFF7F, 0x3F80, 0xBF80, 0x3F00, 0x4040, 0x3EAB, 0x3F81,
]  # fmt: skip
_SPECIAL = {"f32": SPECIAL32, "f64": SPECIAL64, "f16": SPECIAL16, "bf16": SPECIAL_BF16}
_LAYOUT = {"f32": (32, 8, 23), "f64": (64, 11, 52), "f16": (16, 5, 10), "bf16": (16, 8, 7)}


def operands(fmt: str, n: int, rng: np.random.Generator, k: int = 2) -> list[np.ndarray]:
    """``k`` arrays of bit patterns: specials, random bits, moderate and short values.

    The second and third arrays are often derived from the first (negated, a few ulps away,
    scaled) so that sums cancel and results tie.
    """
    width, ebits, mbits = _LAYOUT[fmt]
    dtype = UINT[width]
    bias = (1 << (ebits - 1)) - 1
    top = (1 << width) - 1

    def draw() -> np.ndarray:
        kind = rng.integers(0, 4, n)
        rand = rng.integers(0, top, n, dtype=np.uint64, endpoint=True)
        sign = rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(width - 1)
        span = max(4, bias // 4)
        exp = rng.integers(bias - span, bias + span, n).astype(np.uint64) << np.uint64(mbits)
        man = rng.integers(0, 1 << mbits, n, dtype=np.uint64)
        short = man & ~np.uint64((1 << (mbits // 2)) - 1)  # few significant bits: ties
        special = np.array(_SPECIAL[fmt], dtype=np.uint64)[rng.integers(0, len(_SPECIAL[fmt]), n)]
        out = np.select(
            [kind == 0, kind == 1, kind == 2],
            [special, rand, sign | exp | man],
            sign | exp | short,
        )
        return out.astype(dtype)

    first = draw()
    arrays = [first]
    for _ in range(1, k):
        other = draw()
        how = rng.integers(0, 4, n)
        flipped = first ^ dtype(1 << (width - 1))
        near = (first.astype(np.int64) + rng.integers(-2, 3, n)).astype(dtype)
        arrays.append(np.select([how == 0, how == 1], [flipped, near], other).astype(dtype))
    return arrays


FLOAT = {16: np.float16, 32: np.float32, 64: np.float64}


def values(bits: np.ndarray, fmt: str) -> list[float]:
    """Bit patterns to Python floats (exact)."""
    if fmt == "bf16":
        return [float(x) for x in (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)]
    return [float(x) for x in bits.view(FLOAT[bits.dtype.itemsize * 8])]


CANONICAL = {"f32": 0x7FFF_FFFF, "f16": 0x7FFF, "bf16": 0x7FFF, "f64": 0x7FFF_FFFF_FFFF_FFFF}
MIN_NORMAL = {"f32": 2.0**-126, "f64": 2.0**-1022, "f16": 2.0**-14, "bf16": 2.0**-126}


def to_bits(x: float, fmt: str) -> int:
    """A float exactly representable in ``fmt`` to its bits (NaN: the canonical NaN)."""
    if math.isnan(x):
        return CANONICAL[fmt]
    if fmt == "bf16":
        return int(np.array([x], dtype=np.float32).view(np.uint32)[0]) >> 16
    width = {"f32": 32, "f64": 64, "f16": 16}[fmt]
    return int(np.array([x], dtype=FLOAT[width]).view(UINT[width])[0])


def flush(x: float, fmt: str) -> float:
    """A subnormal of ``fmt`` to a zero of the same sign."""
    if x != 0 and abs(x) < MIN_NORMAL[fmt]:
        return math.copysign(0.0, x)
    return x


# ------------------------------------------------------------------------ exact references

_EXACT: dict[str, Callable[..., Fraction]] = {
    "add": lambda x, y, z: x + y,
    "sub": lambda x, y, z: x - y,
    "mul": lambda x, y, z: x * y,
    "fma": lambda x, y, z: x * y + z,
    "div": lambda x, y, z: x / y,
}
_SPECIAL_VALUE: dict[str, Callable[..., Any]] = {
    "add": lambda x, y, z: x + y,
    "sub": lambda x, y, z: x - y,
    "mul": lambda x, y, z: x * y,
    "fma": lambda x, y, z: x * y + z,
    "div": lambda x, y, z: x / y,
}


def reference(
    op: str,
    xs: Sequence[float],
    fmt: str,
    mode: str,
    *,
    ftz: bool = False,
    sat: bool = False,
    relu: bool = False,
    nan_bits: int | None = None,
) -> int:
    """The bits PTX gives for ``op`` on one thread's operands."""
    x, y, z = [*xs, 0.0, 0.0][:3]
    if ftz:
        x, y, z = flush(x, fmt), flush(y, fmt), flush(z, fmt)
    if not all(math.isfinite(v) for v in xs):
        with np.errstate(all="ignore"):
            out = float(_SPECIAL_VALUE[op](np.float64(x), np.float64(y), np.float64(z)))
    elif op == "div" and y == 0:
        with np.errstate(all="ignore"):
            out = float(np.float64(x) / np.float64(y))
    else:
        exact = _EXACT[op](Fraction(x), Fraction(y), Fraction(z))
        if exact != 0:
            out = ref(exact, fmt, mode)
        elif op in ("mul", "div"):
            out = math.copysign(0.0, math.copysign(1, x) * math.copysign(1, y))
        else:
            # IEEE 754: an exact zero sum is +0 (-0 under rm) unless both terms are zeros of
            # the same sign.
            first_neg = math.copysign(1, x) < 0
            if op == "fma":
                first_zero = x == 0 or y == 0
                first_neg = (math.copysign(1, x) * math.copysign(1, y)) < 0
            else:
                first_zero = x == 0
            second = -y if op == "sub" else (z if op == "fma" else y)
            second_neg = math.copysign(1, second) < 0
            if first_zero and second == 0:
                negative = (first_neg and second_neg) or (
                    mode == "rm" and (first_neg or second_neg)
                )
            else:
                negative = mode == "rm"
            out = -0.0 if negative else 0.0
    if ftz:
        out = flush(out, fmt)
    if math.isnan(out):
        if sat:
            return 0
        return CANONICAL[fmt] if nan_bits is None else nan_bits
    if sat:
        out = 0.0 if out <= 0 else min(out, 1.0)
    if relu and math.copysign(1, out) < 0:
        out = 0.0
    return to_bits(out, fmt)


def f64_nan(bits: Sequence[int]) -> int | None:
    """The NaN an f64 operation returns: the first NaN operand made quiet, if any."""
    for b in bits:
        if (b >> 52) & 0x7FF == 0x7FF and b & ((1 << 52) - 1):
            return b | (1 << 51)
    return None


def check(got: np.ndarray, want: Sequence[int], inputs: Sequence[np.ndarray], what: str) -> None:
    """Compare per thread and name the first mismatch with its operands."""
    for lane, (g, w) in enumerate(zip(got.tolist(), want, strict=True)):
        if g != w:
            ops = ", ".join(hex(int(a[lane])) for a in inputs)
            pytest.fail(f"{what}: thread {lane} with ({ops}): got {hex(g)}, expected {hex(w)}")


# ------------------------------------------------------------------------ add, sub, mul, fma, div


def bit_patterns(fmt: str, size: int = 32) -> st.SearchStrategy[np.ndarray]:
    """Arrays of ``fmt`` bit patterns: the specials (NaN payloads, infinities, zeros,
    subnormals, extremes) mixed with arbitrary bits."""
    width = _LAYOUT[fmt][0]
    element = st.sampled_from(_SPECIAL[fmt]) | st.integers(0, (1 << width) - 1)
    return st.lists(element, min_size=size, max_size=size).map(
        lambda v: np.array(v, dtype=UINT[width])
    )
