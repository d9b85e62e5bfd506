"""Floating-point arithmetic, bit for bit, against exact rational references.

Each case runs one PTX instruction on a few hundred threads, each with its own operands:
random bit patterns (NaN payloads, infinities, signed zeros, subnormals and the extremes
included), values that cancel or tie, and values drawn by hypothesis. The reference rounds
the exact result (``fractions.Fraction``) with the rounding mode (see ``test_numeric.ref``);
the approximate instructions are checked against ``float64`` numpy within the PTX ISA's
documented error bounds, and their special cases against the ISA's tables.

Where the ISA leaves a NaN open the emulator documents its choice: ``f32``/``f16``/``bf16``
results are the canonical NaN, ``f64`` keeps the first NaN operand (made quiet).
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from emu_testing import module, ptxas_accepts, run
from hypothesis import given, settings
from hypothesis import strategies as st
from test_numeric import ref, same

from pyptx.emu import NotEmulated

# ------------------------------------------------------------------------ the harness

_UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


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
    results = {k: np.zeros(n, dtype=_UINT[w]) for k, w in outs.items()}
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
    dtype = _UINT[width]
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


_FLOAT = {16: np.float16, 32: np.float32, 64: np.float64}


def values(bits: np.ndarray, fmt: str) -> list[float]:
    """Bit patterns to Python floats (exact)."""
    if fmt == "bf16":
        return [float(x) for x in (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)]
    return [float(x) for x in bits.view(_FLOAT[bits.dtype.itemsize * 8])]


_CANONICAL = {"f32": 0x7FFF_FFFF, "f16": 0x7FFF, "bf16": 0x7FFF, "f64": 0x7FFF_FFFF_FFFF_FFFF}
_MIN_NORMAL = {"f32": 2.0**-126, "f64": 2.0**-1022, "f16": 2.0**-14, "bf16": 2.0**-126}


def to_bits(x: float, fmt: str) -> int:
    """A float exactly representable in ``fmt`` to its bits (NaN: the canonical NaN)."""
    if math.isnan(x):
        return _CANONICAL[fmt]
    if fmt == "bf16":
        return int(np.array([x], dtype=np.float32).view(np.uint32)[0]) >> 16
    width = {"f32": 32, "f64": 64, "f16": 16}[fmt]
    return int(np.array([x], dtype=_FLOAT[width]).view(_UINT[width])[0])


def flush(x: float, fmt: str) -> float:
    """A subnormal of ``fmt`` to a zero of the same sign."""
    if x != 0 and abs(x) < _MIN_NORMAL[fmt]:
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
        return _CANONICAL[fmt] if nan_bits is None else nan_bits
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

ARITH_FORMS = {
    "add": "add{rnd}{ftz}{sat}.{t} {{d}}, {{a}}, {{b}};",
    "sub": "sub{rnd}{ftz}{sat}.{t} {{d}}, {{a}}, {{b}};",
    "mul": "mul{rnd}{ftz}{sat}.{t} {{d}}, {{a}}, {{b}};",
    "fma": "fma{rnd}{ftz}{sat}.{t} {{d}}, {{a}}, {{b}}, {{c}};",
    "mad": "mad{rnd}{ftz}{sat}.{t} {{d}}, {{a}}, {{b}}, {{c}};",
    "div": "div{rnd}{ftz}.{t} {{d}}, {{a}}, {{b}};",
}


def arith_case(
    op: str,
    fmt: str,
    mode: str,
    ftz: bool,
    sat: bool,
    seed: int = 0,
    ins: Sequence[np.ndarray] | None = None,
) -> None:
    """Run one arithmetic form on ``ins`` (or generated operands) and compare every thread."""
    k = 3 if op in ("fma", "mad") else 2
    if ins is None:
        ins = operands(fmt, 192, np.random.default_rng(seed), k)
    insn = ARITH_FORMS[op].format(
        rnd=f".{mode}", ftz=".ftz" if ftz else "", sat=".sat" if sat else "", t=fmt
    )
    width = ins[0].dtype.itemsize * 8
    got = launch_op(insn, dict(zip("abc", ins, strict=False)), {"d": width})["d"]
    xs = [values(a, fmt) for a in ins]
    exact_op = "fma" if op == "mad" else op
    want = []
    for lane in range(len(ins[0])):
        bits = [int(a[lane]) for a in ins]
        nan = f64_nan(bits) if fmt == "f64" else None
        args = [x[lane] for x in xs]
        want.append(reference(exact_op, args, fmt, mode, ftz=ftz, sat=sat, nan_bits=nan))
    check(got, want, ins, insn)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "fma", "div"])
@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
@pytest.mark.parametrize("fmt", ["f32", "f64"])
def test_ieee_arithmetic_every_rounding_mode(op: str, mode: str, fmt: str) -> None:
    arith_case(op, fmt, mode, False, False, seed=zlib.crc32(f"{op}{mode}{fmt}".encode()))


@pytest.mark.parametrize("op", ["add", "mul", "fma", "mad", "div"])
@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
def test_ftz_and_sat_on_f32(op: str, mode: str) -> None:
    arith_case(op, "f32", mode, True, op != "div", seed=7)


def bit_patterns(fmt: str, size: int = 32) -> st.SearchStrategy[np.ndarray]:
    """Arrays of ``fmt`` bit patterns: the specials (NaN payloads, infinities, zeros,
    subnormals, extremes) mixed with arbitrary bits."""
    width = _LAYOUT[fmt][0]
    element = st.sampled_from(_SPECIAL[fmt]) | st.integers(0, (1 << width) - 1)
    return st.lists(element, min_size=size, max_size=size).map(
        lambda v: np.array(v, dtype=_UINT[width])
    )


@pytest.mark.parametrize("fmt", ["f32", "f64"])
@pytest.mark.parametrize("op", ["add", "mul", "fma", "div"])
@given(data=st.data())
@settings(max_examples=12, deadline=None)
def test_arithmetic_on_hypothesis_bit_patterns(fmt: str, op: str, data: st.DataObject) -> None:
    mode = data.draw(st.sampled_from(["rn", "rz", "rm", "rp"]))
    ins = [data.draw(bit_patterns(fmt)) for _ in range(3 if op == "fma" else 2)]
    ftz = fmt == "f32" and data.draw(st.booleans())
    arith_case(op, fmt, mode, ftz, False, ins=ins)


def test_default_rounding_is_rn_and_mul_of_f32_is_not_fused() -> None:
    a = np.array([0x3F80_0001] * 4, dtype=np.uint32)  # 1 + 2**-23
    got = launch_op("mul.f32 {d}, {a}, {a};", {"a": a}, {"d": 32})["d"]
    assert got[0] == 0x3F80_0002  # (1 + 2**-23)**2 rounds to 1 + 2**-22


HALF_CASES = [
    *[(op, "f16", f) for op in ("add", "sub", "mul", "fma") for f in ("", ".ftz", ".sat")],
    *[(op, "bf16", "") for op in ("add", "sub", "mul", "fma")],
    ("fma", "f16", ".relu"),
    ("fma", "f16", ".ftz.relu"),
    ("fma", "bf16", ".relu"),
]


@pytest.mark.parametrize(("op", "fmt", "flags"), HALF_CASES)
def test_half_precision_rounds_once(op: str, fmt: str, flags: str) -> None:
    rng = np.random.default_rng(len(op) * 31 + len(flags))
    k = 3 if op == "fma" else 2
    n = 160
    ins = operands(fmt, n, rng, k)
    rnd = ".rn" if op == "fma" else ""
    regs = ", ".join(f"{{{x}}}" for x in "abc"[:k])
    insn = f"{op}{rnd}{flags}.{fmt} {{d}}, {regs};"
    got = launch_op(insn, dict(zip("abc", ins, strict=False)), {"d": 16})["d"]
    xs = [values(a, fmt) for a in ins]
    want = [
        reference(
            op,
            [x[i] for x in xs],
            fmt,
            "rn",
            ftz=".ftz" in flags,
            sat=".sat" in flags,
            relu=".relu" in flags,
        )
        for i in range(n)
    ]
    check(got, want, ins, insn)


@pytest.mark.parametrize("fmt", ["f16x2", "bf16x2", "f32x2"])
def test_packed_forms_work_per_element(fmt: str) -> None:
    element = fmt[:-2]
    rng = np.random.default_rng(3)
    n = 64
    lo, hi = operands(element, 2 * n, rng, 2)
    width = lo.dtype.itemsize * 8
    wide = _UINT[2 * width]
    a = np.ascontiguousarray(lo).view(wide)  # element 0 in the low half
    b = np.ascontiguousarray(hi).view(wide)
    target = "sm_100a" if fmt == "f32x2" else "sm_90a"
    rnd = ".rz" if fmt == "f32x2" else ".rn"
    mode = rnd[1:]
    got = launch_op(
        f"fma{rnd}.{fmt} {{d}}, {{a}}, {{b}}, {{a}};",
        {"a": a, "b": b},
        {"d": 2 * width},
        target=target,
    )["d"]
    xs, ys = values(lo, element), values(hi, element)
    want = [reference("fma", [xs[i], ys[i], xs[i]], element, mode) for i in range(2 * n)]
    check(np.ascontiguousarray(got).view(_UINT[width]), want, [lo, hi], fmt)


@pytest.mark.parametrize("op", ["add", "sub", "fma"])
@pytest.mark.parametrize("atype", ["f16", "bf16"])
@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
def test_mixed_precision_f32_with_half_inputs(op: str, atype: str, mode: str) -> None:
    rng = np.random.default_rng(11)
    n = 96
    halves = operands(atype, n, rng, 2)
    (c,) = operands("f32", n, rng, 1)
    if op == "fma":
        insn = f"fma.{mode}.f32.{atype} {{d}}, {{a}}, {{b}}, {{c}};"
        ins = {"a": halves[0], "b": halves[1], "c": c}
    else:
        insn = f"{op}.{mode}.f32.{atype} {{d}}, {{a}}, {{c}};"
        ins = {"a": halves[0], "c": c}
    got = launch_op(insn, ins, {"d": 32}, target="sm_100a")["d"]
    xa, xb = values(halves[0], atype), values(halves[1], atype)
    xc = values(c, "f32")
    want = []
    for i in range(n):
        args = [xa[i], xb[i], xc[i]] if op == "fma" else [xa[i], xc[i]]
        want.append(reference(op, args, "f32", mode))
    check(got, want, list(ins.values()), insn)


def test_fma_oob_is_not_emulated() -> None:
    a = np.zeros(32, dtype=np.uint16)
    with pytest.raises(NotEmulated, match="OOB"):
        launch_op("fma.rn.oob.f16 {d}, {a}, {a}, {a};", {"a": a}, {"d": 16})


# ------------------------------------------------------------------------ rcp, sqrt


@pytest.mark.parametrize("fmt", ["f32", "f64"])
@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
def test_ieee_rcp_and_sqrt(fmt: str, mode: str) -> None:
    rng = np.random.default_rng(5)
    n = 160
    (a,) = operands(fmt, n, rng, 1)
    width = a.dtype.itemsize * 8
    xs = values(a, fmt)
    got = launch_op(f"rcp.{mode}.{fmt} {{d}}, {{a}};", {"a": a}, {"d": width})["d"]
    nans = [f64_nan([int(b)]) if fmt == "f64" else None for b in a]
    ones = [1.0] * n
    want = [reference("div", [ones[i], xs[i]], fmt, mode, nan_bits=nans[i]) for i in range(n)]
    check(got, want, [a], f"rcp.{mode}.{fmt}")
    got = launch_op(f"sqrt.{mode}.{fmt} {{d}}, {{a}};", {"a": a}, {"d": width})["d"]
    for i, x in enumerate(xs):
        g = float(np.array([got[i]]).view(_FLOAT[width])[0])
        if math.isnan(x) or x < 0:
            assert int(got[i]) == (nans[i] or _CANONICAL[fmt]), (hex(int(a[i])), hex(int(got[i])))
        elif x == 0 or math.isinf(x):
            assert same(g, x)
        else:
            _check_root(g, x, mode, _FLOAT[width])


def _check_root(r: float, x: float, mode: str, dtype: Any) -> None:
    """``r`` is ``sqrt(x)`` rounded with ``mode``, checked with exact squares."""
    up = Fraction(float(np.nextafter(dtype(r), dtype(np.inf))))
    down = Fraction(float(np.nextafter(dtype(r), dtype(-np.inf))))
    rr, xx = Fraction(r), Fraction(x)
    if mode in ("rz", "rm"):
        assert rr * rr <= xx < up * up, (x, r)
    elif mode == "rp":
        assert down * down < xx <= rr * rr, (x, r)
    else:
        assert ((rr + down) / 2) ** 2 <= xx <= ((rr + up) / 2) ** 2, (x, r)


# ------------------------------------------------------------------------ approximations


def _run_unary(insn: str, a: np.ndarray, **kw: Any) -> np.ndarray:
    width = a.dtype.itemsize * 8
    return launch_op(insn, {"a": a}, {"d": width}, **kw)["d"]


def _ulp32(x: float) -> float:
    x32 = np.float32(abs(x))
    return float(np.nextafter(x32, np.float32(np.inf)) - x32) if np.isfinite(x32) else math.inf


APPROX32: dict[str, tuple[Callable[[np.ndarray], np.ndarray], Callable[[float, float], float]]] = {
    # name: (float64 function, allowed error for input x and exact result y)
    "sin": (np.sin, lambda x, y: 2**-20.5 if abs(x) <= 2 * math.pi else 2**-14.7),
    "cos": (np.cos, lambda x, y: 2**-20.5 if abs(x) <= 2 * math.pi else 2**-14.7),
    "lg2": (np.log2, lambda x, y: 2**-22 if 0.5 < x < 2 else abs(y) * 2**-22),
    "ex2": (np.exp2, lambda x, y: 2 * _ulp32(y)),
    "tanh": (np.tanh, lambda x, y: abs(y) * 2**-11),
    "rsqrt": (lambda v: 1 / np.sqrt(v), lambda x, y: abs(y) * 2**-22.9),
    "sqrt": (np.sqrt, lambda x, y: abs(y) * 2**-23),
    "rcp": (lambda v: 1 / v, lambda x, y: _ulp32(y)),
}


@pytest.mark.parametrize(
    ("name", "ftz"), [(n, f) for n in APPROX32 for f in (False, True) if not (n == "tanh" and f)]
)
def test_approximate_f32_functions_meet_the_isa_bounds(name: str, ftz: bool) -> None:
    fn, bound = APPROX32[name]
    rng = np.random.default_rng(9)
    x = np.concatenate(
        [
            rng.uniform(-100 * math.pi, 100 * math.pi, 200),
            rng.uniform(-2 * math.pi, 2 * math.pi, 200),
            np.exp2(rng.uniform(-140, 120, 200)),
            rng.uniform(-130, 130, 100),
        ]
    ).astype(np.float32)
    got = _run_unary(f"{name}.approx{'.ftz' if ftz else ''}.f32 {{d}}, {{a}};", x.view(np.uint32))
    g = got.view(np.float32).astype(np.float64)
    with np.errstate(all="ignore"):
        inputs = x.astype(np.float64)
        if ftz:
            inputs = np.where(np.abs(inputs) < 2.0**-126, 0.0 * inputs, inputs)
        exact = fn(inputs)
    for xi, yi, gi in zip(inputs, exact, g, strict=True):
        if not np.isfinite(yi) or abs(yi) > 3.4e38:
            with np.errstate(over="ignore"):
                rounded = float(np.float32(yi))
            assert same(gi, rounded) or (math.isnan(yi) and math.isnan(gi))
            continue
        if ftz and yi != 0 and abs(yi) < 2.0**-126:
            assert gi == 0
            continue
        assert abs(gi - yi) <= bound(xi, yi) + 2.0**-149, (name, xi, gi, yi)


_SPECIAL_TABLES = {
    # The corner cases the ISA lists for each instruction: input -> result.
    "rcp.approx": [(-np.inf, -0.0), (-0.0, -np.inf), (0.0, np.inf), (np.inf, 0.0)],
    "sqrt.approx": [(-np.inf, np.nan), (-2.0, np.nan), (-0.0, -0.0), (0.0, 0.0), (np.inf, np.inf)],
    "rsqrt.approx": [
        (-np.inf, np.nan),
        (-2.0, np.nan),
        (-0.0, -np.inf),
        (0.0, np.inf),
        (np.inf, 0.0),
    ],
    "sin.approx": [(-np.inf, np.nan), (-0.0, -0.0), (0.0, 0.0), (np.inf, np.nan)],
    "cos.approx": [(-np.inf, np.nan), (-0.0, 1.0), (0.0, 1.0), (np.inf, np.nan)],
    "lg2.approx": [
        (-np.inf, np.nan),
        (-2.0, np.nan),
        (-0.0, -np.inf),
        (0.0, -np.inf),
        (np.inf, np.inf),
    ],
    "ex2.approx": [(-np.inf, 0.0), (-0.0, 1.0), (0.0, 1.0), (np.inf, np.inf)],
    "tanh.approx": [(-np.inf, -1.0), (-0.0, -0.0), (0.0, 0.0), (np.inf, 1.0)],
}


@pytest.mark.parametrize("name", list(_SPECIAL_TABLES))
def test_approximate_functions_special_cases(name: str) -> None:
    table = _SPECIAL_TABLES[name] + [(np.nan, np.nan)]
    x = np.array([i for i, _ in table], dtype=np.float32)
    got = _run_unary(f"{name}.f32 {{d}}, {{a}};", x.view(np.uint32)).view(np.float32)
    for (xi, want), g in zip(table, got, strict=True):
        assert same(float(g), want), (name, xi, g)


def test_f16_and_bf16_ex2_and_tanh() -> None:
    codes = np.arange(0, 1 << 16, 7, dtype=np.uint16)
    for insn, fmt, bound, fn in (
        ("ex2.approx.f16", "f16", 2**-9.9, np.exp2),
        ("ex2.approx.ftz.bf16", "bf16", 2**-7, np.exp2),
        ("tanh.approx.f16", "f16", 2**-10.987, np.tanh),
        ("tanh.approx.bf16", "bf16", 2**-8, np.tanh),
    ):
        got = values(_run_unary(f"{insn} {{d}}, {{a}};", codes), fmt)
        xs = values(codes, fmt)
        relative = insn.startswith("ex2")
        for x, g in zip(xs, got, strict=True):
            if fmt == "bf16" and relative:
                x = flush(x, "bf16")
            with np.errstate(all="ignore"):
                y = float(fn(np.float64(x)))
            # Past the largest value plus half an ulp, rounding to nearest overflows.
            overflow = 65520.0 if fmt == "f16" else 3.3961776e38
            if math.isnan(y):
                assert math.isnan(g)
            elif y == 0:
                assert g == 0
            elif abs(y) >= overflow:
                assert g == math.copysign(math.inf, y)
            elif fmt == "bf16" and relative and y != 0 and abs(y) < 2.0**-126:
                assert g == 0
            else:
                err = abs(g - y) / (abs(y) if relative else 1)
                tiny = relative and abs(y) < _MIN_NORMAL[fmt]  # subnormal results
                assert err <= bound or tiny, (insn, x, g, y)


def test_packed_ex2_keeps_halves_in_place() -> None:
    a = np.array([0x3C00_4000, 0xBC00_0000], dtype=np.uint32)  # {2.0, 1.0}, {0.0, -1.0}
    got = _run_unary("ex2.approx.f16x2 {d}, {a};", a)
    assert list(got) == [0x4000_4400, 0x3800_3C00]  # {4, 2}, {1, 0.5}


def test_div_approx_and_full() -> None:
    a = np.array([1.0, 3.0, np.inf, 5.0, -7.0, 1.0], dtype=np.float32)
    b = np.array([3.0, 2.0**127, 2.0**127, 2.0**126, 0.0, 2.0**-140], dtype=np.float32)
    approx = launch_op(
        "div.approx.f32 {d}, {a}, {b};", {"a": a.view(np.uint32), "b": b.view(np.uint32)}, {"d": 32}
    )["d"].view(np.float32)
    # |b| in [2**126, 2**128): the reciprocal flushes, a finite a gives a signed zero and an
    # infinite one NaN (the ISA's note); elsewhere within 2 ulp of the quotient.
    assert abs(approx[0] - np.float32(1 / 3)) <= 2 * _ulp32(1 / 3)
    assert approx[1] == 0 and np.isnan(approx[2])
    assert approx[3] == np.float32(5.0 * 2.0**-126)
    assert approx[4] == -np.inf
    full = launch_op(
        "div.full.f32 {d}, {a}, {b};", {"a": a.view(np.uint32), "b": b.view(np.uint32)}, {"d": 32}
    )["d"].view(np.float32)
    with np.errstate(all="ignore"):
        exact = a.astype(np.float64) / b.astype(np.float64)
    for g, y in zip(full, exact, strict=True):
        if np.isfinite(y) and abs(y) < 3e38:
            assert abs(float(g) - y) <= 2 * _ulp32(y)


def test_gross_f64_approximations() -> None:
    x = np.array([3.0, 0.1, -7.5, 2.0**-1060, np.inf, -0.0, np.nan, 1e300, -4.0])
    bits = x.view(np.uint64)
    rcp = _run_unary("rcp.approx.ftz.f64 {d}, {a};", bits)
    rsq = _run_unary("rsqrt.approx.ftz.f64 {d}, {a};", bits)
    assert not (rcp & np.uint64(0xFFFF_FFFF)).any() and not (rsq & np.uint64(0xFFFF_FFFF)).any()
    r, s = rcp.view(np.float64), rsq.view(np.float64)
    upper = (bits & np.uint64(0xFFFF_FFFF_0000_0000)).view(np.float64)
    for i in (0, 1, 2, 7):
        assert abs(r[i] * upper[i] - 1) < 2.0**-19
    for i in (0, 1, 7):
        assert abs(s[i] * math.sqrt(upper[i]) - 1) < 2.0**-19
    assert r[3] == np.inf and r[4] == 0 and r[5] == -np.inf and s[5] == -np.inf
    assert s[3] == np.inf and s[4] == 0 and np.isnan(s[8])
    assert int(rcp[6]) == int(rsq[6]) == 0x7FFF_FFFF_0000_0000


# ------------------------------------------------------------------------ sign, min, max


@pytest.mark.parametrize("fmt", ["f32", "f64", "f16", "bf16"])
def test_abs_neg_copysign(fmt: str) -> None:
    rng = np.random.default_rng(2)
    a, b = operands(fmt, 96, rng, 2)
    width = a.dtype.itemsize * 8
    sign = 1 << (width - 1)
    got = launch_op(f"abs.{fmt} {{d}}, {{a}};", {"a": a}, {"d": width})["d"]
    want = [int(x) & ~sign for x in a]
    if fmt == "f64":  # abs.f64 passes a NaN through unchanged
        want = [int(x) if f64_nan([int(x)]) else w for x, w in zip(a, want, strict=True)]
    check(got, want, [a], f"abs.{fmt}")
    got = launch_op(f"neg.{fmt} {{d}}, {{a}};", {"a": a}, {"d": width})["d"]
    check(got, [int(x) ^ sign for x in a], [a], f"neg.{fmt}")
    if fmt in ("f32", "f64"):
        got = launch_op(f"copysign.{fmt} {{d}}, {{a}}, {{b}};", {"a": a, "b": b}, {"d": width})["d"]
        want = [(int(y) & ~sign) | (int(x) & sign) for x, y in zip(a, b, strict=True)]
        check(got, want, [a, b], f"copysign.{fmt}")


def test_abs_and_neg_ftz_flush_subnormals_first() -> None:
    a = np.array([0x8000_0001, 0x0000_0001, 0x8080_0000], dtype=np.uint32)
    assert list(_run_unary("abs.ftz.f32 {d}, {a};", a)) == [0, 0, 0x0080_0000]
    assert list(_run_unary("neg.ftz.f32 {d}, {a};", a)) == [0, 0x8000_0000, 0x0080_0000]


def _minmax_ref(
    xs: Sequence[float], smallest: bool, nan_mode: bool, xorsign: bool, fmt: str, ftz: bool
) -> int:
    """min/max per the ISA's pseudocode, written independently."""
    vals = [flush(x, fmt) if ftz else x for x in xs]
    negative = (math.copysign(1, vals[0]) * math.copysign(1, vals[1])) < 0
    if xorsign:
        vals = [abs(v) for v in vals]

    def key(v: float) -> tuple[float, int]:
        return (v, 0 if math.copysign(1, v) < 0 else 1)  # -0.0 below +0.0

    def two(x: float, y: float) -> float:
        if math.isnan(x) and math.isnan(y):
            return math.nan
        if nan_mode and (math.isnan(x) or math.isnan(y)):
            return math.nan
        if math.isnan(x):
            return y
        if math.isnan(y):
            return x
        pick = min if smallest else max
        return pick(x, y, key=key)

    out = two(vals[0], vals[1])
    if len(vals) == 3:
        out = two(out, vals[2])
    if xorsign and not math.isnan(out):
        out = -abs(out) if negative else abs(out)
    return to_bits(out, fmt)


