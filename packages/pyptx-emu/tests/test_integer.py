"""Integer arithmetic, bit for bit, against pure-Python big-integer references.

Every case is one PTX snippet run on 64 threads, each with its own operands (random bit
patterns mixed with the extremes of the type: 0, 1, -1, MIN, MAX, ...), and compared with a
small reference written from the PTX ISA's semantics on Python integers. Where the ISA leaves
a result open the references follow ptxas's sm_90 code (see ``_ops/integer.py``): division by
zero gives all ones, and ``CC.CF`` is a carry (``sub.cc`` sets it when no borrow occurs).
"""

from __future__ import annotations

import operator
import random
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest
from emu_testing import ptxas_accepts, run
from hypothesis import given
from hypothesis import strategies as st
from int_harness import (
    PROPERTY,
    Case,
    byte_values,
    check,
    clamp_s32,
    execute,
    halves,
    inputs_for,
    join_halves,
    kernel,
    reg,
    sx,
    trunc_div,
    trunc_rem,
    value,
)

from pyptx.emu import UninitializedRead, launch

DATA = Path(__file__).parent / "data" / "integer"

# --------------------------------------------------------------------------------- the cases

AB32 = (("a", "b32"), ("b", "b32"))
D32 = (("d", "b32"),)
INT_TYPES = ("u16", "u32", "u64", "s16", "s32", "s64")
WIDENING = ("u16", "u32", "s16", "s32")
SIGNED = ("s16", "s32", "s64")


def _binary(op: str, ty: str, ref: Callable[[int, int], int], dtype: str | None = None) -> Case:
    r = reg(dtype or ty)
    return Case(
        f"{op}.{ty}",
        f"{op}.{ty} {{d}}, {{a}}, {{b}}",
        (("a", reg(ty)), ("b", reg(ty))),
        (("d", r),),
        ref,
    )


def _ternary(op: str, ty: str, ref: Callable[[int, int, int], int], wide: bool = False) -> Case:
    r = reg(ty)
    w = f"b{2 * int(ty[1:])}" if wide else r
    return Case(
        f"{op}.{ty}",
        f"{op}.{ty} {{d}}, {{a}}, {{b}}, {{c}}",
        (("a", r), ("b", r), ("c", w)),
        (("d", w),),
        ref,
    )


