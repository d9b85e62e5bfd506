"""Loads, stores and the other memory instructions (``ld``, ``st``, ``prefetch``, ``cvta``, ...).

``ld`` and ``st`` forms are the product of two tables: the memory-order variants the PTX ISA
writes as separate syntax lines (:func:`_ldst_heads`: a cache operator and eviction priorities
exclude each other, ``.relaxed``/``.acquire``/``.release`` need a scope, ``.volatile`` takes no
cache hints, ``.nc`` is a ``.global`` load, cache hints need a ``.global`` or generic address)
and the vector widths (256-bit vectors, ``.v4.b64`` and ``.v8.b32``, need PTX 8.8, ``sm_100``
and a ``.global`` or generic address, and alone take an L2 eviction priority). Where ptxas is
stricter than the ISA text, the table follows ptxas 13.5 (no ``.f16``/``.bf16`` types).
"""

from __future__ import annotations

from dataclasses import replace

from ._common import (
    ADDR,
    IMM,
    NO_GATE,
    REG,
    SCOPES,
    SYM,
    VEC,
    Form,
    Gate,
    InstructionSpec,
    Width,
    addr,
    dst,
    form,
    grp,
    opd,
    pdst,
    policy,
    req,
    since,
    spec,
    src,
)
from ._model import ModifierGroup, OperandSpec

__all__ = ["SPECS"]

_FAM = "data movement and conversion"

_SM90 = since((7, 8), 90)
_SPACES = (
    "global", "shared", "shared::cta", "shared::cluster", "local", "const",
    "param", "param::entry", "param::func",
)  # fmt: skip
_ST_SPACES = tuple(s for s in _SPACES if s not in ("const", "param::entry"))
_SPACE_GATES = {
    "shared::cta": since((7, 8), 0),
    "shared::cluster": _SM90,
    "param::entry": since((8, 3), 0),
    "param::func": since((8, 3), 0),
}
_SEM_GATES = {
    "relaxed": since((6, 0), 70),
    "acquire": since((6, 0), 70),
    "release": since((6, 0), 70),
    "weak": since((6, 0), 0),
}
_SCOPE_GATES = {s: since((6, 0), 70) for s in SCOPES} | {"cluster": _SM90}
_L1 = (
    "L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last",
    "L1::no_allocate",
)  # fmt: skip
_L1_GATES = {v: since((7, 4), 70) for v in _L1}
_PREFETCH = ("L2::64B", "L2::128B", "L2::256B")
_PREFETCH_GATES = {"L2::64B": since((7, 4), 75), "L2::128B": since((7, 4), 75)}
_PREFETCH_GATES["L2::256B"] = since((7, 4), 80)
_HINT = {"L2::cache_hint": since((7, 4), 80)}
_NARROW = ("b8", "b16", "b32", "u8", "u16", "u32", "s8", "s16", "s32", "f32")
"""Element types up to 32 bits; ld/st/ldu take no ``.f16``/``.bf16`` types (ptxas)."""
_WIDE = ("b64", "u64", "s64", "f64")
_V256 = since((8, 8), 100)
_B128 = since((8, 3), 70)
_LOCAL = {"local": since((9, 1), 0)}
"""``.volatile`` on ``.local`` addresses is PTX 9.1."""
_L2_EVICT = grp("l2_eviction", ("L2::evict_first", "L2::evict_last", "L2::evict_normal"))
"""L2 eviction priorities, which ld/st take on 256-bit accesses only."""

_WIDTHS: tuple[tuple[tuple[ModifierGroup, ...], Gate, str], ...] = (
    ((grp("vec", ("v2", "v4")), req("type", _NARROW)), NO_GATE, "up to 128 bits"),
    ((grp("vec", ("v2",)), req("type", _WIDE)), NO_GATE, "64-bit elements"),
    ((req("type", ("b128",)),), _B128, "128-bit"),
    ((req("vec", ("v4",)), req("type", _WIDE)), _V256, "256-bit vector"),
    ((req("vec", ("v8",)), req("type", ("b32", "u32", "s32", "f32"))), _V256, "256-bit vector"),
)
"""The vector widths of ld/st: (slots, gate, note)."""


_ORDERED = ("global", "shared", "shared::cta", "shared::cluster")
"""The spaces ``.volatile`` and the scoped orders apply to (``.volatile`` also ``.local``)."""


