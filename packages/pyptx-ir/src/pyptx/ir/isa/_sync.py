"""Barriers, fences and warp/cluster-wide communication.

``bar``/``barrier``, ``bar.warp.sync``, ``barrier.cluster``, ``membar``/``fence`` (and the
proxy fences), ``vote``, ``match``, ``redux.sync``, ``activemask``, ``elect.sync``,
``griddepcontrol``, ``setmaxnreg`` and ``clusterlaunchcontrol``.
"""

from __future__ import annotations

from dataclasses import replace

from ._common import (
    IMM,
    NO_GATE,
    REG,
    SCOPES,
    SINK,
    VEC,
    InstructionSpec,
    addr,
    arch,
    dst,
    form,
    grp,
    opd,
    pdst,
    psrc,
    req,
    since,
    spec,
    src,
)
from ._model import Form, Gate, ModifierGroup, OperandKind

__all__ = ["SPECS"]

_FAM = "parallel synchronization and communication"
_A = "parallel-synchronization-and-communication-instructions-"
_SM90 = since((7, 8), 90)
_BAR = _A + "bar-barrier"
_ALIGNED = grp("aligned", ("aligned",))
_CTA = since((7, 8), 0)
_CLUSTER = req("scope", ("cluster",))
_BARRIERS = (range(16),)
_THREADS = (range(32, 1025, 32),)
_BAR_A = opd("a", REG | IMM, "b32", values=lambda _: _BARRIERS, doc="barrier 0..15")
_BAR_B = opd("b", REG | IMM, "b32", values=lambda _: _THREADS, doc="threads, a multiple of 32")


def _bar(name: str, gate_: Gate, examples: tuple[str, ...], aligned: bool) -> list[InstructionSpec]:
    """bar/barrier .sync, .arrive and .red (``aligned``: the ``barrier`` spelling)."""
    al = [_ALIGNED] if aligned else []
    both = ("bar.", "barrier.")[aligned]
    sync = spec(
        f"{name}.sync",
        [form(al, (_BAR_A, replace(_BAR_B, optional=True)))],
        gate_,
        _BAR,
        "Wait until the named barrier's thread count has arrived.",
        _FAM,
        aliases=(f"{name}.cta.sync",),
        alias_gates={f"{name}.cta.sync": _CTA},
        examples=examples[:1],
    )
    arrive = spec(
        f"{name}.arrive",
        [form(al, (_BAR_A, _BAR_B))],
        gate_,
        _BAR,
        "Arrive at a named barrier without waiting.",
        _FAM,
        aliases=(f"{name}.cta.arrive",),
        alias_gates={f"{name}.cta.arrive": _CTA},
        examples=(f"{both}arrive 1, 64;",),
    )
    red = spec(
        f"{name}.red",
        [
            form(
                [req("op", ("popc",)), *al, req("type", ("u32",))],
                (dst("u32"), _BAR_A, replace(_BAR_B, optional=True), psrc("c")),
                note="population count",
            ),
            form(
                [req("op", ("and", "or")), *al, req("type", ("pred",))],
                (pdst(), _BAR_A, replace(_BAR_B, optional=True), psrc("c")),
                note="predicate reduction",
            ),
        ],
        gate_,
        _BAR,
        "Barrier that also reduces a predicate across the participating threads.",
        _FAM,
        aliases=(f"{name}.cta.red",),
        alias_gates={f"{name}.cta.red": _CTA},
        examples=(f"{both}red.popc.u32 %r1, 0, %p1;",),
    )
    return [sync, arrive, red]


BAR = _bar("bar", NO_GATE, ("bar.sync 0;",), aligned=False)
BARRIER = _bar("barrier", since((6, 0), 70), ("barrier.sync.aligned 0;",), aligned=True)

BAR_WARP_SYNC = spec(
    "bar.warp.sync",
    [form([], (src("membermask", "b32"),))],
    since((6, 0), 30),
    _A + "bar-warp-sync",
    "Synchronize the threads of a warp named by a mask.",
    _FAM,
    examples=("bar.warp.sync -1;",),
)