def _arith_cases() -> list[Case]:
    cases = []
    for ty in INT_TYPES:
        cases.append(_binary("add", ty, lambda a, b: a + b))
        cases.append(_binary("sub", ty, lambda a, b: a - b))
        for mode in ("lo", "hi"):
            bits = int(ty[1:])

            def mul_ref(a: int, b: int, ty: str = ty, mode: str = mode, bits: int = bits) -> int:
                p = value(a, ty) * value(b, ty)
                return p if mode == "lo" else p >> bits

            def mad_ref(
                a: int, b: int, c: int, ty: str = ty, mode: str = mode, bits: int = bits
            ) -> int:
                p = value(a, ty) * value(b, ty)
                return (p if mode == "lo" else p >> bits) + c

            cases.append(_binary(f"mul.{mode}", ty, mul_ref))
            cases.append(_ternary(f"mad.{mode}", ty, mad_ref))
        cases.append(
            _ternary("sad", ty, lambda a, b, c, ty=ty: c + abs(value(a, ty) - value(b, ty)))
        )
        for op, fn in (("div", trunc_div), ("rem", trunc_rem)):

            def divide(a: int, b: int, ty: str = ty, fn: Callable[[int, int], int] = fn) -> int:
                return -1 if value(b, ty) == 0 else fn(value(a, ty), value(b, ty))

            cases.append(_binary(op, ty, divide))
        cases.append(_binary("min", ty, lambda a, b, ty=ty: min(value(a, ty), value(b, ty))))
        cases.append(_binary("max", ty, lambda a, b, ty=ty: max(value(a, ty), value(b, ty))))
    for ty in WIDENING:
        cases.append(
            _binary(
                "mul.wide",
                ty,
                lambda a, b, ty=ty: value(a, ty) * value(b, ty),
                dtype=f"{ty[0]}{2 * int(ty[1:])}",
            )
        )
        cases.append(
            _ternary(
                "mad.wide", ty, lambda a, b, c, ty=ty: value(a, ty) * value(b, ty) + c, wide=True
            )
        )
    for ty in SIGNED:
        r = reg(ty)
        cases.append(
            Case(
                f"abs.{ty}",
                f"abs.{ty} {{d}}, {{a}}",
                (("a", r),),
                (("d", r),),
                lambda a, ty=ty: abs(value(a, ty)),
            )
        )
        cases.append(
            Case(
                f"neg.{ty}",
                f"neg.{ty} {{d}}, {{a}}",
                (("a", r),),
                (("d", r),),
                lambda a, ty=ty: -value(a, ty),
            )
        )
    cases += [
        _binary("add.sat", "s32", lambda a, b: clamp_s32(sx(a, 32) + sx(b, 32))),
        _binary("sub.sat", "s32", lambda a, b: clamp_s32(sx(a, 32) - sx(b, 32))),
        _ternary(
            "mad.hi.sat",
            "s32",
            lambda a, b, c: clamp_s32(((sx(a, 32) * sx(b, 32)) >> 32) + sx(c, 32)),
        ),
    ]
    for ty in ("u16x2", "s16x2"):
        signed = ty[0] == "s"

        def per_half(fn: Callable[[int, int], int], signed: bool = signed) -> Callable[..., int]:
            return lambda a, b: join_halves(
                [fn(x, y) for x, y in zip(halves(a, signed), halves(b, signed), strict=True)]
            )

        # sub has no packed form: ptxas rejects sub.u16x2 (the ISA lists add, min, max only).
        for op, fn in (("add", operator.add), ("min", min), ("max", max)):
            body = f"{op}.{ty} {{d}}, {{a}}, {{b}}"
            cases.append(Case(f"{op}.{ty}", body, AB32, D32, per_half(fn)))
    relu = [
        Case(
            f"{op}.relu.s32",
            f"{op}.relu.s32 {{d}}, {{a}}, {{b}}",
            (("a", "b32"), ("b", "b32")),
            (("d", "b32"),),
            lambda a, b, fn=fn: max(fn(sx(a, 32), sx(b, 32)), 0),
        )
        for op, fn in (("min", min), ("max", max))
    ]
    relu += [
        Case(
            f"{op}.relu.s16x2",
            f"{op}.relu.s16x2 {{d}}, {{a}}, {{b}}",
            (("a", "b32"), ("b", "b32")),
            (("d", "b32"),),
            lambda a, b, fn=fn: join_halves(
                [max(fn(x, y), 0) for x, y in zip(halves(a, True), halves(b, True), strict=True)]
            ),
        )
        for op, fn in (("min", min), ("max", max))
    ]
    return cases + relu


def _mul24_ref(a: int, b: int, hi: bool, signed: bool) -> int:
    x, y = a & 0xFF_FFFF, b & 0xFF_FFFF
    if signed:
        x, y = sx(x, 24), sx(y, 24)
    p = x * y
    return p >> 16 if hi else p


def _24_cases() -> list[Case]:
    cases = []
    for ty in ("u32", "s32"):
        for mode in ("lo", "hi"):
            hi, signed = mode == "hi", ty == "s32"
            cases.append(
                _binary(f"mul24.{mode}", ty, lambda a, b, hi=hi, s=signed: _mul24_ref(a, b, hi, s))
            )
            cases.append(
                _ternary(
                    f"mad24.{mode}",
                    ty,
                    lambda a, b, c, hi=hi, s=signed: _mul24_ref(a, b, hi, s) + c,
                )
            )
    cases.append(
        _ternary(
            "mad24.hi.sat",
            "s32",
            lambda a, b, c: clamp_s32(sx(_mul24_ref(a, b, True, True), 32) + sx(c, 32)),
        )
    )
    return cases