def _ldst_heads(load: bool) -> list[tuple[list[ModifierGroup], bool, str]]:
    """The memory-order variants of ld/st: (slots, takes eviction priorities, note).

    Eviction priorities, ``.L2::cache_hint`` and the prefetch size apply to ``.global`` (or
    generic) addresses only, so each variant that takes them has a form without them for the
    other state spaces.
    """
    ss = grp("ss", _SPACES if load else _ST_SPACES, gates=_SPACE_GATES)
    glob = grp("ss", ("global",))
    cop = grp("cop", ("ca", "cg", "cs", "lu", "cv") if load else ("wb", "cg", "cs", "wt"))
    order = "acquire" if load else "release"
    hint = grp("cache_hint", ("L2::cache_hint",), gates=_HINT)
    size = [grp("prefetch_size", _PREFETCH, gates=_PREFETCH_GATES)] if load else []
    evict = grp("eviction", _L1, gates=_L1_GATES)
    weak = grp("sem", ("weak",), gates=_SEM_GATES)
    volatile = req("sem", ("volatile",))
    scoped = [
        req("sem", ("relaxed", order), gates=_SEM_GATES),
        req("scope", SCOPES, gates=_SCOPE_GATES),
    ]
    heads = [
        ([weak, ss, cop], False, "cache operator"),
        ([weak, glob, cop, hint, *size], False, "cache operator, global"),
        ([weak, glob, evict, hint, *size], True, "eviction priority, global"),
        (
            [volatile, grp("ss", (*_ORDERED, "local"), gates=_SPACE_GATES | _LOCAL)],
            False,
            "volatile",
        ),
        *([([volatile, glob, *size], False, "volatile, global")] if load else []),
        ([*scoped, grp("ss", _ORDERED, gates=_SPACE_GATES)], False, f"relaxed or {order}"),
        ([*scoped, glob, evict, hint, *size], True, f"relaxed or {order}, global"),
    ]
    if load:
        nc = [req("ss", ("global",)), req("nc", ("nc",), gates={"nc": since((3, 1), 32)})]
        heads += [
            ([*nc, grp("cop", ("ca", "cg", "cs")), hint, *size], False, "non-coherent"),
            ([*nc, evict, hint, *size], True, "non-coherent, eviction priority"),
        ]
    return heads


def _at_width(head: list[ModifierGroup], gate: Gate) -> list[ModifierGroup]:
    """A variant's slots at one width.

    256-bit accesses are ``.global`` (or generic) only; 128-bit ones at ``.sys`` scope need
    PTX 8.4.
    """
    out = []
    for g in head:
        if g.name == "ss" and gate is _V256:
            g = replace(g, values=("global",), gates={})
        elif g.name == "scope" and gate is _B128:
            g = replace(g, gates={**g.gates, "sys": since((8, 4), 70)})
        out.append(g)
    return out


def _ldst_forms(load: bool, data: OperandSpec, address: OperandSpec) -> list[Form]:
    """The forms of ld/st: each memory-order variant at each vector width, then ``.mmio``.

    ``data`` and ``address`` are the operands, given in instruction order.
    """
    ops = (data, address) if load else (address, data)
    forms = [
        form(
            [*_at_width(head, gate), *((_L2_EVICT,) if evicts and gate is _V256 else ()), *width],
            (*ops, policy()) if any(g.name == "cache_hint" for g in head) else ops,
            gate,
            f"{note}, {wnote}",
        )
        for head, evicts, note in _ldst_heads(load)
        for width, gate, wnote in _WIDTHS
    ]
    mmio = [
        req("mmio", ("mmio",), gates={"mmio": since((8, 2), 70)}),
        req("sem", ("relaxed",)),
        req("scope", ("sys",)),
        grp("ss", ("global",)),
        req("type", (*_NARROW, *_WIDE, "b128"), gates={"b128": _B128}),
    ]
    return [*forms, form(mmio, ops, note="mmio")]


_DATA_LD = opd("d", REG | VEC, "@type", width=Width.AT_LEAST, count="vec")
_DATA_ST = opd("b", REG | IMM | VEC, "@type", width=Width.AT_LEAST, count="vec")

LD = spec(
    "ld",
    _ldst_forms(True, _DATA_LD, addr("a")),
    NO_GATE,
    "data-movement-and-conversion-instructions-ld",
    "Load from a state space (with memory-order, cache and eviction qualifiers).",
    _FAM,
    examples=(
        "ld.global.f32 %f1, [%rd1];",
        "ld.global.nc.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1+16];",
        "ld.global.L2::cache_hint.b32 %r1, [%rd1], %rd2;",
    ),
)

