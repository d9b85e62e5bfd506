"""``cvt`` in every combination of the ISA table, and ``cvt.pack``, against exact references.

Integer results are computed with Python integers, float results by rounding the exact
(``Fraction``) value with ``test_numeric.ref``; the 8/6/4-bit formats are checked against the
value lists written out from their definitions (``test_numeric``) by brute-force nearest-even
rounding. Packing order (``cvt.f16x2.f32 d, a, b`` puts ``a`` in the upper half) is also checked
end to end on PTX that nvcc generated from CUDA's intrinsics (``data/convert``).
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from float_harness import (
    CANONICAL,
    UINT,
    assembles,
    bit_patterns,
    check,
    flush,
    launch_op,
    operands,
    to_bits,
    values,
)
from float_reference import E2M1, E2M3, E3M2, ref
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from pyptx.emu import NotEmulated, launch

DATA = Path(__file__).parent / "data" / "convert"
INTS = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"]
FLOATS = ["f16", "bf16", "f32", "f64"]
MODES = ["rn", "rz", "rm", "rp"]


def _width(ty: str) -> int:
    floats = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
    return floats[ty] if ty in floats else int(ty[1:])


def _register(ty: str) -> int:
    """The register width a value of ``ty`` lives in here (8-bit types use 16-bit ones)."""
    return max(16, _width(ty))


def cvt_insn(mods: str, dtype: str, atype: str) -> str:
    """``cvt{mods}.dtype.atype {d}, {a};``; bf16 with an 8-bit integer needs ``.b8`` registers.

    ptxas takes wider registers for every other pair; there the 8-bit value goes through a
    ``.b8`` register in a scoped block (as nvcc writes it), with a chopping ``cvt`` on the way.
    """
    insn = f"cvt{mods}.{dtype}.{atype}"
    if "bf16" in (dtype, atype) and "8" in dtype + atype:
        # Block braces doubled: the harness fills the operands in with str.format.
        if dtype in ("u8", "s8"):
            widen = f"cvt.{dtype[0]}16.{dtype}"
            return "{{ .reg .b8 %c8; " + insn + " %c8, {a}; " + widen + " {d}, %c8; }}"
        chop = f"cvt.{atype}.{atype[0]}16"
        return "{{ .reg .b8 %c8; " + chop + " %c8, {a}; " + insn + " {d}, %c8; }}"
    return insn + " {d}, {a};"


def _signed(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _int_value(raw: int, ty: str) -> int:
    bits = _width(ty)
    return _signed(raw, bits) if ty[0] == "s" else raw & ((1 << bits) - 1)


def _int_bits(value: int, ty: str) -> int:
    """An integer result chopped to ``ty`` and extended to its register by ``ty``'s sign."""
    bits, reg = _width(ty), _register(ty)
    v = value & ((1 << bits) - 1)
    if ty[0] == "s" and v >> (bits - 1):
        v |= ((1 << reg) - 1) ^ ((1 << bits) - 1)
    return v


def _range(ty: str) -> tuple[int, int]:
    bits = _width(ty)
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if ty[0] == "s" else (0, (1 << bits) - 1)


