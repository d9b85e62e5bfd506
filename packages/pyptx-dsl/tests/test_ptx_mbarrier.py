"""Typed wrappers of mbarrier: init/inval, arrive (+drop, expect_tx, noComplete), tx counts,
test_wait/try_wait (+parity), pending_count and the ptx.mbarrier.wait spin loop."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from dsl_testing import body

from pyptx import PtxDslError, kernel, ptx, reg, smem
from pyptx.types import b64, f32, pred, u16, u32


def _fails(make: Callable[[SimpleNamespace], object], match: str) -> None:
    """Trace a kernel whose body runs ``make`` and check the error points at ``make``'s line."""

    @kernel(arch="sm_90a")
    def k() -> None:
        ns = SimpleNamespace(
            bars=smem.mbarrier(2),
            p=reg.scalar(pred),
            r=reg.scalar(u32),
            h=reg.scalar(u16),
            d=reg.scalar(b64),
            f=reg.scalar(f32),
        )
        make(ns)

    with pytest.raises(PtxDslError, match=match) as info:
        k.ptx()
    msg = str(info.value)
    assert f"{Path(__file__).name}:{make.__code__.co_firstlineno}:" in msg
    assert "pyptx/dsl" not in msg and "pyptx/ptx" not in msg


def test_init_inval_arrive_and_waits_on_sm80(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        bars = smem.mbarrier(2)
        n = reg.scalar(u32, 32)
        ptx.mbarrier.init(bars[0], 1)
        ptx.mbarrier.init(bars[1], n)
        state = ptx.mbarrier.arrive(bars[0])
        ptx.mbarrier.arrive(bars[1], dst=state)
        done = ptx.mbarrier.test_wait(bars[0], state)
        ptx.mbarrier.test_wait.parity(bars[0], 0, dst=done)
        left = ptx.mbarrier.pending_count(state)
        dropped = ptx.mbarrier.arrive_drop(bars[1])
        ptx.mbarrier.arrive.noComplete(bars[1], 2)
        ptx.mbarrier.arrive_drop.noComplete(bars[1], n)
        ptx.mbarrier.inval(bars[0])
        assert state.type is b64 and done.type is pred and left.type is u32
        assert dropped is not None and dropped.type is b64

    assert body(k.ptx()) == [
        "mov.u32 %r0, 32;",
        "mbarrier.init.shared.b64 [mbar_0], 1;",
        "mbarrier.init.shared.b64 [mbar_0+8], %r0;",
        "mbarrier.arrive.shared.b64 %rd0, [mbar_0];",
        "mbarrier.arrive.shared.b64 %rd0, [mbar_0+8];",
        "mbarrier.test_wait.shared.b64 %p0, [mbar_0], %rd0;",
        "mbarrier.test_wait.parity.shared.b64 %p0, [mbar_0], 0;",
        "mbarrier.pending_count.b64 %r1, %rd0;",
        "mbarrier.arrive_drop.shared.b64 %rd1, [mbar_0+8];",
        "mbarrier.arrive.noComplete.shared.b64 %rd2, [mbar_0+8], 2;",
        "mbarrier.arrive_drop.noComplete.shared.b64 %rd3, [mbar_0+8], %r0;",
        "mbarrier.inval.shared.b64 [mbar_0];",
        "ret;",
    ]
    assemble(k.ptx())


def test_hopper_arrive_expect_tx_and_scopes(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        bars = smem.mbarrier(4)
        remote = reg.scalar(u32)
        tx = reg.scalar(u32)
        ptx.mbarrier.init(bars[0], 1, space="shared::cta")
        ptx.mbarrier.arrive(bars[0], 2, space="shared::cta")
        ptx.mbarrier.arrive(bars[1], sem="release", scope="cta")
        ptx.mbarrier.arrive(bars[1], 1, sem="release", scope="cluster", space="shared::cta")
        assert (
            ptx.mbarrier.arrive(remote, sem="release", scope="cluster", space="shared::cluster")
            is None
        )
        ptx.mbarrier.arrive(remote, 3, space="shared::cluster")
        ptx.mbarrier.arrive.expect_tx(bars[2], 4096)
        ptx.mbarrier.arrive_expect_tx(bars[2], tx, space="shared::cta")
        ptx.mbarrier.arrive.expect_tx(
            remote, tx, sem="release", scope="cluster", space="shared::cluster"
        )
        ptx.mbarrier.arrive_drop.expect_tx(bars[3], 16)
        ptx.mbarrier.arrive_drop(remote, 1, sem="release", scope="cta", space="shared::cluster")
        ptx.mbarrier.arrive.noComplete(bars[3], 1, sem="release", scope="cta")
        ptx.mbarrier.expect_tx(bars[0], 1024)
        ptx.mbarrier.expect_tx(remote, tx, sem="relaxed", scope="cluster", space="shared::cluster")
        ptx.mbarrier.complete_tx(bars[0], 1024, space="shared::cta")
        ptx.mbarrier.complete_tx(bars[0], 16, sem="relaxed", scope="cta")

    assert body(k.ptx()) == [
        "mbarrier.init.shared::cta.b64 [mbar_0], 1;",
        "mbarrier.arrive.shared::cta.b64 %rd0, [mbar_0], 2;",
        "mbarrier.arrive.release.cta.shared.b64 %rd1, [mbar_0+8];",
        "mbarrier.arrive.release.cluster.shared::cta.b64 %rd2, [mbar_0+8], 1;",
        "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r0];",
        "mbarrier.arrive.shared::cluster.b64 _, [%r0], 3;",
        "mbarrier.arrive.expect_tx.shared.b64 %rd3, [mbar_0+16], 4096;",
        "mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [mbar_0+16], %r1;",
        "mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%r0], %r1;",
        "mbarrier.arrive_drop.expect_tx.shared.b64 %rd5, [mbar_0+24], 16;",
        "mbarrier.arrive_drop.release.cta.shared::cluster.b64 _, [%r0], 1;",
        "mbarrier.arrive.noComplete.release.cta.shared.b64 %rd6, [mbar_0+24], 1;",
        "mbarrier.expect_tx.shared.b64 [mbar_0], 1024;",
        "mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [%r0], %r1;",
        "mbarrier.complete_tx.shared::cta.b64 [mbar_0], 1024;",
        "mbarrier.complete_tx.relaxed.cta.shared.b64 [mbar_0], 16;",
        "ret;",
    ]
    assemble(k.ptx())


def test_try_wait_parity_hints_and_relaxed_forms(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        bars = smem.mbarrier(2)
        generic = reg.scalar(b64)
        phase = reg.scalar(u32, 0)
        hint = reg.scalar(u32, 1000)
        ok = reg.scalar(pred)
        ptx.mbarrier.try_wait.parity(bars[0], phase)
        ptx.mbarrier.try_wait.parity(bars[0], 1, 0x989680)
        ptx.mbarrier.try_wait.parity(bars[1], phase, hint, sem="acquire", scope="cluster")
        ptx.mbarrier.try_wait(bars[1], phase, parity=True, sem="relaxed", scope="cta", dst=ok)
        state = ptx.mbarrier.arrive(bars[0], sem="relaxed", scope="cluster")
        assert state is not None
        ptx.mbarrier.try_wait(bars[0], state, hint, space="shared::cta")
        ptx.mbarrier.test_wait(bars[0], state, sem="acquire", scope="cta", pred=~ok)
        ptx.mbarrier.test_wait(generic, 1, parity=True, space=None)
        ptx.mbarrier.arrive.expect_tx(bars[1], 64, sem="relaxed", scope="cta")
        ptx.mbarrier.init(generic, 1, space=None)
        ptx.mbarrier.arrive(generic, space=None)

    assert body(k.ptx()) == [
        "mov.u32 %r0, 0;",
        "mov.u32 %r1, 1000;",
        "mbarrier.try_wait.parity.shared.b64 %p1, [mbar_0], %r0;",
        "mbarrier.try_wait.parity.shared.b64 %p2, [mbar_0], 1, 10000000;",
        "mbarrier.try_wait.parity.acquire.cluster.shared.b64 %p3, [mbar_0+8], %r0, %r1;",
        "mbarrier.try_wait.parity.relaxed.cta.shared.b64 %p0, [mbar_0+8], %r0;",
        "mbarrier.arrive.relaxed.cluster.shared.b64 %rd1, [mbar_0];",
        "mbarrier.try_wait.shared::cta.b64 %p4, [mbar_0], %rd1, %r1;",
        "@!%p0 mbarrier.test_wait.acquire.cta.shared.b64 %p5, [mbar_0], %rd1;",
        "mbarrier.test_wait.parity.b64 %p6, [%rd0], 1;",
        "mbarrier.arrive.expect_tx.relaxed.cta.shared.b64 %rd2, [mbar_0+8], 64;",
        "mbarrier.init.b64 [%rd0], 1;",
        "mbarrier.arrive.b64 %rd3, [%rd0];",
        "ret;",
    ]
    assemble(k.ptx())


def test_wait_is_the_documented_spin_loop(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        bars = smem.mbarrier(2)
        phase = reg.scalar(u32, 0)
        ptx.mbarrier.wait(bars[0], phase)
        ptx.mbarrier.wait(bars[1], 1, 1000, space="shared::cta")

    lines = body(k.ptx())
    assert lines == [
        "mov.u32 %r0, 0;",
        "$L__mbar_wait_0:",
        "mbarrier.try_wait.parity.shared.b64 %p0, [mbar_0], %r0;",
        "@!%p0 bra $L__mbar_wait_0;",
        "$L__mbar_wait_1:",
        "mbarrier.try_wait.parity.shared::cta.b64 %p1, [mbar_0+8], 1, 1000;",
        "@!%p1 bra $L__mbar_wait_1;",
        "ret;",
    ]
    assemble(k.ptx())
    documented = ptx.MULTI_INSTRUCTION_HELPERS["ptx.mbarrier.wait"]
    assert (
        "mbarrier.try_wait.parity" in documented and "@!p bra[.uni] $L__mbar_wait_N" in documented
    )


def test_wait_can_name_its_predicate_and_branch_uniformly(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k():
        bars = smem.mbarrier(1)
        done = reg.scalar(pred)
        ptx.mbarrier.wait(bars[0], 0, dst=done, uni=True)

    lines = body(k.ptx())
    assert lines[:3] == [
        "$L__mbar_wait_0:",
        "mbarrier.try_wait.parity.shared.b64 %p0, [mbar_0], 0;",
        "@!%p0 bra.uni $L__mbar_wait_0;",
    ]
    assemble(k.ptx())


def test_register_addresses_are_accepted(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        bars = smem.mbarrier(4)
        base = smem.base(bars)
        stage = reg.scalar(u32, 1)
        addr = base + stage * 8
        ptx.mbarrier.init(addr, 128)
        ptx.mbarrier.arrive.expect_tx(ptx.addr(base, 24), 256)
        ptx.mbarrier.wait(addr, 0)

    assert body(k.ptx())[4:] == [
        "mbarrier.init.shared.b64 [%r3], 128;",
        "mbarrier.arrive.expect_tx.shared.b64 %rd0, [%r0+24], 256;",
        "$L__mbar_wait_0:",
        "mbarrier.try_wait.parity.shared.b64 %p0, [%r3], 0;",
        "@!%p0 bra $L__mbar_wait_0;",
        "ret;",
    ]
    assemble(k.ptx())


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (
            lambda s: ptx.mbarrier.init(s.bars[0], 0),
            r"\(count\) must be from 1 to 1048575, but got 0",
        ),
        (
            lambda s: ptx.mbarrier.init(s.bars[0], s.h),
            r"\(count\) expects a 32-bit register for \.b32, but %rs0 is declared \.b16",
        ),
        (lambda s: ptx.mbarrier.init(s.f, 1), "barrier must be a 32- or 64-bit address register"),
        (
            lambda s: ptx.mbarrier.init(s.bars[0], 1, space="shared::cluster"),
            "unknown modifier '.shared::cluster' for mbarrier.init",
        ),
        (lambda s: ptx.mbarrier.init(s.bars, 1, space="global"), "unknown modifier '.global'"),
        (lambda s: ptx.mbarrier.init(s.r, 1, space=None), "must be a 64-bit address register"),
        (lambda s: ptx.mbarrier.arrive(s.bars[0], sem="release"), r"needs a \.scope modifier"),
        (lambda s: ptx.mbarrier.arrive(s.bars[0], scope="cta"), r"needs a \.sem modifier"),
        (
            lambda s: ptx.mbarrier.arrive(s.bars[0], sem="acquire", scope="cta"),
            "unknown modifier '.acquire' for mbarrier.arrive",
        ),
        (
            lambda s: ptx.mbarrier.arrive(s.bars[0], scope="gpu", sem="release"),
            "unknown modifier '.gpu' for mbarrier.arrive",
        ),
        (
            lambda s: ptx.mbarrier.arrive(s.r, space="shared::cluster", dst=s.d),
            r"operand 0 \(state\) expects the sink '_', but got the register %rd0",
        ),
        (lambda s: ptx.mbarrier.arrive(s.bars[0], dst=s.r), r"\(state\) expects a 64-bit register"),
        (
            lambda s: ptx.mbarrier.arrive.noComplete(s.bars[0], 1, sem="release", scope="cluster"),
            "'.noComplete' is not valid for mbarrier.arrive with .cluster",
        ),
        (
            lambda s: ptx.mbarrier.arrive.noComplete(s.r, 1, space="shared::cluster"),
            "'.noComplete' is not valid for mbarrier.arrive with .shared::cluster",
        ),
        (
            lambda s: ptx.mbarrier.arrive.expect_tx(s.bars[0], -1),
            r"\(txCount\) must be from 0 to 1048575, but got -1",
        ),
        (
            lambda s: ptx.mbarrier.expect_tx(s.bars[0], 8, sem="release", scope="cta"),
            "unknown modifier '.release' for mbarrier.expect_tx",
        ),
        (
            lambda s: ptx.mbarrier.test_wait(s.bars[0], 0),
            r"operand 2 \(state\) expects a register, but got the immediate 0",
        ),
        (lambda s: ptx.mbarrier.try_wait(s.bars[0], s.r), r"\(state\) expects a 64-bit register"),
        (
            lambda s: ptx.mbarrier.try_wait.parity(s.bars[0], 2),
            r"operand 2 \(phaseParity\) must be one of 0, 1, but got 2",
        ),
        (
            lambda s: ptx.mbarrier.try_wait.parity(s.bars[0], 0, dst=s.r),
            r"operand 0 \(waitComplete\) expects a \.pred register",
        ),
        (
            lambda s: ptx.mbarrier.try_wait.parity(s.bars[0], 0, sem="release", scope="cta"),
            "unknown modifier '.release' for mbarrier.try_wait",
        ),
        (
            lambda s: ptx.mbarrier.try_wait.parity(s.bars[0], 0, space="shared::cluster"),
            "unknown modifier '.shared::cluster' for mbarrier.try_wait",
        ),
        (lambda s: ptx.mbarrier.pending_count(s.r), r"\(state\) expects a 64-bit register"),
        (lambda s: ptx.mbarrier.wait(s.bars[0], s.p), "phase parity must be a Python int or"),
    ],
)
def test_mbarrier_errors_point_at_the_call(make, match) -> None:  # type: ignore[no-untyped-def]
    _fails(make, match)