@pytest.mark.parametrize("op", ["min", "max"])
@pytest.mark.parametrize(
    ("fmt", "mods", "target"),
    [
        ("f32", "", "sm_90a"),
        ("f32", ".ftz.NaN", "sm_90a"),
        ("f32", ".xorsign.abs", "sm_90a"),
        ("f64", "", "sm_90a"),
        ("f16", ".ftz", "sm_90a"),
        ("f16", ".NaN.xorsign.abs", "sm_90a"),
        ("bf16", ".NaN", "sm_90a"),
        ("f32", ".three", "sm_100a"),
    ],
)
def test_min_max(op: str, fmt: str, mods: str, target: str) -> None:
    three = mods == ".three"
    mods = "" if three else mods
    rng = np.random.default_rng(4)
    ins = operands(fmt, 128, rng, 3 if three else 2)
    width = ins[0].dtype.itemsize * 8
    regs = ", ".join(f"{{{x}}}" for x in "abc"[: len(ins)])
    insn = f"{op}{mods}.{fmt} {{d}}, {regs};"
    got = launch_op(insn, dict(zip("abc", ins, strict=False)), {"d": width}, target=target)
    xs = [values(a, fmt) for a in ins]
    want = [
        _minmax_ref(
            [x[i] for x in xs], op == "min", ".NaN" in mods, ".xorsign" in mods, fmt,
            ".ftz" in mods,
        )
        for i in range(len(ins[0]))
    ]  # fmt: skip
    check(got["d"], want, ins, insn)


