"""Typed wrappers of the sync family: bar/barrier, bar.warp.sync, membar, fence, nanosleep."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from dsl_testing import body

from pyptx import PtxDslError, kernel, ptx, reg
from pyptx.types import b64, f32, pred, u32


def _fails(make: Callable[[SimpleNamespace], object], arch: str, match: str) -> None:
    """Trace a kernel whose body runs ``make`` and check the error points at ``make``'s line."""

    @kernel(arch=arch)
    def k() -> None:
        ns = SimpleNamespace(
            p=reg.scalar(pred), r=reg.scalar(u32), d=reg.scalar(b64), f=reg.scalar(f32)
        )
        make(ns)

    with pytest.raises(PtxDslError, match=match) as info:
        k.ptx()
    msg = str(info.value)
    assert f"{Path(__file__).name}:{make.__code__.co_firstlineno}:" in msg
    assert "pyptx/dsl" not in msg and "pyptx/ptx" not in msg


def test_bar_sync_arrive_and_red(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        tid = reg.from_(ptx.special.tid.x(), u32)
        p = tid < 64
        ptx.bar.sync()
        ptx.bar.sync(1, 64)
        ptx.bar.sync(tid)
        ptx.bar.arrive(2, 128)
        n = ptx.bar.red.popc(0, p)
        all_ = ptx.bar.red.and_(3, ~p, count=96)
        any_ = ptx.bar.red.or_(0, p, pred=p)
        ptx.bar.warp.sync()
        ptx.bar.warp.sync(0x0000FFFF)
        ptx.bar.warp.sync(tid)
        assert n.type is u32 and all_.type is pred and any_.type is pred

    assert body(k.ptx()) == [
        "mov.u32 %r0, %tid.x;",
        "setp.lt.u32 %p0, %r0, 64;",
        "bar.sync 0;",
        "bar.sync 1, 64;",
        "bar.sync %r0;",
        "bar.arrive 2, 128;",
        "bar.red.popc.u32 %r1, 0, %p0;",
        "bar.red.and.pred %p1, 3, 96, !%p0;",
        "@%p0 bar.red.or.pred %p2, 0, %p0;",
        "bar.warp.sync 0xffffffff;",
        "bar.warp.sync 0x0000ffff;",
        "bar.warp.sync %r0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_barrier_aligned_and_cta_forms(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        p = reg.scalar(pred)
        out = reg.scalar(u32)
        ptx.barrier.sync()
        ptx.barrier.sync(1, 64, aligned=True)
        ptx.barrier.sync(2, cta=True, aligned=True)
        ptx.barrier.arrive(3, 32, aligned=True)
        ptx.barrier.arrive(3, 32, cta=True)
        ptx.barrier.red.popc(0, p, aligned=True, dst=out)
        ptx.barrier.red.or_(1, ~p, count=64)
        ptx.barrier.red.and_(0, p, cta=True, aligned=True)
        ptx.bar.sync(4, cta=True)

    assert body(k.ptx()) == [
        "barrier.sync 0;",
        "barrier.sync.aligned 1, 64;",
        "barrier.cta.sync.aligned 2;",
        "barrier.arrive.aligned 3, 32;",
        "barrier.cta.arrive 3, 32;",
        "barrier.red.popc.aligned.u32 %r0, 0, %p0;",
        "barrier.red.or.pred %p1, 1, 64, !%p0;",
        "barrier.cta.red.and.aligned.pred %p2, 0, %p0;",
        "bar.cta.sync 4;",
        "ret;",
    ]
    assemble(k.ptx())


def test_membar_and_thread_fences(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        ptx.membar("cta")
        ptx.membar("gl")
        ptx.membar("sys")
        ptx.fence("gpu")
        ptx.fence("cta", sem="sc")
        ptx.fence("cluster", sem="sc")
        ptx.fence("sys", sem="acq_rel")
        ptx.fence("gpu", sem="acquire")
        ptx.fence("cta", sem="release")
        ptx.fence("cluster", sem="acquire", sync_restrict="shared::cluster")
        ptx.fence("cluster", sem="release", sync_restrict="shared::cta")
        ptx.fence.mbarrier_init()

    assert body(k.ptx()) == [
        "membar.cta;",
        "membar.gl;",
        "membar.sys;",
        "fence.gpu;",
        "fence.sc.cta;",
        "fence.sc.cluster;",
        "fence.acq_rel.sys;",
        "fence.acquire.gpu;",
        "fence.release.cta;",
        "fence.acquire.sync_restrict::shared::cluster.cluster;",
        "fence.release.sync_restrict::shared::cta.cluster;",
        "fence.mbarrier_init.release.cluster;",
        "ret;",
    ]
    assemble(k.ptx())


def test_proxy_fences(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        tmap = reg.scalar(b64)
        ptx.fence.proxy.async_()
        ptx.fence.proxy.async_("global")
        ptx.fence.proxy.async_("shared::cta")
        ptx.fence.proxy.async_("shared::cluster")
        ptx.fence.proxy.alias()
        ptx.fence.proxy.tensormap_generic.release("gpu")
        ptx.fence.proxy.tensormap_generic.acquire("gpu", tmap)
        ptx.fence.proxy.tensormap_generic.acquire("cta", ptx.addr(tmap), 128)
        ptx.fence.proxy.async_generic.acquire()
        ptx.fence.proxy.async_generic.release()

    assert body(k.ptx()) == [
        "fence.proxy.async;",
        "fence.proxy.async.global;",
        "fence.proxy.async.shared::cta;",
        "fence.proxy.async.shared::cluster;",
        "fence.proxy.alias;",
        "fence.proxy.tensormap::generic.release.gpu;",
        "fence.proxy.tensormap::generic.acquire.gpu [%rd0], 128;",
        "fence.proxy.tensormap::generic.acquire.cta [%rd0], 128;",
        "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;",
        "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;",
        "ret;",
    ]
    assemble(k.ptx())


def test_nanosleep_and_guards(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        t = reg.scalar(u32, 100)
        p = t > 50
        ptx.nanosleep(1000)
        ptx.nanosleep(t, pred=~p)
        ptx.membar("gl", pred=p)
        ptx.fence("gpu", sem="sc", pred=p)

    assert body(k.ptx()) == [
        "mov.u32 %r0, 100;",
        "setp.gt.u32 %p0, %r0, 50;",
        "nanosleep.u32 1000;",
        "@!%p0 nanosleep.u32 %r0;",
        "@%p0 membar.gl;",
        "@%p0 fence.sc.gpu;",
        "ret;",
    ]
    assemble(k.ptx())


def test_sync_wrappers_emit_one_instruction_each() -> None:
    calls = [
        lambda: ptx.bar.sync(),
        lambda: ptx.barrier.sync(1, 32, aligned=True),
        lambda: ptx.bar.warp.sync(),
        lambda: ptx.membar("sys"),
        lambda: ptx.fence("gpu"),
        lambda: ptx.fence.proxy.async_(),
        lambda: ptx.fence.mbarrier_init(),
        lambda: ptx.nanosleep(5),
    ]
    for call in calls:

        @kernel(arch="sm_90a")
        def k() -> None:
            call()  # noqa: B023

        assert len(body(k.ptx())) == 2  # the instruction and the closing ret


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda s: ptx.bar.sync(16), r"operand 0 \(a\) must be from 0 to 15, but got 16"),
        (
            lambda s: ptx.bar.sync(0, 48),
            r"\(b\) must be from 32 to 1024 in steps of 32, but got 48",
        ),
        (
            lambda s: ptx.bar.sync(s.f),
            "must be a Python int or an integer register, but got %f0 of type .f32",
        ),
        (lambda s: ptx.bar.sync(0, cta=1), "cta= takes True or False"),
        (lambda s: ptx.bar.red.popc(0, s.r), r"operand 2 \(c\) expects a \.pred register"),
        (lambda s: ptx.bar.red.and_(0, s.p, dst=s.r), r"operand 0 \(p\) expects a \.pred register"),
        (lambda s: ptx.barrier.sync(0, aligned="yes"), "aligned= takes True or False"),
        (lambda s: ptx.bar.warp.sync(-1), r"membermask must be in \[0, 4294967295\]"),
        (
            lambda s: ptx.membar("gpu"),
            "unknown modifier '.gpu' for membar; expected one of .cta, .gl",
        ),
        (lambda s: ptx.fence("block"), "unknown modifier '.block' for fence"),
        (lambda s: ptx.fence("gpu", sem="seq"), "unknown modifier '.seq' for fence"),
        (
            lambda s: ptx.fence("gpu", sem="acquire", sync_restrict="shared::cluster"),
            "'.sync_restrict::shared::cluster' is not valid for fence with .gpu",
        ),
        (
            lambda s: ptx.fence("cluster", sem="acquire", sync_restrict="shared::cta"),
            "'.sync_restrict::shared::cta' is not valid for fence with .acquire",
        ),
        (lambda s: ptx.fence.proxy.async_("local"), "unknown modifier '.local' for fence.proxy"),
        (
            lambda s: ptx.fence.proxy.tensormap_generic.acquire("gpu", s.d, 64),
            r"operand 1 \(size\) must be one of 128, but got 64",
        ),
        (
            lambda s: ptx.fence.proxy.tensormap_generic.acquire("gpu", s.r),
            "must be a 64-bit address register",
        ),
        (
            lambda s: ptx.nanosleep(1.5),
            "nanosleep time must be a Python int or an integer register",
        ),
    ],
)
def test_sync_errors_point_at_the_call(make, match) -> None:  # type: ignore[no-untyped-def]
    _fails(make, "sm_90a", match)