def _dot_cases() -> list[Case]:
    cases = []
    regs = (("a", "b32"), ("b", "b32"), ("c", "b32"))
    for at in ("u32", "s32"):
        for bt in ("u32", "s32"):
            sa, sb = at == "s32", bt == "s32"

            def dp4a(a: int, b: int, c: int, sa: bool = sa, sb: bool = sb) -> int:
                pairs = zip(byte_values(a, sa), byte_values(b, sb), strict=True)
                return c + sum(x * y for x, y in pairs)

            cases.append(
                Case(
                    f"dp4a.{at}.{bt}",
                    f"dp4a.{at}.{bt} {{d}}, {{a}}, {{b}}, {{c}}",
                    regs,
                    (("d", "b32"),),
                    dp4a,
                )
            )
            for mode in ("lo", "hi"):

                def dp2a(
                    a: int,
                    b: int,
                    c: int,
                    sa: bool = sa,
                    sb: bool = sb,
                    first: int = 0 if mode == "lo" else 2,
                ) -> int:
                    bs = byte_values(b, sb)[first : first + 2]
                    return c + sum(x * y for x, y in zip(halves(a, sa), bs, strict=True))

                cases.append(
                    Case(
                        f"dp2a.{mode}.{at}.{bt}",
                        f"dp2a.{mode}.{at}.{bt} {{d}}, {{a}}, {{b}}, {{c}}",
                        regs,
                        (("d", "b32"),),
                        dp2a,
                    )
                )
    return cases


def _limbs(v: int, bits: int, k: int) -> tuple[int, ...]:
    return tuple((v >> (bits * i)) & ((1 << bits) - 1) for i in range(k))


def _join(parts: Sequence[int], bits: int) -> int:
    return sum(p << (bits * i) for i, p in enumerate(parts))


def _carry_cases() -> list[Case]:
    cases = []
    for ty in ("u32", "s32", "u64", "s64"):
        bits = int(ty[1:])
        r = reg(ty)
        two = (("a0", r), ("a1", r), ("b0", r), ("b1", r))
        three_out = (("d0", r), ("d1", r), ("cf", r))

        def add2(a0: int, a1: int, b0: int, b1: int, bits: int = bits) -> tuple[int, ...]:
            total = _join((a0, a1), bits) + _join((b0, b1), bits)
            return _limbs(total, bits, 3)

        cases.append(
            Case(
                f"add.cc+addc.cc+addc.{ty}",
                f"add.cc.{ty} {{d0}}, {{a0}}, {{b0}}; addc.cc.{ty} {{d1}}, {{a1}}, {{b1}};"
                f"addc.{ty} {{cf}}, 0, 0",
                two,
                three_out,
                add2,
            )
        )

        def sub2(a0: int, a1: int, b0: int, b1: int, bits: int = bits) -> tuple[int, ...]:
            # The borrow out of the top limb shows as subc's 0 - 0 - borrow.
            diff = _join((a0, a1), bits) - _join((b0, b1), bits)
            borrow = diff < 0
            d0, d1 = _limbs(diff, bits, 2)
            return d0, d1, -1 if borrow else 0

        cases.append(
            Case(
                f"sub.cc+subc.cc+subc.{ty}",
                f"sub.cc.{ty} {{d0}}, {{a0}}, {{b0}}; subc.cc.{ty} {{d1}}, {{a1}}, {{b1}};"
                f"subc.{ty} {{cf}}, 0, 0",
                two,
                three_out,
                sub2,
            )
        )
        # madc after mad.cc (the ISA's multi-word multiply building block), .lo and .hi.
        for mode in ("lo", "hi"):

            def part(x: int, y: int, mode: str = mode, ty: str = ty, bits: int = bits) -> int:
                p = value(x, ty) * value(y, ty)
                return p if mode == "lo" else p >> bits

            def mad_chain(
                a: int,
                b: int,
                c: int,
                e: int,
                bits: int = bits,
                part: Callable[[int, int], int] = part,
            ) -> tuple[int, ...]:
                mask = (1 << bits) - 1
                s1 = (part(a, b) & mask) + c
                s2 = (part(b, a) & mask) + e + (s1 >> bits)
                return s1, s2, s2 >> bits

            cases.append(
                Case(
                    f"mad.{mode}.cc+madc.{mode}.cc.{ty}",
                    f"mad.{mode}.cc.{ty} {{d0}}, {{a}}, {{b}}, {{c}};"
                    f"madc.{mode}.cc.{ty} {{d1}}, {{b}}, {{a}}, {{e}}; addc.{ty} {{cf}}, 0, 0",
                    (("a", r), ("b", r), ("c", r), ("e", r)),
                    three_out,
                    mad_chain,
                )
            )
    # Mixed chains: CF holds the carry of a + ~b + 1 after sub.cc, and subc adds ~b + CF
    # (what ptxas emits for sm_90: IADD3 ... P0 then IADD3.X / IMAD.X with ~b).
    r2 = (("a", "b32"), ("b", "b32"), ("c", "b32"), ("e", "b32"))
    cases.append(
        Case(
            "add.cc+subc.u32",
            "add.cc.u32 {d0}, {a}, {b}; subc.u32 {d1}, {c}, {e}",
            r2,
            (("d0", "b32"), ("d1", "b32")),
            lambda a, b, c, e: (a + b, c + (~e & 0xFFFF_FFFF) + ((a + b) >> 32)),
        )
    )
    cases.append(
        Case(
            "sub.cc+addc.u32",
            "sub.cc.u32 {d0}, {a}, {b}; addc.u32 {d1}, {c}, {e}",
            r2,
            (("d0", "b32"), ("d1", "b32")),
            lambda a, b, c, e: (a - b, c + e + (1 if a >= b else 0)),
        )
    )
    return cases


