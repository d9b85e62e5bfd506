"""Fifth-generation tensor core instructions (``tcgen05``, Blackwell ``sm_100a`` family).

They are architecture- or family-specific: ``sm_100a``, ``sm_101a`` (``sm_110a`` from PTX
9.0), ``sm_103a`` and, from PTX 8.8, the family targets ``sm_100f``/``sm_110f`` and the
targets above them in their family. A few (``tcgen05.shift``, block scaling with
``.scale_vec::NX``) exist only on the ``a`` targets.

Tensor Memory addresses (``[d-tmem]``, ``[taddr]``, ...) are typed ``b32``: their base must be a
32-bit register. The forms also carry the combination rules: which ``.scale_vec`` each
block-scaled kind takes (``kind::mxf4nvf4`` needs one), that ``.ashift`` shifts an A in Tensor
Memory and excludes the ``fill``/``use`` collectors, that ``scale-input-d`` belongs to
``kind::f16``/``kind::tf32``, which ``tcgen05.cp`` shapes need a multicast, and that the
decompression formats come as a pair.
"""

from __future__ import annotations

from ._common import (
    ADDR,
    IMM,
    PRED,
    REG,
    VEC,
    Form,
    InstructionSpec,
    addr,
    arch,
    form,
    grp,
    imm,
    opd,
    req,
    since,
    spec,
    src,
)
from ._model import Modifiers, OperandSpec

__all__ = ["SPECS"]

_FAM = "tensorcore 5th generation"
_A = "tensorcore-5th-generation-instructions-"
TCGEN05 = arch((8, 6), "sm_100a", "sm_101a", "sm_100f", "sm_110f")
_ARCH_ONLY = arch((8, 6), "sm_100a", "sm_101a", "sm_103a", "sm_110a")
_CTA_GROUP = req("cta_group", ("cta_group::1", "cta_group::2"))
_SYNC = [req("sync", ("sync",)), req("aligned", ("aligned",))]


def _tmem(name: str) -> OperandSpec:
    """A Tensor Memory address operand: its base is a 32-bit register."""
    return opd(name, ADDR, "b32", doc="a Tensor Memory address (a 32-bit register)")


_NCOLS = opd(
    "nCols",
    REG | IMM,
    "b32",
    values=lambda _: ((32, 64, 128, 256, 512),),
    doc="the number of columns, a power of two in 32..512",
)

ALLOC = spec(
    "tcgen05.alloc",
    [
        form(
            [_CTA_GROUP, *_SYNC, grp("space", ("shared::cta",)), req("type", ("b32",))],
            (addr("dst"), _NCOLS),
        )
    ],
    TCGEN05,
    _A + "tcgen05-alloc-tcgen05-dealloc-tcgen05-relinquish-alloc-permit",
    "Allocate tensor memory columns; the address is written to shared memory.",
    _FAM,
    examples=("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;",),
)

DEALLOC = spec(
    "tcgen05.dealloc",
    [form([_CTA_GROUP, *_SYNC, req("type", ("b32",))], (src("taddr", "b32"), _NCOLS))],
    TCGEN05,
    _A + "tcgen05-alloc-tcgen05-dealloc-tcgen05-relinquish-alloc-permit",
    "Free tensor memory columns.",
    _FAM,
    examples=("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 32;",),
)

RELINQUISH = spec(
    "tcgen05.relinquish_alloc_permit",
    [form([_CTA_GROUP, *_SYNC], ())],
    TCGEN05,
    _A + "tcgen05-alloc-tcgen05-dealloc-tcgen05-relinquish-alloc-permit",
    "Give up the right to allocate tensor memory for the rest of the CTA's life.",
    _FAM,
    examples=("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",),
)

