"""mbarrier: phases, arrivals, transaction counts, waits that block, and the errors."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from emu_testing import checked_module
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from pyptx.emu import DataRace, Deadlock, EmuError, Misaligned, _mbar, launch
from pyptx.emu._errors import Fault

OUT = (".param .u64 out",)


def _checked(body: str, params: tuple[str, ...] = OUT, target: str = "sm_90a", **kw: Any) -> str:
    return checked_module(body, params, target, **kw)


HEAD = """
	.reg .pred %p<8>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<20>;
	.shared .align 8 .b64 bar;
	.shared .align 16 .b32 buf[128];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, bar;
	mov.u32 %r3, buf;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
"""


@pytest.mark.parametrize(
    "wait",
    [
        "mbarrier.try_wait.shared::cta.b64 %p2, [%r2], %rd5;",
        "mbarrier.try_wait.acquire.cta.shared::cta.b64 %p2, [%r2], %rd5, 1000;",
        "mbarrier.test_wait.shared.b64 %p2, [%r2], %rd5;",
        "mbarrier.test_wait.relaxed.cluster.shared::cta.b64 %p2, [%r2], %rd5;",
    ],
)
def test_arrive_then_wait_on_the_state_token(wait: str) -> None:
    # 64 threads publish through shared memory; the mbarrier orders the reads after the
    # writes. Warp 1 is late (it loops first), so warp 0 must really wait.
    body = (
        HEAD
        + f"""
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [%r2], 64;
	bar.sync 0;
	setp.lt.u32 %p1, %r1, 32;
	@%p1 bra WRITE;
	mov.u32 %r9, 0;
LATE:
	add.u32 %r9, %r9, 1;
	setp.lt.u32 %p3, %r9, 100;
	@%p3 bra LATE;
WRITE:
	shl.b32 %r4, %r1, 2;
	add.u32 %r4, %r3, %r4;
	mul.lo.u32 %r5, %r1, 7;
	st.shared.u32 [%r4], %r5;
	mbarrier.arrive.shared::cta.b64 %rd5, [%r2];
WAIT:
	{wait}
	@!%p2 bra WAIT;
	xor.b32 %r6, %r1, 63;
	shl.b32 %r6, %r6, 2;
	add.u32 %r6, %r3, %r6;
	ld.shared.u32 %r7, [%r6];
	st.global.u32 [%rd3], %r7;
	ret;
"""
    )
    out = np.zeros(64, np.uint32)
    stats = launch(_checked(body), grid=1, block=64, args=[out])
    np.testing.assert_array_equal(out, (63 - np.arange(64)) * 7)
    # Waiting blocks instead of spinning: a handful of executions per warp at most.
    waits = sum(c for name, c in stats.by_mnemonic.items() if "_wait" in name)
    assert waits <= 8


def test_parity_waits_over_many_phases() -> None:
    # Each iteration is one phase: every thread adds its value into a shared slot, arrives,
    # waits for the phase's parity, and reads the other warp's slot.
    body = (
        HEAD
        + """
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [%r2], 64;
	bar.sync 0;
	mov.u32 %r10, 0;
	mov.u32 %r11, 0;
	shr.u32 %r12, %r1, 5;
	and.b32 %r13, %r1, 31;
	shl.b32 %r14, %r12, 5;
	add.u32 %r14, %r14, %r13;
LOOP:
	and.b32 %r15, %r10, 1;
	mad.lo.u32 %r16, %r15, 64, %r14;
	shl.b32 %r16, %r16, 2;
	add.u32 %r16, %r3, %r16;
	mad.lo.u32 %r17, %r10, 1000, %r1;
	st.shared.u32 [%r16], %r17;
	mbarrier.arrive.release.cta.shared::cta.b64 _, [%r2];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], %r15;
	@!%p2 bra WAIT;
	xor.b32 %r18, %r12, 1;
	shl.b32 %r18, %r18, 5;
	add.u32 %r18, %r18, %r13;
	mad.lo.u32 %r18, %r15, 64, %r18;
	shl.b32 %r18, %r18, 2;
	add.u32 %r18, %r3, %r18;
	ld.shared.u32 %r19, [%r18];
	add.u32 %r11, %r11, %r19;
	add.u32 %r10, %r10, 1;
	setp.lt.u32 %p3, %r10, 6;
	@%p3 bra LOOP;
	st.global.u32 [%rd3], %r11;
	ret;