def _isa_multiply() -> Case:
    """The ISA's madc example: ``[r3, r2, r1, r0] = [r5, r4] * [r7, r6]``."""
    body = """
        mul.lo.u32 {r0}, {r4}, {r6}; mul.hi.u32 {r1}, {r4}, {r6};
        mad.lo.cc.u32 {r1}, {r5}, {r6}, {r1}; madc.hi.u32 {r2}, {r5}, {r6}, 0;
        mad.lo.cc.u32 {r1}, {r4}, {r7}, {r1}; madc.hi.cc.u32 {r2}, {r4}, {r7}, {r2};
        addc.u32 {r3}, 0, 0;
        mad.lo.cc.u32 {r2}, {r5}, {r7}, {r2}; madc.hi.u32 {r3}, {r5}, {r7}, {r3}
    """
    ins = tuple((f"r{i}", "b32") for i in (4, 5, 6, 7))
    outs = tuple((f"r{i}", "b32") for i in (0, 1, 2, 3))
    return Case(
        "madc-isa-example",
        body,
        ins,
        outs,
        lambda r4, r5, r6, r7: _limbs(_join((r4, r5), 32) * _join((r6, r7), 32), 32, 4),
    )


ARITH = _arith_cases() + _24_cases() + _dot_cases()
CARRY = [*_carry_cases(), _isa_multiply()]
ALL_CASES = ARITH + CARRY


@pytest.mark.parametrize("case", ARITH, ids=lambda c: c.id)
@PROPERTY
@given(data=st.data())
def test_arithmetic_matches_big_integer_reference(case: Case, data: st.DataObject) -> None:
    check(case, data.draw(inputs_for(case)))


@pytest.mark.parametrize("case", CARRY, ids=lambda c: c.id)
@PROPERTY
@given(data=st.data())
def test_carry_chains_match_multiword_arithmetic(case: Case, data: st.DataObject) -> None:
    check(case, data.draw(inputs_for(case)))