ST = spec(
    "st",
    _ldst_forms(False, _DATA_ST, addr("a")),
    NO_GATE,
    "data-movement-and-conversion-instructions-st",
    "Store to a state space (with memory-order, cache and eviction qualifiers).",
    _FAM,
    examples=("st.global.f32 [%rd1], %f1;", "st.shared.v2.b32 [%r1], {%r2, %r3};"),
)

LDU = spec(
    "ldu",
    [
        form(
            [
                grp("ss", ("global",)),
                grp("vec", ("v2", "v4")),
                req("type", (*_NARROW, *_WIDE, "b128"), gates={"b128": _B128}),
            ],
            (_DATA_LD, addr("a")),
        )
    ],
    since((2, 0), 20),
    "data-movement-and-conversion-instructions-ldu",
    "Load a value that is the same for every thread of the warp.",
    _FAM,
    examples=("ldu.global.f32 %f1, [%rd1];",),
)

_ST_ASYNC_TYPES = ("b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64")

_ASYNC_GLOBAL = since((8, 7), 100)

ST_ASYNC = spec(
    "st.async",
    [
        form(
            [
                grp("sem", ("weak",)),
                grp("scope", ("cluster",)),
                grp("ss", ("shared::cluster",)),
                grp("completion", ("mbarrier::complete_tx::bytes",)),
                grp("vec", ("v2", "v4")),
                req("type", _ST_ASYNC_TYPES),
            ],
            (
                addr("a"),
                opd("b", REG | IMM | VEC, "@type", count="vec"),
                addr("mbar"),
            ),
            note="into another CTA's shared memory",
        ),
        form(
            [
                grp("mmio", ("mmio",)),
                req("sem", ("release",)),
                req("scope", ("gpu", "sys")),
                grp("ss", ("global",)),
                grp("vec", ("v2", "v4")),
                req("type", _ST_ASYNC_TYPES),
            ],
            (addr("a"), opd("b", REG | IMM | VEC, "@type", count="vec")),
            _ASYNC_GLOBAL,
            "release into global memory",
        ),
    ],
    since((8, 1), 90),
    "data-movement-and-conversion-instructions-st-async",
    "Store to the shared memory of another CTA of the cluster, signalling its mbarrier.",
    _FAM,
    examples=("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3];",),
)

ST_BULK = spec(
    "st.bulk",
    [
        form(
            [grp("sem", ("weak",)), grp("ss", ("shared::cta",))],
            (addr("a"), src("size", "b64"), opd("initval", IMM)),
        )
    ],
    since((8, 6), 100),
    "data-movement-and-conversion-instructions-st-bulk",
    "Initialise a region of shared memory to zero.",
    _FAM,
    examples=("st.bulk.weak.shared::cta [%r1], 256, 0;",),
)

_RED_OPS = ("add", "min", "max", "inc", "dec", "and", "or", "xor")

_RED_ASYNC_TYPES = (
    "b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64", "f16", "bf16", "f16x2", "bf16x2",
)  # fmt: skip

RED_ASYNC = spec(
    "red.async",
    [
        form(
            [
                req("sem", ("relaxed",)),
                req("scope", ("cluster",)),
                grp("ss", ("shared::cluster",)),
                req("completion", ("mbarrier::complete_tx::bytes",)),
                req("op", _RED_OPS),
                req("type", ("b32", "b64", "u32", "u64", "s32", "s64")),
            ],
            (addr("a"), src("b"), addr("mbar")),
            note="into another CTA's shared memory",
        ),
        form(
            [
                grp("mmio", ("mmio",)),
                req("sem", ("release",)),
                req("scope", ("gpu", "sys")),
                grp("ss", ("global",)),
                req("op", _RED_OPS),
                grp("noftz", ("noftz",)),
                grp("vec", ("v2", "v4", "v8")),
                req("type", _RED_ASYNC_TYPES),
            ],
            (addr("a"), opd("b", REG | IMM | VEC, "@type", count="vec")),
            _ASYNC_GLOBAL,
            "release into global memory",
        ),
    ],
    since((8, 1), 90),
    "parallel-synchronization-and-communication-instructions-red-async",
    "Asynchronous reduction into the shared memory of a CTA of the cluster.",
    "parallel synchronization and communication",
    examples=(
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32"
        " [%r1], %r2, [%r3];",
    ),
)