BARRIER_CLUSTER_ARRIVE = spec(
    "barrier.cluster.arrive",
    [
        form(
            [
                grp(
                    "sem",
                    ("release", "relaxed"),
                    gates={"release": since((8, 0), 90), "relaxed": since((8, 0), 90)},
                ),
                _ALIGNED,
            ],
            (),
        )
    ],
    _SM90,
    _A + "barrier-cluster",
    "Arrive at the cluster-wide barrier.",
    _FAM,
    examples=("barrier.cluster.arrive.release.aligned;",),
)

BARRIER_CLUSTER_WAIT = spec(
    "barrier.cluster.wait",
    [form([grp("sem", ("acquire",), gates={"acquire": since((8, 0), 90)}), _ALIGNED], ())],
    _SM90,
    _A + "barrier-cluster",
    "Wait until every thread of the cluster has arrived at the cluster barrier.",
    _FAM,
    examples=("barrier.cluster.wait.acquire.aligned;",),
)

MEMBAR = spec(
    "membar",
    [
        form(
            [req("level", ("cta", "gl", "sys"), gates={"sys": since((2, 0), 20)})], (), note="level"
        ),
        form([req("proxy", ("proxy",)), req("kind", ("alias",))], (), since((7, 5), 70), "proxy"),
    ],
    NO_GATE,
    _A + "membar-fence",
    "Memory barrier at a level of the hierarchy (prefer fence).",
    _FAM,
    examples=("membar.gl;",),
)

_FENCE_SEM = ("sc", "acq_rel", "acquire", "release")
_ACQ_REL = since((8, 6), 90)


def _restricted(head: list[ModifierGroup], note: str) -> list[Form]:
    """The ``.sync_restrict`` fences: acquire with shared::cluster, release with shared::cta.

    Both are at cluster scope; ptxas rejects the other pairings.
    """
    return [
        form(
            [*head, req("sem", (sem,)), req("restrict", (f"sync_restrict::{space}",)), _CLUSTER],
            (),
            since((8, 6), 90),
            f"{note}, {sem}",
        )
        for sem, space in (("acquire", "shared::cluster"), ("release", "shared::cta"))
    ]


FENCE = spec(
    "fence",
    [
        form(
            [
                grp("sem", _FENCE_SEM, gates={"acquire": _ACQ_REL, "release": _ACQ_REL}),
                req("scope", SCOPES, gates={"cluster": _SM90}),
            ],
            (),
            note="memory ordering",
        ),
        *_restricted([], "restricted to shared memory"),
    ],
    since((6, 0), 70),
    _A + "membar-fence",
    "Order this thread's memory accesses at a scope.",
    _FAM,
    examples=("fence.acq_rel.gpu;", "fence.sc.cta;"),
)

FENCE_MBARRIER_INIT = spec(
    "fence.mbarrier_init",
    [form([req("sem", ("release",)), req("scope", ("cluster",))], ())],
    since((8, 0), 90),
    _A + "membar-fence",
    "Make prior mbarrier.init operations visible to the cluster (release).",
    _FAM,
    examples=("fence.mbarrier_init.release.cluster;",),
)

FENCE_PROXY = spec(
    "fence.proxy",
    [
        form([req("kind", ("alias",))], (), since((7, 5), 70), "alias"),
        form(
            [req("kind", ("async",)), grp("space", ("global", "shared::cta", "shared::cluster"))],
            (),
            since((8, 0), 90),
            "async",
        ),
        *_restricted([req("kind", ("async::generic",))], "async::generic, restricted"),
    ],
    NO_GATE,
    _A + "membar-fence",
    "Order memory accesses between the generic proxy and another proxy.",
    _FAM,
    examples=("fence.proxy.async.shared::cta;",),
)