"""
    )
    out = np.zeros(64, np.uint32)
    launch(_checked(body), grid=1, block=64, args=[out])
    t = np.arange(64)
    other = t ^ 32
    np.testing.assert_array_equal(out, sum(i * 1000 + other for i in range(6)))


def test_pending_count_reads_the_count_before_a_no_complete_arrive() -> None:
    body = (
        HEAD
        + """
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	mbarrier.init.shared.b64 [%r2], 5;
	mbarrier.arrive.noComplete.shared.b64 %rd5, [%r2], 3;
	mbarrier.pending_count.b64 %r4, %rd5;
	mbarrier.arrive.noComplete.release.cta.shared::cta.b64 %rd6, [%r2], 1;
	mbarrier.pending_count.b64 %r5, %rd6;
	mbarrier.test_wait.shared.b64 %p2, [%r2], %rd6;
	selp.u32 %r6, 1, 0, %p2;
	mbarrier.arrive.shared::cta.b64 %rd7, [%r2], 1;
	mbarrier.pending_count.b64 %r7, %rd7;
	mbarrier.test_wait.shared.b64 %p3, [%r2], %rd6;
	selp.u32 %r8, 1, 0, %p3;
	st.global.v4.u32 [%rd1], {%r4, %r5, %r6, %r7};
	st.global.u32 [%rd1+16], %r8;
DONE:
	ret;
"""
    )
    out = np.zeros(5, np.uint32)
    launch(_checked(body), grid=1, block=32, args=[out])
    # pending 5 before the first arrive, 2 before the second, then 1; the phase completes
    # only with the last arrive.
    np.testing.assert_array_equal(out, [5, 2, 0, 1, 1])


def test_a_no_complete_arrive_that_completes_the_phase_is_an_error() -> None:
    body = (
        HEAD
        + """
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	mbarrier.init.shared.b64 [%r2], 2;
	mbarrier.arrive.noComplete.shared.b64 %rd5, [%r2], 2;
DONE:
	ret;
"""
    )
    with pytest.raises(EmuError, match="noComplete"):
        launch(_checked(body), grid=1, block=32, args=[np.zeros(1, np.uint32)])


def test_arrive_drop_lowers_the_expected_count_of_later_phases() -> None:
    # Warp 1 arrives once with arrive_drop and leaves; warp 0 alone completes phases 1-3.
    body = (
        HEAD
        + """
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [%r2], 64;
	bar.sync 0;
	setp.lt.u32 %p1, %r1, 32;
	@%p1 bra STAY;
	mbarrier.arrive_drop.shared::cta.b64 _, [%r2];
	ret;
STAY:
	mov.u32 %r10, 0;
LOOP:
	and.b32 %r15, %r10, 1;
	mbarrier.arrive.shared::cta.b64 %rd5, [%r2];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], %r15;
	@!%p2 bra WAIT;
	add.u32 %r10, %r10, 1;
	setp.lt.u32 %p3, %r10, 4;
	@%p3 bra LOOP;
	st.global.u32 [%rd3], %r10;
	ret;
"""
    )
    out = np.zeros(64, np.uint32)
    launch(_checked(body), grid=1, block=64, args=[out])
    np.testing.assert_array_equal(out, [4] * 32 + [0] * 32)


TX = """
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	mbarrier.init.shared::cta.b64 [%r2], 1;
	{steps}
DONE:
	ret;
