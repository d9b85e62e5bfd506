"""Comparison and selection (``setp``, ``set``, ``selp``, ``slct``) on every type.

The references restate the PTX ISA's tables: ordered comparisons are false on NaN, unordered
ones true, ``num``/``nan`` test for NaN, ``-0.0 == +0.0``; ``.and``/``.or``/``.xor`` combine
with ``c`` (or ``!c``); packed halves compare separately (low half to ``p``, high to ``q``).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable

import numpy as np
import pytest
from float_harness import UINT, assembles, bit_patterns, flush, launch_op, operands, values
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

FLOAT_CMP: dict[str, Callable[[float, float], bool]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
}


def float_compare(cmp: str, x: float, y: float) -> bool:
    """The ISA's table: ordered ops false on NaN, ``...u`` true, ``num`` and ``nan``."""
    nan = math.isnan(x) or math.isnan(y)
    if cmp == "num":
        return not nan
    if cmp == "nan":
        return nan
    if cmp.endswith("u"):
        return nan or FLOAT_CMP[cmp[:-1]](x, y)
    return not nan and FLOAT_CMP[cmp](x, y)


CMPS = [*FLOAT_CMP, "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]
BOOL = {"and": operator.and_, "or": operator.or_, "xor": operator.xor}


@pytest.mark.parametrize("fmt", ["f32", "f64", "f16", "bf16"])
@pytest.mark.parametrize("cmp", CMPS)
def test_setp_on_floats(fmt: str, cmp: str) -> None:
    rng = np.random.default_rng(len(cmp) + len(fmt))
    a, b = operands(fmt, 96, rng, 2)
    # Scalar halves take one destination predicate; f32/f64 also the complement in q.
    half = fmt in ("f16", "bf16")
    dests = "{p}" if half else "{p}|{q}"
    outs = ["p"] if half else ["p", "q"]
    got = launch_op(f"setp.{cmp}.{fmt} {dests}, {{a}}, {{b}};", {"a": a, "b": b}, {},
                    preds_out=outs)  # fmt: skip
    want = [float_compare(cmp, x, y) for x, y in zip(values(a, fmt), values(b, fmt), strict=True)]
    assert got["p"].tolist() == want
    if not half:
        assert got["q"].tolist() == [not w for w in want]


@pytest.mark.parametrize("fmt", ["f32", "f64"])
@given(data=st.data())
@settings(max_examples=examples(20), deadline=None)
def test_setp_on_hypothesis_bit_patterns(fmt: str, data: st.DataObject) -> None:
    cmp = data.draw(st.sampled_from(CMPS))
    a, b = data.draw(bit_patterns(fmt)), data.draw(bit_patterns(fmt))
    ftz = fmt == "f32" and data.draw(st.booleans())
    insn = f"setp.{cmp}{'.ftz' if ftz else ''}.{fmt} {{p}}|{{q}}, {{a}}, {{b}};"
    got = launch_op(insn, {"a": a, "b": b}, {}, preds_out=["p", "q"])
    xs, ys = values(a, fmt), values(b, fmt)
    if ftz:
        xs, ys = [flush(x, fmt) for x in xs], [flush(y, fmt) for y in ys]
    want = [float_compare(cmp, x, y) for x, y in zip(xs, ys, strict=True)]
    assert got["p"].tolist() == want
    assert got["q"].tolist() == [not w for w in want]


@pytest.mark.parametrize("op", list(BOOL))
@pytest.mark.parametrize("negate", [False, True])
def test_setp_combines_with_a_predicate(op: str, negate: bool) -> None:
    rng = np.random.default_rng(1)
    a, b = operands("f32", 64, rng, 2)
    c = rng.integers(0, 2, 64).astype(bool)
    bang = "!" if negate else ""
    got = launch_op(
        f"setp.ltu.{op}.f32 {{p}}|{{q}}, {{a}}, {{b}}, {bang}{{c}};",
        {"a": a, "b": b},
        {},
        preds_in={"c": c},
        preds_out=["p", "q"],
    )
    t = [
        float_compare("ltu", x, y) for x, y in zip(values(a, "f32"), values(b, "f32"), strict=True)
    ]
    cv = [bool(v) != negate for v in c]
    assert got["p"].tolist() == [BOOL[op](ti, ci) for ti, ci in zip(t, cv, strict=True)]
    assert got["q"].tolist() == [BOOL[op](not ti, ci) for ti, ci in zip(t, cv, strict=True)]


def test_setp_ftz_flushes_subnormal_inputs() -> None:
    a = np.array([0x0000_0001, 0x8000_0001, 0x0080_0000], dtype=np.uint32)
    b = np.zeros(3, dtype=np.uint32)
    plain = launch_op("setp.eq.f32 {p}, {a}, {b};", {"a": a, "b": b}, {}, preds_out=["p"])
    ftz = launch_op("setp.eq.ftz.f32 {p}, {a}, {b};", {"a": a, "b": b}, {}, preds_out=["p"])
    assert plain["p"].tolist() == [False, False, False]
    assert ftz["p"].tolist() == [True, True, False]


@pytest.mark.parametrize("fmt", ["f16x2", "bf16x2"])
@pytest.mark.parametrize("cmp", ["lt", "geu", "nan", "ne"])
def test_setp_on_packed_halves_writes_low_to_p_and_high_to_q(fmt: str, cmp: str) -> None:
    element = fmt[:-2]
    rng = np.random.default_rng(5)
    lo, hi = operands(element, 128, rng, 2)
    a = np.ascontiguousarray(lo).view(np.uint32)
    b = np.ascontiguousarray(hi).view(np.uint32)
    c = rng.integers(0, 2, 64).astype(bool)
    got = launch_op(
        f"setp.{cmp}.xor.{fmt} {{p}}|{{q}}, {{a}}, {{b}}, {{c}};",
        {"a": a, "b": b},
        {},
        preds_in={"c": c},
        preds_out=["p", "q"],
    )
    x, y = values(lo, element), values(hi, element)
    t = [float_compare(cmp, u, v) for u, v in zip(x, y, strict=True)]
    assert got["p"].tolist() == [t[2 * i] != c[i] for i in range(64)]
    assert got["q"].tolist() == [t[2 * i + 1] != c[i] for i in range(64)]


def test_setp_ftz_on_f16_pairs() -> None:
    a = np.array([0x0001_8001], dtype=np.uint32)  # two f16 subnormals (+tiny, -tiny)
    b = np.array([0x0000_0000], dtype=np.uint32)
    got = launch_op(
        "setp.eq.ftz.f16x2 {p}|{q}, {a}, {b};", {"a": a, "b": b}, {}, preds_out=["p", "q"]
    )
    assert got["p"].tolist() == [True] and got["q"].tolist() == [True]


INT_CMP = {
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
    "lo": operator.lt,
    "ls": operator.le,
    "hi": operator.gt,
    "hs": operator.ge,
}


@pytest.mark.parametrize(
    ("ty", "cmps"),
    [
        ("s16", ["lt", "ge", "eq"]),
        ("s32", ["lt", "le", "gt", "ge", "ne"]),
        ("s64", ["lt", "gt"]),
        ("u16", ["lo", "hs"]),
        ("u32", ["lo", "ls", "hi", "hs", "lt"]),
        ("u64", ["hi", "ls"]),
        ("b32", ["eq", "ne"]),
        ("b64", ["eq", "ne"]),
    ],
)
def test_setp_on_integers(ty: str, cmps: list[str]) -> None:
    width = int(ty[1:])
    rng = np.random.default_rng(width)
    a = rng.integers(0, 1 << width, 96, dtype=np.uint64, endpoint=False).astype(UINT[width])
    b = np.where(rng.integers(0, 3, 96) == 0, a, rng.integers(0, 1 << width, 96, dtype=np.uint64))
    b = b.astype(UINT[width])
    signed = ty[0] == "s"

    def value(v: int) -> int:
        return v - (1 << width) if signed and v >= 1 << (width - 1) else v

    for cmp in cmps:
        got = launch_op(f"setp.{cmp}.{ty} {{p}}, {{a}}, {{b}};", {"a": a, "b": b}, {},
                        preds_out=["p"])  # fmt: skip
        want = [INT_CMP[cmp](value(int(x)), value(int(y))) for x, y in zip(a, b, strict=True)]
        assert got["p"].tolist() == want, cmp


# ------------------------------------------------------------------------ set

ONE = {"f32": 0x3F80_0000, "f16": 0x3C00, "bf16": 0x3F80}


@pytest.mark.parametrize(
    ("dtype", "stype", "cmp"),
    [
        ("u32", "f32", "gt"),
        ("s32", "f64", "leu"),
        ("f32", "f32", "nan"),
        ("f32", "s32", "lt"),
        ("u32", "u64", "hs"),
        ("f16", "f16", "ge"),
        ("bf16", "bf16", "neu"),
        ("u32", "f16", "num"),
    ],
)
def test_set_writes_one_or_all_ones(dtype: str, stype: str, cmp: str) -> None:
    rng = np.random.default_rng(9)
    if stype[0] == "f" or stype == "bf16":
        a, b = operands(stype, 96, rng, 2)
        t = [float_compare(cmp, x, y) for x, y in zip(values(a, stype), values(b, stype),
             strict=True)]  # fmt: skip
    else:
        width = int(stype[1:])
        a = rng.integers(0, 1 << 16, 96).astype(UINT[width])
        b = rng.integers(0, 1 << 16, 96).astype(UINT[width])
        if stype[0] == "s":
            a, b = a ^ UINT[width](1 << (width - 1)), b
        signed = stype[0] == "s"

        def value(v: int) -> int:
            return v - (1 << width) if signed and v >= 1 << (width - 1) else v

        t = [INT_CMP[cmp](value(int(x)), value(int(y))) for x, y in zip(a, b, strict=True)]
    width = 16 if dtype in ("f16", "bf16") else 32
    true = ONE.get(dtype, (1 << width) - 1)
    got = launch_op(f"set.{cmp}.{dtype}.{stype} {{d}}, {{a}}, {{b}};", {"a": a, "b": b},
                    {"d": width})["d"]  # fmt: skip
    assert got.tolist() == [true if v else 0 for v in t]


@pytest.mark.parametrize(
    ("dtype", "stype", "true"),
    [("f16x2", "f16x2", 0x3C00), ("u32", "f16x2", 0xFFFF), ("bf16x2", "bf16x2", 0x3F80),
     ("s32", "bf16x2", 0xFFFF)],
)  # fmt: skip
def test_set_on_packed_halves_writes_one_value_per_half(dtype: str, stype: str, true: int) -> None:
    element = stype[:-2]
    rng = np.random.default_rng(2)
    lo, hi = operands(element, 128, rng, 2)
    c = rng.integers(0, 2, 64).astype(bool)
    got = launch_op(
        f"set.lt.and.{dtype}.{stype} {{d}}, {{a}}, {{b}}, {{c}};",
        {"a": lo.view(np.uint32), "b": hi.view(np.uint32)},
        {"d": 32},
        preds_in={"c": c},
    )["d"]
    t = [float_compare("lt", x, y) for x, y in zip(values(lo, element), values(hi, element),
         strict=True)]  # fmt: skip
    halves = np.ascontiguousarray(got).view(np.uint16)
    assert halves.tolist() == [true if t[i] and c[i // 2] else 0 for i in range(128)]


# ------------------------------------------------------------------------ selp, slct


@pytest.mark.parametrize("ty", ["b16", "u32", "s64", "f32", "f64"])
def test_selp_copies_bits(ty: str) -> None:
    width = int(ty[1:])
    rng = np.random.default_rng(3)
    if ty[0] == "f":
        a, b = operands(ty, 64, rng, 2)
    else:
        a = rng.integers(0, 1 << 16, 64).astype(UINT[width])
        b = rng.integers(0, 1 << 16, 64).astype(UINT[width])
    c = rng.integers(0, 2, 64).astype(bool)
    got = launch_op(f"selp.{ty} {{d}}, {{a}}, {{b}}, {{c}};", {"a": a, "b": b}, {"d": width},
                    preds_in={"c": c})["d"]  # fmt: skip
    assert got.tolist() == [int(x) if k else int(y) for x, y, k in zip(a, b, c, strict=True)]


@pytest.mark.parametrize("ftz", [False, True])
def test_slct_on_the_sign_of_an_f32(ftz: bool) -> None:
    c = np.array([1.0, -1.0, 0.0, -0.0, np.nan, -np.nan, -1e-45, 1e-45, -np.inf],
                 dtype=np.float32)  # fmt: skip
    n = len(c)
    a = np.arange(100, 100 + n, dtype=np.uint32)
    b = np.arange(200, 200 + n, dtype=np.uint32)
    insn = f"slct{'.ftz' if ftz else ''}.u32.f32 {{d}}, {{a}}, {{b}}, {{c}};"
    got = launch_op(insn, {"a": a, "b": b, "c": c.view(np.uint32)}, {"d": 32})["d"]
    take_a = []
    for x in c.astype(float):
        x = flush(x, "f32") if ftz else x
        take_a.append(not math.isnan(x) and x >= 0)
    assert got.tolist() == [int(x) if k else int(y) for x, y, k in zip(a, b, take_a, strict=True)]


def test_slct_on_an_s32() -> None:
    c = np.array([0, 1, -1, 2**31 - 1, -(2**31)], dtype=np.int32)
    a = np.arange(5, dtype=np.uint64) + 10
    b = np.arange(5, dtype=np.uint64) + 20
    got = launch_op("slct.b64.s32 {d}, {a}, {b}, {c};", {"a": a, "b": b, "c": c.view(np.uint32)},
                    {"d": 64})["d"]  # fmt: skip
    assert got.tolist() == [10, 11, 22, 13, 24]


FORMS_90 = [
    *[(f"setp.{c}.{t} {{p}}|{{q}}, {{a}}, {{b}};", {"a": w, "b": w}, {"p": 1, "q": 1})
      for c in CMPS for t, w in (("f32", 32), ("f64", 64))],
    *[(f"setp.{c}.{t} {{p}}, {{a}}, {{b}};", {"a": 16, "b": 16}, {"p": 1})
      for c in CMPS for t in ("f16", "bf16")],
    *[(f"setp.ltu.{o}.f32 {{p}}|{{q}}, {{a}}, {{b}}, {n}{{c}};", {"a": 32, "b": 32, "c": 1},
       {"p": 1, "q": 1}) for o in BOOL for n in ("", "!")],
    ("setp.eq.ftz.f32 {p}, {a}, {b};", {"a": 32, "b": 32}, {"p": 1}),
    ("setp.eq.ftz.f16x2 {p}|{q}, {a}, {b};", {"a": 32, "b": 32}, {"p": 1, "q": 1}),
    *[(f"setp.{c}.xor.{t} {{p}}|{{q}}, {{a}}, {{b}}, {{c}};", {"a": 32, "b": 32, "c": 1},
       {"p": 1, "q": 1}) for c in ("lt", "geu", "nan", "ne") for t in ("f16x2", "bf16x2")],
    *[(f"setp.{c}.{t} {{p}}, {{a}}, {{b}};", {"a": int(t[1:]), "b": int(t[1:])}, {"p": 1})
      for t, cs in (("s16", "lt ge eq"), ("s32", "lt le gt ge ne"), ("s64", "lt gt"),
                    ("u16", "lo hs"), ("u32", "lo ls hi hs lt"), ("u64", "hi ls"),
                    ("b32", "eq ne"), ("b64", "eq ne"))
      for c in cs.split()],
    *[(f"set.{c}.{d}.{s} {{d}}, {{a}}, {{b}};", {"a": sw, "b": sw}, {"d": dw})
      for d, s, c, sw, dw in (("u32", "f32", "gt", 32, 32), ("s32", "f64", "leu", 64, 32),
                              ("f32", "f32", "nan", 32, 32), ("f32", "s32", "lt", 32, 32),
                              ("u32", "u64", "hs", 64, 32), ("f16", "f16", "ge", 16, 16),
                              ("bf16", "bf16", "neu", 16, 16), ("u32", "f16", "num", 16, 32))],
    *[(f"set.lt.and.{d}.{s} {{d}}, {{a}}, {{b}}, {{c}};", {"a": 32, "b": 32, "c": 1}, {"d": 32})
      for d, s in (("f16x2", "f16x2"), ("u32", "f16x2"), ("bf16x2", "bf16x2"),
                   ("s32", "bf16x2"))],
    *[(f"selp.{t} {{d}}, {{a}}, {{b}}, {{c}};", {"a": int(t[1:]), "b": int(t[1:]), "c": 1},
       {"d": int(t[1:])}) for t in ("b16", "u32", "s64", "f32", "f64")],
    ("slct.u32.f32 {d}, {a}, {b}, {c};", {"a": 32, "b": 32, "c": 32}, {"d": 32}),
    ("slct.ftz.u32.f32 {d}, {a}, {b}, {c};", {"a": 32, "b": 32, "c": 32}, {"d": 32}),
    ("slct.b64.s32 {d}, {a}, {b}, {c};", {"a": 64, "b": 64, "c": 32}, {"d": 64}),
]  # fmt: skip


def test_every_form_used_here_assembles() -> None:
    assembles(FORMS_90, "sm_90a")
