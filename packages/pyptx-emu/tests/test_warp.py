"""Warp-level instructions: shfl, vote, match, redux, activemask and elect.

References are computed independently in numpy / pure Python from the PTX ISA's definitions
(the ``shfl`` pseudocode, the vote/match/redux descriptions) and, for the nvcc kernels, from
CUDA's documented intrinsic semantics. Hand-written PTX is checked with ptxas once per form.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from emu_testing import find_ptxas, module, ptxas_accepts, run
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from pyptx.emu import Deadlock, EmuError, launch

DATA = Path(__file__).resolve().parent / "data" / "warp"
FULL = 0xFFFF_FFFF
LANES = np.arange(32)

needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas")

# Each kernel stores r2..r(1+k) (u32) of every thread at out[tid * k ...].
PROLOGUE = """
	.reg .pred %p<8>;
	.reg .b32 %r<24>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [inp];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.u32 %r20, [%rd4];
	mov.u32 %r2, 0;
	mov.u32 %r3, 0;
	mov.u32 %r4, 0;
"""
PARAMS = (".param .u64 out", ".param .u64 inp")


def _store(k: int) -> str:
    lines = [f"\tmul.wide.u32 %rd5, %r1, {4 * k};", "\tadd.s64 %rd6, %rd1, %rd5;"]
    lines += [f"\tst.global.u32 [%rd6+{4 * i}], %r{2 + i};" for i in range(k)]
    return "\n".join(lines) + "\n\tret;\n"


def _run(body: str, inp: np.ndarray, k: int, *, block: int = 32, **kw: object) -> np.ndarray:
    out = np.zeros((block, k), dtype=np.uint32)
    run(PROLOGUE + body + _store(k), [out, inp.astype(np.uint32)], params=PARAMS, block=block,
        **kw)  # fmt: skip
    return out


def _assembles(body: str, k: int, target: str = "sm_90a", version: str = "8.7") -> None:
    ptx = module(PROLOGUE + body + _store(k), params=PARAMS, target=target, version=version)
    ok, err = ptxas_accepts(ptx, target)
    assert ok, err


# --------------------------------------------------------------------------- shfl


def _shfl_reference(mode: str, lane: int, b: int, c: int) -> tuple[int, bool]:
    """The source lane and the predicate of ``shfl`` (PTX ISA pseudocode, pure Python)."""
    bval, cval, seg = b & 31, c & 31, (c >> 8) & 31
    max_lane = (lane & seg) | (cval & ~seg & 31)
    min_lane = lane & seg
    if mode == "up":
        j = lane - bval
        ok = j >= max_lane
    elif mode == "down":
        j = lane + bval
        ok = j <= max_lane
    elif mode == "bfly":
        j = lane ^ bval
        ok = j <= max_lane
    else:
        j = min_lane | (bval & ~seg & 31)
        ok = j <= max_lane
    return (j if ok else lane), ok


SHFL = """
	ld.global.u32 %r21, [%rd4+128];
	ld.global.u32 %r22, [%rd4+256];
	shfl.sync.{mode}.b32 %r2|%p1, %r20, %r21, %r22, -1;
	selp.u32 %r3, 1, 0, %p1;