_KINDS = ("kind::f16", "kind::tf32", "kind::f8f6f4", "kind::i8")
_KIND_GATES = {
    # Integer MMA exists on sm_100a and sm_101a/sm_110a only (not sm_103a, not the families).
    "kind::i8": arch((8, 6), "sm_100a", "sm_101a", "sm_110a"),
    "kind::mxf4nvf4": TCGEN05.combine(since((8, 7), 100)),
}
_SCALE_VEC = {
    "scale_vec::1X": _ARCH_ONLY,
    "scale_vec::2X": _ARCH_ONLY,
    "scale_vec::4X": _ARCH_ONLY,
    "block16": arch((8, 8), "sm_100a", "sm_101a", "sm_100f", "sm_110f"),
    "block32": arch((8, 8), "sm_100a", "sm_101a", "sm_100f", "sm_110f"),
}
_SCALED = {
    "kind::mxf8f6f4": ("scale_vec::1X", "block32"),
    "kind::mxf4": ("scale_vec::2X", "block32"),
    "kind::mxf4nvf4": ("scale_vec::2X", "scale_vec::4X", "block16", "block32"),
}
"""The block-scaled kinds and the scale vector sizes each takes (PTX ISA table "Valid
combinations of scale_vectorsize with types and MMA-Kind"); only ``kind::mxf4nvf4`` has no
default, so it needs one."""
_COLLECTOR_A = (
    "collector::a::fill",
    "collector::a::use",
    "collector::a::lastuse",
    "collector::a::discard",
)


def _lanes(mods: Modifiers) -> int | None:
    """disable-output-lane: one 32-bit mask per 32 lanes, 4 (cta_group::1) or 8 (::2)."""
    group = mods.get("cta_group")
    return (8 if group[0] == "cta_group::2" else 4) if group else None


_A_DESC = opd("a", ADDR | REG, "b64", doc="a-desc (a 64-bit register) or [a-tmem]")
_ENABLE = opd("enable-input-d", PRED | IMM, "pred", negatable=True)
_DISABLE = opd("disable-output-lane", VEC, "b32", count=_lanes, optional=True)
_SCALE_D = opd(
    "scale-input-d",
    IMM,
    optional=True,
    when=("kind=kind::f16", "kind=kind::tf32"),
    gate=arch((8, 6), "sm_100a", "sm_100f"),
    values=lambda _: (tuple(range(16)),),
    doc="D is scaled by 2**-scale-input-d before the add",
)


def _mma_forms(sparse: bool) -> list[Form]:
    meta = (_tmem("sp-meta-tmem"),) if sparse else ()

    def head(a: OperandSpec) -> tuple[OperandSpec, ...]:
        return (_tmem("d-tmem"), a, src("b-desc", "b64"), *meta, src("idesc", "b32"))

    kind = req("kind", _KINDS, gates=_KIND_GATES)
    dense = (_DISABLE, _ENABLE, _SCALE_D)
    forms = [
        form(
            [_CTA_GROUP, kind, grp("collector", _COLLECTOR_A)],
            (*head(_A_DESC), *dense),
            note="dense kinds",
        ),
        form(
            [_CTA_GROUP, kind, req("ashift", ("ashift",)), grp("collector", _COLLECTOR_A[2:])],
            (*head(_tmem("a")), *dense),
            note="dense kinds, A shifted in Tensor Memory (no fill/use collector)",
        ),
    ]
    for name, vecs in _SCALED.items():
        vec = req if name == "kind::mxf4nvf4" else grp
        groups = [
            _CTA_GROUP,
            req("kind", (name,), gates=_KIND_GATES),
            req("block_scale", ("block_scale",)),
            vec("scale_vec", vecs, gates=_SCALE_VEC),
            grp("collector", _COLLECTOR_A),
        ]
        scales = (_tmem("scale-A-tmem"), _tmem("scale-B-tmem"), _ENABLE)
        forms.append(form(groups, (*head(_A_DESC), *scales), note=f"block scaled {name[6:]}"))
    return forms


MMA = spec(
    "tcgen05.mma",
    _mma_forms(False),
    TCGEN05,
    _A + "tcgen05-mma",
    "Tensor core matrix multiply-accumulate into tensor memory (issued by one thread).",
    _FAM,
    examples=("tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;",),
)

