"""Typed wrappers of the cluster family: barrier.cluster, mapa, getctarank, elect.sync,
clusterlaunchcontrol, griddepcontrol and setmaxnreg."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from dsl_testing import TABLE, body, table_reason

from pyptx import PtxDslError, kernel, ptx, reg, smem
from pyptx.types import b64, b128, f32, pred, u16, u32, u64


def _fails(make: Callable[[SimpleNamespace], object], match: str, arch: str = "sm_100a") -> None:
    """Trace a kernel whose body runs ``make`` and check the error points at ``make``'s line."""

    def build():  # type: ignore[no-untyped-def]
        @kernel(arch=arch)
        def k() -> None:
            ns = SimpleNamespace(
                bars=smem.mbarrier(2),
                buf=smem.alloc(u32, 4, align=16),
                r=reg.scalar(u32),
                h=reg.scalar(u16),
                d=reg.scalar(b64),
                q=reg.scalar(b128),
                f=reg.scalar(f32),
                p=reg.scalar(pred),
            )
            make(ns)

        return k

    if match is TABLE:
        match = re.escape(table_reason(build()))
    with pytest.raises(PtxDslError, match=match) as info:
        build().ptx()
    msg = str(info.value)
    assert f"{Path(__file__).name}:{make.__code__.co_firstlineno}:" in msg
    assert "pyptx/dsl" not in msg and "pyptx/ptx" not in msg