"""


def _shfl_inputs(b: np.ndarray, c: np.ndarray) -> np.ndarray:
    values = 1000 + 7 * LANES
    return np.concatenate([values, b, c]).astype(np.uint32)


@needs_ptxas
def test_shfl_sync_assembles() -> None:
    for mode in ("up", "down", "bfly", "idx"):
        _assembles(SHFL.format(mode=mode), 2)


@pytest.mark.parametrize("mode", ["up", "down", "bfly", "idx"])
@pytest.mark.parametrize(
    "b, c",
    [
        (1, 0x1F),
        (5, 0x1F),
        (3, 0),
        (33, 0x1F),  # b's bits above 4 are ignored
        (6, 0x181F),  # 8-lane segments
        (9, 0x100F),  # 16-lane segments, clamp 15
        (2, 0x1C03),  # 4-lane segments, clamp 3
        (31, 0xFFFF_FFFF),
    ],
)
def test_shfl_sync_follows_the_pseudocode(mode: str, b: int, c: int) -> None:
    bs, cs = np.full(32, b), np.full(32, c)
    out = _run(SHFL.format(mode=mode), _shfl_inputs(bs, cs), 2)
    expect = [_shfl_reference(mode, lane, b, c) for lane in range(32)]
    np.testing.assert_array_equal(out[:, 0], [1000 + 7 * j for j, _ in expect])
    np.testing.assert_array_equal(out[:, 1], [int(ok) for _, ok in expect])


@settings(max_examples=examples(25), deadline=None)
@given(
    mode=st.sampled_from(["up", "down", "bfly", "idx"]),
    b=st.lists(st.integers(0, FULL), min_size=32, max_size=32),
    c=st.lists(st.integers(0, FULL), min_size=32, max_size=32),
)
def test_shfl_sync_with_per_lane_operands(mode: str, b: list[int], c: list[int]) -> None:
    out = _run(SHFL.format(mode=mode), _shfl_inputs(np.array(b), np.array(c)), 2)
    expect = [_shfl_reference(mode, lane, b[lane], c[lane]) for lane in range(32)]
    np.testing.assert_array_equal(out[:, 0], [1000 + 7 * j for j, _ in expect])
    np.testing.assert_array_equal(out[:, 1], [int(ok) for _, ok in expect])


# Lanes 0-15 loop a while before the shuffle: lanes 16-31 get there first and must wait.
LATE_HALF = """
	setp.ge.u32 %p2, %r1, 16;
	@%p2 bra READY;
	mov.u32 %r5, 0;
SPIN:
	add.s32 %r5, %r5, 1;
	setp.lt.u32 %p3, %r5, 20;
	@%p3 bra SPIN;
READY:
	shfl.sync.bfly.b32 %r2, %r20, 16, 31, -1;
	vote.sync.ballot.b32 %r3, %p2, -1;
"""


def test_sync_waits_for_lanes_that_arrive_late() -> None:
    out = _run(LATE_HALF, 1000 + 7 * LANES, 2)
    np.testing.assert_array_equal(out[:, 0], 1000 + 7 * (LANES ^ 16))
    np.testing.assert_array_equal(out[:, 1], np.full(32, 0xFFFF_0000))


# Two halves of the warp diverge and shuffle within themselves with their own membermasks.
HALVES = """
	setp.ge.u32 %p2, %r1, 16;
	@%p2 bra UPPER;
	add.s32 %r21, %r1, 1;
	and.b32 %r21, %r21, 15;
	shfl.sync.idx.b32 %r2|%p1, %r20, %r21, 0x1f, 0xffff;
	vote.sync.ballot.b32 %r3, %p2, 0xffff;
	bra JOIN;
UPPER:
	shfl.sync.down.b32 %r2|%p1, %r20, 1, 0x1f, 0xffff0000;
	setp.eq.u32 %p3, %r1, 20;
	vote.sync.ballot.b32 %r3, %p3, 0xffff0000;
JOIN:
	selp.u32 %r4, 1, 0, %p1;
"""


def test_divergent_halves_shuffle_with_partial_membermasks() -> None:
    values = 1000 + 7 * LANES
    out = _run(HALVES, values, 3)
    lower = LANES < 16
    src = np.where(lower, (LANES + 1) % 16, np.minimum(LANES + 1, 31))
    np.testing.assert_array_equal(out[:, 0], values[src])
    np.testing.assert_array_equal(out[:, 1], np.where(lower, 0, 1 << 20))
    np.testing.assert_array_equal(out[:, 2], (LANES != 31).astype(int))


@needs_ptxas
def test_divergent_bodies_assemble() -> None:
    _assembles(LATE_HALF, 2)
    _assembles(HALVES, 3)
    _assembles(SAME_INSN, 3)
    _assembles(GUARDED, 2)


# Both halves execute the same vote/redux/match together, each naming only itself.
SAME_INSN = """
	setp.lt.u32 %p2, %r1, 16;
	selp.b32 %r21, 0xffff, 0xffff0000, %p2;
	and.b32 %r22, %r20, 1;
	setp.eq.u32 %p3, %r22, 1;
	vote.sync.ballot.b32 %r2, %p3, %r21;
	redux.sync.add.u32 %r3, %r20, %r21;
	match.any.sync.b32 %r4, %r22, %r21;