def test_min_max_on_packed_halves() -> None:
    # Low halves: min(1.0, NaN) = 1.0; high halves: min(-0.0, +0.0) = -0.0.
    a = np.array([0x8000_3C00], dtype=np.uint32)
    b = np.array([0x0000_7E00], dtype=np.uint32)
    got = launch_op("min.f16x2 {d}, {a}, {b};", {"a": a, "b": b}, {"d": 32})["d"]
    assert int(got[0]) == 0x8000_3C00
    # bf16: low halves max.NaN(1.0, NaN) = NaN, high halves max(-0.0, +0.0) = +0.0.
    a = np.array([0x8000_3F80], dtype=np.uint32)
    b = np.array([0x0000_7FC0], dtype=np.uint32)
    got = launch_op("max.NaN.bf16x2 {d}, {a}, {b};", {"a": a, "b": b}, {"d": 32})["d"]
    assert int(got[0]) == 0x0000_7FFF


# ------------------------------------------------------------------------ testp


@pytest.mark.parametrize("fmt", ["f32", "f64"])
def test_testp(fmt: str) -> None:
    (a,) = operands(fmt, 128, np.random.default_rng(8), 1)
    xs = values(a, fmt)
    tiny = _MIN_NORMAL[fmt]
    rules = {
        "finite": math.isfinite,
        "infinite": math.isinf,
        "number": lambda x: not math.isnan(x),
        "notanumber": math.isnan,
        "normal": lambda x: math.isfinite(x) and (x == 0 or abs(x) >= tiny),
        "subnormal": lambda x: x != 0 and abs(x) < tiny,
    }
    for op, rule in rules.items():
        got = launch_op(f"testp.{op}.{fmt} {{p}}, {{a}};", {"a": a}, {}, preds_out=["p"])["p"]
        assert got.tolist() == [rule(x) for x in xs], op