def _ints(ty: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """Register contents holding ``ty`` values: extremes and random bits (upper bits random)."""
    reg = _register(ty)
    lo, hi = _range(ty)
    raw = rng.integers(0, 1 << 64, n, dtype=np.uint64, endpoint=False)
    extremes = np.array([lo, hi, 0, 1, -1, lo + 1, hi - 1, 255, 256, 65535, 65536, 2**24 + 1,
                         2**53 + 1, -(2**31)], dtype=object)  # fmt: skip
    pick = rng.integers(0, len(extremes), n)
    special = np.array([int(v) & ((1 << 64) - 1) for v in extremes[pick]], dtype=np.uint64)
    out = np.where(rng.integers(0, 2, n) == 0, special, raw)
    return (out & np.uint64((1 << reg) - 1 if reg < 64 else 0xFFFF_FFFF_FFFF_FFFF)).astype(
        UINT[reg]
    )


# ------------------------------------------------------------------------ integer to integer


@pytest.mark.parametrize("atype", INTS)
@pytest.mark.parametrize("dtype", INTS)
def test_integer_to_integer(dtype: str, atype: str) -> None:
    rng = np.random.default_rng(_width(dtype) * 7 + _width(atype))
    a = _ints(atype, 64, rng)
    lo, hi = _range(dtype)
    a_lo, a_hi = _range(atype)
    sat_possible = lo > a_lo or hi < a_hi
    for sat in [False, True] if sat_possible else [False]:
        insn = f"cvt{'.sat' if sat else ''}.{dtype}.{atype} {{d}}, {{a}};"
        got = launch_op(insn, {"a": a}, {"d": _register(dtype)})["d"]
        want = []
        for raw in a.tolist():
            v = _int_value(raw, atype)
            if sat:
                v = min(max(v, lo), hi)
            want.append(_int_bits(v, dtype))
        check(got, want, [a], insn)


# ------------------------------------------------------------------------ float to integer


def _round_integral(x: Fraction, mode: str) -> int:
    fl = math.floor(x)
    if mode == "rmi":
        return fl
    if mode == "rpi":
        return math.ceil(x)
    if mode == "rzi":
        return math.trunc(x)
    rest = x - fl
    return fl + (rest > Fraction(1, 2) or (rest == Fraction(1, 2) and fl % 2 == 1))


def float_to_int_ref(x: float, atype: str, dtype: str, mode: str, ftz: bool) -> int:
    """The ISA's rules: round, clamp to the range, NaN to 0 or ``1 << (width - 1)``."""
    bits = _width(dtype)
    if math.isnan(x):
        return _int_bits((1 << (bits - 1)) if atype == "f64" or bits == 64 else 0, dtype)
    lo, hi = _range(dtype)
    if math.isinf(x):
        return _int_bits(hi if x > 0 else lo, dtype)
    if ftz:
        x = flush(x, "f32")
    return _int_bits(min(max(_round_integral(Fraction(x), mode), lo), hi), dtype)


@pytest.mark.parametrize("atype", FLOATS)
@pytest.mark.parametrize("dtype", INTS)
def test_float_to_integer(dtype: str, atype: str) -> None:
    rng = np.random.default_rng(_width(dtype) + 100 * len(atype))
    (a,) = operands(atype, 96, rng, 1)
    # Values near the destination's range and halfway between integers.
    lo, hi = _range(dtype)
    near = rng.choice([lo - 0.5, lo, hi, hi + 1.0, 0.5, 1.5, 2.5, -0.5, -1.5, 1e30, -1e30], 32)
    extra = to_float_bits(near, atype)
    a = np.concatenate([a, extra])
    xs = values(a, atype)
    for k, mode in enumerate(["rni", "rzi", "rmi", "rpi"]):
        ftz = atype == "f32" and k % 2 == 1
        insn = cvt_insn(f".{mode}{'.ftz' if ftz else ''}", dtype, atype)
        got = launch_op(insn, {"a": a}, {"d": _register(dtype)})["d"]
        want = [float_to_int_ref(x, atype, dtype, mode, ftz) for x in xs]
        check(got, want, [a], insn)


def to_float_bits(xs: np.ndarray, fmt: str) -> np.ndarray:
    """Python floats rounded to nearest into ``fmt``'s bits."""
    with np.errstate(over="ignore"):
        if fmt == "bf16":
            f = np.asarray(xs, dtype=np.float32).view(np.uint32)
            return ((f + np.uint32(0x7FFF) + ((f >> np.uint32(16)) & np.uint32(1))) >> 16).astype(
                np.uint16
            )
        width = _width(fmt)
        return np.asarray(xs, dtype={16: np.float16, 32: np.float32, 64: np.float64}[width]).view(
            UINT[width]
        )


def test_ftz_changes_rpi_of_a_tiny_value() -> None:
    a = np.array([0x0000_0001, 0x8000_0001], dtype=np.uint32)  # +-2**-149
    assert launch_op("cvt.rpi.s32.f32 {d}, {a};", {"a": a}, {"d": 32})["d"].tolist() == [1, 0]
    got = launch_op("cvt.rpi.ftz.s32.f32 {d}, {a};", {"a": a}, {"d": 32})["d"]
    assert got.tolist() == [0, 0]


# ------------------------------------------------------------------------ integer to float


@pytest.mark.parametrize("atype", INTS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_integer_to_float(dtype: str, atype: str) -> None:
    rng = np.random.default_rng(_width(atype) + 3 * len(dtype))
    a = _ints(atype, 64, rng)
    for mode in MODES:
        insn = cvt_insn(f".{mode}", dtype, atype)
        got = launch_op(insn, {"a": a}, {"d": _width(dtype)})["d"]
        want = []
        for raw in a.tolist():
            v = _int_value(raw, atype)
            want.append(to_bits(ref(Fraction(v), dtype, mode) if v else 0.0, dtype))
        check(got, want, [a], insn)


def test_integer_to_float_sat() -> None:
    a = np.array([-5, 0, 1, 2, 7], dtype=np.int32).view(np.uint32)
    got = launch_op("cvt.rn.sat.f32.s32 {d}, {a};", {"a": a}, {"d": 32})["d"].view(np.float32)
    assert got.tolist() == [0.0, 0.0, 1.0, 1.0, 1.0]


# ------------------------------------------------------------------------ float to float

NARROW = [("f16", "f32"), ("bf16", "f32"), ("f32", "f64"), ("f16", "f64"), ("bf16", "f64")]
SAME_SIZE = [("f16", "bf16"), ("bf16", "f16")]
WIDEN = [("f32", "f16"), ("f32", "bf16"), ("f64", "f16"), ("f64", "f32"), ("f64", "bf16")]


def float_ref(
    x: float,
    atype: str,
    dtype: str,
    mode: str,
    *,
    ftz: bool = False,
    sat: bool = False,
    relu: bool = False,
    satfinite: bool = False,
) -> int:
    """The bits of ``x`` converted: round once, then the modifiers as the ISA lists them."""
    if ftz and atype == "f32":
        x = flush(x, "f32")
    if math.isnan(x):
        if sat:
            return 0
        if dtype == "f64":  # the payload stays (made quiet)
            return int(np.array([x]).view(np.uint64)[0]) | (1 << 51)
        return CANONICAL[dtype]
    top = float(_max(dtype))
    if satfinite and abs(x) > top:
        x = math.copysign(top, x)
    out = x if math.isinf(x) or x == 0 else ref(Fraction(x), dtype, mode)
    if ftz and dtype == "f32":
        out = flush(out, "f32")
    if relu and math.copysign(1, out) < 0:
        out = 0.0
    if sat:
        out = 0.0 if out <= 0 else min(out, 1.0)
    return to_bits(out, dtype)


def _max(fmt: str) -> float:
    return {"f16": 65504.0, "bf16": float(np.float32(3.3895314e38)), "f32": 3.4028234663852886e38,
            "f64": 1.7976931348623157e308, "tf32": (2 - 2**-10) * 2.0**127}[fmt]  # fmt: skip


def _f2f(atype: str, dtype: str, insn: str, n: int = 128, **mods: bool) -> None:
    rng = np.random.default_rng(len(insn))
    (a,) = operands(atype, n, rng, 1)
    got = launch_op(insn, {"a": a}, {"d": _width(dtype)})["d"]
    mode = next((m for m in MODES if f".{m}." in insn), "rn")
    xs = values(a, atype)
    want = [float_ref(x, atype, dtype, mode, **mods) for x in xs]
    check(got, want, [a], insn)


@pytest.mark.parametrize(("dtype", "atype"), NARROW + SAME_SIZE)
@pytest.mark.parametrize("mode", MODES)
def test_narrowing_float_conversions(dtype: str, atype: str, mode: str) -> None:
    _f2f(atype, dtype, f"cvt.{mode}.{dtype}.{atype} {{d}}, {{a}};")


@given(data=st.data())
@settings(max_examples=examples(25), deadline=None)
def test_conversions_of_hypothesis_bit_patterns(data: st.DataObject) -> None:
    atype = data.draw(st.sampled_from(["f32", "f64"]))
    dtype = data.draw(st.sampled_from(["f16", "bf16", *(["f32"] if atype == "f64" else [])]))
    mode = data.draw(st.sampled_from(MODES))
    a = data.draw(bit_patterns(atype))
    insn = f"cvt.{mode}.{dtype}.{atype} {{d}}, {{a}};"
    got = launch_op(insn, {"a": a}, {"d": _width(dtype)})["d"]
    check(got, [float_ref(x, atype, dtype, mode) for x in values(a, atype)], [a], insn)
    irnd = mode + "i"
    itype = data.draw(st.sampled_from(INTS))
    insn = cvt_insn(f".{irnd}", itype, atype)
    got = launch_op(insn, {"a": a}, {"d": _register(itype)})["d"]
    want = [float_to_int_ref(x, atype, itype, irnd, False) for x in values(a, atype)]
    check(got, want, [a], insn)


@pytest.mark.parametrize(("dtype", "atype"), WIDEN)
def test_widening_is_exact(dtype: str, atype: str) -> None:
    _f2f(atype, dtype, f"cvt.{dtype}.{atype} {{d}}, {{a}};")


@pytest.mark.parametrize(
    "insn",
    [
        "cvt.rn.ftz.f32.f64",
        "cvt.rz.sat.f32.f64",
        "cvt.rn.ftz.f16.f32",
        "cvt.rm.sat.f16.f32",
        "cvt.rn.relu.f16.f32",
        "cvt.rz.satfinite.f16.f32",
        "cvt.rn.relu.satfinite.bf16.f32",
        "cvt.rz.satfinite.bf16.f32",
        "cvt.ftz.f32.bf16",
        "cvt.sat.f32.f32",
        "cvt.ftz.f32.f32",
        "cvt.sat.f64.f32",
    ],
)
def test_float_conversion_modifiers(insn: str) -> None:
    parts = insn.split(".")
    dtype, atype = parts[-2], parts[-1]
    mods = {k: f".{k}." in insn + "." for k in ("ftz", "sat", "relu", "satfinite")}
    _f2f(atype, dtype, f"{insn} {{d}}, {{a}};", **mods)


@pytest.mark.parametrize("fmt", FLOATS)
@pytest.mark.parametrize("mode", ["rni", "rzi", "rmi", "rpi"])
def test_rounding_to_an_integral_value_in_the_same_format(fmt: str, mode: str) -> None:
    rng = np.random.default_rng(len(fmt) + len(mode))
    (a,) = operands(fmt, 96, rng, 1)
    halves = to_float_bits(np.array([0.5, 1.5, 2.5, -0.5, -2.5, -0.25, 3.75]), fmt)
    a = np.concatenate([a, halves])
    ftz = ".ftz" if fmt == "f32" and mode in ("rpi", "rmi") else ""
    insn = f"cvt.{mode}{ftz}.{fmt}.{fmt} {{d}}, {{a}};"
    got = launch_op(insn, {"a": a}, {"d": _width(fmt)})["d"]
    want = []
    for x in values(a, fmt):
        if ftz:
            x = flush(x, fmt)
        if math.isnan(x):
            w = (int(np.array([x]).view(np.uint64)[0]) | 1 << 51) if fmt == "f64" else None
            want.append(w if w is not None else CANONICAL[fmt])
        elif math.isinf(x):
            want.append(to_bits(x, fmt))
        else:
            r = _round_integral(Fraction(x), mode)
            want.append(to_bits(math.copysign(float(r), x), fmt))  # -0.3 gives -0.0
    check(got, want, [a], insn)


@pytest.mark.parametrize(
    ("mode", "flags", "target", "version"),
    [
        ("rna", "", "sm_90a", "8.7"),
        ("rna", ".satfinite", "sm_90a", "8.7"),
        ("rn", "", "sm_90a", "8.7"),
        ("rz", ".relu", "sm_90a", "8.7"),
        ("rn", ".satfinite", "sm_100a", "8.7"),
    ],
)
def test_to_tf32(mode: str, flags: str, target: str, version: str) -> None:
    rng = np.random.default_rng(6)
    (a,) = operands("f32", 128, rng, 1)
    insn = f"cvt.{mode}{flags}.tf32.f32 {{d}}, {{a}};"
    got = launch_op(insn, {"a": a}, {"d": 32}, target=target, version=version)["d"]
    want = []
    for x in values(a, "f32"):
        if math.isnan(x):
            want.append(0x7FFF_FFFF)
            continue
        if ".satfinite" in flags and abs(x) > _max("tf32"):
            x = math.copysign(_max("tf32"), x)
        out = x if math.isinf(x) or x == 0 else ref(Fraction(x), "tf32", mode)
        if ".relu" in flags and math.copysign(1, out) < 0:
            out = 0.0
        want.append(to_bits(out, "f32"))
    check(got, want, [a], insn)


# ------------------------------------------------------------------------ packed destinations


@pytest.mark.parametrize("dtype", ["f16x2", "bf16x2"])
@pytest.mark.parametrize("mode", ["rn", "rz"])
@pytest.mark.parametrize("flags", ["", ".relu", ".satfinite"])
def test_two_f32_pack_a_above_b(dtype: str, mode: str, flags: str) -> None:
    element = dtype[:-2]
    rng = np.random.default_rng(len(flags) + len(mode))
    a, b = operands("f32", 96, rng, 2)
    insn = f"cvt.{mode}{flags}.{dtype}.f32 {{d}}, {{a}}, {{b}};"
    got = launch_op(insn, {"a": a, "b": b}, {"d": 32})["d"]
    mods = {"relu": flags == ".relu", "satfinite": flags == ".satfinite"}
    want = [
        (float_ref(x, "f32", element, mode, **mods) << 16)
        | float_ref(y, "f32", element, mode, **mods)
        for x, y in zip(values(a, "f32"), values(b, "f32"), strict=True)
    ]
    check(got, want, [a, b], insn)


def _small_ref(x: float, table: list[float], sign_bit: int, relu: bool, nan: int | None) -> int:
    """Round to nearest even over a format's magnitudes; saturate; the ISA's NaN rules.

    ``nan`` is the code a NaN gives (``None``: the format has no NaN, so positive MAX_NORM);
    with ``.relu`` a NaN gives the canonical NaN ``0x7F``.
    """
    if math.isnan(x):
        if nan is None:
            return len(table) - 1
        return 0x7F if relu else nan
    negative = math.copysign(1, x) < 0
    a = Fraction(table[-1]) if math.isinf(x) else min(abs(Fraction(x)), Fraction(table[-1]))
    best = min(range(len(table)), key=lambda c: (abs(Fraction(table[c]) - a), c & 1))
    if negative and relu:
        return 0
    return best | (sign_bit if negative else 0)


E4M3 = [i / 8 * 2**-6 for i in range(8)] + [
    (8 + i) / 8 * 2**e for e in range(-6, 9) for i in range(8)
][:-1]  # 0x7F is NaN
E5M2 = [i / 4 * 2**-14 for i in range(4)] + [
    (4 + i) / 4 * 2**e for e in range(-14, 16) for i in range(4)
]
SMALL = {
    "e4m3x2": (E4M3, 0x80, 8, 0x7F),
    "e5m2x2": (E5M2, 0x80, 8, 0x7E),  # quiet, np.nan's top payload bits (0b10) kept
    "e2m3x2": (E2M3, 0x20, 8, None),
    "e3m2x2": (E3M2, 0x20, 8, None),
    "e2m1x2": (E2M1, 0x8, 4, None),
}


@pytest.mark.parametrize("dtype", list(SMALL))
@pytest.mark.parametrize("relu", [False, True])
def test_two_f32_to_small_formats(dtype: str, relu: bool) -> None:
    table, sign_bit, field, nan = SMALL[dtype]
    rng = np.random.default_rng(len(dtype) + relu)
    n = 128
    scale = table[-1]
    edges = [np.nan, -np.inf, np.inf, -0.0, table[1] / 2, table[-1] * 1.01]
    x = np.concatenate([rng.uniform(-1.2 * scale, 1.2 * scale, n), edges])
    a = x.astype(np.float32)
    b = np.roll(a, 3)
    target = "sm_90a" if dtype in ("e4m3x2", "e5m2x2") else "sm_100a"
    insn = f"cvt.rn.satfinite{'.relu' if relu else ''}.{dtype}.f32 {{d}}, {{a}}, {{b}};"
    width = 2 * field
    got = launch_op(insn, {"a": a.view(np.uint32), "b": b.view(np.uint32)},
                    {"d": max(16, width)}, target=target)["d"]  # fmt: skip
    # A NaN keeps its sign in e4m3 (0x7F | sign), and .relu makes it the canonical 0x7F.
    want = []
    for u, v in zip(a.tolist(), b.tolist(), strict=True):
        hi = _small_ref(u, table, sign_bit, relu, nan)
        lo = _small_ref(v, table, sign_bit, relu, nan)
        want.append((hi << field) | lo)
    check(got & ((1 << width) - 1), want, [a.view(np.uint32), b.view(np.uint32)], insn)


@pytest.mark.parametrize(
    ("dtype", "atype", "target", "version"),
    [
        ("e4m3x2", "f16x2", "sm_90a", "8.7"),
        ("e5m2x2", "f16x2", "sm_90a", "8.7"),
        ("e4m3x2", "bf16x2", "sm_100a", "9.1"),
    ],
)
def test_packed_halves_to_fp8_keep_the_upper_half_above(
    dtype: str, atype: str, target: str, version: str
) -> None:
    element = atype[:-2]
    rng = np.random.default_rng(12)
    lo, hi = operands(element, 128, rng, 2)
    a = np.stack([lo, hi], axis=1).copy().view(np.uint32).reshape(-1)  # low half = lo
    got = launch_op(f"cvt.rn.satfinite.{dtype}.{atype} {{d}}, {{a}};", {"a": a}, {"d": 16},
                    target=target, version=version)["d"]  # fmt: skip
    table, sign_bit, _, _ = SMALL[dtype]
    for shift, half in ((8, values(hi, element)), (0, values(lo, element))):
        codes = (got >> shift) & 0xFF
        for lane, (x, c) in enumerate(zip(half, codes.tolist(), strict=True)):
            if math.isnan(x):
                # A NaN stays NaN, keeping its sign (as NVIDIA's cuda_fp8.hpp converts).
                sign = 0x80 if math.copysign(1, x) < 0 else 0
                assert c & 0x80 == sign and (
                    c & 0x7F == 0x7F or (dtype == "e5m2x2" and c & 0x7F in (0x7D, 0x7E, 0x7F))
                ), (lane, hex(c))
            else:
                assert c == _small_ref(x, table, sign_bit, False, None), (lane, x, hex(c))


@pytest.mark.parametrize(
    ("atype", "field", "table", "sign_bit", "target"),
    [
        ("e4m3x2", 8, E4M3, 0x80, "sm_90a"),
        ("e5m2x2", 8, E5M2, 0x80, "sm_90a"),
        ("e2m3x2", 8, E2M3, 0x20, "sm_100a"),
        ("e3m2x2", 8, E3M2, 0x20, "sm_100a"),
        ("e2m1x2", 4, E2M1, 0x8, "sm_100a"),
    ],
)
@pytest.mark.parametrize("relu", [False, True])
def test_small_formats_to_f16x2(
    atype: str, field: int, table: list[float], sign_bit: int, target: str, relu: bool
) -> None:
    # Every low byte and, with a stride coprime to 256, every high byte.
    count = 1 << (2 * field)
    codes = np.arange(0, count, 3 if field == 8 else 1).astype(
        np.uint16 if field == 8 else np.uint8
    )
    if atype in ("e2m3x2", "e3m2x2"):
        codes = codes & np.uint16(0x3F3F)  # the two upper bits of each byte are zero
    insn = f"cvt.rn{'.relu' if relu else ''}.f16x2.{atype} {{d}}, {{a}};"
    got = launch_op(insn, {"a": codes}, {"d": 32}, target=target)["d"]
    mask = (1 << field) - 1

    def decode(code: int) -> int:
        mag = code & (sign_bit - 1)
        if mag >= len(table) or (atype == "e5m2x2" and mag >= 0x7C):
            if atype == "e5m2x2" and mag == 0x7C:
                if code & sign_bit:
                    return 0 if relu else to_bits(-math.inf, "f16")
                return to_bits(math.inf, "f16")
            return 0x7FFF  # NaN: the canonical f16 NaN
        value = -table[mag] if code & sign_bit else table[mag]
        if relu and math.copysign(1, value) < 0:
            value = 0.0
        return to_bits(value, "f16")

    want = [(decode((c >> field) & mask) << 16) | decode(c & mask) for c in codes.tolist()]
    check(got, want, [codes], insn)


@pytest.mark.parametrize("mode", ["rz", "rp"])
@pytest.mark.parametrize("satfinite", [False, True])
def test_ue8m0_from_f32_and_bf16x2(mode: str, satfinite: bool) -> None:
    x = np.array([1.0, 1.5, -3.0, 0.0, 2.0**-130, 2.0**-127 * 1.5, 3.0e38, np.inf, np.nan, 0.3,
                  2.0**100, -0.0], dtype=np.float32)  # fmt: skip
    y = np.roll(x, 1)

    def code(v: float) -> int:
        # Powers of two 2**(c - 127) for c in 0..254; the magnitude rounded down (rz) or up.
        if math.isnan(v):
            return 255
        a = abs(v)
        if math.isinf(a):
            c = 255
        else:
            e = math.floor(math.log2(a)) if a else -127
            if a and 2.0**e > a:
                e -= 1
            if mode == "rp" and a > 2.0**e:
                e += 1
            c = min(max(e + 127, 0), 255)
        return 254 if satfinite and c == 255 else c

    sat = ".satfinite" if satfinite else ""
    got = launch_op(f"cvt.{mode}{sat}.ue8m0x2.f32 {{d}}, {{a}}, {{b}};",
                    {"a": x.view(np.uint32), "b": y.view(np.uint32)}, {"d": 16},
                    target="sm_100a")["d"]  # fmt: skip
    assert got.tolist() == [(code(u) << 8) | code(v) for u, v in zip(x, y, strict=True)]
    # bf16x2 source (the values are exact in bf16): upper half to the upper byte.
    bf = (x.view(np.uint32) >> np.uint32(16)).astype(np.uint32)
    packed = (bf << np.uint32(16)) | (np.roll(bf, 1))
    got = launch_op(f"cvt.{mode}{sat}.ue8m0x2.bf16x2 {{d}}, {{a}};", {"a": packed}, {"d": 16},
                    target="sm_100a")["d"]  # fmt: skip
    xs = values(bf.astype(np.uint16), "bf16")
    assert got.tolist() == [(code(u) << 8) | code(v) for u, v in
                            zip(xs, np.roll(xs, 1), strict=True)]  # fmt: skip


def test_ue8m0x2_to_bf16x2() -> None:
    codes = np.array([0x7F80, 0x00FF, 0xFE01, 0x8081], dtype=np.uint16)
    got = launch_op("cvt.rn.bf16x2.ue8m0x2 {d}, {a};", {"a": codes}, {"d": 32},
                    target="sm_100a")["d"]  # fmt: skip

    def bf(c: int) -> int:
        return 0x7FFF if c == 255 else to_bits(2.0 ** (c - 127), "bf16")

    assert got.tolist() == [(bf(c >> 8) << 16) | bf(c & 0xFF) for c in codes.tolist()]
    assert bf(0) == 0x0040  # 2**-127 is a bf16 subnormal


# ------------------------------------------------------------------------ stochastic rounding


def test_stochastic_rounding_to_bf16x2() -> None:
    # 1 + 2**-8 in f32: the 16 discarded bits are 0x8000, half a bf16 ulp.
    a = np.array([0x3F80_8000] * 4 + [0xBF80_0001, 0x7F7F_FFFF, 0x7FC0_0000], dtype=np.uint32)
    b = np.array([0x4000_0000] * 7, dtype=np.uint32)
    rbits = np.array([0x7FFF_0000, 0x8000_0000, 0xFFFF_FFFF, 0x0000_FFFF, 0xFFFF_0000,
                      0x0001_0000, 0xFFFF_0000], dtype=np.uint32)  # fmt: skip
    got = launch_op("cvt.rs.bf16x2.f32 {d}, {a}, {b}, {r};", {"a": a, "b": b, "r": rbits},
                    {"d": 32}, target="sm_100a")["d"]  # fmt: skip
    # The carry out of discarded + random rounds away from zero; b = 2.0 is exact.
    assert [int(v) >> 16 for v in got] == [0x3F80, 0x3F81, 0x3F81, 0x3F80, 0xBF81, 0x7F80, 0x7FFF]
    assert all(int(v) & 0xFFFF == 0x4000 for v in got)
    sat = launch_op("cvt.rs.satfinite.bf16x2.f32 {d}, {a}, {b}, {r};",
                    {"a": a, "b": b, "r": rbits}, {"d": 32}, target="sm_100a")["d"]  # fmt: skip
    assert int(sat[5]) >> 16 == 0x7F7F


def test_stochastic_rounding_to_f16x2_uses_13_random_bits_per_value() -> None:
    # 1 + 2**-11 (half an f16 ulp): 13 discarded bits 0x1000.
    a = np.array([0x3F80_1000, 0x3F80_1000], dtype=np.uint32)
    b = np.array([0x3F80_1000, 0x3F80_1000], dtype=np.uint32)
    rbits = np.array([0x0FFF_1000, 0xE000_0FFF], dtype=np.uint32)
    got = launch_op("cvt.rs.f16x2.f32 {d}, {a}, {b}, {r};", {"a": a, "b": b, "r": rbits},
                    {"d": 32}, target="sm_100a")["d"]  # fmt: skip
    # Lane 0: a gets 0x0FFF (0x1000 + 0x0FFF: no carry), b 0x1000 (carry: up one ulp).
    # Lane 1: a gets the 13 low bits of 0xE000 (0), b 0x0FFF: neither carries.
    assert [hex(int(v)) for v in got] == [hex(0x3C00_3C01), hex(0x3C00_3C00)]


def test_stochastic_rounding_outside_the_normal_f16_range_is_not_emulated() -> None:
    a = np.array([0x3300_0000], dtype=np.uint32)  # 2**-25: an f16 subnormal result
    with pytest.raises(NotEmulated, match="stochastic"):
        launch_op("cvt.rs.f16x2.f32 {d}, {a}, {a}, {a};", {"a": a}, {"d": 32}, target="sm_100a")


def test_four_value_stochastic_forms_are_not_emulated() -> None:
    body = """
	.reg .b32 %f<5>;
	.reg .b32 %d;
	mov.b32 %f1, 0;
	cvt.rs.satfinite.e4m3x4.f32 %d, {%f1, %f1, %f1, %f1}, %f1;
	ret;
"""
    from emu_testing import run

    with pytest.raises(NotEmulated, match="x4"):
        run(body, [np.zeros(1, dtype=np.uint32)], target="sm_100a")


# ------------------------------------------------------------------------ cvt.pack


@pytest.mark.parametrize("ctype", ["u16", "s16", "u8", "s8", "u4", "s4", "u2", "s2"])
def test_cvt_pack(ctype: str) -> None:
    bits = int(ctype[1:])
    rng = np.random.default_rng(bits)
    pool = [0, 1, -1, 2, -2, 7, -8, 8, 127, -128, 255, 256, 32767, -32768, 65535, 2**31 - 1]
    a = rng.choice([*pool, -(2**31)], 64).astype(np.int32)
    b = rng.choice(pool, 64).astype(np.int32)
    c = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    lo, hi = (
        (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if ctype[0] == "s" else (0, (1 << bits) - 1)
    )
    mask = (1 << bits) - 1
    if bits == 16:
        insn = f"cvt.pack.sat.{ctype}.s32 {{d}}, {{a}}, {{b}};"
        ins = {"a": a.view(np.uint32), "b": b.view(np.uint32)}
    else:
        insn = f"cvt.pack.sat.{ctype}.s32.b32 {{d}}, {{a}}, {{b}}, {{c}};"
        ins = {"a": a.view(np.uint32), "b": b.view(np.uint32), "c": c}
    got = launch_op(insn, ins, {"d": 32})["d"]
    want = []
    for x, y, z in zip(a.tolist(), b.tolist(), c.tolist(), strict=True):
        packed = ((min(max(x, lo), hi) & mask) << bits) | (min(max(y, lo), hi) & mask)
        if bits < 16:
            packed |= (z << (2 * bits)) & 0xFFFF_FFFF
        want.append(packed)
    check(got, want, list(ins.values()), insn)


# ------------------------------------------------------------------------ nvcc's own PTX


def test_nvcc_intrinsics_pack_in_cuda_order() -> None:
    """``__floats2half2_rn(a, b)`` has ``a`` in the low half: nvcc emits ``cvt ..., b, a``."""
    ptx = (DATA / "intrinsics_sm90a.ptx").read_text()
    rng = np.random.default_rng(0)
    a = rng.normal(0, 100, 32).astype(np.float32)
    b = rng.normal(0, 100, 32).astype(np.float32)
    a[:4] = [1.0, -2.5, 1e6, np.nan]
    out = np.zeros(32, dtype=np.uint32)
    launch(ptx, "floats2half2", grid=1, block=32, args=[a, b, out])
    lo = [float_ref(float(x), "f32", "f16", "rn") for x in a]
    hi = [float_ref(float(x), "f32", "f16", "rn") for x in b]
    assert out.tolist() == [(h << 16) | low for low, h in zip(lo, hi, strict=True)]
    launch(ptx, "floats2bfloat162", grid=1, block=32, args=[a, b, out])
    lo = [float_ref(float(x), "f32", "bf16", "rn") for x in a]
    hi = [float_ref(float(x), "f32", "bf16", "rn") for x in b]
    assert out.tolist() == [(h << 16) | low for low, h in zip(lo, hi, strict=True)]
    fp8 = np.zeros(32, dtype=np.uint16)
    launch(ptx, "float2_to_e4m3x2", grid=1, block=32, args=[a, b, fp8])
    table, sign_bit, _, nan = SMALL["e4m3x2"]
    want = [
        (_small_ref(float(y), table, sign_bit, False, nan) << 8)
        | _small_ref(float(x), table, sign_bit, False, nan)
        for x, y in zip(a, b, strict=True)
    ]
    assert fp8.tolist() == want
    codes = np.arange(0, 1 << 16, 2048, dtype=np.uint16) + np.uint16(0x0137)
    launch(ptx, "e5m2x2_to_half2", grid=1, block=32, args=[codes, out])
    # e5m2 is the upper byte of an f16: the low byte of the pair lands in the low half.
    halves = [((c & 0xFF) << 8) | ((c >> 8) << 24) for c in codes.tolist()]
    assert out.tolist() == halves


def test_nvcc_scalar_intrinsics() -> None:
    ptx = (DATA / "intrinsics_sm90a.ptx").read_text()
    a = np.array([2.5, -2.5, 1e10, np.nan, 0.1, -0.0, 3.0, 1e-40], dtype=np.float32)
    b = np.array([3.0, 7.0, 3.0, 1.0, 0.0, 2.0, -0.0, 3.0], dtype=np.float32)
    x = np.array([0.5, 1.5, -1.0, 5e9, np.nan, 2.5, 4294967295.4, 3.5])
    i32, i64 = np.zeros(8, np.int32), np.zeros(8, np.int64)
    f32, h, u = np.zeros(8, np.float32), np.zeros(8, np.uint16), np.zeros(8, np.uint32)
    launch(ptx, "scalars", grid=1, block=8, args=[a, b, x, i32, i64, f32, h, u])
    assert i32.tolist() == [2, -2, 2**31 - 1, 0, 0, 0, 3, 0]  # rni, NaN -> 0
    assert i64.tolist() == [2, -3, 10**10, -(2**63), 0, 0, 3, 0]  # rmi, NaN -> 1 << 63
    div = [ref(Fraction(float(p)) / Fraction(float(q)), "f32", "rz") if q and p == p else None
           for p, q in zip(a, b, strict=True)]  # fmt: skip
    assert f32[0] == div[0] and f32[1] == div[1] and f32[2] == div[2] and f32[7] == div[7]
    assert np.isnan(f32[3]) and f32[4] == np.inf and f32[6] == -np.inf
    assert h.tolist() == [to_bits(ref(Fraction(float(v)), "bf16", "rz"), "bf16") if v == v and v
                          else to_bits(float(v), "bf16") for v in a]  # fmt: skip
    assert u.tolist() == [0, 2, 0, 4294967295, 2**31, 2, 4294967295, 4]  # NaN (f64) -> 1 << 31


def test_nvcc_narrow_format_intrinsics() -> None:
    ptx = (DATA / "intrinsics_sm100a.ptx").read_text()
    a = np.array([1.0, -2.5, 1e6, 0.1, np.nan, -0.2, 5.0, 2.0**-140], dtype=np.float32)
    b = np.array([2.0, 3.0, -0.0, 7.0, 0.25, 1.75, -np.inf, 100.0], dtype=np.float32)
    fp4 = np.zeros(8, dtype=np.uint8)
    launch(ptx, "float2_to_e2m1x2", grid=1, block=8, args=[a, b, fp4])
    assert fp4.tolist() == [(_small_ref(float(y), E2M1, 8, False, None) << 4)
                            | _small_ref(float(x), E2M1, 8, False, None)
                            for x, y in zip(a, b, strict=True)]  # fmt: skip
    fp6 = np.zeros(8, dtype=np.uint16)
    launch(ptx, "float2_to_e3m2x2", grid=1, block=8, args=[a, b, fp6])
    assert fp6.tolist() == [(_small_ref(float(y), E3M2, 0x20, False, None) << 8)
                            | _small_ref(float(x), E3M2, 0x20, False, None)
                            for x, y in zip(a, b, strict=True)]  # fmt: skip
    e8 = np.zeros(8, dtype=np.uint16)
    launch(ptx, "float2_to_ue8m0x2", grid=1, block=8, args=[a, b, e8])
    # Rounded up (cudaRoundPosInf) on the magnitude, saturating: .x in the low byte.
    assert e8.tolist()[:4] == [(128 << 8) | 127, (129 << 8) | 129, (0 << 8) | 147, (130 << 8) | 124]


# ------------------------------------------------------------------------ every form assembles

FORMS_90 = [
    *[(f"cvt{s}.{d}.{a} {{d}}, {{a}};", {"a": _register(a)}, {"d": _register(d)})
      for d in INTS for a in INTS for s in ("", ".sat")
      if s == "" or (_range(d)[0] > _range(a)[0] or _range(d)[1] < _range(a)[1])],
    *[(cvt_insn(f".{m}", d, a), {"a": _width(a)}, {"d": _register(d)})
      for d in INTS for a in FLOATS for m in ("rni", "rzi", "rmi", "rpi")],
    *[(f"cvt.rpi.ftz.{d}.f32 {{d}}, {{a}};", {"a": 32}, {"d": _register(d)}) for d in INTS],
    *[(cvt_insn(f".{m}", d, a), {"a": _register(a)}, {"d": _width(d)})
      for d in FLOATS for a in INTS for m in MODES],
    ("cvt.rn.sat.f32.s32 {d}, {a};", {"a": 32}, {"d": 32}),
    *[(f"cvt.{m}.{d}.{a} {{d}}, {{a}};", {"a": _width(a)}, {"d": _width(d)})
      for d, a in NARROW + SAME_SIZE for m in MODES],
    *[(f"cvt.{d}.{a} {{d}}, {{a}};", {"a": _width(a)}, {"d": _width(d)}) for d, a in WIDEN],
    *[(f"{i} {{d}}, {{a}};", {"a": _width(i.split(".")[-1])}, {"d": _width(i.split(".")[-2])})
      for i in ("cvt.rn.ftz.f32.f64", "cvt.rz.sat.f32.f64", "cvt.rn.ftz.f16.f32",
                "cvt.rm.sat.f16.f32", "cvt.rn.relu.f16.f32", "cvt.rz.satfinite.f16.f32",
                "cvt.rn.relu.satfinite.bf16.f32", "cvt.rz.satfinite.bf16.f32",
                "cvt.ftz.f32.bf16", "cvt.sat.f32.f32", "cvt.ftz.f32.f32", "cvt.sat.f64.f32")],
    *[(f"cvt.{m}.{f}.{f} {{d}}, {{a}};", {"a": _width(f)}, {"d": _width(f)})
      for f in FLOATS for m in ("rni", "rzi", "rmi", "rpi")],
    ("cvt.rpi.ftz.f32.f32 {d}, {a};", {"a": 32}, {"d": 32}),
    *[(f"cvt.{m}.tf32.f32 {{d}}, {{a}};", {"a": 32}, {"d": 32})
      for m in ("rna", "rna.satfinite", "rn", "rz.relu")],
    *[(f"cvt.{m}{f}.{d}.f32 {{d}}, {{a}}, {{b}};", {"a": 32, "b": 32}, {"d": 32})
      for d in ("f16x2", "bf16x2") for m in ("rn", "rz") for f in ("", ".relu", ".satfinite")],
    *[(f"cvt.rn.satfinite{r}.{d}.f32 {{d}}, {{a}}, {{b}};", {"a": 32, "b": 32}, {"d": 16})
      for d in ("e4m3x2", "e5m2x2") for r in ("", ".relu")],
    *[(f"cvt.rn.satfinite.{d}.f16x2 {{d}}, {{a}};", {"a": 32}, {"d": 16})
      for d in ("e4m3x2", "e5m2x2")],
    *[(f"cvt.rn{r}.f16x2.{a} {{d}}, {{a}};", {"a": 16}, {"d": 32})
      for a in ("e4m3x2", "e5m2x2") for r in ("", ".relu")],
    *[(f"cvt.pack.sat.{t}.s32 {{d}}, {{a}}, {{b}};", {"a": 32, "b": 32}, {"d": 32})
      for t in ("u16", "s16")],
    *[(f"cvt.pack.sat.{t}.s32.b32 {{d}}, {{a}}, {{b}}, {{c}};", {"a": 32, "b": 32, "c": 32},
       {"d": 32}) for t in ("u8", "s8", "u4", "s4", "u2", "s2")],
]  # fmt: skip

FORMS_100 = [
    ("cvt.rn.satfinite.tf32.f32 {d}, {a};", {"a": 32}, {"d": 32}),
    *[(f"cvt.rn.satfinite{r}.{d}.f32 {{d}}, {{a}}, {{b}};", {"a": 32, "b": 32}, {"d": 16})
      for d in ("e2m3x2", "e3m2x2") for r in ("", ".relu")],
    *[(f"cvt.rn.satfinite{r}.e2m1x2.f32 {{d}}, {{a}}, {{b}};", {"a": 32, "b": 32}, {"d": 8})
      for r in ("", ".relu")],
    *[(f"cvt.rn{r}.f16x2.{a} {{d}}, {{a}};", {"a": 8 if a == "e2m1x2" else 16}, {"d": 32})
      for a in ("e2m3x2", "e3m2x2", "e2m1x2") for r in ("", ".relu")],
    *[(f"cvt.{m}{s}.ue8m0x2.f32 {{d}}, {{a}}, {{b}};", {"a": 32, "b": 32}, {"d": 16})
      for m in ("rz", "rp") for s in ("", ".satfinite")],
    *[(f"cvt.{m}{s}.ue8m0x2.bf16x2 {{d}}, {{a}};", {"a": 32}, {"d": 16})
      for m in ("rz", "rp") for s in ("", ".satfinite")],
    ("cvt.rn.bf16x2.ue8m0x2 {d}, {a};", {"a": 16}, {"d": 32}),
    *[(f"cvt.rs{f}.{d}.f32 {{d}}, {{a}}, {{b}}, {{r}};", {"a": 32, "b": 32, "r": 32}, {"d": 32})
      for d in ("f16x2", "bf16x2") for f in ("", ".satfinite")],
    ("cvt.rn.satfinite.e4m3x2.bf16x2 {d}, {a};", {"a": 32}, {"d": 16}),
]  # fmt: skip


def test_every_form_used_here_assembles() -> None:
    assembles(FORMS_90, "sm_90a")
    assembles(FORMS_100, "sm_100a", version="9.1")