"""


def test_halves_with_their_own_membermasks_in_one_instruction() -> None:
    values = np.array([3, 8, 5, 5, 0, 7, 1, 2] * 4)
    out = _run(SAME_INSN, values, 3)
    lower = LANES < 16
    for half in (lower, ~lower):
        odd = (values % 2 == 1) & half
        assert (out[half, 0] == _bits(odd)).all()
        assert (out[half, 1] == values[half].sum()).all()
        for lane in np.flatnonzero(half):
            assert out[lane, 2] == _bits(half & (values % 2 == values[lane] % 2))


def test_a_named_lane_that_never_arrives_is_a_deadlock() -> None:
    # Lane 5 takes another shfl.sync naming the whole warp: each side waits for the other.
    body = """
	setp.eq.u32 %p2, %r1, 5;
	@%p2 bra OTHER;
	shfl.sync.bfly.b32 %r2, %r20, 1, 31, -1;
	bra JOIN;
OTHER:
	shfl.sync.bfly.b32 %r2, %r20, 2, 31, -1;
JOIN:
"""
    with pytest.raises(Deadlock) as info:
        _run(body, LANES, 1)
    assert any("membermask" in line for line in info.value.waiting)


def test_exited_lanes_in_the_membermask_do_not_block() -> None:
    # Lanes 24-31 exit; the rest shuffle within 8-lane segments among themselves.
    body = """
	setp.ge.u32 %p2, %r1, 24;
	@%p2 exit;
	shfl.sync.bfly.b32 %r2, %r20, 4, 0x181f, -1;
"""
    out = _run(body, 100 + LANES, 1)
    np.testing.assert_array_equal(out[:24, 0], 100 + (LANES[:24] ^ 4))
    assert (out[24:] == 0).all()


def test_reading_an_exited_lane_is_an_error() -> None:
    body = """
	setp.ge.u32 %p2, %r1, 24;
	@%p2 exit;
	shfl.sync.bfly.b32 %r2, %r20, 16, 31, -1;
"""
    with pytest.raises(EmuError, match="reads lane 24, which does not execute it"):
        _run(body, LANES, 1)


def test_reading_a_lane_outside_the_membermask_is_an_error() -> None:
    body = "\tshfl.sync.down.b32 %r2, %r20, 1, 31, 0x0000ffff;\n"
    guarded = "\tsetp.ge.u32 %p2, %r1, 16;\n\t@%p2 bra SKIP;\n" + body + "SKIP:\n"
    with pytest.raises(EmuError, match="lane 15 reads lane 16"):
        _run(guarded, LANES, 1)


def test_a_lane_outside_its_own_membermask_is_an_error() -> None:
    with pytest.raises(EmuError, match="not in its membermask 0x0000ffff"):
        _run("\tshfl.sync.bfly.b32 %r2, %r20, 1, 31, 0xffff;\n", LANES, 1)


def test_lanes_naming_each_other_with_different_masks_is_an_error() -> None:
    body = """
	setp.lt.u32 %p2, %r1, 16;
	selp.b32 %r21, 0xffffffff, 0xffff0000, %p2;
	shfl.sync.bfly.b32 %r2, %r20, 1, 31, %r21;
"""
    with pytest.raises(EmuError, match="different membermasks"):
        _run(body, LANES, 1)


# Odd lanes have a false guard: they neither write d nor may be read.
GUARDED = """
	and.b32 %r21, %r1, 1;
	setp.eq.u32 %p2, %r21, 0;
	mov.u32 %r2, 77;
	mov.u32 %r3, 0;
	@%p2 shfl.sync.bfly.b32 %r2, %r20, 2, 31, -1;
	@%p2 vote.sync.ballot.b32 %r3, %p2, -1;
"""


def test_guarded_off_lanes_synchronize_but_take_no_part() -> None:
    out = _run(GUARDED, 1000 + LANES, 2)
    even = LANES % 2 == 0
    np.testing.assert_array_equal(out[:, 0], np.where(even, 1000 + (LANES ^ 2), 77))
    np.testing.assert_array_equal(out[:, 1], np.where(even, 0x5555_5555, 0))
    with pytest.raises(EmuError, match="reads lane 1"):
        _run(GUARDED.replace("bfly.b32 %r2, %r20, 2", "bfly.b32 %r2, %r20, 1"), LANES, 2)


LEGACY_SHFL = """
	setp.lt.u32 %p2, %r1, 8;
	@%p2 bra DONE;
	shfl.{mode}.b32 %r2|%p1, %r20, {b}, {c};
	selp.u32 %r3, 1, 0, %p1;