# ------------------------------------------------------------------------ every form assembles

FORMS_90 = [
    *[
        (ARITH_FORMS[op].format(rnd=f".{r}", ftz=f, sat=s, t="f32"), {"a": 32, "b": 32, "c": 32},
         {"d": 32})
        for op in ("add", "sub", "mul", "fma", "mad")
        for r in ("rn", "rz", "rm", "rp")
        for f, s in (("", ""), (".ftz", ".sat"))
    ],
    *[
        (ARITH_FORMS[op].format(rnd=f".{r}", ftz="", sat="", t="f64"), {"a": 64, "b": 64,
         "c": 64}, {"d": 64})
        for op in ("add", "sub", "mul", "fma", "mad", "div")
        for r in ("rn", "rz", "rm", "rp")
    ],
    *[(f"div.{r}{f}.f32 {{d}}, {{a}}, {{b}};", {"a": 32, "b": 32}, {"d": 32})
      for r in ("rn", "rz", "rm", "rp", "approx", "full") for f in ("", ".ftz")],
    *[(f"{i}.{r}.{t} {{d}}, {{a}};", {"a": w}, {"d": w})
      for i in ("rcp", "sqrt") for r in ("rn", "rz", "rm", "rp") for t, w in (("f32", 32),
      ("f64", 64))],
    *[(f"{i}.approx{f}.f32 {{d}}, {{a}};", {"a": 32}, {"d": 32})
      for i in ("rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2") for f in ("", ".ftz")],
    ("tanh.approx.f32 {d}, {a};", {"a": 32}, {"d": 32}),
    ("rcp.approx.ftz.f64 {d}, {a};", {"a": 64}, {"d": 64}),
    ("rsqrt.approx.ftz.f64 {d}, {a};", {"a": 64}, {"d": 64}),
    ("rsqrt.approx.f64 {d}, {a};", {"a": 64}, {"d": 64}),
    *[(f"{i} {{d}}, {{a}};", {"a": w}, {"d": w}) for i, w in (
        ("ex2.approx.f16", 16), ("ex2.approx.f16x2", 32), ("ex2.approx.ftz.bf16", 16),
        ("ex2.approx.ftz.bf16x2", 32), ("tanh.approx.f16", 16), ("tanh.approx.f16x2", 32),
        ("tanh.approx.bf16", 16), ("tanh.approx.bf16x2", 32))],
    *[(f"{op}{m}.{t} {{d}}, {{a}}, {{b}};", {"a": w, "b": w}, {"d": w})
      for op in ("add", "sub", "mul") for t, w, m in (("f16", 16, ".ftz.sat"),
      ("f16x2", 32, ".rn"), ("bf16", 16, ""), ("bf16x2", 32, ".rn"))],
    *[(f"fma.rn{m}.{t} {{d}}, {{a}}, {{b}}, {{c}};", {"a": w, "b": w, "c": w}, {"d": w})
      for t, w, m in (("f16", 16, ".ftz.sat"), ("f16x2", 32, ""), ("f16", 16, ".relu"),
      ("bf16", 16, ""), ("bf16x2", 32, ".relu"))],
    *[(f"{op}{m}.{t} {{d}}, {{a}}, {{b}};", {"a": w, "b": w}, {"d": w})
      for op in ("min", "max") for t, w, m in (("f32", 32, ""), ("f32", 32, ".ftz.NaN"),
      ("f32", 32, ".xorsign.abs"), ("f64", 64, ""), ("f16", 16, ".ftz"),
      ("f16", 16, ".NaN.xorsign.abs"), ("bf16", 16, ".NaN"), ("f16x2", 32, ""),
      ("bf16x2", 32, ".NaN"))],
    *[(f"{op}.{t} {{d}}, {{a}};", {"a": w}, {"d": w})
      for op in ("abs", "neg") for t, w in (("f32", 32), ("ftz.f32", 32), ("f64", 64),
      ("f16", 16), ("bf16", 16))],
    *[(f"copysign.{t} {{d}}, {{a}}, {{b}};", {"a": w, "b": w}, {"d": w})
      for t, w in (("f32", 32), ("f64", 64))],
    *[(f"testp.{op}.{t} {{p}}, {{a}};", {"a": w}, {"p": 1})
      for op in ("finite", "infinite", "number", "notanumber", "normal", "subnormal")
      for t, w in (("f32", 32), ("f64", 64))],
    ("mul.f32 {d}, {a}, {b};", {"a": 32, "b": 32}, {"d": 32}),
]  # fmt: skip