"""


def _sample(i: int) -> str:
    """Record whether phase 0 has completed as out[i]."""
    return f"""
	mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r2], 0;
	selp.u32 %r9, 1, 0, %p2;
	st.global.u32 [%rd1+{4 * i}], %r9;"""


def test_phase_completes_when_arrivals_and_tx_count_both_reach_zero() -> None:
    steps = "\n".join(
        [
            "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r2], 48;",
            _sample(0),
            "mbarrier.arrive.shared::cta.b64 _, [%r2];",  # pending 0, tx 48
            _sample(1),
            "mbarrier.complete_tx.shared::cta.b64 [%r2], 16;",
            _sample(2),
            "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r2], 32;",  # tx 0: done
            _sample(3),
            # Phase 1: the bytes land before they are expected (tx-count goes negative).
            "mbarrier.complete_tx.shared::cta.b64 [%r2], 64;",
            "mbarrier.test_wait.parity.shared::cta.b64 %p3, [%r2], 1;",
            "selp.u32 %r9, 1, 0, %p3;",
            "st.global.u32 [%rd1+16], %r9;",
            "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 64;",
            "mbarrier.test_wait.parity.shared::cta.b64 %p3, [%r2], 1;",
            "selp.u32 %r9, 1, 0, %p3;",
            "st.global.u32 [%rd1+20], %r9;",
        ]
    )
    out = np.full(6, 7, np.uint32)
    launch(_checked(HEAD + TX.format(steps=steps)), grid=1, block=32, args=[out])
    np.testing.assert_array_equal(out, [0, 0, 0, 1, 0, 1])


def test_remote_arrivals_from_every_cta_of_a_cluster() -> None:
    # PTX ISA example 4: CTA 0's mbarrier counts the arrivals of the whole cluster, made
    # through mapa addresses (generic and shared::cluster); only CTA 0 waits on it.
    body = (
        HEAD
        + """
	mov.u32 %r20, %cluster_ctarank;
	setp.eq.u32 %p1, %r1, 0;
	setp.eq.u32 %p4, %r20, 0;
	and.pred %p1, %p1, %p4;
	@%p1 mbarrier.init.shared::cta.b64 [%r2], 128;
	fence.mbarrier_init.release.cluster;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	and.b32 %r21, %r1, 1;
	setp.eq.u32 %p5, %r21, 0;
	@%p5 bra GENERIC;
	mapa.shared::cluster.u32 %r22, %r2, 0;
	mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r22];
	bra ARRIVED;
GENERIC:
	cvta.shared.u64 %rd6, bar;
	mapa.u64 %rd7, %rd6, 0;
	mbarrier.arrive.release.cluster.b64 _, [%rd7];
ARRIVED:
	@!%p4 bra LEAVE;
WAIT:
	mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p2, [%r2], 0;
	@!%p2 bra WAIT;
	st.global.u32 [%rd3], 1;
LEAVE:
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ret;
"""
    )
    out = np.zeros(64, np.uint32)
    launch(_checked(body), grid=2, block=64, cluster=(2, 1, 1), args=[out])
    np.testing.assert_array_equal(out, [1] * 64)


@pytest.mark.parametrize("noinc", [False, True])
def test_cp_async_mbarrier_arrive_completes_the_threads_copies(noinc: bool) -> None:
    body = f"""
	.reg .pred %p<4>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<10>;
	.shared .align 8 .b64 bar;
	.shared .align 16 .b32 buf[32];
	ld.param.u64 %rd1, [src];
	ld.param.u64 %rd2, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, bar;
	mov.u32 %r3, buf;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [%r2], {64 if noinc else 32};
	bar.sync 0;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd1, %rd3;
	shl.b32 %r4, %r1, 2;
	add.u32 %r4, %r3, %r4;
	cp.async.ca.shared.global [%r4], [%rd4], 4;
	cp.async.mbarrier.arrive{".noinc" if noinc else ""}.shared.b64 [%r2];
	mbarrier.arrive.shared.b64 %rd5, [%r2];
WAIT:
	mbarrier.try_wait.shared.b64 %p2, [%r2], %rd5;
	@!%p2 bra WAIT;
	xor.b32 %r5, %r1, 31;
	shl.b32 %r5, %r5, 2;
	add.u32 %r5, %r3, %r5;
	ld.shared.u32 %r6, [%r5];
	add.s64 %rd6, %rd2, %rd3;
	st.global.u32 [%rd6], %r6;
	ret;