DONE:
"""


@pytest.mark.parametrize("mode, b, c", [("up", 2, 0x1800), ("down", 3, 31), ("bfly", 1, 31)])
def test_legacy_shfl_works_over_the_active_lanes(mode: str, b: int, c: int) -> None:
    # Lanes 0-7 skip it and no active lane reads them (shfl.up stays within 8-lane segments).
    out = _run(LEGACY_SHFL.format(mode=mode, b=b, c=c), 500 + LANES, 2, target="sm_75",
               version="6.3")  # fmt: skip
    for lane in range(8, 32):
        j, ok = _shfl_reference(mode, lane, b, c)
        assert out[lane, 0] == 500 + j and out[lane, 1] == int(ok), lane
    with pytest.raises(EmuError, match="lane 8 reads lane 7"):
        _run(LEGACY_SHFL.format(mode="up", b=1, c=0), LANES, 2, target="sm_75", version="6.3")


@needs_ptxas
def test_legacy_forms_assemble_for_old_targets() -> None:
    _assembles(LEGACY_SHFL.format(mode="up", b=2, c=0x1800), 2, "sm_75", "6.3")
    _assembles(LEGACY_VOTE.format(mode="uni", neg="!"), 2, "sm_75", "6.3")


# --------------------------------------------------------------------------- vote


VOTE = """
	setp.lt.u32 %p2, %r1, {n};
	@!%p2 bra DONE;
	and.b32 %r21, %r20, 1;
	setp.eq.u32 %p3, %r21, 1;
	vote.sync.{mode}.pred %p4, {neg}%p3, {mask};
	selp.u32 %r2, 1, 0, %p4;
	vote.sync.ballot.b32 %r3, {neg}%p3, {mask};
DONE:
"""


def _bits(flags: np.ndarray) -> int:
    return int(sum(1 << int(i) for i in np.flatnonzero(flags)))


@pytest.mark.parametrize("mode", ["all", "any", "uni"])
@pytest.mark.parametrize("neg", ["", "!"])
@pytest.mark.parametrize(
    "pattern", [np.ones(32), np.zeros(32), LANES % 3 == 0, LANES == 7, LANES != 7]
)
@pytest.mark.parametrize("n", [32, 12])
def test_vote_sync(mode: str, neg: str, pattern: np.ndarray, n: int) -> None:
    mask = FULL if n == 32 else (1 << n) - 1
    body = VOTE.format(mode=mode, neg=neg, n=n, mask=hex(mask))
    out = _run(body, pattern.astype(int), 2)
    votes = pattern.astype(bool)[:n] ^ (neg == "!")
    want = {"all": votes.all(), "any": votes.any(), "uni": votes.all() or not votes.any()}
    assert (out[:n, 0] == int(want[mode])).all()
    assert (out[:n, 1] == _bits(votes)).all()
    assert (out[n:] == 0).all()


LEGACY_VOTE = """
	setp.ge.u32 %p2, %r1, 20;
	@%p2 bra DONE;
	and.b32 %r21, %r20, 1;
	setp.eq.u32 %p3, %r21, 1;
	vote.{mode}.pred %p4, {neg}%p3;
	selp.u32 %r2, 1, 0, %p4;
	vote.ballot.b32 %r3, {neg}%p3;
DONE:
"""


@pytest.mark.parametrize("mode", ["all", "any", "uni"])
@pytest.mark.parametrize("neg", ["", "!"])
def test_legacy_vote_counts_only_the_active_lanes(mode: str, neg: str) -> None:
    pattern = (LANES < 10) | (LANES > 25)  # true for every active lane 0-9, false for 10-19
    out = _run(LEGACY_VOTE.format(mode=mode, neg=neg), pattern.astype(int), 2,
               target="sm_75", version="6.3")  # fmt: skip
    votes = pattern[:20] ^ (neg == "!")
    want = {"all": votes.all(), "any": votes.any(), "uni": votes.all() or not votes.any()}
    assert (out[:20, 0] == int(want[mode])).all()
    assert (out[:20, 1] == _bits(votes)).all()


@needs_ptxas
def test_vote_sync_assembles() -> None:
    for mode in ("all", "any", "uni"):
        _assembles(VOTE.format(mode=mode, neg="!", n=12, mask="0xfff"), 2)


# --------------------------------------------------------------------------- match


MATCH = """
	setp.ge.u32 %p2, %r1, {n};
	@%p2 bra DONE;
	mov.b64 %rd7, {{%r20, {high}}};
	match.any.sync.{ty} %r2, {a}, {mask};
	match.all.sync.{ty} %r3|%p4, {a}, {mask};
	selp.u32 %r4, 1, 0, %p4;