MMA_SP = spec(
    "tcgen05.mma.sp",
    _mma_forms(True),
    TCGEN05,
    _A + "tcgen05-mma-sp",
    "Sparse tensor core matrix multiply-accumulate into tensor memory.",
    _FAM,
    examples=("tcgen05.mma.sp.cta_group::1.kind::f16 [%r1], %rd1, %rd2, [%r3], %r2, %p1;",),
)

_COLLECTOR_B = tuple(
    f"collector::b{i}::{use}" for i in range(4) for use in ("fill", "use", "lastuse", "discard")
)


def _ws_forms(sparse: bool) -> list[Form]:
    meta = (_tmem("sp-meta-tmem"),) if sparse else ()
    return [
        form(
            [
                req("cta_group", ("cta_group::1",)),
                req("kind", _KINDS, gates=_KIND_GATES),
                grp("collector", _COLLECTOR_B),
            ],
            (
                _tmem("d-tmem"),
                _A_DESC,
                src("b-desc", "b64"),
                *meta,
                src("idesc", "b32"),
                _ENABLE,
                src("zero-column-mask-desc", "b64", optional=True),
            ),
        )
    ]


MMA_WS = spec(
    "tcgen05.mma.ws",
    _ws_forms(False),
    TCGEN05,
    _A + "tcgen05-mma-ws",
    "Weight-stationary tensor core matrix multiply-accumulate (B kept in collector buffers).",
    _FAM,
    examples=("tcgen05.mma.ws.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;",),
)

MMA_WS_SP = spec(
    "tcgen05.mma.ws.sp",
    _ws_forms(True),
    TCGEN05,
    _A + "tcgen05-mma-ws-sp",
    "Sparse weight-stationary tensor core matrix multiply-accumulate.",
    _FAM,
    examples=("tcgen05.mma.ws.sp.cta_group::1.kind::f16 [%r1], %rd1, %rd2, [%r3], %r2, %p1;",),
)

_FACTOR = {"32x32b": 1, "16x64b": 1, "16x128b": 2, "16x256b": 4, "16x32bx2": 1}


def _regs(mods: Modifiers) -> int | None:
    """Registers per thread: the .num repetition times the shape's registers per repetition."""
    shape = mods.get("shape")
    num = mods.get("num")
    if not shape or not num:
        return None
    return _FACTOR[shape[0]] * int(num[0][1:])


def _nums(top: int) -> tuple[str, ...]:
    out = []
    n = 1
    while n <= top:
        out.append(f"x{n}")
        n *= 2
    return tuple(out)


def _ldst_forms(load: bool) -> list[Form]:
    pack = grp("pack", ("pack::16b",)) if load else grp("pack", ("unpack::16b",))
    data = opd("r", VEC, "b32", count=_regs)
    taddr = _tmem("taddr")
    split = imm("immHalfSplitoff")
    forms = []
    for shapes, top in ((("32x32b", "16x64b"), 128), (("16x128b",), 64), (("16x256b",), 32)):
        groups = [*_SYNC, req("shape", shapes), req("num", _nums(top)), pack, req("type", ("b32",))]
        forms.append(
            form(groups, (data, taddr) if load else (taddr, data), note=" / ".join(shapes))
        )
    groups = [
        *_SYNC,
        req("shape", ("16x32bx2",)),
        req("num", _nums(128)),
        pack,
        req("type", ("b32",)),
    ]
    forms.append(
        form(groups, (data, taddr, split) if load else (taddr, split, data), note="16x32bx2")
    )
    return forms


LD = spec(
    "tcgen05.ld",
    _ldst_forms(True),
    TCGEN05,
    _A + "tcgen05-ld",
    "Load from tensor memory into registers (warp-collective).",
    _FAM,
    examples=("tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r3];",),
)

