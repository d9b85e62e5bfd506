"""Logic, shifts, ``prmt`` and bit fields, bit for bit, against pure-Python references.

Each case runs one PTX snippet on 64 threads with their own operands (random bit patterns,
extremes, and small shift amounts, positions and lengths around the width), using the harness
of ``test_integer``, and compares every thread with a reference written from the PTX ISA's
pseudocode on Python integers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from emu_testing import ptxas_accepts
from hypothesis import given
from hypothesis import strategies as st
from int_harness import BYTES, PROPERTY, Case, check, execute, inputs_for, kernel, sx

from pyptx.emu import EmuError, launch


def bit(v: int, i: int) -> int:
    return (v >> i) & 1


def from_bits(bits: Sequence[int]) -> int:
    return sum(b << i for i, b in enumerate(bits))


def lop3_ref(a: int, b: int, c: int, lut: int) -> int:
    return from_bits([bit(lut, 4 * bit(a, i) + 2 * bit(b, i) + bit(c, i)) for i in range(32)])


def shr_ref(a: int, n: int, bits: int, signed: bool) -> int:
    v = sx(a, bits) if signed else a
    return v >> min(n, bits)


def shf_ref(a: int, b: int, c: int, left: bool, clamp: bool) -> int:
    n = min(c, 32) if clamp else c & 31
    pair = (b << 32) | a
    return ((pair << n) >> 32) if left else pair >> n


PRMT_TABLE = {
    # c[1:0] -> source bytes of (d.b3, d.b2, d.b1, d.b0), as the PTX ISA tabulates them.
    "f4e": ("3210", "4321", "5432", "6543"),
    "b4e": ("5670", "6701", "7012", "0123"),
    "rc8": ("0000", "1111", "2222", "3333"),
    "ecl": ("3210", "3211", "3222", "3333"),
    "ecr": ("0000", "1110", "2210", "3210"),
    "rc16": ("1010", "3232", "1010", "3232"),
}


def prmt_ref(a: int, b: int, c: int, mode: str | None) -> int:
    source = [((b << 32 | a) >> (8 * i)) & 0xFF for i in range(8)]
    out = 0
    for i in range(4):
        if mode is None:
            sel = (c >> (4 * i)) & 0xF
            byte = source[sel & 7]
            if sel & 8:
                byte = 0xFF if byte & 0x80 else 0
        else:
            byte = source[int(PRMT_TABLE[mode][c & 3][3 - i])]
        out |= byte << (8 * i)
    return out


def bfind_ref(a: int, bits: int, signed: bool, shiftamt: bool) -> int:
    if signed and bit(a, bits - 1):
        a = ~a & ((1 << bits) - 1)
    if a == 0:
        return 0xFFFF_FFFF
    pos = a.bit_length() - 1
    return bits - 1 - pos if shiftamt else pos


def fns_ref(mask: int, base: int, offset: int) -> int:
    offset = sx(offset, 32)
    if offset == 0:
        return base if bit(mask, base) else 0xFFFF_FFFF
    step = 1 if offset > 0 else -1
    count = abs(offset)
    pos = base
    while 0 <= pos < 32:
        if bit(mask, pos):
            count -= 1
            if count == 0:
                return pos
        pos += step
    return 0xFFFF_FFFF


def bfe_ref(a: int, b: int, c: int, bits: int, signed: bool) -> int:
    msb = bits - 1
    pos, length = b & 0xFF, c & 0xFF
    sbit = 0 if not signed or length == 0 else bit(a, min(pos + length - 1, msb))
    return from_bits(
        [bit(a, pos + i) if i < length and pos + i <= msb else sbit for i in range(bits)]
    )


def bfi_ref(a: int, b: int, c: int, d: int, bits: int) -> int:
    pos, length = c & 0xFF, d & 0xFF
    out = [bit(b, i) for i in range(bits)]
    for i in range(length):
        if pos + i > bits - 1:
            break
        out[pos + i] = bit(a, i)
    return from_bits(out)


def szext_ref(a: int, b: int, clamp: bool, signed: bool) -> int:
    n = 32 if clamp and b >= 32 else b & 31
    if n == 32:
        return a
    if n == 0:
        return 0
    v = a & ((1 << n) - 1)
    return sx(v, n) if signed else v


def bmsk_ref(a: int, b: int, clamp: bool) -> int:
    if clamp:
        if a >= 32:
            return 0
        width = min(b, 32)
    else:
        a, width = a & 31, b & 31
    return sum(1 << i for i in range(a, min(a + width, 32)))


# --------------------------------------------------------------------------------- the cases

BITS = {"b16": 16, "b32": 32, "b64": 64}


def _cases() -> list[Case]:
    cases: list[Case] = []
    for ty, bits in BITS.items():
        ab, d = (("a", ty), ("b", ty)), (("d", ty),)
        for op, fn in (("and", int.__and__), ("or", int.__or__), ("xor", int.__xor__)):
            cases.append(Case(f"{op}.{ty}", f"{op}.{ty} {{d}}, {{a}}, {{b}}", ab, d, fn))
        cases.append(Case(f"not.{ty}", f"not.{ty} {{d}}, {{a}}", ab[:1], d, lambda a: ~a))
        cases.append(
            Case(f"cnot.{ty}", f"cnot.{ty} {{d}}, {{a}}", ab[:1], d, lambda a: int(a == 0))
        )
        amount = (("a", ty), ("n", "b32"))
        small = frozenset("n")
        cases.append(
            Case(
                f"shl.{ty}",
                f"shl.{ty} {{d}}, {{a}}, {{n}}",
                amount,
                d,
                lambda a, n, bits=bits: a << min(n, bits),
                small,
            )
        )
        for kind in "bus":
            name = f"{kind}{bits}"
            cases.append(
                Case(
                    f"shr.{name}",
                    f"shr.{name} {{d}}, {{a}}, {{n}}",
                    amount,
                    d,
                    lambda a, n, bits=bits, s=kind == "s": shr_ref(a, n, bits, s),
                    small,
                )
            )
    pq = (("p", "pred"), ("q", "pred"))
    for op, fn in (("and", int.__and__), ("or", int.__or__), ("xor", int.__xor__)):
        body = f"{op}.pred {{r}}, {{p}}, {{q}}"
        cases.append(Case(f"{op}.pred", body, pq, (("r", "pred"),), fn))
    cases.append(Case("not.pred", "not.pred {r}, {p}", pq[:1], (("r", "pred"),), lambda p: 1 - p))
    abc = (("a", "b32"), ("b", "b32"), ("c", "b32"))
    d32 = (("d", "b32"),)
    for direction in "lr":
        for mode in ("clamp", "wrap"):
            cases.append(
                Case(
                    f"shf.{direction}.{mode}",
                    f"shf.{direction}.{mode}.b32 {{d}}, {{a}}, {{b}}, {{c}}",
                    abc,
                    d32,
                    lambda a, b, c, left=direction == "l", clamp=mode == "clamp": shf_ref(
                        a, b, c, left, clamp
                    ),
                    frozenset("c"),
                )
            )
    for prmt_mode in (None, *PRMT_TABLE):
        suffix = "" if prmt_mode is None else f".{prmt_mode}"
        cases.append(
            Case(
                f"prmt{suffix}",
                f"prmt.b32{suffix} {{d}}, {{a}}, {{b}}, {{c}}",
                abc,
                d32,
                lambda a, b, c, mode=prmt_mode: prmt_ref(a, b, c, mode),
            )
        )
    cases += _bit_cases()
    return cases


def _bit_cases() -> list[Case]:
    cases: list[Case] = []
    d32 = (("d", "b32"),)
    for bits in (32, 64):
        ty = f"b{bits}"
        a = (("a", ty),)
        cases.append(
            Case(f"popc.b{bits}", f"popc.b{bits} {{d}}, {{a}}", a, d32, lambda v: bin(v).count("1"))
        )
        cases.append(
            Case(
                f"clz.b{bits}",
                f"clz.b{bits} {{d}}, {{a}}",
                a,
                d32,
                lambda v, bits=bits: bits - v.bit_length(),
            )
        )
        cases.append(
            Case(
                f"brev.b{bits}",
                f"brev.b{bits} {{d}}, {{a}}",
                a,
                (("d", ty),),
                lambda v, bits=bits: int(f"{v:0{bits}b}"[::-1], 2),
            )
        )
        cases.append(
            Case(
                f"bfi.b{bits}",
                f"bfi.b{bits} {{f}}, {{a}}, {{b}}, {{c}}, {{d}}",
                (("a", ty), ("b", ty), ("c", "b32"), ("d", "b32")),
                (("f", ty),),
                lambda a, b, c, d, bits=bits: bfi_ref(a, b, c, d, bits),
                frozenset("cd"),
            )
        )
        for kind in "us":
            name = f"{kind}{bits}"
            signed = kind == "s"
            for shiftamt in (False, True):
                op = "bfind.shiftamt" if shiftamt else "bfind"
                cases.append(
                    Case(
                        f"{op}.{name}",
                        f"{op}.{name} {{d}}, {{a}}",
                        a,
                        d32,
                        lambda v, bits=bits, s=signed, sh=shiftamt: bfind_ref(v, bits, s, sh),
                    )
                )
            cases.append(
                Case(
                    f"bfe.{name}",
                    f"bfe.{name} {{d}}, {{a}}, {{b}}, {{c}}",
                    (("a", ty), ("b", "b32"), ("c", "b32")),
                    (("d", ty),),
                    lambda a, b, c, bits=bits, s=signed: bfe_ref(a, b, c, bits, s),
                    frozenset("bc"),
                )
            )
    for mode in ("clamp", "wrap"):
        clamp = mode == "clamp"
        ab = (("a", "b32"), ("b", "b32"))
        for kind in "us":
            cases.append(
                Case(
                    f"szext.{mode}.{kind}32",
                    f"szext.{mode}.{kind}32 {{d}}, {{a}}, {{b}}",
                    ab,
                    d32,
                    lambda a, b, c=clamp, s=kind == "s": szext_ref(a, b, c, s),
                    frozenset("b"),
                )
            )
        cases.append(
            Case(
                f"bmsk.{mode}",
                f"bmsk.{mode}.b32 {{d}}, {{a}}, {{b}}",
                ab,
                d32,
                lambda a, b, c=clamp: bmsk_ref(a, b, c),
                frozenset("ab"),
            )
        )
    fns_in = (("mask", "b32"), ("base", "b32"), ("offset", "b32"))
    body = "fns.b32 {d}, {mask}, {base}, {offset}"
    cases.append(Case("fns", body, fns_in, d32, fns_ref, frozenset("offset"), (("base", 32),)))
    return cases


def _lop3_cases() -> list[Case]:
    """Every ``immLut`` in one kernel (256 ``lop3``), and the predicate forms."""
    body = "; ".join(f"lop3.b32 {{d{lut}}}, {{a}}, {{b}}, {{c}}, {lut:#04x}" for lut in range(256))
    every = Case(
        "lop3.b32-every-immLut",
        body,
        (("a", "b32"), ("b", "b32"), ("c", "b32")),
        tuple((f"d{lut}", "b32") for lut in range(256)),
        lambda a, b, c: tuple(lop3_ref(a, b, c, lut) for lut in range(256)),
    )
    ins = (("a", "b32"), ("b", "b32"), ("c", "b32"), ("q", "pred"))
    forms = [every]
    for boolop, fn in (("or", int.__or__), ("and", int.__and__)):
        forms.append(
            Case(
                f"lop3.{boolop}.b32",
                f"lop3.{boolop}.b32 {{d}}|{{p}}, {{a}}, {{b}}, {{c}}, 0x3f, {{q}}",
                ins,
                (("d", "b32"), ("p", "pred")),
                lambda a, b, c, q, fn=fn: (
                    lop3_ref(a, b, c, 0x3F),
                    fn(int(lop3_ref(a, b, c, 0x3F) != 0), q),
                ),
            )
        )
        forms.append(
            Case(
                f"lop3.{boolop}.b32-sink-not-q",
                f"lop3.{boolop}.b32 _|{{p}}, {{a}}, {{b}}, {{c}}, 0x80, !{{q}}",
                ins,
                (("p", "pred"),),
                lambda a, b, c, q, fn=fn: fn(int(a & b & c != 0), 1 - q),
            )
        )
    return forms


CASES = _cases() + _lop3_cases()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
@PROPERTY
@given(data=st.data())
def test_matches_the_isa_pseudocode(case: Case, data: st.DataObject) -> None:
    check(case, data.draw(inputs_for(case)))


def test_small_operands_cover_every_bit_field_position() -> None:
    # Exhaustive over every position and length 0..40 for one operand of each kind.
    positions = [(p, n) for p in range(41) for n in range(41)]
    a = [0xF0E1_D2C3_B4A5_9687 if i % 2 else 0x0123_4567_89AB_CDEF for i in range(len(positions))]
    for case in CASES:
        if case.id in ("bfe.s64", "bfe.u32", "bfi.b64", "bfi.b32"):
            ins = [[v & ((1 << (8 * BYTES[case.ins[0][1]])) - 1) for v in a]]
            if case.id.startswith("bfi"):
                ins.append([~v & ((1 << (8 * BYTES[case.ins[1][1]])) - 1) for v in a])
            ins += [[p for p, _ in positions], [n for _, n in positions]]
            for start in range(0, len(positions), 512):
                check(case, [col[start : start + 512] for col in ins])


@pytest.mark.parametrize(
    ("body", "want"),
    [
        # The PTX ISA's own examples.
        ("fns.b32 {d}, 0xaaaaaaaa, 3, 1", 3),
        ("fns.b32 {d}, 0xaaaaaaaa, 3, -1", 3),
        ("fns.b32 {d}, 0xaaaaaaaa, 2, 1", 3),
        ("fns.b32 {d}, 0xaaaaaaaa, 2, -1", 1),
        ("bmsk.wrap.b32 {d}, 1, 2", 0x6),
        ("szext.wrap.u32 {d}, 0xffffffff, 0", 0),
        ("lop3.b32 {d}, 0xf0, 0xcc, 0xaa, 0x1a", (0xF0 & 0xCC | 0xAA) ^ 0xF0),
        ("prmt.b32.b4e {d}, 0x44332211, 0x88776655, 0", 0x6677_8811),
        ("prmt.b32 {d}, 0x44332211, 0x88776655, 0x000f", 0x1111_11FF),
    ],
)
def test_isa_examples(body: str, want: int) -> None:
    case = Case(body, body, (), (("d", "b32"),), lambda: want)
    out = np.zeros(1, dtype=np.uint32)
    launch(kernel(case), grid=1, block=1, args=[out])
    assert int(out[0]) == want


def test_fns_with_base_above_31_is_refused_as_undefined() -> None:
    case = Case(
        "fns", "fns.b32 {d}, {a}, {b}, 1", (("a", "b32"), ("b", "b32")), (("d", "b32"),), int
    )
    with pytest.raises(EmuError, match=r"base is 32, but it must be 0\.\.31"):
        execute(case, [[1, 1], [0, 32]])


def test_every_form_tested_here_assembles_with_ptxas() -> None:
    kernels = [kernel(case, name=f"k{i}") for i, case in enumerate(CASES)]
    text = kernels[0] + "".join(k.split("\n\n", 1)[1] for k in kernels[1:])
    ok, log = ptxas_accepts(text, "sm_90a")
    assert ok, log
