"""The numeric core: small-float tables, exact rounding, error-free transforms.

References are independent of the implementation: the small formats' values are written out
from their definitions (the PTX ISA's "alternate floating-point data formats"), and rounding
is checked against exact rational arithmetic (``fractions.Fraction``), itself checked against
numpy's correctly rounded ``float32``/``float16`` conversions.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from float_reference import E2M1, E2M3, E3M2, MODES, ref, same
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from pyptx.emu._numeric import (
    BF16,
    F16,
    F32,
    F64,
    FORMATS,
    TF32,
    Binary,
    Rounding,
    bf16_to_f32,
    decode,
    encode,
    exact_fma,
    exact_product,
    exact_quotient,
    exact_rational,
    exact_sqrt,
    exact_sum,
    f32_to_bf16,
    round_exact,
    round_integer,
)
from pyptx.ir import PtxType

_FMT = {"f64": F64, "f32": F32, "f16": F16, "bf16": BF16, "tf32": TF32}


@given(st.floats(allow_nan=False, allow_infinity=False))
@settings(max_examples=examples(300), deadline=None)
def test_the_reference_agrees_with_numpy_round_to_nearest(x: float) -> None:
    with np.errstate(all="ignore"):
        assert ref(Fraction(x), "f32", "rn") == float(np.float32(x))
        assert ref(Fraction(x), "f16", "rn") == float(np.float16(x))


# ------------------------------------------------------------------ small formats by definition


def test_e2m1_codes_are_the_eight_magnitudes_and_their_negatives() -> None:
    codes = np.arange(16)
    values = decode(codes, PtxType.E2M1)
    np.testing.assert_array_equal(values[:8], E2M1)
    np.testing.assert_array_equal(values[8:], [-v for v in E2M1])
    assert np.signbit(values[8])  # code 0x8 is -0.0


def test_e2m3_and_e3m2_value_lists() -> None:
    np.testing.assert_array_equal(decode(np.arange(32), PtxType.E2M3), E2M3)
    np.testing.assert_array_equal(decode(np.arange(32), PtxType.E3M2), E3M2)
    assert max(E2M3) == 7.5 and max(E3M2) == 28.0
    # The two bits above the 6-bit code are ignored.
    assert decode(np.array([0xC1]), PtxType.E2M3)[0] == 0.125


def test_e4m3_range_and_nan() -> None:
    values = decode(np.arange(256), PtxType.E4M3)
    assert np.nanmax(values) == 448.0 and np.nanmin(values) == -448.0
    assert list(np.flatnonzero(np.isnan(values))) == [0x7F, 0xFF]
    assert values[1] == 2.0**-9 and values[0x08] == 2.0**-6  # min subnormal, min normal
    assert values[0x38] == 1.0 and values[0x7E] == 448.0
    assert not np.isinf(values).any()


def test_e5m2_is_the_top_byte_of_f16() -> None:
    codes = np.arange(256)
    values = decode(codes, PtxType.E5M2)
    half = (codes.astype(np.uint16) << 8).view(np.float16).astype(np.float64)
    np.testing.assert_array_equal(values, half)
    assert np.nanmax(values[np.isfinite(values)]) == 57344.0
    assert values[0x7C] == np.inf and np.isnan(values[0x7D:0x80]).all()


def test_ue8m0_is_a_power_of_two_per_code() -> None:
    values = decode(np.arange(256), PtxType.UE8M0)
    for code in (0, 1, 126, 127, 128, 254):
        assert values[code] == 2.0 ** (code - 127)
    assert np.isnan(values[255])


def test_ue4m3_is_unsigned_e4m3() -> None:
    values = decode(np.arange(128), PtxType.UE4M3)
    np.testing.assert_array_equal(values[:127], decode(np.arange(127), PtxType.E4M3))
    assert np.isnan(values[127])


def _nearest_code(x: float, ty: PtxType) -> int:
    """Round to nearest even by brute force over every code's value."""
    table = decode(np.arange(1 << 8), ty)
    finite = [c for c in range(1 << FORMATS[ty].bits) if np.isfinite(table[c])]
    best = min(finite, key=lambda c: (abs(Fraction(float(table[c])) - Fraction(x)), c & 1))
    if table[best] == 0:
        return best | (FORMATS[ty].sign_bit if math.copysign(1, x) < 0 else 0)
    return best


SMALL = [PtxType.E4M3, PtxType.E5M2, PtxType.E2M3, PtxType.E3M2, PtxType.E2M1]