def test_cluster_barriers(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a", cluster=(2, 1, 1))
    def k() -> None:
        ptx.barrier.cluster.arrive()
        ptx.barrier.cluster.wait()
        ptx.barrier.cluster.arrive(aligned=True)
        ptx.barrier.cluster.wait(aligned=True)
        ptx.barrier.cluster.arrive(sem="release")
        ptx.barrier.cluster.arrive(sem="relaxed", aligned=True)
        ptx.barrier.cluster.wait(sem="acquire", aligned=True)
        ptx.cluster.arrive(sem="relaxed")
        ptx.cluster.wait()
        ptx.cluster.sync(aligned=True)

    assert body(k.ptx()) == [
        "barrier.cluster.arrive;",
        "barrier.cluster.wait;",
        "barrier.cluster.arrive.aligned;",
        "barrier.cluster.wait.aligned;",
        "barrier.cluster.arrive.release;",
        "barrier.cluster.arrive.relaxed.aligned;",
        "barrier.cluster.wait.acquire.aligned;",
        "barrier.cluster.arrive.relaxed;",
        "barrier.cluster.wait;",
        "barrier.cluster.arrive.aligned;",
        "barrier.cluster.wait.aligned;",
        "ret;",
    ]
    assert ".reqnctapercluster 2, 1, 1" in k.ptx()
    assemble(k.ptx())
    assert "barrier.cluster.arrive" in ptx.MULTI_INSTRUCTION_HELPERS["ptx.cluster.sync"]


def test_mapa_getctarank_and_elect(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        bars = smem.mbarrier(2)
        buf = smem.alloc(f32, (2, 32))
        rank = reg.from_(ptx.special.cluster_ctarank(), u32)
        a32 = smem.base(bars)
        a64 = reg.scalar(u64)
        mine = reg.scalar(u32)
        r0 = ptx.mapa(bars[1], rank)
        r1 = ptx.mapa(a32, 1)
        r2 = ptx.mapa(a64, rank)
        r3 = ptx.mapa(buf[1], 0, ty=u64)
        ptx.mapa(a64, 1, space=None, dst=a64)
        who = ptx.getctarank(r0)
        ptx.getctarank(bars[0], dst=mine)
        ptx.getctarank(a64, space=None)
        leader = ptx.elect.sync()
        lane, elected = ptx.elect.sync(lane=True)
        ptx.elect.sync(0x0000FFFF, pred=leader)
        ptx.elect.sync(rank)
        assert (r0.type, r1.type, r2.type, r3.type) == (u32, u32, u64, u64)
        assert who.type is u32 and leader.type is pred and elected.type is pred
        assert lane.type is u32

    assert body(k.ptx()) == [
        "mov.u32 %r0, %cluster_ctarank;",
        "mov.u32 %r1, mbar_0;",
        "mapa.shared::cluster.u32 %r3, mbar_0+8, %r0;",
        "mapa.shared::cluster.u32 %r4, %r1, 1;",
        "mapa.shared::cluster.u64 %rd1, %rd0, %r0;",
        "mapa.shared::cluster.u64 %rd2, smem_0+128, 0;",
        "mapa.u64 %rd0, %rd0, 1;",
        "getctarank.shared::cluster.u32 %r5, %r3;",
        "getctarank.shared::cluster.u32 %r2, mbar_0;",
        "getctarank.u64 %r6, %rd0;",
        "elect.sync _|%p0, 0xffffffff;",
        "elect.sync %r7|%p1, 0xffffffff;",
        "@%p0 elect.sync _|%p2, 0x0000ffff;",
        "elect.sync _|%p3, %r0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_griddepcontrol_and_setmaxnreg(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        warp = reg.from_(ptx.special.warpid(), u32)
        producer = warp == 0
        ptx.griddepcontrol.wait()
        ptx.griddepcontrol.launch_dependents()
        ptx.setmaxnreg.dec(40, pred=producer)
        ptx.setmaxnreg.inc(232, pred=~producer)
        ptx.setmaxnreg(256)
        ptx.setmaxnreg(24, inc=False)

    assert body(k.ptx()) == [
        "mov.u32 %r0, %warpid;",
        "setp.eq.u32 %p0, %r0, 0;",
        "griddepcontrol.wait;",
        "griddepcontrol.launch_dependents;",
        "@%p0 setmaxnreg.dec.sync.aligned.u32 40;",
        "@!%p0 setmaxnreg.inc.sync.aligned.u32 232;",
        "setmaxnreg.inc.sync.aligned.u32 256;",
        "setmaxnreg.dec.sync.aligned.u32 24;",
        "ret;",
    ]
    assemble(k.ptx())


def test_elect_and_griddepcontrol_on_sm120a(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_120a")
    def k() -> None:
        p = ptx.elect.sync()
        ptx.griddepcontrol.wait(pred=p)

    assert body(k.ptx()) == ["elect.sync _|%p0, 0xffffffff;", "@%p0 griddepcontrol.wait;", "ret;"]
    assemble(k.ptx())


def test_cluster_launch_control(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_100a")
    def k() -> None:
        bars = smem.mbarrier(1)
        resp = smem.alloc(u32, 4, align=16)
        raw = reg.scalar(b128)
        generic = reg.scalar(u64)
        ptx.clusterlaunchcontrol.try_cancel(resp, bars[0])
        ptx.clusterlaunchcontrol.try_cancel(resp, bars[0], multicast=True)
        ptx.clusterlaunchcontrol.try_cancel(generic, generic, space=None)
        ptx.inst.ld.shared.b128(raw, resp.addr())
        ok = ptx.clusterlaunchcontrol.query_cancel.is_canceled(raw)
        x, y, z = ptx.clusterlaunchcontrol.query_cancel.get_first_ctaid(raw)
        cx = ptx.clusterlaunchcontrol.query_cancel.get_first_ctaid(raw, "x")
        ptx.clusterlaunchcontrol.query_cancel.get_first_ctaid(raw, "z", pred=ok)
        assert ok.type is pred and cx.type is u32 and (x.type, y.type, z.type) == (u32,) * 3

    prefix = "clusterlaunchcontrol.try_cancel.async"
    query = "clusterlaunchcontrol.query_cancel"
    assert body(k.ptx()) == [
        f"{prefix}.shared::cta.mbarrier::complete_tx::bytes.b128 [smem_0], [mbar_0];",
        f"{prefix}.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128"
        " [smem_0], [mbar_0];",
        f"{prefix}.mbarrier::complete_tx::bytes.b128 [%rd0], [%rd0];",
        "ld.shared.b128 %rq0, [smem_0];",
        f"{query}.is_canceled.pred.b128 %p0, %rq0;",
        f"{query}.get_first_ctaid.v4.b32.b128 {{%r0, %r1, %r2, _}}, %rq0;",
        f"{query}.get_first_ctaid::x.b32.b128 %r3, %rq0;",
        f"@%p0 {query}.get_first_ctaid::z.b32.b128 %r4, %rq0;",
        "ret;",
    ]
    assemble(k.ptx())


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (
            lambda s: ptx.barrier.cluster.arrive(sem="acquire"),
            "unknown modifier '.acquire' for barrier.cluster.arrive; expected one of .release",
        ),
        (
            lambda s: ptx.barrier.cluster.wait(sem="release"),
            "unknown modifier '.release' for barrier.cluster.wait; expected one of .acquire",
        ),
        (lambda s: ptx.cluster.arrive(aligned=None), "aligned= takes True or False"),
        (lambda s: ptx.mapa(s.bars[0], s.f), "mapa rank must be a Python int or an integer"),
        (lambda s: ptx.mapa(s.bars[0], s.d), TABLE),
        (lambda s: ptx.mapa(s.f, 0), "mapa address must be an integer address register"),
        (lambda s: ptx.mapa(s.bars[0], 0, space=None), "pass space='shared::cluster'"),
        (lambda s: ptx.mapa(s.bars[0], 0, space="shared::cta"), "unknown modifier '.shared::cta'"),
        (lambda s: ptx.mapa(s.r, 0, ty=u64), r"\(a\) expects a 64-bit register for \.u64, but %r0"),
        (lambda s: ptx.mapa(s.r, 0, ty=u16), "unknown modifier '.u16' for mapa"),
        (lambda s: ptx.mapa(s.r, 0, dst=s.d), r"\(d\) expects a 32-bit register for \.u32"),
        (lambda s: ptx.getctarank(s.r, dst=s.h), r"\(d\) expects a 32-bit register for \.u32"),
        (lambda s: ptx.getctarank(1234), r"\(a\) expects a register or a symbol, but got the imm"),
        (lambda s: ptx.elect.sync(1 << 32), r"membermask must be in \[0, 4294967295\]"),
        (lambda s: ptx.elect.sync(s.h), TABLE),
        (lambda s: ptx.elect.sync(lane="yes"), "lane= takes True or False"),
        (
            lambda s: ptx.clusterlaunchcontrol.query_cancel.is_canceled(s.d),
            r"\(response\) expects a 128-bit register for \.b128, but %rd0 is declared \.b64",
        ),
        (
            lambda s: ptx.clusterlaunchcontrol.query_cancel.get_first_ctaid(s.q, "w"),
            "unknown modifier '.get_first_ctaid::w'",
        ),
        (
            lambda s: ptx.clusterlaunchcontrol.try_cancel(s.buf, s.bars[0], space="shared"),
            "unknown modifier '.shared' for clusterlaunchcontrol.try_cancel",
        ),
        (
            lambda s: ptx.clusterlaunchcontrol.try_cancel(s.r, s.bars[0], space=None),
            "result must be a 64-bit address register",
        ),
        (
            lambda s: ptx.setmaxnreg.inc(20),
            r"\(imm-reg-count\) must be from 24 to 256 in steps of 8, but got 20",
        ),
        (lambda s: ptx.setmaxnreg.dec(100), r"must be from 24 to 256 in steps of 8, but got 100"),
        (lambda s: ptx.setmaxnreg.inc(s.r), "register count must be a Python int, but got %r0"),
        (lambda s: ptx.setmaxnreg(64, inc=0), "inc= takes True or False"),
    ],
)
def test_cluster_errors_point_at_the_call(make, match) -> None:  # type: ignore[no-untyped-def]
    _fails(make, match)
