"""``mbarrier``: the split-phase barrier object in shared memory (and ``cp.async``'s arrive)."""

from __future__ import annotations

from dataclasses import replace

from ._common import (
    IMM,
    NO_GATE,
    REG,
    SINK,
    Form,
    InstructionSpec,
    addr,
    form,
    grp,
    opd,
    pdst,
    req,
    since,
    spec,
)
from ._model import Gate, ModifierGroup, OperandSpec

__all__ = ["SPECS"]

_FAM = "parallel synchronization and communication"
_A = "parallel-synchronization-and-communication-instructions-mbarrier-"
_SM80 = since((7, 0), 80)
_SM90 = since((8, 0), 90)
_CTA_SPACES = ("shared", "shared::cta")
_SPACE_GATES = {"shared::cta": since((7, 8), 80), "shared::cluster": _SM90}
_SEM_GATES = {
    "release": since((8, 0), 80),
    "acquire": since((8, 0), 80),
    "relaxed": since((8, 6), 90),
}
_SCOPE_GATES = {"cta": since((8, 0), 80), "cluster": _SM90}
_B64 = req("type", ("b64",))


def _space(cluster: bool = False) -> ModifierGroup:
    return grp(
        "space", (*_CTA_SPACES, *(("shared::cluster",) if cluster else ())), gates=_SPACE_GATES
    )


def _ordered(
    head: list[ModifierGroup],
    sems: tuple[str, ...],
    scopes: tuple[str, ...],
    tail: list[ModifierGroup],
    operands: tuple[OperandSpec, ...],
    gate: Gate = NO_GATE,
    note: str = "",
) -> list[Form]:
    """A form without ``.sem.scope`` and one with both: PTX takes them only together."""
    sem = req("sem", sems, gates=_SEM_GATES)
    scope = req("scope", scopes, gates=_SCOPE_GATES)
    with_ = f"{note}, with .sem.scope" if note else "with .sem.scope"
    return [
        form([*head, *tail], operands, gate, note),
        form([*head, sem, scope, *tail], operands, gate, with_),
    ]


_SCOPES = ("cta", "cluster")
_U32 = (range(1 << 32),)
_COUNTS = (range(1, 1 << 20),)
_BYTES = (range(1 << 20),)
_COUNT = opd("count", REG | IMM, "b32", values=lambda _: _COUNTS, doc="arrivals, 1 to 2^20-1")
_TX_COUNT = opd("txCount", REG | IMM, "b32", values=lambda _: _BYTES, doc="0 to 2^20-1 bytes")
_PARITY = ((0, 1),)

MBARRIER_INIT = spec(
    "mbarrier.init",
    [form([_space(), _B64], (addr("addr"), _COUNT))],
    _SM80,
    _A + "init",
    "Initialise an mbarrier with an expected arrival count.",
    _FAM,
    examples=("mbarrier.init.shared::cta.b64 [%r1], 128;",),
)

MBARRIER_INVAL = spec(
    "mbarrier.inval",
    [form([_space(), _B64], (addr("addr"),))],
    _SM80,
    _A + "inval",
    "Invalidate an mbarrier so that its memory can be reused.",
    _FAM,
    examples=("mbarrier.inval.shared::cta.b64 [%r1];",),
)


def _tx(name: str, summary: str) -> InstructionSpec:
    return spec(
        f"mbarrier.{name}",
        _ordered([], ("relaxed",), _SCOPES, [_space(True), _B64], (addr("addr"), _TX_COUNT)),
        _SM90,
        _A + name.replace("_", "-"),
        summary,
        _FAM,
        examples=(f"mbarrier.{name}.relaxed.cta.shared::cta.b64 [%r1], 1024;",),
    )


MBARRIER_EXPECT_TX = _tx("expect_tx", "Raise the pending transaction count of an mbarrier.")
MBARRIER_COMPLETE_TX = _tx("complete_tx", "Complete transactions on an mbarrier.")

_LOCAL_STATE = opd("state", REG | SINK, "b64")
_REMOTE_STATE = opd("state", SINK, doc="a barrier of another CTA returns no state: _")
_REMOTE = req("space", ("shared::cluster",), gates=_SPACE_GATES)


def _arriving(
    head: list[ModifierGroup],
    sems: tuple[str, ...],
    scopes: tuple[str, ...],
    rest: tuple[OperandSpec, ...],
    gate: Gate = NO_GATE,
    note: str = "",
    cluster: bool = True,
) -> list[Form]:
    """The forms of an arrive on a barrier of this CTA and, with ``cluster``, of another."""
    tail = [_space(), _B64]
    forms = _ordered(head, sems, scopes, tail, (_LOCAL_STATE, *rest), gate, note)
    if cluster:
        remote = (_REMOTE_STATE, *rest)
        forms += _ordered(head, sems, scopes, [_REMOTE, _B64], remote, gate, f"{note}, remote")
    return forms