"""
    src = np.arange(32, dtype=np.uint32) * 3 + 1
    out = np.zeros(32, np.uint32)
    params = (".param .u64 src", ".param .u64 out")
    launch(_checked(body, params), grid=1, block=32, args=[src, out])
    np.testing.assert_array_equal(out, src[::-1])


# --------------------------------------------------------------------------------- errors


def test_using_an_mbarrier_never_initialized_is_an_error() -> None:
    body = HEAD + "\tmbarrier.arrive.shared::cta.b64 _, [%r2];\n\tret;\n"
    with pytest.raises(EmuError, match="never initialized") as info:
        launch(_checked(body), grid=1, block=32, args=[np.zeros(1, np.uint32)])
    assert "mbarrier.arrive" in (info.value.instruction or "")


def test_initializing_a_valid_mbarrier_again_is_an_error_until_invalidated() -> None:
    again = HEAD + (
        "\tsetp.eq.u32 %p1, %r1, 0;\n"
        "\t@%p1 mbarrier.init.shared::cta.b64 [%r2], 4;\n"
        "\t@%p1 mbarrier.init.shared::cta.b64 [%r2], 4;\n\tret;\n"
    )
    with pytest.raises(EmuError, match="already initialized"):
        launch(_checked(again), grid=1, block=32, args=[np.zeros(1, np.uint32)])
    ok = HEAD + (
        "\tsetp.eq.u32 %p1, %r1, 0;\n"
        "\t@%p1 mbarrier.init.shared::cta.b64 [%r2], 4;\n"
        "\t@%p1 mbarrier.inval.shared::cta.b64 [%r2];\n"
        "\t@%p1 mbarrier.init.shared::cta.b64 [%r2], 4;\n\tret;\n"
    )
    launch(_checked(ok), grid=1, block=32, args=[np.zeros(1, np.uint32)])


def test_a_misaligned_mbarrier_address_is_reported() -> None:
    body = HEAD + "\tadd.u32 %r4, %r3, 4;\n\tmbarrier.init.shared::cta.b64 [%r4], 1;\n\tret;\n"
    with pytest.raises(Misaligned, match="8-byte aligned"):
        launch(_checked(body), grid=1, block=32, args=[np.zeros(1, np.uint32)])


def test_more_arrivals_than_pending_is_an_error() -> None:
    # The phase waits for 16 bytes, so after 4 arrivals the 5th has nothing to arrive on.
    body = HEAD + (
        "\tsetp.eq.u32 %p1, %r1, 0;\n"
        "\t@%p1 mbarrier.init.shared::cta.b64 [%r2], 4;\n"
        "\t@%p1 mbarrier.expect_tx.shared::cta.b64 [%r2], 16;\n"
        "\tbar.sync 0;\n"
        "\tsetp.lt.u32 %p2, %r1, 8;\n"
        "\t@%p2 mbarrier.arrive.shared::cta.b64 _, [%r2];\n\tret;\n"
    )
    with pytest.raises(EmuError, match="fewer arrivals pending") as info:
        launch(_checked(body), grid=1, block=32, args=[np.zeros(1, np.uint32)])
    assert info.value.tid == (4, 0, 0)


def test_waiting_on_a_phase_that_never_completes_is_a_deadlock() -> None:
    body = HEAD + (
        "\tsetp.eq.u32 %p1, %r1, 0;\n"
        "\t@%p1 mbarrier.init.shared::cta.b64 [%r2], 33;\n"
        "\tbar.sync 0;\n"
        "\tmbarrier.arrive.shared::cta.b64 _, [%r2];\n"
        "WAIT:\n"
        "\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;\n"
        "\t@!%p2 bra WAIT;\n\tret;\n"
    )
    with pytest.raises(Deadlock) as info:
        launch(_checked(body), grid=1, block=32, args=[np.zeros(1, np.uint32)])
    text = "\n".join(info.value.waiting)
    assert "mbarrier.try_wait.parity" in text
    assert "1 of 33 arrivals pending" in text and "phase 0" in text


def test_a_state_that_no_arrive_returned_is_an_error() -> None:
    body = HEAD + (
        "\tsetp.eq.u32 %p1, %r1, 0;\n"
        "\t@%p1 mbarrier.init.shared::cta.b64 [%r2], 1;\n"
        "\tmov.u64 %rd5, 0;\n"
        "\tmbarrier.test_wait.shared::cta.b64 %p2, [%r2], %rd5;\n\tret;\n"
    )
    with pytest.raises(EmuError, match=r"not a value returned by mbarrier\.arrive"):
        launch(_checked(body), grid=1, block=32, args=[np.zeros(1, np.uint32)])


# --------------------------------------------------------------------------------- the model


class _Reference:
    """One mbarrier, one operation at a time, as the PTX ISA describes it."""

    def __init__(self, count: int) -> None:
        self.phase, self.pending, self.expected, self.tx = 0, count, count, 0

    def _maybe_complete(self) -> None:
        if self.pending == 0 and self.tx == 0:
            self.phase += 1
            self.pending = self.expected

    def arrive(self, count: int, tx: int, drop: bool) -> tuple[int, int]:
        before = (self.phase, self.pending)
        self.tx += tx
        if drop:
            self.expected -= count
        self.pending -= count
        if self.pending < 0:
            raise ValueError("no arrival pending")
        self._maybe_complete()
        return before

    def complete_tx(self, n: int) -> None:
        self.tx -= n
        self._maybe_complete()


def _machine() -> Any:
    return SimpleNamespace(
        ext={},
        n=4,
        touch=lambda: None,
        mem=SimpleNamespace(shared_row=64),
        wave=SimpleNamespace(ctaid=np.zeros((4, 3), dtype=np.int64)),
    )


_OPS = st.lists(
    st.one_of(
        st.tuples(
            st.just("arrive"),
            st.lists(st.tuples(st.integers(0, 2), st.integers(1, 3)), min_size=1, max_size=6),
            st.sampled_from([None, 8]),
            st.booleans(),
        ),
        st.tuples(
            st.just("complete"),
            st.lists(st.tuples(st.integers(0, 2), st.sampled_from([4, 8])), min_size=1),
            st.none(),
            st.just(False),
        ),
    ),
    max_size=12,
)


@settings(max_examples=examples(150), deadline=None)
@given(counts=st.lists(st.integers(1, 6), min_size=3, max_size=3), ops=_OPS)
def test_vectorized_arrivals_match_one_at_a_time(counts: list[int], ops: list[Any]) -> None:
    m = _machine()
    flats = np.array([0, 8, 64 + 16], dtype=np.int64)  # the third is in another CTA
    _mbar.init(m, flats, np.array(counts))
    refs = [_Reference(c) for c in counts]
    for kind, entries, tx, drop in ops:
        bars = np.array([b for b, _ in entries])
        amounts = np.array([a for _, a in entries])
        if kind == "complete":
            for b, a in entries:
                refs[b].complete_tx(a)
            _mbar.complete_tx(m, flats[bars], amounts)
        else:
            try:
                want = [refs[b].arrive(a, tx or 0, drop) for b, a in entries]
            except ValueError:
                with pytest.raises(Fault):
                    _mbar.arrive_on(m, flats[bars], amounts, tx=tx, drop=drop)
                return
            phase, pending = _mbar.arrive_on(m, flats[bars], amounts, tx=tx, drop=drop)
            assert [tuple(p) for p in zip(phase, pending, strict=True)] == want
        s = _mbar.state(m)
        slot, ok = s.find(flats)
        assert ok.all()
        got = list(zip(s.phase[slot], s.pending[slot], s.expected[slot], s.tx[slot], strict=True))
        assert got == [(r.phase, r.pending, r.expected, r.tx) for r in refs]


def test_the_api_accumulates_repeated_entries() -> None:
    m = _machine()
    flat = np.array([0], dtype=np.int64)
    _mbar.init(m, flat, np.array([3]))
    _mbar.expect_tx(m, np.array([0, 0]), 16)
    _mbar.arrive(m, np.array([0, 0, 0]))
    assert int(_mbar.phase(m, flat)[0]) == 0  # waits for 32 bytes
    _mbar.complete_tx(m, np.array([0, 0]), np.array([16, 16]))
    assert int(_mbar.phase(m, flat)[0]) == 1
    assert _mbar.mbarrier_flat.__doc__ and _mbar.MAX_COUNT == 2**20 - 1


HANDOFF = """
	.reg .pred %p<4>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<6>;
	.shared .align 8 .b64 bar;
	.shared .align 4 .b32 data;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra READY;
	mbarrier.init.shared.b64 [bar], 1;
