"""The integer test harness: one PTX snippet per case, run on 64 threads, checked against
a pure-Python big-integer reference (shared by test_integer, test_logic and test_video)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from emu_testing import module
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from pyptx.emu import launch

LANES = 64
"""Threads each case runs on."""


_DTYPE = {"pred": np.uint8, "b16": np.uint16, "b32": np.uint32, "b64": np.uint64}
BYTES = {"pred": 1, "b16": 2, "b32": 4, "b64": 8}


@dataclass(frozen=True)
class Case:
    """A PTX snippet, the registers it reads and writes, and its reference.

    ``body`` names registers as ``{name}``; ``ins``/``outs`` give each one's register type
    (``b16``, ``b32``, ``b64``, ``pred``); ``ref`` maps one thread's inputs (Python ints) to
    its outputs (an int, or a tuple for several).
    """

    id: str
    body: str
    ins: tuple[tuple[str, str], ...]
    outs: tuple[tuple[str, str], ...]
    ref: Callable[..., Any]
    small: frozenset[str] = frozenset()
    """Inputs drawn mostly from small values (shift amounts, positions, lengths)."""
    below: tuple[tuple[str, int], ...] = ()
    """Inputs restricted to ``0 .. bound - 1`` (where other values are undefined)."""


def kernel(case: Case, name: str = "k") -> str:
    """The kernel running ``case.body`` on thread ``tid.x``'s element of each array."""
    regs = [(n, t) for n, t in (*case.ins, *case.outs)]
    decls = "".join(f"\t.reg .{t} %v_{n};\n" for n, t in regs)
    lines = [
        "\t.reg .b32 %t;",
        "\t.reg .b64 %base, %off, %addr;",
        "\t.reg .b16 %h;",
        decls.rstrip("\n"),
        "\tmov.u32 %t, %tid.x;",
    ]

    def address(k: int, ty: str) -> None:
        lines.append(f"\tld.param.u64 %base, [p{k}];")
        lines.append(f"\tmul.wide.u32 %off, %t, {BYTES[ty]};")
        lines.append("\tadd.s64 %addr, %base, %off;")

    for k, (n, ty) in enumerate(case.ins):
        address(k, ty)
        if ty == "pred":
            lines.append("\tld.global.u8 %h, [%addr];")
            lines.append(f"\tsetp.ne.u16 %v_{n}, %h, 0;")
        else:
            lines.append(f"\tld.global.{ty} %v_{n}, [%addr];")
    body = case.body.format(**{n: f"%v_{n}" for n, _ in regs})
    lines.extend(f"\t{s.strip()};" for s in body.split(";") if s.strip())
    for k, (n, ty) in enumerate(case.outs, start=len(case.ins)):
        address(k, ty)
        if ty == "pred":
            lines.append(f"\tselp.u16 %h, 1, 0, %v_{n};")
            lines.append("\tst.global.u8 [%addr], %h;")
        else:
            lines.append(f"\tst.global.{ty} [%addr], %v_{n};")
    lines.append("\tret;")
    params = [f".param .u64 p{k}" for k in range(len(case.ins) + len(case.outs))]
    return module("\n".join(lines), params=params, name=name)


def execute(case: Case, inputs: Sequence[Sequence[int]]) -> list[list[int]]:
    """Run ``case`` with one thread per input position; its outputs per thread."""
    n = len(inputs[0])
    arrays = [np.array(v, dtype=_DTYPE[t]) for v, (_, t) in zip(inputs, case.ins, strict=True)]
    outs = [np.zeros(n, dtype=_DTYPE[t]) for _, t in case.outs]
    launch(kernel(case), grid=1, block=n, args=[*arrays, *outs])
    return [[int(v) for v in column] for column in zip(*outs, strict=True)]