@pytest.mark.parametrize("ty", SMALL, ids=lambda t: t.value)
@given(data=st.data())
@settings(max_examples=examples(60), deadline=None)
def test_encode_rounds_to_nearest_even_within_range(ty: PtxType, data: st.DataObject) -> None:
    top = FORMATS[ty].max_finite
    x = data.draw(st.floats(-top, top, allow_subnormal=True))
    code = int(encode(np.array([x]), ty, satfinite=True)[0])
    assert code == _nearest_code(x, ty), (x, hex(code))


@pytest.mark.parametrize(
    ("ty", "top", "code"),
    [
        (PtxType.E4M3, 448.0, 0x7E),
        (PtxType.E5M2, 57344.0, 0x7B),
        (PtxType.E2M3, 7.5, 0x1F),
        (PtxType.E3M2, 28.0, 0x1F),
        (PtxType.E2M1, 6.0, 0x7),
    ],
)
def test_satfinite_clamps_and_nan_rules(ty: PtxType, top: float, code: int) -> None:
    sign = FORMATS[ty].sign_bit
    x = np.array([1e9, -1e9, np.inf, -np.inf, top * 1.04])
    got = encode(x, ty, satfinite=True)
    np.testing.assert_array_equal(got, [code, code | sign, code, code | sign, code])
    nan = encode(np.array([np.nan, -np.nan]), ty, satfinite=True)
    if ty is PtxType.E4M3:
        assert list(nan) == [0x7F, 0xFF]  # NaN keeps its sign (cuda_fp8.hpp)
    elif ty is PtxType.E5M2:
        # Quiet, the two top payload bits kept (np.nan's are 0b10), sign kept.
        assert list(nan) == [0x7E, 0xFE]
        payload = np.array([0x7FFC_0000_0000_0000], dtype=np.uint64).view(np.float64)
        assert encode(payload, ty, satfinite=True)[0] == 0x7F
    else:
        assert list(nan) == [code, code]  # no NaN: positive MAX_NORM
    # .relu: negatives to +0, NaN to the canonical NaN (or MAX_NORM without NaN).
    relu = encode(np.array([-3.0, -0.0, np.nan]), ty, satfinite=True, relu=True)
    assert list(relu[:2]) == [0, 0]
    assert relu[2] == (0x7F if FORMATS[ty].nan else code)


def test_overflow_without_satfinite() -> None:
    # e5m2 rounds past 57344 to infinity (61440 is the tie and rounds to even: up);
    # e4m3 has no infinity and gives NaN past 464.
    got = encode(np.array([61439.0, 61440.0, -1e6]), PtxType.E5M2)
    assert list(got) == [0x7B, 0x7C, 0xFC]
    got = encode(np.array([464.0, 464.1]), PtxType.E4M3)
    assert list(got) == [0x7E, 0x7F]


@pytest.mark.parametrize(
    ("x", "rz", "rp"),
    [
        (1.0, 127, 127),
        (1.5, 127, 128),
        (-1.5, 127, 128),  # the sign is ignored
        (0.0, 0, 0),  # no zero: the smallest value is 2**-127
        (2.0**-130, 0, 0),
        (2.0**-127 * 1.25, 0, 1),
        (3.0e38, 254, 255),  # rp past 2**127 is the NaN code without .satfinite
        (np.inf, 255, 255),
    ],
)
def test_ue8m0_rounding(x: float, rz: int, rp: int) -> None:
    assert encode(np.array([x]), PtxType.UE8M0, mode=Rounding.RZ)[0] == rz
    assert encode(np.array([x]), PtxType.UE8M0, mode=Rounding.RP)[0] == rp
    sat = encode(np.array([x]), PtxType.UE8M0, mode=Rounding.RP, satfinite=True)[0]
    assert sat == min(rp, 254)
    assert encode(np.array([np.nan]), PtxType.UE8M0, mode=Rounding.RZ, satfinite=True)[0] == 255


def test_bf16_helpers_round_trip() -> None:
    x = np.array([1.0, -2.5, 3.0e38, 1.0000001, np.inf], dtype=np.float32)
    bits = f32_to_bf16(x)
    np.testing.assert_array_equal(bits, [0x3F80, 0xC020, 0x7F62, 0x3F80, 0x7F80])
    np.testing.assert_array_equal(bf16_to_f32(bits)[:2], [1.0, -2.5])


# ------------------------------------------------------------------ rounding exact values

finite64 = st.floats(allow_nan=False, allow_infinity=False)
finite32 = st.floats(allow_nan=False, allow_infinity=False, width=32)