READY:
	bar.sync 0;
	setp.ge.u32 %p2, %r1, 32;
	@%p2 bra CONSUME;
	@%p1 bra DONE;
	st.shared.u32 [data], 42;
	mbarrier.arrive.shared.b64 %rd2, [bar];
	bra DONE;
CONSUME:
WAIT:
	mbarrier.try_wait.parity.shared.b64 %p3, [bar], 0;
	@!%p3 bra WAIT;
	ld.shared.u32 %r2, [data];
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd1, %rd3;
	st.global.u32 [%rd4], %r2;
DONE:
	ret;
"""


def test_a_completed_wait_orders_the_producers_stores_for_the_race_checker() -> None:
    out = np.zeros(64, dtype=np.uint32)
    launch(_checked(HANDOFF), grid=2, block=64, args=[out], check_races=True)
    assert (out[32:] == 42).all() and (out[:32] == 0).all()


def test_reading_without_the_wait_is_a_race() -> None:
    racy = HANDOFF.replace("	mbarrier.try_wait.parity.shared.b64 %p3, [bar], 0;\n", "")
    racy = racy.replace("	@!%p3 bra WAIT;\n", "")
    with pytest.raises(DataRace, match="wrote it"):
        launch(_checked(racy), grid=1, block=64, args=[np.zeros(64, np.uint32)], check_races=True)
