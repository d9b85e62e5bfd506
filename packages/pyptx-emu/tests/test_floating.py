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
import zlib
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from float_harness import (
    CANONICAL,
    FLOAT,
    MIN_NORMAL,
    UINT,
    assembles,
    bit_patterns,
    check,
    f64_nan,
    flush,
    launch_op,
    operands,
    reference,
    to_bits,
    values,
)
from float_reference import same
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from pyptx.emu import NotEmulated

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


@pytest.mark.parametrize("fmt", ["f32", "f64"])
@pytest.mark.parametrize("op", ["add", "mul", "fma", "div"])
@given(data=st.data())
@settings(max_examples=examples(12), deadline=None)
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
    wide = UINT[2 * width]
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
    check(np.ascontiguousarray(got).view(UINT[width]), want, [lo, hi], fmt)


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
        g = float(np.array([got[i]]).view(FLOAT[width])[0])
        if math.isnan(x) or x < 0:
            assert int(got[i]) == (nans[i] or CANONICAL[fmt]), (hex(int(a[i])), hex(int(got[i])))
        elif x == 0 or math.isinf(x):
            assert same(g, x)
        else:
            _check_root(g, x, mode, FLOAT[width])


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
                tiny = relative and abs(y) < MIN_NORMAL[fmt]  # subnormal results
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
    tiny = MIN_NORMAL[fmt]
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
