"""The sync family's wrappers against the ISA table: every form it allows, and its reasons.

For each instruction the sync wrappers emit (barriers, fences, mbarrier, cluster, warp
exchange and votes), every form of :data:`pyptx.ir.isa.SPECS` is enumerated (each value of
each modifier slot at least once, the whole product where it is small), the matching
``ptx.*`` call is traced at the lowest target and ``.version`` the table's gates admit, and
the call must emit exactly that instruction. Then, per family, calls the table rejects (a
modifier combination it lacks, a gate not met, an immediate out of range) must fail at the
user's line with the table's own reason, computed here with :func:`pyptx.ir.isa.check`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import SimpleNamespace

import pytest
from dsl_testing import assignments, body, check_reason, insn, lowest_target, rejects_at

from pyptx import kernel, ptx, reg, smem
from pyptx.ir import TARGETS, Address, Immediate, Instruction, PredPair, Register, Sink, Symbol, isa
from pyptx.ir.isa import _mbarrier, _sync
from pyptx.types import b32, b64, b128, f32, pred, s32, u32, u64

Slots = dict[str, str | None]
Call = Callable[[Slots, SimpleNamespace], object]


def _regs() -> SimpleNamespace:
    return SimpleNamespace(
        p=reg.scalar(pred),
        q=reg.scalar(pred),
        r=reg.scalar(u32),
        s=reg.scalar(s32),
        b=reg.scalar(b32),
        f=reg.scalar(f32),
        d=reg.scalar(b64),
        w=reg.scalar(u64),
        x=reg.scalar(b128),
        bars=smem.mbarrier(2),
        buf=smem.alloc(u32, 4, align=16),
    )


def _on(s: Slots, name: str) -> bool:
    return s.get(name) is not None


def _red(fam: object, s: Slots, n: SimpleNamespace) -> object:
    op = {"popc": "popc", "and": "and_", "or": "or_"}[str(s["op"])]
    if fam is ptx.bar.red:
        return getattr(fam, op)(0, n.p, count=64)
    return getattr(fam, op)(0, n.p, count=64, aligned=_on(s, "aligned"))


def _fence(s: Slots, n: SimpleNamespace) -> object:
    restrict = s.get("restrict")
    sr = restrict.removeprefix("sync_restrict::") if restrict else None
    return ptx.fence(s["scope"], sem=s.get("sem"), sync_restrict=sr)


def _proxy(s: Slots, n: SimpleNamespace) -> object:
    if s["kind"] == "alias":
        return ptx.fence.proxy.alias()
    if s["kind"] == "async":
        return ptx.fence.proxy.async_(s.get("space"))
    return getattr(ptx.fence.proxy.async_generic, str(s["sem"]))()


def _tensormap(s: Slots, n: SimpleNamespace) -> object:
    tm = ptx.fence.proxy.tensormap_generic
    if s["sem"] == "release":
        return tm.release(s["scope"])
    return tm.acquire(s["scope"], n.d)


def _bar_for(s: Slots, n: SimpleNamespace) -> object:
    """A barrier operand fitting the slot ``space``: generic, local or remote."""
    space = s.get("space")
    return n.d if space is None else n.r if space == "shared::cluster" else n.bars[0]


def _mb_kw(s: Slots) -> dict[str, object]:
    return {"sem": s.get("sem"), "scope": s.get("scope"), "space": s.get("space")}


def _arrive(name: str) -> Call:
    def call(s: Slots, n: SimpleNamespace) -> object:
        fam = getattr(ptx.mbarrier, name)
        bar = _bar_for(s, n)
        if s.get("variant") == "expect_tx":
            return fam.expect_tx(bar, 64, **_mb_kw(s))
        if s.get("variant") == "noComplete":
            return fam.noComplete(bar, 1, **_mb_kw(s))
        return fam(bar, **_mb_kw(s))

    return call


def _wait(name: str) -> Call:
    def call(s: Slots, n: SimpleNamespace) -> object:
        fam = getattr(ptx.mbarrier, name)
        bar = _bar_for(s, n)
        if _on(s, "parity"):
            return fam.parity(bar, 0, **_mb_kw(s))
        return fam(bar, n.d, **_mb_kw(s))

    return call


def _query(s: Slots, n: SimpleNamespace) -> object:
    qc = ptx.clusterlaunchcontrol.query_cancel
    query = str(s["query"])
    if query == "is_canceled":
        return qc.is_canceled(n.x)
    dim = query.partition("::")[2] or None
    return qc.get_first_ctaid(n.x, dim)


def _redux(s: Slots, n: SimpleNamespace) -> object:
    x = {"u32": n.r, "s32": n.s, "b32": n.b, "f32": n.f}[str(s["type"])]
    return ptx.redux.sync(x, x, -1, op=s["op"], abs=_on(s, "abs"), nan=_on(s, "NaN"))


def _addr(s: Slots, n: SimpleNamespace) -> object:
    return n.w if s["type"] == "u64" else n.r


CALLS: dict[str, Call] = {
    "bar.sync": lambda s, n: ptx.bar.sync(1, 64),
    "bar.arrive": lambda s, n: ptx.bar.arrive(1, 64),
    "bar.red": lambda s, n: _red(ptx.bar.red, s, n),
    "barrier.sync": lambda s, n: ptx.barrier.sync(1, 64, aligned=_on(s, "aligned")),
    "barrier.arrive": lambda s, n: ptx.barrier.arrive(1, 64, aligned=_on(s, "aligned")),
    "barrier.red": lambda s, n: _red(ptx.barrier.red, s, n),
    "bar.warp.sync": lambda s, n: ptx.bar.warp.sync(),
    "barrier.cluster.arrive": lambda s, n: ptx.barrier.cluster.arrive(
        sem=s.get("sem"), aligned=_on(s, "aligned")
    ),
    "barrier.cluster.wait": lambda s, n: ptx.barrier.cluster.wait(
        sem=s.get("sem"), aligned=_on(s, "aligned")
    ),
    "membar": lambda s, n: ptx.membar(s["level"]),
    "fence": _fence,
    "fence.mbarrier_init": lambda s, n: ptx.fence.mbarrier_init(),
    "fence.proxy": _proxy,
    "fence.proxy.tensormap::generic": _tensormap,
    "vote.sync": lambda s, n: ptx.vote.sync(
        n.r if s["mode"] == "ballot" else n.q, n.p, -1, mode=s["mode"]
    ),
    "match.any.sync": lambda s, n: ptx.match.sync(
        n.r, n.d if s["type"] == "b64" else n.r, -1, mode="any"
    ),
    "match.all.sync": lambda s, n: ptx.match.sync(
        (n.r, n.p), n.d if s["type"] == "b64" else n.r, -1, mode="all"
    ),
    "activemask": lambda s, n: ptx.activemask(n.r),
    "redux.sync": _redux,
    "elect.sync": lambda s, n: ptx.elect.sync(),
    "griddepcontrol": lambda s, n: getattr(ptx.griddepcontrol, str(s["action"]))(),
    "setmaxnreg": lambda s, n: getattr(ptx.setmaxnreg, str(s["action"]))(64),
    "clusterlaunchcontrol.try_cancel": lambda s, n: ptx.clusterlaunchcontrol.try_cancel(
        n.buf if _on(s, "space") else n.d,
        n.bars[0] if _on(s, "space") else n.d,
        multicast=_on(s, "multicast"),
        space=s.get("space"),
    ),
    "clusterlaunchcontrol.query_cancel": _query,
    "mbarrier.init": lambda s, n: ptx.mbarrier.init(_bar_for(s, n), 1, space=s.get("space")),
    "mbarrier.inval": lambda s, n: ptx.mbarrier.inval(_bar_for(s, n), space=s.get("space")),
    "mbarrier.expect_tx": lambda s, n: ptx.mbarrier.expect_tx(_bar_for(s, n), 64, **_mb_kw(s)),
    "mbarrier.complete_tx": lambda s, n: ptx.mbarrier.complete_tx(_bar_for(s, n), 64, **_mb_kw(s)),
    "mbarrier.arrive": _arrive("arrive"),
    "mbarrier.arrive_drop": _arrive("arrive_drop"),
    "mbarrier.test_wait": _wait("test_wait"),
    "mbarrier.try_wait": _wait("try_wait"),
    "mbarrier.pending_count": lambda s, n: ptx.mbarrier.pending_count(n.d),
    "shfl.sync": lambda s, n: ptx.shfl.sync(n.r, n.r, 1, 31, -1, mode=s["mode"]),
    "mapa": lambda s, n: ptx.mapa(
        _addr(s, n), 0, space=s.get("space"), ty=u64 if s["type"] == "u64" else u32
    ),
    "getctarank": lambda s, n: ptx.getctarank(
        _addr(s, n), space=s.get("space"), ty=u64 if s["type"] == "u64" else u32
    ),
    "nanosleep": lambda s, n: ptx.nanosleep(100),
}
"""Spec name -> the wrapper call that emits a form of it with the given slot values."""

NOT_WRAPPED = {
    "vote": "deprecated vote without a mask; ptx.vote.sync emits vote.sync",
    "cp.async.mbarrier.arrive": "emitted by the cp.async family's wrappers",
}
"""Specs of the sync ISA modules that no sync wrapper emits, and why."""

NOT_WRAPPED_FORMS = {("membar", "proxy"): "membar.proxy.alias; ptx.fence.proxy.alias() is the same"}
"""(spec, form note) pairs no sync wrapper emits, and why."""


def test_every_sync_spec_has_a_wrapper_or_a_reason() -> None:
    names = {sp.name for sp in (*_sync.SPECS, *_mbarrier.SPECS)}
    assert names <= set(CALLS) | set(NOT_WRAPPED), sorted(names - set(CALLS) - set(NOT_WRAPPED))


def _wrapped_forms() -> Iterator[tuple[str, int, isa.Form]]:
    for name in CALLS:
        for i, form in enumerate(isa.SPECS[name].forms):
            if (name, form.note) not in NOT_WRAPPED_FORMS:
                yield name, i, form


def _cases() -> Iterator[tuple[str, int, str, Slots]]:
    for name, i, form in _wrapped_forms():
        for slots in assignments(form):
            mnemonic = ".".join((name, *(v for g in form.groups if (v := slots[g.name]))))
            m = isa.match(insn(mnemonic))
            if m is not None and m.form is form:  # else an earlier form takes them
                yield name, i, mnemonic, slots


CASES = list(_cases())


def test_the_enumeration_covers_every_form_and_value() -> None:
    seen: dict[tuple[str, int], set[tuple[str, str]]] = {}
    for name, i, _, slots in CASES:
        seen.setdefault((name, i), set()).update((k, v) for k, v in slots.items() if v)
    for name, i, form in _wrapped_forms():
        assert (name, i) in seen, (name, form.note)
        for g in form.groups:
            for v in g.values:
                assert (g.name, v) in seen[name, i], (name, form.note, g.name, v)


@pytest.mark.parametrize(
    ("name", "mnemonic", "slots"), [pytest.param(c[0], c[2], c[3], id=c[2]) for c in CASES]
)
def test_wrapper_emits_each_form_the_table_allows(name: str, mnemonic: str, slots: Slots) -> None:
    req = isa.requirements(insn(mnemonic))
    assert req is not None
    target = lowest_target(req)
    version = max(req.min_ptx, TARGETS[target].min_ptx)
    call = CALLS[name]

    @kernel(arch=target, version=version)
    def k() -> None:
        call(slots, _regs())

    lines = body(k.ptx())
    assert any(ln == f"{mnemonic};" or ln.startswith(f"{mnemonic} ") for ln in lines), lines


def _atom(text: str) -> object:
    if text == "_":
        return Sink()
    if "|" in text:
        first, second = text.split("|")
        return PredPair(_atom(first), _atom(second))  # type: ignore[arg-type]
    if text.startswith("["):
        inner = text[1:-1]
        return Address(Register(inner) if inner.startswith("%") else Symbol(inner))
    return Register(text) if text.startswith("%") else Immediate(text)


def _parse(text: str) -> Instruction:
    mnemonic, _, ops = text.rstrip(";").partition(" ")
    return insn(mnemonic, tuple(_atom(t) for t in ops.split(", ") if t))


REJECTED: list[tuple[str, Callable[[SimpleNamespace], object], str, tuple[int, int] | None]] = [
    # bar / barrier: an immediate out of range, a gate not met
    ("bar.sync 16;", lambda n: ptx.bar.sync(16), "sm_80", None),
    ("bar.sync 0, 48;", lambda n: ptx.bar.sync(0, 48), "sm_80", None),
    ("barrier.cta.sync 0;", lambda n: ptx.barrier.sync(0, cta=True), "sm_80", (7, 7)),
    # fences: a pairing PTX lacks, a target without the proxy fence
    (
        "fence.acquire.sync_restrict::shared::cta.cluster;",
        lambda n: ptx.fence("cluster", sem="acquire", sync_restrict="shared::cta"),
        "sm_90a",
        None,
    ),
    ("fence.proxy.async;", lambda n: ptx.fence.proxy.async_(), "sm_80", None),
    # mbarrier: sem without scope, expect_tx before sm_90, a parity that is not 0/1
    (
        "mbarrier.arrive.release.shared.b64 %rd0, [mbar_0];",
        lambda n: ptx.mbarrier.arrive(n.bars[0], sem="release"),
        "sm_90a",
        None,
    ),
    (
        "mbarrier.arrive.expect_tx.shared.b64 %rd0, [mbar_0], 64;",
        lambda n: ptx.mbarrier.arrive.expect_tx(n.bars[0], 64),
        "sm_80",
        None,
    ),
    (
        "mbarrier.try_wait.parity.shared.b64 %p2, [mbar_0], 2;",
        lambda n: ptx.mbarrier.try_wait.parity(n.bars[0], 2),
        "sm_90a",
        None,
    ),
    (
        "mbarrier.init.shared.b64 [mbar_0], 0;",
        lambda n: ptx.mbarrier.init(n.bars[0], 0),
        "sm_80",
        None,
    ),
    (
        "mbarrier.test_wait.shared.b64 %p2, [mbar_0], 0;",
        lambda n: ptx.mbarrier.test_wait(n.bars[0], 0),
        "sm_80",
        None,
    ),
    ("nanosleep.u32 -1;", lambda n: ptx.nanosleep(-1), "sm_80", None),
    # cluster: targets without elect / griddepcontrol / f32 redux, a register count
    ("elect.sync _|%p2, 0xffffffff;", lambda n: ptx.elect.sync(), "sm_80", None),
    ("griddepcontrol.wait;", lambda n: ptx.griddepcontrol.wait(), "sm_80", None),
    ("setmaxnreg.dec.sync.aligned.u32 100;", lambda n: ptx.setmaxnreg.dec(100), "sm_90a", None),
    ("barrier.cluster.wait.release;", lambda n: ptx.cluster.wait(sem="release"), "sm_90a", None),
    # warp: a shuffle mode, an f32 reduction on sm_90a, a predicate output on match.any
    (
        "shfl.sync.xor.b32 %r0, %r0, 1, 31, -1;",
        lambda n: ptx.shfl.sync(n.r, n.r, 1, 31, -1, mode="xor"),
        "sm_80",
        None,
    ),
    (
        "redux.sync.min.f32 %f0, %f0, -1;",
        lambda n: ptx.redux.sync(n.f, n.f, -1, op="min"),
        "sm_90a",
        None,
    ),
    (
        "redux.sync.max.abs.u32 %r0, %r0, -1;",
        lambda n: ptx.redux.sync(n.r, n.r, -1, op="max", abs=True),
        "sm_90a",
        None,
    ),
]
"""(the instruction the call would emit, the call, target, pinned .version) the table rejects."""


@pytest.mark.parametrize(
    ("text", "make", "arch", "version"), [pytest.param(*c, id=c[0]) for c in REJECTED]
)
def test_wrapper_rejects_with_the_tables_reason(
    text: str,
    make: Callable[[SimpleNamespace], object],
    arch: str,
    version: tuple[int, int] | None,
) -> None:
    reason = check_reason(_parse(text), arch, version)

    @kernel(arch=arch, version=version)
    def k() -> None:
        n = _regs()
        make(n)

    rejects_at(k, reason, make)