FENCE_PROXY_TENSORMAP = spec(
    "fence.proxy.tensormap::generic",
    [
        form([req("sem", ("release",)), req("scope", SCOPES)], (), note="release"),
        form(
            [req("sem", ("acquire",)), req("scope", SCOPES)],
            (addr("addr"), opd("size", IMM, values=lambda _: ((128,),))),
            note="acquire",
        ),
    ],
    since((8, 3), 90),
    _A + "membar-fence",
    "Order a tensor-map update in generic memory with its use by the tensor-map proxy.",
    _FAM,
    examples=("fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;",),
)

_VOTE = ("all", "any", "uni")

VOTE_SYNC = spec(
    "vote.sync",
    [
        form(
            [req("mode", _VOTE), req("type", ("pred",))],
            (pdst("d"), psrc("a"), src("membermask", "b32")),
            note="predicate",
        ),
        form(
            [req("mode", ("ballot",)), req("type", ("b32",))],
            (dst(), psrc("a"), src("membermask", "b32")),
            note="ballot",
        ),
    ],
    since((6, 0), 30),
    _A + "vote-sync",
    "Vote across the threads of a warp named by a mask.",
    _FAM,
    examples=("vote.sync.ballot.b32 %r1, %p1, -1;", "vote.sync.all.pred %p1, %p2, -1;"),
)

VOTE = spec(
    "vote",
    [
        form(
            [req("mode", _VOTE), req("type", ("pred",))], (pdst("d"), psrc("a")), note="predicate"
        ),
        form([req("mode", ("ballot",)), req("type", ("b32",))], (dst(), psrc("a")), note="ballot"),
    ],
    since((1, 2), 12),
    _A + "vote-deprecated",
    "Vote across the warp without a mask (deprecated; not available on sm_70 and newer).",
    _FAM,
    examples=("vote.any.pred %p1, %p2;",),
)

_MATCH = since((6, 0), 70)

MATCH_ANY = spec(
    "match.any.sync",
    [form([req("type", ("b32", "b64"))], (dst("b32"), src("a"), src("membermask", "b32")))],
    _MATCH,
    _A + "match-sync",
    "Mask of the lanes whose value equals this lane's.",
    _FAM,
    examples=("match.any.sync.b32 %r1, %r2, -1;",),
)

MATCH_ALL = spec(
    "match.all.sync",
    [
        form(
            [req("type", ("b32", "b64"))],
            (opd("d", REG | OperandKind.PRED_PAIR, "b32"), src("a"), src("membermask", "b32")),
        )
    ],
    _MATCH,
    _A + "match-sync",
    "The member mask if every lane holds the same value, else zero.",
    _FAM,
    examples=("match.all.sync.b32 %r1|%p1, %r2, -1;",),
)

ACTIVEMASK = spec(
    "activemask",
    [form([req("type", ("b32",))], (dst(),))],
    since((6, 2), 30),
    _A + "activemask",
    "Mask of the currently active lanes of the warp.",
    _FAM,
    examples=("activemask.b32 %r1;",),
)

REDUX_SYNC = spec(
    "redux.sync",
    [
        form(
            [req("op", ("add", "min", "max")), req("type", ("u32", "s32"))],
            (dst(), src("a"), src("membermask", "b32")),
            note="integer",
        ),
        form(
            [req("op", ("and", "or", "xor")), req("type", ("b32",))],
            (dst(), src("a"), src("membermask", "b32")),
            note="bitwise",
        ),
        form(
            [
                req("op", ("min", "max")),
                grp("abs", ("abs",)),
                grp("NaN", ("NaN",)),
                req("type", ("f32",)),
            ],
            (dst(), src("a"), src("membermask", "b32")),
            arch((8, 6), "sm_100a", "sm_100f"),
            "f32",
        ),
    ],
    since((7, 0), 80),
    _A + "redux-sync",
    "Reduce a value across the threads of a warp named by a mask.",
    _FAM,
    examples=("redux.sync.add.s32 %r1, %r2, -1;",),
)

ELECT_SYNC = spec(
    "elect.sync",
    [
        form(
            [],
            (opd("d", REG | SINK | OperandKind.PRED_PAIR, "b32"), src("membermask", "b32")),
        )
    ],
    since((8, 0), 90),
    _A + "elect-sync",
    "Elect one leader thread among the threads named by a mask.",
    _FAM,
    examples=("elect.sync %r1|%p1, -1;",),
)