@pytest.mark.parametrize("fmt", ["f32", "f16", "bf16", "tf32"])
@pytest.mark.parametrize("mode", [*MODES, "rna"])
@given(a=finite32, b=finite32)
@settings(max_examples=examples(40), deadline=None)
def test_round_exact_of_sums_and_products(fmt: str, mode: str, a: float, b: float) -> None:
    for hi, tail, exact in (
        (*exact_sum(np.array([a]), np.array([b])), Fraction(a) + Fraction(b)),
        (np.array([a * b]), None, Fraction(a) * Fraction(b)),
    ):
        got = float(round_exact(hi, tail, _FMT[fmt], Rounding(mode))[0])
        if exact != 0:
            assert same(got, ref(exact, fmt, mode)), (a, b, got)


@pytest.mark.parametrize("mode", MODES)
@given(a=finite64, b=finite64, c=finite64)
@settings(max_examples=examples(60), deadline=None)
def test_float64_transforms_are_exact(mode: str, a: float, b: float, c: float) -> None:
    x, y, z = Fraction(a), Fraction(b), Fraction(c)
    arrays = [np.array([v]) for v in (a, b, c)]
    cases = [(exact_sum(arrays[0], arrays[1]), True, x + y)]
    for fn, value in (
        (lambda: exact_product(arrays[0], arrays[1]), x * y),
        (lambda: exact_fma(*arrays), x * y + z),
        (lambda: exact_quotient(arrays[0], arrays[1]), x / y if y else None),
    ):
        if value is None:
            continue
        hi, tail, ok = fn()
        if not ok[0]:
            hi, tail = exact_rational([value])
        cases.append(((hi, tail), True, value))
    for (hi, tail), _, value in cases:
        if value == 0:
            continue
        got = float(round_exact(hi, tail, F64, Rounding(mode))[0])
        assert same(got, ref(value, "f64", mode)), (a, b, c, got)


@given(a=st.floats(min_value=5e-324, allow_infinity=False))
@settings(max_examples=examples(200), deadline=None)
def test_sqrt_tail_brackets_the_root(a: float) -> None:
    hi, tail = exact_sqrt(np.array([a]))
    for mode in MODES:
        r = Fraction(float(round_exact(hi, tail, F64, Rounding(mode))[0]))
        up = Fraction(float(np.nextafter(float(r), math.inf)))
        down = Fraction(float(np.nextafter(float(r), -math.inf)))
        x = Fraction(a)
        if mode in ("rz", "rm"):
            assert r * r <= x < up * up
        elif mode == "rp":
            assert down * down < x <= r * r
        else:
            assert ((r + down) / 2) ** 2 <= x <= ((r + up) / 2) ** 2


def test_fast_paths_flag_the_extremes() -> None:
    tiny, huge = np.array([1e-300]), np.array([1e300])
    assert not exact_product(tiny, tiny)[2][0]
    assert not exact_quotient(huge, tiny)[2][0]
    assert exact_product(np.array([3.0]), np.array([7.0]))[2][0]


@pytest.mark.parametrize("fmt", ["f16", "bf16", "f32", "f64"])
@pytest.mark.parametrize("mode", MODES)
@given(st.integers(-(2**63), 2**64 - 1))
@settings(max_examples=examples(40), deadline=None)
def test_round_integer_is_exact_for_64_bit_integers(fmt: str, mode: str, n: int) -> None:
    dtype = np.int64 if n < 0 else np.uint64
    got = float(round_integer(np.array([n], dtype=dtype), _FMT[fmt], Rounding(mode))[0])
    assert same(got, ref(Fraction(n), fmt, mode) if n else 0.0)


def test_directed_rounding_at_a_power_of_two_boundary() -> None:
    # Just below 1.0 the grid is twice as fine: 1 - 2**-60 truncates to 1 - 2**-24 in f32.
    hi, tail = exact_sum(np.array([1.0]), np.array([-(2.0**-60)]))
    assert round_exact(hi, tail, F32, Rounding.RZ)[0] == 1 - 2.0**-24
    assert round_exact(hi, tail, F32, Rounding.RN)[0] == 1.0


def test_ftz_flushes_rounded_subnormals_keeping_the_sign() -> None:
    x = np.array([2.0**-130, -(2.0**-130), 2.0**-126 * (1 - 2.0**-30)])
    got = round_exact(x, None, F32, Rounding.RN, ftz=True)
    assert got[0] == 0 and not np.signbit(got[0])
    assert got[1] == 0 and np.signbit(got[1])
    assert got[2] == 2.0**-126  # rounds up to the smallest normal: not flushed


def test_binary_format_constants() -> None:
    assert F16.max_finite == 65504.0 and BF16.max_finite == float(np.float32(3.3895314e38))
    assert F32.min_normal == 2.0**-126 and TF32.mantissa == 10
    assert Binary("x", 8, 7, 16).nan == 0x7FFF and F64.nan == 0x7FFF_FFFF_FFFF_FFFF
