"""Video instructions on whole 32-bit operands, against the PTX ISA's pseudocode.

Each case is one kernel holding every type combination and modifier of one instruction (one
output each), run with the harness of ``test_integer`` on random operands and compared with
a pure-Python reference per thread.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest
from emu_testing import ptxas_accepts
from hypothesis import given
from hypothesis import strategies as st
from int_harness import PROPERTY, Case, check, execute, inputs_for, kernel, sx

from pyptx.emu import NotEmulated

TYPES = ("u32", "s32")
COMBOS = list(itertools.product(TYPES, TYPES, TYPES))
ABC = (("a", "b32"), ("b", "b32"), ("c", "b32"))

ARITH: dict[str, Callable[[int, int], int]] = {
    "vadd": lambda x, y: x + y,
    "vsub": lambda x, y: x - y,
    "vabsdiff": lambda x, y: abs(x - y),
    "vmin": min,
    "vmax": max,
    "vavrg": lambda x, y: (x + y + 1) >> 1 if x + y >= 0 else (x + y) >> 1,
}
CMP: dict[str, Callable[[int, int], bool]] = {
    "eq": lambda x, y: x == y,
    "ne": lambda x, y: x != y,
    "lt": lambda x, y: x < y,
    "le": lambda x, y: x <= y,
    "gt": lambda x, y: x > y,
    "ge": lambda x, y: x >= y,
}


def extend(v: int, ty: str, bits: int = 32) -> int:
    return sx(v, bits) if ty == "s32" else v & ((1 << bits) - 1)


def saturate(v: int, ty: str, bits: int) -> int:
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if ty == "s32" else (0, (1 << bits) - 1)
    return min(max(v, low), high)


def parts(v: int, count: int, ty: str) -> list[int]:
    width = 32 // count
    return [extend(v >> (width * i), ty, width) for i in range(count)]


def _many(case_id: str, variants: list[tuple[str, Callable[[int, int, int], int]]]) -> Case:
    """One case running every ``(instruction, reference)`` of ``variants`` (``{d}``: its own)."""
    body = "; ".join(insn.replace("{d}", f"{{d{k}}}") for k, (insn, _) in enumerate(variants))
    outs = tuple((f"d{k}", "b32") for k in range(len(variants)))

    def ref(a: int, b: int, c: int) -> tuple[int, ...]:
        return tuple(fn(a, b, c) for _, fn in variants)

    return Case(case_id, body, ABC, outs, ref, frozenset("b"))


def _operands(with_c: bool) -> str:
    return " {d}, {a}, {b}, {c}" if with_c else " {d}, {a}, {b}"


def _scalar_cases() -> list[Case]:
    cases = []
    for op in ("vadd", "vsub", "vabsdiff", "vmin", "vmax"):
        variants = []
        for (dt, at, bt), sat, add in itertools.product(COMBOS, (False, True), (False, True)):
            insn = f"{op}.{dt}.{at}.{bt}{'.sat' if sat else ''}{'.add' if add else ''}"

            def ref(a: int, b: int, c: int, op: str = op, dt: str = dt, at: str = at,
                    bt: str = bt, sat: bool = sat, add: bool = add) -> int:  # fmt: skip
                t = ARITH[op](extend(a, at), extend(b, bt))
                t = saturate(t, dt, 32) if sat else t
                return t + c if add else t

            variants.append((insn + _operands(add), ref))
        cases.append(_many(op, variants))
    for op in ("vshl", "vshr"):
        variants = []
        for dt, at, mode, add in itertools.product(TYPES, TYPES, ("clamp", "wrap"), (False, True)):
            insn = f"{op}.{dt}.{at}.u32.{mode}{'.add' if add else ''}"

            def shift(a: int, b: int, c: int, op: str = op, at: str = at, mode: str = mode,
                      add: bool = add) -> int:  # fmt: skip
                n = min(b, 32) if mode == "clamp" else b & 31
                t = extend(a, at) << n if op == "vshl" else extend(a, at) >> n
                return t + c if add else t

            variants.append((insn + _operands(add), shift))
        cases.append(_many(op, variants))
    variants = []
    for at, bt, cmp, op2 in itertools.product(TYPES, TYPES, CMP, (None, "add", "min", "max")):
        insn = f"vset.{at}.{bt}.{cmp}{'' if op2 is None else '.' + op2}"

        def vset(a: int, b: int, c: int, at: str = at, bt: str = bt, cmp: str = cmp,
                 op2: str | None = op2) -> int:  # fmt: skip
            t = int(CMP[cmp](extend(a, at), extend(b, bt)))
            if op2 is None:
                return t
            return t + c if op2 == "add" else min(t, c) if op2 == "min" else max(t, c)

        variants.append((insn + _operands(op2 is not None), vset))
    cases.append(_many("vset", variants))
    return cases


def _simd_cases() -> list[Case]:
    cases = []
    for count in (2, 4):
        for op in ("vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"):
            variants = []
            for (dt, at, bt), extra in itertools.product(COMBOS, ("", ".sat", ".add")):
                insn = f"{op}{count}.{dt}.{at}.{bt}{extra}"

                def ref(a: int, b: int, c: int, op: str = op, count: int = count, dt: str = dt,
                        at: str = at, bt: str = bt, extra: str = extra) -> int:  # fmt: skip
                    pairs = zip(parts(a, count, at), parts(b, count, bt), strict=True)
                    t = [ARITH[op](x, y) for x, y in pairs]
                    if extra == ".sat":
                        t = [saturate(v, dt, 32 // count) for v in t]
                    if extra == ".add":
                        return c + sum(t)
                    w = 32 // count
                    return sum((v & ((1 << w) - 1)) << (w * i) for i, v in enumerate(t))

                variants.append((insn + _operands(True), ref))
            cases.append(_many(f"{op}{count}", variants))
        variants = []
        for at, bt, cmp, add in itertools.product(TYPES, TYPES, CMP, (False, True)):
            insn = f"vset{count}.{at}.{bt}.{cmp}{'.add' if add else ''}"

            def vset(a: int, b: int, c: int, count: int = count, at: str = at, bt: str = bt,
                     cmp: str = cmp, add: bool = add) -> int:  # fmt: skip
                pairs = zip(parts(a, count, at), parts(b, count, bt), strict=True)
                t = [int(CMP[cmp](x, y)) for x, y in pairs]
                return c + sum(t) if add else sum(v << (32 // count * i) for i, v in enumerate(t))

            variants.append((insn + _operands(True), vset))
        cases.append(_many(f"vset{count}", variants))
    return cases


CASES = _scalar_cases() + _simd_cases()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
@PROPERTY
@given(data=st.data())
def test_matches_the_isa_pseudocode(case: Case, data: st.DataObject) -> None:
    check(case, data.draw(inputs_for(case)))


@pytest.mark.parametrize(
    "insn",
    [
        "vadd.s32.s32.s32.min {d}, {a}, {b}, {c}",
        "vmax.u32.u32.u32.max {d}, {a}, {b}, {c}",
        "vshl.u32.u32.u32.sat.clamp {d}, {a}, {b}",
        "vmad.s32.s32.s32 {d}, {a}, {b}, {c}",
    ],
)
def test_forms_with_unsettled_semantics_are_refused(insn: str) -> None:
    case = Case(insn, insn, ABC, (("d", "b32"),), lambda a, b, c: 0)
    ok, log = ptxas_accepts(kernel(case), "sm_90a")
    assert ok, log
    with pytest.raises(NotEmulated, match=insn.split()[0].split(".")[0]):
        execute(case, [[1], [2], [3]])


def test_every_form_tested_here_assembles_with_ptxas() -> None:
    kernels = [kernel(case, name=f"k{i}") for i, case in enumerate(CASES)]
    text = kernels[0] + "".join(k.split("\n\n", 1)[1] for k in kernels[1:])
    ok, log = ptxas_accepts(text, "sm_90a")
    assert ok, log