def test_division_by_zero_and_overflow_follow_the_hardware_sequences() -> None:
    # What ptxas's sm_90 code gives: ~b (all ones) for b == 0, wrap for MIN / -1.
    div = _binary("div", "s32", lambda a, b: 0)
    rem = _binary("rem", "s32", lambda a, b: 0)
    a = [7, 0x8000_0000, 0x8000_0000, 0xFFFF_FFF9]
    b = [0, 0xFFFF_FFFF, 0, 2]
    assert [r[0] for r in execute(div, [a, b])] == [
        0xFFFF_FFFF,
        0x8000_0000,
        0xFFFF_FFFF,
        0xFFFF_FFFD,
    ]
    assert [r[0] for r in execute(rem, [a, b])] == [0xFFFF_FFFF, 0, 0xFFFF_FFFF, 0xFFFF_FFFF]
    udiv = _binary("div", "u64", lambda a, b: 0)
    assert execute(udiv, [[5], [0]]) == [[2**64 - 1]]


def test_reading_the_carry_flag_before_any_cc_instruction_is_an_uninitialized_read() -> None:
    case = Case("addc", "addc.u32 {d}, {a}, {a}", (("a", "b32"),), (("d", "b32"),), int)
    with pytest.raises(UninitializedRead, match=r"CC\.CF.*add\.cc"):
        execute(case, [[1, 2]])


def test_the_carry_flag_is_per_thread() -> None:
    # Odd threads set CF (0xFFFFFFFF + 1 carries), even ones do not; addc reads it back.
    case = Case(
        "cf",
        "add.cc.u32 {d}, {a}, 1; addc.u32 {e}, 0, 0",
        (("a", "b32"),),
        (("d", "b32"), ("e", "b32")),
        lambda a: (a + 1, (a + 1) >> 32),
    )
    check(case, [[0xFFFF_FFFF if i % 2 else i for i in range(64)]])


def test_every_form_tested_here_assembles_with_ptxas() -> None:
    text = "".join(
        kernel(case, name=f"k{i}") if i == 0 else kernel(case, name=f"k{i}").split("\n\n", 1)[1]
        for i, case in enumerate(ALL_CASES)
    )
    ok, log = ptxas_accepts(text, "sm_90a")
    assert ok, log


# ---------------------------------------------------------------- real compiler output (nvcc)


def _funnel(lo: int, hi: int, n: int, left: bool) -> int:
    v = (hi << 32 | lo) << n if left else (hi << 32 | lo) >> n
    return (v >> 32 if left else v) & 0xFFFF_FFFF


def _byte_perm(x: int, y: int, s: int) -> int:
    source = (y << 32) | x
    return sum(((source >> (8 * ((s >> (4 * i)) & 7))) & 0xFF) << (8 * i) for i in range(4))


def _brev(v: int, bits: int) -> int:
    return int(f"{v:0{bits}b}"[::-1], 2)


def _intrinsics(u: int, v: int, w: int, p: int, q: int) -> tuple[list[int], list[int]]:
    """The CUDA intrinsics of ``data/integer/intrinsics.cu``, from their documentation."""
    out32 = [
        _funnel(u, v, w & 31, True),
        _funnel(u, v, w & 31, False),
        _funnel(u, v, min(w, 32), True),
        _funnel(u, v, min(w, 32), False),
        _byte_perm(u, v, w),
        _brev(u, 32),
        32 - u.bit_length(),
        bin(u).count("1"),
        abs(sx(u, 32) - sx(v, 32)) + w,
        abs(u - v) + w,
        sum(x * y for x, y in zip(byte_values(u, True), byte_values(v, True), strict=True))
        + sx(w, 32),
        sum(x * y for x, y in zip(byte_values(u, False), byte_values(v, False), strict=True)) + w,
        sum(x * y for x, y in zip(halves(u, True), byte_values(v, True)[:2], strict=True))
        + sx(w, 32),
        sum(x * y for x, y in zip(halves(u, False), byte_values(v, False)[2:], strict=True)) + w,
        (u * v) >> 32,
        (sx(u, 32) * sx(v, 32)) >> 32,
        (64 - p.bit_length()) ^ w,
        bin(p).count("1") ^ w,
    ]
    out64 = [(p * q) >> 64, (sx(p, 64) * sx(q, 64)) >> 64, _brev(p, 64)]
    return [x & 0xFFFF_FFFF for x in out32], [x & (2**64 - 1) for x in out64]