DONE:
"""


@pytest.mark.parametrize("ty", ["b32", "b64"])
@pytest.mark.parametrize("n", [32, 20])
@pytest.mark.parametrize("kind", ["classes", "uniform"])
def test_match_sync(ty: str, n: int, kind: str) -> None:
    values = LANES % 5 if kind == "classes" else np.full(32, 9)
    mask = FULL if n == 32 else (1 << n) - 1
    # b64: the high word (lane id & 1 for "classes", 0 else) takes part in the comparison.
    high = "%r21" if kind == "classes" else "%r22"
    a = "%rd7" if ty == "b64" else "%r20"
    body = "\tand.b32 %r21, %r1, 1;\n\tmov.u32 %r22, 0;\n" + MATCH.format(
        ty=ty, a=a, n=n, mask=hex(mask), high=high
    )
    out = _run(body, values, 3)
    v = values[:n]
    if ty == "b64" and kind == "classes":
        v = v + 1000 * (LANES[:n] & 1)
    for lane in range(n):
        assert out[lane, 0] == _bits(v == v[lane])
    same = bool((v == v[0]).all())
    assert (out[:n, 1] == (mask if same else 0)).all()
    assert (out[:n, 2] == int(same)).all()


@needs_ptxas
def test_match_assembles() -> None:
    for ty, a in (("b32", "%r20"), ("b64", "%rd7")):
        _assembles(MATCH.format(ty=ty, a=a, n=20, mask="0xfffff", high="%r20"), 3)


# --------------------------------------------------------------------------- redux


REDUX = """
	setp.ge.u32 %p2, %r1, {n};
	@%p2 bra DONE;
	redux.sync.{op}.{ty} %r2, %r20, {mask};
