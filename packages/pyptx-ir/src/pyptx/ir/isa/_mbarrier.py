"""``mbarrier``: the split-phase barrier object in shared memory (and ``cp.async``'s arrive)."""

from __future__ import annotations

from ._common import (
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
    src,
)
from ._model import Gate, ModifierGroup

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


def _sem(*values: str) -> ModifierGroup:
    return grp("sem", values, gates=_SEM_GATES)


_SCOPE = grp("scope", ("cta", "cluster"), gates=_SCOPE_GATES)

MBARRIER_INIT = spec(
    "mbarrier.init",
    [form([_space(), _B64], (addr("addr"), src("count", "b32")))],
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
        [
            form(
                [grp("sem", ("relaxed",)), _SCOPE, _space(True), _B64],
                (addr("addr"), src("txCount", "b32")),
            )
        ],
        _SM90,
        _A + name.replace("_", "-"),
        summary,
        _FAM,
        examples=(f"mbarrier.{name}.relaxed.cta.shared::cta.b64 [%r1], 1024;",),
    )


MBARRIER_EXPECT_TX = _tx("expect_tx", "Raise the pending transaction count of an mbarrier.")
MBARRIER_COMPLETE_TX = _tx("complete_tx", "Complete transactions on an mbarrier.")

_STATE = opd("state", REG | SINK, "b64")


def _arrive_forms() -> list[Form]:
    return [
        form(
            [_sem("release", "relaxed"), _SCOPE, _space(True), _B64],
            (_STATE, addr("addr"), src("count", "b32", optional=True, gate=since((7, 8), 90))),
            note="arrive",
        ),
        form(
            [
                req("variant", ("expect_tx",)),
                _sem("release", "relaxed"),
                _SCOPE,
                _space(True),
                _B64,
            ],
            (_STATE, addr("addr"), src("txCount", "b32")),
            _SM90,
            "arrive with expect_tx",
        ),
        form(
            [
                req("variant", ("noComplete",)),
                _sem("release"),
                grp("scope", ("cta",)),
                _space(),
                _B64,
            ],
            (_STATE, addr("addr"), src("count", "b32")),
            note="arrive without completing the phase",
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
    extra = (src("suspendTimeHint", "b32", optional=True),) if hint else ()
    return spec(
        f"mbarrier.{name}",
        [
            form(
                [_sem("acquire", "relaxed"), _SCOPE, _space(), _B64],
                (pdst("waitComplete"), addr("addr"), src("state", "b64"), *extra),
                note="phase state",
            ),
            form(
                [
                    req("parity", ("parity",), gates={"parity": since((7, 1), 80)}),
                    _sem("acquire", "relaxed"),
                    _SCOPE,
                    _space(),
                    _B64,
                ],
                (pdst("waitComplete"), addr("addr"), src("phaseParity", "b32"), *extra),
                note="phase parity",
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
    [form([_B64], (opd("count", REG, "b32"), src("state", "b64")))],
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