_MM_TYPES = (
    "b32", "b64", "u32", "u64", "s32", "s64", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64",
    "e5m2", "e5m2x2", "e5m2x4", "e4m3", "e4m3x2", "e4m3x4",
)  # fmt: skip
_MM_COMMON = [
    grp("sem", ("weak", "relaxed", "acquire", "release")),
    grp("scope", SCOPES),
    grp("ss", ("global",)),
]

MULTIMEM_LD_REDUCE = spec(
    "multimem.ld_reduce",
    [
        form(
            [
                *_MM_COMMON,
                req("op", ("min", "max", "add", "and", "or", "xor")),
                grp(
                    "acc_prec",
                    ("acc::f32", "acc::f16"),
                    gates={"acc::f32": since((8, 2), 90), "acc::f16": since((8, 2), 90)},
                ),
                grp("vec", ("v2", "v4", "v8")),
                req("type", _MM_TYPES),
            ],
            (opd("d", REG | VEC, "@type", count="vec"), addr("a")),
        )
    ],
    since((8, 1), 90),
    "data-movement-and-conversion-instructions-multimem-ld-reduce-multimem-st-multimem-red",
    "Load from a multimem address, reducing across the devices it maps.",
    _FAM,
    examples=("multimem.ld_reduce.relaxed.sys.global.add.u32 %r1, [%rd1];",),
)

MULTIMEM_ST = spec(
    "multimem.st",
    [
        form(
            [*_MM_COMMON, grp("vec", ("v2", "v4", "v8")), req("type", _MM_TYPES)],
            (addr("a"), opd("b", REG | VEC, "@type", count="vec")),
        )
    ],
    since((8, 1), 90),
    "data-movement-and-conversion-instructions-multimem-ld-reduce-multimem-st-multimem-red",
    "Store to every device a multimem address maps.",
    _FAM,
    examples=("multimem.st.relaxed.sys.global.b32 [%rd1], %r1;",),
)

MULTIMEM_RED = spec(
    "multimem.red",
    [
        form(
            [
                *_MM_COMMON,
                req("op", ("min", "max", "add", "and", "or", "xor", "inc", "dec")),
                grp("vec", ("v2", "v4", "v8")),
                req("type", _MM_TYPES),
            ],
            (addr("a"), opd("b", REG | VEC, "@type", count="vec")),
        )
    ],
    since((8, 1), 90),
    "data-movement-and-conversion-instructions-multimem-ld-reduce-multimem-st-multimem-red",
    "Reduce into every device a multimem address maps.",
    _FAM,
    examples=("multimem.red.relaxed.sys.global.add.u32 [%rd1], %r1;",),
)

PREFETCH = spec(
    "prefetch",
    [
        form(
            [grp("space", ("global", "local")), req("level", ("L1", "L2"))],
            (addr("a"),),
            note="cache level",
        ),
        form(
            [req("space", ("global",)), req("level", ("L2::evict_last", "L2::evict_normal"))],
            (addr("a"),),
            since((7, 4), 80),
            "with eviction priority",
        ),
        form(
            [grp("space", ("const", "param")), req("tensormap", ("tensormap",))],
            (opd("a", ADDR),),
            since((8, 0), 90),
            "tensor map",
        ),
    ],
    since((2, 0), 20),
    "data-movement-and-conversion-instructions-prefetch-prefetchu",
    "Prefetch a line into a cache level (or a tensor map into the cache).",
    _FAM,
    examples=("prefetch.global.L2 [%rd1];", "prefetch.tensormap [%rd1];"),
)

PREFETCHU = spec(
    "prefetchu",
    [form([req("level", ("L1",))], (addr("a"),))],
    since((2, 0), 20),
    "data-movement-and-conversion-instructions-prefetch-prefetchu",
    "Prefetch a line that is uniform across the warp into L1.",
    _FAM,
    examples=("prefetchu.L1 [%rd1];",),
)

APPLYPRIORITY = spec(
    "applypriority",
    [
        form(
            [grp("space", ("global",)), req("level", ("L2::evict_normal",))],
            (addr("a"), opd("size", IMM)),
        )
    ],
    since((7, 4), 80),
    "data-movement-and-conversion-instructions-applypriority",
    "Change the eviction priority of cached lines.",
    _FAM,
    examples=("applypriority.global.L2::evict_normal [%rd1], 128;",),
)

DISCARD = spec(
    "discard",
    [form([grp("space", ("global",)), req("level", ("L2",))], (addr("a"), opd("size", IMM)))],
    since((7, 4), 80),
    "data-movement-and-conversion-instructions-discard",
    "Discard cached lines without writing them back.",
    _FAM,
    examples=("discard.global.L2 [%rd1], 128;",),
)