DONE:
"""

REDUX_INT = [("add", "u32"), ("add", "s32"), ("min", "u32"), ("min", "s32"), ("max", "u32"),
             ("max", "s32"), ("and", "b32"), ("or", "b32"), ("xor", "b32")]  # fmt: skip
REDUX_F32 = "\tmov.b32 %f1, %r20;\n\tredux.sync.{op}{mods}.f32 %f2, %f1, -1;\n\tmov.b32 %r2, %f2;\n"

_REDUCE = {
    "add": lambda v: int(np.sum(v.astype(np.int64))) & FULL,
    "min": lambda v: int(v.min()),
    "max": lambda v: int(v.max()),
    "and": lambda v: int(np.bitwise_and.reduce(v)),
    "or": lambda v: int(np.bitwise_or.reduce(v)),
    "xor": lambda v: int(np.bitwise_xor.reduce(v)),
}


@settings(max_examples=examples(20), deadline=None)
@given(
    values=st.lists(st.integers(0, FULL), min_size=32, max_size=32),
    n=st.sampled_from([32, 7]),
)
@pytest.mark.parametrize("op, ty", REDUX_INT)
def test_redux_sync_integers(op: str, ty: str, values: list[int], n: int) -> None:
    mask = FULL if n == 32 else (1 << n) - 1
    out = _run(REDUX.format(op=op, ty=ty, n=n, mask=hex(mask)), np.array(values), 1)
    v = np.array(values[:n], dtype=np.uint32)
    if ty == "s32":
        v = v.view(np.int32)
    assert (out[:n, 0] == (_REDUCE[op](v) & FULL)).all()


def _f32_bits(x: float) -> int:
    return int(np.float32(x).view(np.uint32))


F32_CASES = [
    [1.5, -2.0, 0.25, 7.0],
    [0.0, -0.0, 0.0, -0.0],
    [float("nan"), 3.0, -4.0, float("nan")],
    [float("nan")] * 4,
    [-float("inf"), 1e-45, -1e-45, float("inf")],
]


@pytest.mark.parametrize("case", range(len(F32_CASES)))
@pytest.mark.parametrize("op", ["min", "max"])
@pytest.mark.parametrize("absolute", [False, True])
@pytest.mark.parametrize("propagate", [False, True])
def test_redux_sync_f32(case: int, op: str, absolute: bool, propagate: bool) -> None:
    values = np.array(F32_CASES[case] * 8, dtype=np.float32)
    mods = (".abs" if absolute else "") + (".NaN" if propagate else "")
    body = REDUX_F32.format(op=op, mods=mods)
    out = _run(body, values.view(np.uint32), 1, target="sm_100a")
    # Reference: compare exact values in Python, -0.0 below +0.0.
    xs = [abs(float(x)) if absolute else float(x) for x in values]
    if any(np.isnan(xs)) and (propagate or all(np.isnan(xs))):
        want = 0x7FFF_FFFF
    else:
        finite = [x for x in xs if not np.isnan(x)]
        key = [(x, np.signbit(x) == 0) for x in finite]
        best = (min if op == "min" else max)(range(len(finite)), key=lambda i: key[i])
        want = _f32_bits(finite[best])
    assert (out[:, 0] == want).all(), hex(int(out[0, 0]))


@settings(max_examples=examples(25), deadline=None)
@given(
    codes=st.lists(
        st.one_of(st.integers(0, FULL), st.sampled_from([0, 0x8000_0000, 0x7FC0_0000])),
        min_size=32,
        max_size=32,
    ),
    op=st.sampled_from(["min", "max"]),
    absolute=st.booleans(),
)
def test_redux_sync_f32_on_any_bits(codes: list[int], op: str, absolute: bool) -> None:
    mods = ".abs" if absolute else ""
    body = REDUX_F32.format(op=op, mods=mods)
    out = _run(body, np.array(codes), 1, target="sm_100a")
    bits = [c & 0x7FFF_FFFF if absolute else c for c in codes]
    numbers = [b for b in bits if (b & 0x7FFF_FFFF) <= 0x7F80_0000]
    if not numbers:
        assert (out[:, 0] == 0x7FFF_FFFF).all()
        return

    def key(b: int) -> tuple[float, int]:
        return (float(np.uint32(b).view(np.float32)), 0 if b >> 31 else 1)

    want = (min if op == "min" else max)(numbers, key=key)
    assert (out[:, 0] == want).all()


@needs_ptxas
def test_redux_assembles() -> None:
    for op, ty in REDUX_INT:
        _assembles(REDUX.format(op=op, ty=ty, n=7, mask="0x7f"), 1)
    for op in ("min", "max"):
        for mods in ("", ".abs", ".NaN", ".abs.NaN"):
            _assembles(REDUX_F32.format(op=op, mods=mods), 1, "sm_100a")


# --------------------------------------------------------------------------- activemask, elect


ACTIVEMASK = """
	setp.lt.u32 %p2, %r1, 10;
	@%p2 bra LOW;
	activemask.b32 %r2;
	bra JOIN;
LOW:
	activemask.b32 %r2;
JOIN:
	activemask.b32 %r3;
	and.b32 %r21, %r1, 1;
	setp.eq.u32 %p3, %r21, 0;
	mov.u32 %r4, 0;
	@%p3 activemask.b32 %r4;
"""


def test_activemask_in_divergent_code() -> None:
    out = _run(ACTIVEMASK, LANES, 3)
    np.testing.assert_array_equal(out[:, 0], np.where(LANES < 10, 0x3FF, FULL ^ 0x3FF))
    np.testing.assert_array_equal(out[:, 1], FULL)
    np.testing.assert_array_equal(out[:, 2], np.where(LANES % 2 == 0, 0x5555_5555, 0))


ELECT = """
	setp.lt.u32 %p2, %r1, 3;
	@%p2 bra DONE;
	setp.ne.u32 %p3, %r1, 3;
	setp.ne.u32 %p4, %r1, %r1;
	mov.u32 %r2, 99;
	@%p3 elect.sync %r2|%p4, 0xfffffff8;
	selp.u32 %r3, 1, 0, %p4;
	elect.sync _|%p5, 0xfffffff8;
	selp.u32 %r4, 1, 0, %p5;