FORMS_100 = [
    *[(f"{op}.{r}.f32.{t} {{d}}, {{a}}, {{c}};", {"a": 16, "c": 32}, {"d": 32})
      for op in ("add", "sub") for r in ("rn", "rz", "rm", "rp") for t in ("f16", "bf16")],
    *[(f"fma.{r}.f32.{t} {{d}}, {{a}}, {{b}}, {{c}};", {"a": 16, "b": 16, "c": 32}, {"d": 32})
      for r in ("rn", "rz", "rm", "rp") for t in ("f16", "bf16")],
    ("fma.rz.f32x2 {d}, {a}, {b}, {a};", {"a": 64, "b": 64}, {"d": 64}),
    ("add.rn.ftz.f32x2 {d}, {a}, {b};", {"a": 64, "b": 64}, {"d": 64}),
    ("min.f32 {d}, {a}, {b}, {c};", {"a": 32, "b": 32, "c": 32}, {"d": 32}),
    ("max.NaN.abs.f32 {d}, {a}, {b}, {c};", {"a": 32, "b": 32, "c": 32}, {"d": 32}),
]  # fmt: skip


def test_every_form_used_here_assembles() -> None:
    assembles(FORMS_90, "sm_90a")
    assembles(FORMS_100, "sm_100a", version="8.8")