def expected(case: Case, inputs: Sequence[Sequence[int]]) -> list[list[int]]:
    """The reference's outputs per thread, wrapped to the output registers' widths."""
    widths = [8 * BYTES[t] if t != "pred" else 1 for _, t in case.outs]
    rows = []
    for args in zip(*inputs, strict=True):
        got = case.ref(*args)
        got = got if isinstance(got, tuple) else (got,)
        rows.append([int(v) & ((1 << w) - 1) for v, w in zip(got, widths, strict=True)])
    return rows


def check(case: Case, inputs: Sequence[Sequence[int]]) -> None:
    """Run ``case`` and compare every thread with the reference, naming the first mismatch."""
    got, want = execute(case, inputs), expected(case, inputs)
    for lane, (g, w) in enumerate(zip(got, want, strict=True)):
        if g != w:
            operands = ", ".join(
                f"{n}={hex(v[lane])}" for (n, _), v in zip(case.ins, inputs, strict=True)
            )
            outputs = [n for n, _ in case.outs]
            pytest.fail(
                f"{case.id}: thread {lane} with {operands}: got "
                f"{dict(zip(outputs, map(hex, g), strict=True))}, "
                f"expected {dict(zip(outputs, map(hex, w), strict=True))}"
            )


def _extremes(bits: int) -> list[int]:
    if bits == 1:
        return [0, 1]
    top = 1 << bits
    half = 1 << (bits - 1)
    return [0, 1, 2, 3, half - 1, half, half + 1, top - 1, top - 2, 0xFF, 0x80, 0x7F, 0x8000]


def patterns(bits: int, small: bool = False) -> st.SearchStrategy[int]:
    """Bit patterns of a width: extremes, random bits, and (``small``) values near 0..width."""
    full = st.integers(0, (1 << bits) - 1)
    extreme = st.sampled_from([v & ((1 << bits) - 1) for v in _extremes(bits)])
    if small:
        near = st.integers(-40, 2 * bits + 8).map(lambda v: v & ((1 << bits) - 1))
        return st.one_of(near, near, extreme, full)
    return st.one_of(extreme, full, full)


def inputs_for(case: Case) -> st.SearchStrategy[list[list[int]]]:
    """One list of ``LANES`` values per input of ``case``."""
    bounds = dict(case.below)
    columns = []
    for n, ty in case.ins:
        bits = 1 if ty == "pred" else 8 * BYTES[ty]
        values = st.integers(0, bounds[n] - 1) if n in bounds else patterns(bits, n in case.small)
        columns.append(st.lists(values, min_size=LANES, max_size=LANES))
    return st.tuples(*columns).map(list)


PROPERTY = settings(
    max_examples=examples(12),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# ------------------------------------------------------------------------------ references


def sx(v: int, bits: int) -> int:
    """``v``'s low ``bits`` bits read as a two's complement integer."""
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def value(v: int, ty: str) -> int:
    """The integer a register of type ``ty`` (``u32``, ``s16`` ...) holds."""
    bits = int(ty[1:])
    return sx(v, bits) if ty[0] == "s" else v & ((1 << bits) - 1)


def clamp_s32(v: int) -> int:
    return min(max(v, -(2**31)), 2**31 - 1)


def reg(ty: str) -> str:
    """The register type holding a value of ``ty``."""
    return f"b{ty[1:]}"


def trunc_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def trunc_rem(x: int, y: int) -> int:
    r = abs(x) % abs(y)
    return r if x >= 0 else -r


def halves(v: int, signed: bool) -> list[int]:
    parts = [v & 0xFFFF, (v >> 16) & 0xFFFF]
    return [sx(p, 16) for p in parts] if signed else parts


def join_halves(parts: Sequence[int]) -> int:
    return (parts[0] & 0xFFFF) | (parts[1] & 0xFFFF) << 16


def byte_values(v: int, signed: bool) -> list[int]:
    parts = [(v >> (8 * i)) & 0xFF for i in range(4)]
    return [sx(p, 8) for p in parts] if signed else parts