DONE:
"""


def test_elect_sync_picks_the_lowest_participating_lane() -> None:
    out = _run(ELECT, LANES, 3)
    # Lane 3 is predicated off in the first elect: lane 4 leads; in the second, lane 3.
    np.testing.assert_array_equal(out[3:, 0], np.where(LANES[3:] == 3, 99, 4))
    np.testing.assert_array_equal(out[4:, 1], (LANES[4:] == 4).astype(int))
    np.testing.assert_array_equal(out[3:, 2], (LANES[3:] == 3).astype(int))


@needs_ptxas
def test_elect_and_activemask_assemble() -> None:
    _assembles(ELECT, 3)
    _assembles(ACTIVEMASK, 3)


# --------------------------------------------------------------------------- nvcc kernels


def _nvcc(entry: str) -> str:
    return (DATA / "warp_kernels.ptx").read_text(encoding="utf-8")


def test_nvcc_warp_sum_butterfly() -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal(128).astype(np.float32)
    out = np.zeros(128, dtype=np.float32)
    launch(_nvcc("warp_sum"), "warp_sum", grid=2, block=64, args=[x, out])
    v = x.reshape(-1, 32).copy()
    for off in (16, 8, 4, 2, 1):
        v = v + v[:, LANES ^ off]
    np.testing.assert_array_equal(out, v.reshape(-1))


@pytest.mark.parametrize("width", [32, 16, 8, 4])
def test_nvcc_shuffles_with_width(width: int) -> None:
    x = (np.arange(64) * 11 + 5).astype(np.int32)
    out = np.zeros((64, 4), dtype=np.int32)
    launch(_nvcc("shuffles"), "shuffles", grid=1, block=64, args=[x, out, width])
    lane = np.arange(64) % 32
    warp = np.arange(64) - lane
    start = lane & ~(width - 1)
    # CUDA's definitions of __shfl*_sync with a width.
    idx = start + ((lane * 5 + 3) % 32) % width
    up = np.where(lane - start >= 3, lane - 3, lane)
    down = np.where(lane - start + 5 < width, lane + 5, lane)
    xor = np.where((lane ^ 6) < start + width, lane ^ 6, lane)
    for col, src in enumerate((idx, up, down, xor)):
        np.testing.assert_array_equal(out[:, col], x[warp + src], err_msg=f"column {col}")


def test_nvcc_votes_matches_and_reductions() -> None:
    rng = np.random.default_rng(5)
    x = rng.integers(-60, 60, 64).astype(np.int32)
    x[40:] = x[40]  # warp 1 has a run of equal values
    out = np.zeros((64, 16), dtype=np.uint32)
    launch(_nvcc("votes"), "votes", grid=1, block=64, args=[x, out])
    for w in range(2):
        v = x[32 * w : 32 * w + 32]
        u = v.view(np.uint32)
        rows = out[32 * w : 32 * w + 32]
        assert (rows[:, 0] == _bits(v > 0)).all()
        assert (rows[:, 1] == int((v > 100).any())).all()
        assert (rows[:, 2] == int((v > -100).all())).all()
        for lane in range(32):
            assert rows[lane, 3] == _bits(v == v[lane])
        same = bool((v == v[0]).all())
        assert (rows[:, 4] == (FULL if same else 0)).all()
        assert (rows[:, 5] == int(same)).all()
        assert (rows[:, 6] == int(u.astype(np.int64).sum()) & FULL).all()
        assert (rows[:, 7] == int(v.min()) & FULL).all()
        assert (rows[:, 8] == int(v.max()) & FULL).all()
        assert (rows[:, 9] == u.min()).all()
        assert (rows[:, 10] == np.bitwise_and.reduce(u)).all()
        assert (rows[:, 11] == np.bitwise_or.reduce(u)).all()
        assert (rows[:, 12] == np.bitwise_xor.reduce(u)).all()
        third = LANES % 3 == 0
        sub = _bits(third)
        assert (rows[third, 13] == sub).all()
        assert (rows[third, 14] == _bits(third & (v > 0))).all()
        assert (rows[third, 15] == int(u[third].astype(np.int64).sum()) & FULL).all()
        assert (rows[~third, 13:] == 0).all()