_PRIO = ("L2::evict_last", "L2::evict_normal", "L2::evict_first", "L2::evict_unchanged")

CREATEPOLICY = spec(
    "createpolicy",
    [
        form(
            [
                req("kind", ("fractional",)),
                req("primary", _PRIO),
                grp("secondary", ("L2::evict_first", "L2::evict_unchanged")),
                req("type", ("b64",)),
            ],
            (dst(), src("fraction", "f32", optional=True)),
            note="fractional",
        ),
        form(
            [
                req("kind", ("range",)),
                grp("space", ("global",)),
                req("primary", _PRIO),
                grp("secondary", ("L2::evict_first", "L2::evict_unchanged")),
                req("type", ("b64",)),
            ],
            (dst(), addr("a"), src("primary-size", "b32"), src("total-size", "b32")),
            note="address range",
        ),
        form(
            [req("kind", ("cvt",)), req("level", ("L2",)), req("type", ("b64",))],
            (dst(), src("access-property", "b64")),
            note="from a CUDA access property",
        ),
    ],
    since((7, 4), 80),
    "data-movement-and-conversion-instructions-createpolicy",
    "Create a 64-bit L2 cache eviction policy for .L2::cache_hint operands.",
    _FAM,
    examples=("createpolicy.fractional.L2::evict_last.b64 %rd1, 1.0;",),
)

_CVTA_SPACES = (
    "const",
    "global",
    "local",
    "shared",
    "shared::cta",
    "shared::cluster",
    "param",
    "param::entry",
)
_CVTA_GATES = {
    "param": since((7, 7), 70),
    "param::entry": since((8, 3), 70),
    "shared::cta": since((7, 8), 0),
    "shared::cluster": _SM90,
}

CVTA = spec(
    "cvta",
    [
        form(
            [
                grp("to", ("to",)),
                req("space", _CVTA_SPACES, gates=_CVTA_GATES),
                req("size", ("u32", "u64")),
            ],
            (dst("@size"), opd("a", REG | IMM | SYM, "@size")),
        )
    ],
    since((2, 0), 20),
    "data-movement-and-conversion-instructions-cvta",
    "Convert between a state-space address and a generic address.",
    _FAM,
    examples=("cvta.to.global.u64 %rd1, %rd2;", "cvta.shared.u64 %rd1, smem;"),
)

ISSPACEP = spec(
    "isspacep",
    [
        form(
            [
                req(
                    "space",
                    (*_CVTA_SPACES, "param::func"),
                    gates=_CVTA_GATES | {"param::func": since((8, 3), 70)},
                )
            ],
            (pdst(), opd("a", REG | SYM)),
        )
    ],
    since((2, 0), 20),
    "data-movement-and-conversion-instructions-isspacep",
    "Test whether a generic address points into a state space.",
    _FAM,
    examples=("isspacep.global %p1, %rd1;",),
)

MAPA = spec(
    "mapa",
    [
        form(
            [grp("space", ("shared::cluster",)), req("type", ("u32", "u64"))],
            (dst(), opd("a", REG | SYM, "@type"), src("b", "u32")),
        )
    ],
    _SM90,
    "data-movement-and-conversion-instructions-mapa",
    "Map an address of this CTA to the same location in another CTA of the cluster.",
    _FAM,
    examples=("mapa.shared::cluster.u32 %r1, %r2, %r3;", "mapa.u64 %rd1, %rd2, %r1;"),
)

GETCTARANK = spec(
    "getctarank",
    [
        form(
            [grp("space", ("shared::cluster",)), req("type", ("u32", "u64"))],
            (dst("u32"), opd("a", REG | SYM, "@type")),
        )
    ],
    _SM90,
    "data-movement-and-conversion-instructions-getctarank",
    "The rank in the cluster of the CTA that owns a shared::cluster address.",
    _FAM,
    examples=("getctarank.shared::cluster.u32 %r1, %r2;",),
)

SPECS: tuple[InstructionSpec, ...] = (
    LD,
    ST,
    LDU,
    ST_ASYNC,
    ST_BULK,
    RED_ASYNC,
    MULTIMEM_LD_REDUCE,
    MULTIMEM_ST,
    MULTIMEM_RED,
    PREFETCH,
    PREFETCHU,
    APPLYPRIORITY,
    DISCARD,
    CREATEPOLICY,
    CVTA,
    ISSPACEP,
    MAPA,
    GETCTARANK,
)
"""The instructions of this family."""