ST = spec(
    "tcgen05.st",
    _ldst_forms(False),
    TCGEN05,
    _A + "tcgen05-st",
    "Store registers into tensor memory (warp-collective).",
    _FAM,
    examples=("tcgen05.st.sync.aligned.32x32b.x2.b32 [%r3], {%r1, %r2};",),
)

_CP_SHAPES = (
    (("128x256b", "4x256b", "128x128b"), ()),
    (("64x128b",), ("warpx2::02_13", "warpx2::01_23")),
    (("32x128b",), ("warpx4",)),
)
"""``tcgen05.cp`` shapes and the multicast each needs (none, or one of these)."""


def _cp_forms() -> list[Form]:
    forms = []
    for shapes, multicast in _CP_SHAPES:
        for unpack in (False, True):
            groups = [_CTA_GROUP, req("shape", shapes)]
            groups += [req("multicast", multicast)] if multicast else []
            if unpack:
                groups += [req("dst_fmt", ("b8x16",)), req("src_fmt", ("b6x16_p32", "b4x16_p64"))]
            note = " / ".join(shapes) + (", decompressing" if unpack else "")
            forms.append(form(groups, (_tmem("taddr"), src("s-desc", "b64")), note=note))
    return forms


CP = spec(
    "tcgen05.cp",
    _cp_forms(),
    TCGEN05,
    _A + "tcgen05-cp",
    "Copy from shared memory (by descriptor) into tensor memory.",
    _FAM,
    examples=("tcgen05.cp.cta_group::1.128x256b [%r1], %rd1;",),
)

SHIFT = spec(
    "tcgen05.shift",
    [form([_CTA_GROUP, req("dir", ("down",))], (_tmem("taddr"),))],
    _ARCH_ONLY,
    _A + "tcgen05-shift",
    "Shift the rows of a tensor memory matrix down by one.",
    _FAM,
    examples=("tcgen05.shift.cta_group::1.down [%r1];",),
)

COMMIT = spec(
    "tcgen05.commit",
    [
        form(
            [
                _CTA_GROUP,
                req("completion", ("mbarrier::arrive::one",)),
                grp("space", ("shared::cluster",)),
                grp("multicast", ("multicast::cluster",)),
                req("type", ("b64",)),
            ],
            (addr("mbar"), opd("ctaMask", REG | IMM, "b16", when=("multicast::cluster",))),
        )
    ],
    TCGEN05,
    _A + "tcgen05-commit",
    "Make an mbarrier track the completion of this thread's prior tcgen05 async operations.",
    _FAM,
    examples=("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%rd1];",),
)


def _bare(name: str, anchor: str, summary: str, sync: bool) -> InstructionSpec:
    return spec(
        f"tcgen05.{name}",
        [form(_SYNC if sync else [], ())],
        TCGEN05,
        _A + anchor,
        summary,
        _FAM,
        examples=(f"tcgen05.{name}{'.sync.aligned' if sync else ''};",),
    )


WAIT_LD = _bare(
    "wait::ld", "tcgen05-wait", "Wait for this thread's prior tcgen05.ld to complete.", True
)
WAIT_ST = _bare(
    "wait::st", "tcgen05-wait", "Wait for this thread's prior tcgen05.st to complete.", True
)
FENCE_BEFORE = _bare(
    "fence::before_thread_sync",
    "tcgen05-fence",
    "Order prior tcgen05 operations before a following thread synchronization.",
    False,
)
FENCE_AFTER = _bare(
    "fence::after_thread_sync",
    "tcgen05-fence",
    "Order following tcgen05 operations after a prior thread synchronization.",
    False,
)

SPECS: tuple[InstructionSpec, ...] = (
    ALLOC,
    DEALLOC,
    RELINQUISH,
    MMA,
    MMA_SP,
    MMA_WS,
    MMA_WS_SP,
    LD,
    ST,
    CP,
    SHIFT,
    COMMIT,
    WAIT_LD,
    WAIT_ST,
    FENCE_BEFORE,
    FENCE_AFTER,
)
"""The instructions of this family."""