def test_nvcc_integer_intrinsics_match_their_documented_results() -> None:
    ptx = (DATA / "intrinsics.ptx").read_text()
    rng = random.Random(7)
    n = 128
    edge32 = [0, 1, 31, 32, 33, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF]
    edge64 = [0, 1, 2**63 - 1, 2**63, 2**64 - 1]
    cols32 = [
        [rng.choice(edge32) if rng.random() < 0.3 else rng.getrandbits(32) for _ in range(n)]
        for _ in range(3)
    ]
    cols32[2][:40] = range(40)  # shift amounts around 32
    cols64 = [
        [rng.choice(edge64) if rng.random() < 0.3 else rng.getrandbits(64) for _ in range(n)]
        for _ in range(2)
    ]
    args = [np.array(c, dtype=np.uint32) for c in cols32]
    args += [np.array(c, dtype=np.uint64) for c in cols64]
    out32 = np.zeros(18 * n, dtype=np.uint32)
    out64 = np.zeros(3 * n, dtype=np.uint64)
    launch(ptx, grid=2, block=n // 2, args=[*args, out32, out64])
    for i in range(n):
        want32, want64 = _intrinsics(*(c[i] for c in cols32), *(c[i] for c in cols64))
        assert out32[18 * i : 18 * i + 18].tolist() == want32, f"thread {i}"
        assert out64[3 * i : 3 * i + 3].tolist() == want64, f"thread {i}"


def test_nvcc_output_uses_the_instructions_tested_here() -> None:
    text = (DATA / "intrinsics.ptx").read_text()
    for insn in (
        "shf.l.wrap.b32",
        "shf.r.clamp.b32",
        "prmt.b32",
        "brev.b64",
        "clz.b64",
        "popc.b32",
        "sad.s32",
        "dp4a.s32.s32",
        "dp2a.lo.s32.s32",
        "dp2a.hi.u32.u32",
        "mul.hi.u64",
        "mul.hi.s64",
    ):
        assert insn in text, insn


def test_mul_hi_s64_matches_across_a_multi_cta_launch() -> None:
    # 2048 threads in one launch, all through the same executor (no per-thread work).
    a = np.arange(2048, dtype=np.uint64) * np.uint64(0x9E37_79B9_7F4A_7C15)
    b = a[::-1].copy()
    d = np.zeros_like(a)
    run(
        """
        .reg .b32 %r<3>; .reg .b64 %rd<9>;
        ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pd];
        mov.u32 %r1, %ctaid.x; mov.u32 %r2, %tid.x; mad.lo.u32 %r1, %r1, 256, %r2;
        mul.wide.u32 %rd4, %r1, 8;
        add.s64 %rd5, %rd1, %rd4; ld.global.u64 %rd6, [%rd5];
        add.s64 %rd5, %rd2, %rd4; ld.global.u64 %rd7, [%rd5];
        mul.hi.s64 %rd8, %rd6, %rd7;
        add.s64 %rd5, %rd3, %rd4; st.global.u64 [%rd5], %rd8;
        ret;
        """,
        [a, b, d],
        params=(".param .u64 pa", ".param .u64 pb", ".param .u64 pd"),
        grid=8,
        block=256,
    )
    want = [
        (sx(int(x), 64) * sx(int(y), 64)) >> 64 & (2**64 - 1) for x, y in zip(a, b, strict=True)
    ]
    assert d.tolist() == want