GRIDDEPCONTROL = spec(
    "griddepcontrol",
    [form([req("action", ("launch_dependents", "wait"))], ())],
    _SM90,
    _A + "griddepcontrol",
    "Programmatic dependent launch: signal dependents or wait for prerequisites.",
    _FAM,
    examples=("griddepcontrol.wait;",),
)

_REGS = (range(24, 257, 8),)

SETMAXNREG = spec(
    "setmaxnreg",
    [
        form(
            [
                req("action", ("inc", "dec")),
                req("sync", ("sync",)),
                req("aligned", ("aligned",)),
                req("type", ("u32",)),
            ],
            (opd("imm-reg-count", IMM, values=lambda _: _REGS),),
        )
    ],
    arch((8, 0), "sm_90a", "sm_100f", "sm_110f", "sm_120f"),
    "miscellaneous-instructions-setmaxnreg",
    "Raise or lower the per-thread register budget of the warpgroup.",
    "miscellaneous",
    examples=("setmaxnreg.inc.sync.aligned.u32 240;",),
)

CLC_TRY_CANCEL = spec(
    "clusterlaunchcontrol.try_cancel",
    [
        form(
            [
                req("async", ("async",)),
                grp("space", ("shared::cta",)),
                req("completion", ("mbarrier::complete_tx::bytes",)),
                grp(
                    "multicast",
                    ("multicast::cluster::all",),
                    gates={
                        "multicast::cluster::all": arch(
                            (8, 6), "sm_100a", "sm_101a", "sm_100f", "sm_110f"
                        )
                    },
                ),
                req("type", ("b128",)),
            ],
            (addr("addr"), addr("mbar")),
        )
    ],
    since((8, 6), 100),
    _A + "clusterlaunchcontrol-try-cancel",
    "Ask to cancel a cluster that has not launched yet, taking over its work.",
    _FAM,
    examples=(
        "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128"
        " [%r1], [%r2];",
    ),
)

CLC_QUERY_CANCEL = spec(
    "clusterlaunchcontrol.query_cancel",
    [
        form(
            [req("query", ("is_canceled",)), req("dtype", ("pred",)), req("type", ("b128",))],
            (pdst("pred"), opd("response", REG, "b128")),
            note="is_canceled",
        ),
        form(
            [
                req("query", ("get_first_ctaid::x", "get_first_ctaid::y", "get_first_ctaid::z")),
                req("dtype", ("b32",)),
                req("type", ("b128",)),
            ],
            (dst("b32"), opd("response", REG, "b128")),
            note="one coordinate",
        ),
        form(
            [
                req("query", ("get_first_ctaid",)),
                req("vec", ("v4",)),
                req("dtype", ("b32",)),
                req("type", ("b128",)),
            ],
            (opd("d", VEC, "b32", count=4), opd("response", REG, "b128")),
            note="all coordinates",
        ),
    ],
    since((8, 6), 100),
    _A + "clusterlaunchcontrol-query-cancel",
    "Decode the response of clusterlaunchcontrol.try_cancel.",
    _FAM,
    examples=("clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p1, %q1;",),
)

SPECS: tuple[InstructionSpec, ...] = (
    *BAR,
    *BARRIER,
    BAR_WARP_SYNC,
    BARRIER_CLUSTER_ARRIVE,
    BARRIER_CLUSTER_WAIT,
    MEMBAR,
    FENCE,
    FENCE_MBARRIER_INIT,
    FENCE_PROXY,
    FENCE_PROXY_TENSORMAP,
    VOTE_SYNC,
    VOTE,
    MATCH_ANY,
    MATCH_ALL,
    ACTIVEMASK,
    REDUX_SYNC,
    ELECT_SYNC,
    GRIDDEPCONTROL,
    SETMAXNREG,
    CLC_TRY_CANCEL,
    CLC_QUERY_CANCEL,
)
"""The instructions of this family."""