def _arrive_forms() -> list[Form]:
    count = replace(_COUNT, optional=True, gate=since((7, 8), 90))
    rel = ("release", "relaxed")
    return [
        *_arriving([], rel, _SCOPES, (addr("addr"), count), note="arrive"),
        *_arriving(
            [req("variant", ("expect_tx",))],
            rel,
            _SCOPES,
            (addr("addr"), _TX_COUNT),
            _SM90,
            "arrive with expect_tx",
        ),
        *_arriving(
            [req("variant", ("noComplete",))],
            ("release",),
            ("cta",),
            (addr("addr"), _COUNT),
            note="arrive without completing the phase",
            cluster=False,
        ),
    ]


MBARRIER_ARRIVE = spec(
    "mbarrier.arrive",
    _arrive_forms(),
    _SM80,
    _A + "arrive",
    "Arrive on an mbarrier (optionally raising its expected transaction count).",
    _FAM,
    examples=(
        "mbarrier.arrive.shared::cta.b64 %rd1, [%r1];",
        "mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [%r1], 1024;",
    ),
)

MBARRIER_ARRIVE_DROP = spec(
    "mbarrier.arrive_drop",
    _arrive_forms(),
    _SM80,
    _A + "arrive-drop",
    "Arrive on an mbarrier and drop this thread from future phases.",
    _FAM,
    examples=("mbarrier.arrive_drop.shared::cta.b64 %rd1, [%r1];",),
)


def _wait(name: str, gate_: Gate, summary: str, hint: bool) -> InstructionSpec:
    hint_ = opd("suspendTimeHint", REG | IMM, "b32", optional=True, values=lambda _: _U32)
    extra = (hint_,) if hint else ()
    tail = [_space(), _B64]
    parity = [req("parity", ("parity",), gates={"parity": since((7, 1), 80)})]
    sems = ("acquire", "relaxed")
    wait, addr_ = pdst("waitComplete"), addr("addr")
    state = opd("state", REG, "b64", doc="the state mbarrier.arrive returned")
    phase = opd("phaseParity", REG | IMM, "b32", values=lambda _: _PARITY)
    return spec(
        f"mbarrier.{name}",
        [
            *_ordered([], sems, _SCOPES, tail, (wait, addr_, state, *extra), note="phase state"),
            *_ordered(
                parity, sems, _SCOPES, tail, (wait, addr_, phase, *extra), note="phase parity"
            ),
        ],
        gate_,
        _A + "test-wait-mbarrier-try-wait",
        summary,
        _FAM,
        examples=(f"mbarrier.{name}.parity.shared::cta.b64 %p1, [%r1], %r2;",),
    )


MBARRIER_TEST_WAIT = _wait(
    "test_wait", _SM80, "Test (without blocking) whether a phase completed.", False
)
MBARRIER_TRY_WAIT = _wait(
    "try_wait", since((7, 8), 90), "Wait, for a bounded time, for a phase to complete.", True
)

MBARRIER_PENDING_COUNT = spec(
    "mbarrier.pending_count",
    [form([_B64], (opd("count", REG, "b32"), opd("state", REG, "b64")))],
    _SM80,
    _A + "pending-count",
    "The pending arrival count held in an mbarrier state.",
    _FAM,
    examples=("mbarrier.pending_count.b64 %r1, %rd1;",),
)

CP_ASYNC_MBARRIER_ARRIVE = spec(
    "cp.async.mbarrier.arrive",
    [form([grp("noinc", ("noinc",)), _space(), _B64], (addr("addr"),))],
    _SM80,
    "parallel-synchronization-and-communication-instructions-cp-async-mbarrier-arrive",
    "Arrive on an mbarrier once this thread's prior cp.async operations complete.",
    _FAM,
    examples=("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r1];",),
)

SPECS: tuple[InstructionSpec, ...] = (
    MBARRIER_INIT,
    MBARRIER_INVAL,
    MBARRIER_EXPECT_TX,
    MBARRIER_COMPLETE_TX,
    MBARRIER_ARRIVE,
    MBARRIER_ARRIVE_DROP,
    MBARRIER_TEST_WAIT,
    MBARRIER_TRY_WAIT,
    MBARRIER_PENDING_COUNT,
    CP_ASYNC_MBARRIER_ARRIVE,
)
"""The instructions of this family."""
