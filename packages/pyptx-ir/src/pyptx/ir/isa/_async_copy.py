"""Asynchronous copies: ``cp.async`` (Ampere), bulk and tensor (TMA) copies, tensor maps.

Tensor copies address a tensor map with coordinates, ``[tmap, {c0, c1}]``: the number of
coordinates follows the ``.Nd`` modifier (five for ``.tile::gather4``/``.tile::scatter4``).
"""

from __future__ import annotations

from ._common import (
    ADDR,
    IMM,
    PRED,
    REG,
    VEC,
    InstructionSpec,
    addr,
    arch,
    form,
    grp,
    imm,
    opd,
    policy,
    req,
    since,
    spec,
    src,
)
from ._model import Modifiers

__all__ = ["SPECS"]

_FAM = "data movement and conversion"
_A = "data-movement-and-conversion-instructions-"
_SM80 = since((7, 0), 80)
_SM90 = since((8, 0), 90)
_HINT = grp("cache_hint", ("L2::cache_hint",), gates={"L2::cache_hint": since((7, 4), 80)})
_PREFETCH = grp(
    "prefetch_size",
    ("L2::64B", "L2::128B", "L2::256B"),
    gates={v: since((7, 4), 80) for v in ("L2::64B", "L2::128B", "L2::256B")},
)
_DIMS = ("1d", "2d", "3d", "4d", "5d")
_MBAR = "mbarrier::complete_tx::bytes"
_TCGEN05 = arch((8, 6), "sm_100a", "sm_101a", "sm_100f", "sm_110f")
# ptxas accepts .multicast::cluster on sm_90 too (the ISA recommends sm_90a).
_MULTICAST = since((8, 0), 90)
_SHARED_CTA_DST = since((8, 6), 90)

_CP_ASYNC_GROUPS = [
    req("cop", ("ca", "cg")),
    req("dst", ("shared", "shared::cta")),
    req("src", ("global",)),
    _HINT,
    _PREFETCH,
]

CP_ASYNC = spec(
    "cp.async",
    [
        form(
            _CP_ASYNC_GROUPS,
            (
                addr("dst"),
                addr("src"),
                imm("cp-size"),
                src("src-size", "u32", optional=True),
                policy(),
            ),
            note="with an optional source size",
        ),
        form(
            _CP_ASYNC_GROUPS,
            (
                addr("dst"),
                addr("src"),
                imm("cp-size"),
                opd("ignore-src", PRED, "pred", negatable=True, gate=since((7, 5), 80)),
                policy(),
            ),
            note="with an ignore-src predicate",
        ),
    ],
    _SM80,
    _A + "cp-async",
    "Copy 4, 8 or 16 bytes from global to shared memory asynchronously (per thread).",
    _FAM,
    examples=("cp.async.cg.shared.global [%r1], [%rd1], 16;",),
)

CP_ASYNC_COMMIT_GROUP = spec(
    "cp.async.commit_group",
    [form([], ())],
    _SM80,
    _A + "cp-async-commit-group",
    "Close the current group of this thread's cp.async operations.",
    _FAM,
    examples=("cp.async.commit_group;",),
)

CP_ASYNC_WAIT_GROUP = spec(
    "cp.async.wait_group",
    [form([], (imm("N"),))],
    _SM80,
    _A + "cp-async-wait-group-cp-async-wait-all",
    "Wait until at most N of this thread's cp.async groups are pending.",
    _FAM,
    examples=("cp.async.wait_group 1;",),
)

CP_ASYNC_WAIT_ALL = spec(
    "cp.async.wait_all",
    [form([], ())],
    _SM80,
    _A + "cp-async-wait-group-cp-async-wait-all",
    "Wait until all of this thread's cp.async operations complete.",
    _FAM,
    examples=("cp.async.wait_all;",),
)

CP_ASYNC_BULK = spec(
    "cp.async.bulk",
    [
        form(
            [
                req(
                    "dst",
                    ("shared::cluster", "shared::cta"),
                    gates={"shared::cta": _SHARED_CTA_DST},
                ),
                req("src", ("global",)),
                req("completion", (_MBAR,)),
                grp("multicast", ("multicast::cluster",), gates={"multicast::cluster": _MULTICAST}),
                _HINT,
            ],
            (
                addr("dstMem"),
                addr("srcMem"),
                src("size", "b32"),
                addr("mbar"),
                opd("ctaMask", REG | IMM, "b16", when=("multicast::cluster",)),
                policy(),
            ),
            note="global to shared memory",
        ),
        form(
            [
                req("dst", ("shared::cta",)),
                req("src", ("global",)),
                req("completion", (_MBAR,)),
                req("ignore_oob", ("ignore_oob",)),
            ],
            (
                addr("dstMem"),
                addr("srcMem"),
                src("size", "b32"),
                src("ignoreBytesLeft", "b32"),
                src("ignoreBytesRight", "b32"),
                addr("mbar"),
            ),
            since((9, 2), 90),
            "global to shared memory, ignoring bytes out of bounds",
        ),
        form(
            [
                req("dst", ("shared::cluster",)),
                req("src", ("shared::cta",)),
                req("completion", (_MBAR,)),
            ],
            (addr("dstMem"), addr("srcMem"), src("size", "b32"), addr("mbar")),
            note="shared memory to the shared memory of another CTA",
        ),
        form(
            [
                req("dst", ("global",)),
                req("src", ("shared::cta",)),
                req("completion", ("bulk_group",)),
                _HINT,
                grp("cp_mask", ("cp_mask",), gates={"cp_mask": since((8, 6), 100)}),
            ],
            (
                addr("dstMem"),
                addr("srcMem"),
                src("size", "b32"),
                policy(),
                opd("byteMask", REG | IMM, "b16", when=("cp_mask",)),
            ),
            note="shared to global memory",
        ),
    ],
    _SM90,
    _A + "cp-async-bulk",
    "Bulk asynchronous copy of a contiguous block between global and shared memory.",
    _FAM,
    examples=(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%r1], [%rd1], 1024, [%r2];",
        "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], 1024;",
    ),
)

CP_ASYNC_BULK_PREFETCH = spec(
    "cp.async.bulk.prefetch",
    [
        form(
            [req("level", ("L2",)), req("src", ("global",)), _HINT],
            (addr("srcMem"), src("size", "b32"), policy()),
        )
    ],
    _SM90,
    _A + "cp-async-bulk-prefetch",
    "Prefetch a contiguous block of global memory into L2.",
    _FAM,
    examples=("cp.async.bulk.prefetch.L2.global [%rd1], 1024;",),
)


def _coords(mods: Modifiers) -> int | None:
    """Tensor coordinates: one per dimension, five for the gather/scatter tile modes."""
    mode = mods.get("load_mode", ("tile",))[0]
    if mode in ("tile::gather4", "tile::scatter4"):
        return 5
    dim = mods.get("dim")
    return int(dim[0][0]) if dim else None


def _offsets(mods: Modifiers) -> int | None:
    dim = mods.get("dim")
    return int(dim[0][0]) - 2 if dim else None


_TMAP = opd("tensorMap", ADDR, count=_coords)
_LOAD_MODES = ("tile", "tile::gather4", "im2col", "im2col::w", "im2col::w::128")
_MODE_GATES = {
    # Into .shared::cluster, gather4 and im2col::w are architecture-specific; into
    # .shared::cta they are not. One gate per modifier keeps the lower (cta) requirement.
    "tile::gather4": since((8, 6), 100),
    "im2col::w": since((8, 6), 100),
    "im2col::w::128": _TCGEN05,
}
_PREFETCH_MODE_GATES = _MODE_GATES | {"tile::gather4": _TCGEN05, "im2col::w": _TCGEN05}
_IM2COL = opd("im2colOffsets", VEC, "b16", count=_offsets, when=("load_mode=im2col",))
_IM2COL_W = opd("im2colInfo", VEC, "b16", count=2, when=("im2col::w", "im2col::w::128"))
_CTA_GROUP = grp(
    "cta_group",
    ("cta_group::1", "cta_group::2"),
    gates={"cta_group::1": _TCGEN05, "cta_group::2": _TCGEN05},
)

CP_ASYNC_BULK_TENSOR = spec(
    "cp.async.bulk.tensor",
    [
        form(
            [
                req("dim", _DIMS),
                req(
                    "dst",
                    ("shared::cluster", "shared::cta"),
                    gates={"shared::cta": _SHARED_CTA_DST},
                ),
                req("src", ("global",)),
                grp("load_mode", _LOAD_MODES, gates=_MODE_GATES),
                req("completion", (_MBAR,)),
                grp("multicast", ("multicast::cluster",), gates={"multicast::cluster": _MULTICAST}),
                _CTA_GROUP,
                _HINT,
            ],
            (
                addr("dstMem"),
                _TMAP,
                addr("mbar"),
                _IM2COL,
                _IM2COL_W,
                opd("ctaMask", REG | IMM, "b16", when=("multicast::cluster",)),
                policy(),
            ),
            note="global to shared memory",
        ),
        form(
            [
                req("dim", _DIMS),
                req("dst", ("global",)),
                req("src", ("shared::cta",)),
                grp(
                    "load_mode",
                    ("tile", "im2col_no_offs", "tile::scatter4"),
                    gates={"tile::scatter4": _TCGEN05},
                ),
                req("completion", ("bulk_group",)),
                _HINT,
            ],
            (_TMAP, addr("srcMem"), policy()),
            note="shared to global memory",
        ),
    ],
    _SM90,
    _A + "cp-async-bulk-tensor",
    "Tensor (TMA) copy of a box of a tensor between global and shared memory.",
    _FAM,
    examples=(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%r1], [%rd1, {%r2, %r3}], [%r4];",
        "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd1, {%r2, %r3}], [%r1];",
    ),
)

CP_ASYNC_BULK_PREFETCH_TENSOR = spec(
    "cp.async.bulk.prefetch.tensor",
    [
        form(
            [
                req("dim", _DIMS),
                req("level", ("L2",)),
                req("src", ("global",)),
                grp("load_mode", _LOAD_MODES, gates=_PREFETCH_MODE_GATES),
                _HINT,
            ],
            (_TMAP, _IM2COL, _IM2COL_W, policy()),
        )
    ],
    _SM90,
    _A + "cp-async-bulk-prefetch-tensor",
    "Prefetch a box of a tensor into L2.",
    _FAM,
    examples=("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd1, {%r1, %r2}];",),
)

_RED_TYPES = ("b32", "b64", "u32", "s32", "u64", "s64", "f32", "f64")
_RED_OPS = ("and", "or", "xor", "add", "inc", "dec", "min", "max")

CP_REDUCE_ASYNC_BULK = spec(
    "cp.reduce.async.bulk",
    [
        form(
            [
                req("dst", ("shared::cluster",)),
                req("src", ("shared::cta",)),
                req("completion", (_MBAR,)),
                req("op", _RED_OPS),
                req("type", ("b32", "u32", "s32", "b64", "u64")),
            ],
            (addr("dstMem"), addr("srcMem"), src("size", "b32"), addr("mbar")),
            note="into the shared memory of another CTA",
        ),
        form(
            [
                req("dst", ("global",)),
                req("src", ("shared::cta",)),
                req("completion", ("bulk_group",)),
                _HINT,
                req("op", _RED_OPS),
                req("type", _RED_TYPES),
            ],
            (addr("dstMem"), addr("srcMem"), src("size", "b32"), policy()),
            note="into global memory",
        ),
        form(
            [
                req("dst", ("global",)),
                req("src", ("shared::cta",)),
                req("completion", ("bulk_group",)),
                _HINT,
                req("op", ("min", "max")),
                req("type", ("f16", "bf16")),
            ],
            (addr("dstMem"), addr("srcMem"), src("size", "b32"), policy()),
            note="half-precision min/max into global memory",
        ),
        form(
            [
                req("dst", ("global",)),
                req("src", ("shared::cta",)),
                req("completion", ("bulk_group",)),
                _HINT,
                req("op", ("add",)),
                req("noftz", ("noftz",)),
                req("type", ("f16", "bf16")),
            ],
            (addr("dstMem"), addr("srcMem"), src("size", "b32"), policy()),
            note="half-precision add into global memory",
        ),
    ],
    _SM90,
    _A + "cp-reduce-async-bulk",
    "Bulk asynchronous reduction of a block of shared memory into global or cluster memory.",
    _FAM,
    examples=("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd1], [%r1], 1024;",),
)

CP_REDUCE_ASYNC_BULK_TENSOR = spec(
    "cp.reduce.async.bulk.tensor",
    [
        form(
            [
                req("dim", _DIMS),
                req("dst", ("global",)),
                req("src", ("shared::cta",)),
                req("op", ("add", "min", "max", "inc", "dec", "and", "or", "xor")),
                grp("load_mode", ("tile", "im2col_no_offs")),
                req("completion", ("bulk_group",)),
                _HINT,
            ],
            (_TMAP, addr("srcMem"), policy()),
        )
    ],
    _SM90,
    _A + "cp-reduce-async-bulk-tensor",
    "Tensor (TMA) reduction of a shared-memory box into a tensor in global memory.",
    _FAM,
    examples=(
        "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group"
        " [%rd1, {%r1}], [%r2];",
    ),
)

CP_ASYNC_BULK_COMMIT_GROUP = spec(
    "cp.async.bulk.commit_group",
    [form([], ())],
    _SM90,
    _A + "cp-async-bulk-commit-group",
    "Close the current bulk async-group of this thread.",
    _FAM,
    examples=("cp.async.bulk.commit_group;",),
)

CP_ASYNC_BULK_WAIT_GROUP = spec(
    "cp.async.bulk.wait_group",
    [form([grp("read", ("read",))], (imm("N"),))],
    _SM90,
    _A + "cp-async-bulk-wait-group",
    "Wait until at most N bulk async-groups are pending (.read: until their sources are read).",
    _FAM,
    examples=("cp.async.bulk.wait_group.read 0;",),
)

_TENSORMAP = arch((8, 3), "sm_90a", "sm_100f", "sm_110f", "sm_120f")
_FIELD1 = ("global_address", "rank")
_FIELD2 = ("box_dim", "global_dim", "global_stride", "element_stride")
_FIELD3 = ("elemtype", "interleave_layout", "swizzle_mode", "swizzle_atomicity", "fill_mode")
_TM_SPACE = grp("space", ("global", "shared::cta"))
_TM_GATES = {"swizzle_atomicity": arch((8, 6), "sm_100f", "sm_110f", "sm_120f")}

TENSORMAP_REPLACE = spec(
    "tensormap.replace",
    [
        form(
            [
                req("mode", ("tile",)),
                req("field", _FIELD1),
                _TM_SPACE,
                req("object", ("b1024",)),
                req("type", ("b32", "b64")),
            ],
            (addr("addr"), src("new_val", "@type")),
            note="whole-tensor field",
        ),
        form(
            [
                req("mode", ("tile",)),
                req("field", _FIELD2),
                _TM_SPACE,
                req("object", ("b1024",)),
                req("type", ("b32", "b64")),
            ],
            (addr("addr"), imm("ord"), src("new_val", "@type")),
            note="per-dimension field",
        ),
        form(
            [
                req("mode", ("tile",)),
                req("field", _FIELD3, gates=_TM_GATES),
                _TM_SPACE,
                req("object", ("b1024",)),
                req("type", ("b32",)),
            ],
            (addr("addr"), imm("new_val")),
            note="enumerated field",
        ),
    ],
    _TENSORMAP,
    _A + "tensormap-replace",
    "Replace one field of a 1024-bit tensor map in global or shared memory.",
    _FAM,
    examples=("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r1], %rd1;",),
)

TENSORMAP_CP_FENCEPROXY = spec(
    "tensormap.cp_fenceproxy",
    [
        form(
            [
                req("dst", ("global",)),
                req("src", ("shared::cta",)),
                req("proxy", ("tensormap::generic",)),
                req("sem", ("release",)),
                req("scope", ("cta", "cluster", "gpu", "sys")),
                req("sync", ("sync",)),
                req("aligned", ("aligned",)),
            ],
            (addr("dst"), addr("src"), imm("size")),
        )
    ],
    since((8, 3), 90),
    "parallel-synchronization-and-communication-instructions-tensormap-cp-fenceproxy",
    "Copy a tensor map from shared to global memory and fence it for the tensor-map proxy.",
    "parallel synchronization and communication",
    examples=(
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned"
        " [%rd1], [%r1], 128;",
    ),
)

SPECS: tuple[InstructionSpec, ...] = (
    CP_ASYNC,
    CP_ASYNC_COMMIT_GROUP,
    CP_ASYNC_WAIT_GROUP,
    CP_ASYNC_WAIT_ALL,
    CP_ASYNC_BULK,
    CP_ASYNC_BULK_PREFETCH,
    CP_ASYNC_BULK_TENSOR,
    CP_ASYNC_BULK_PREFETCH_TENSOR,
    CP_REDUCE_ASYNC_BULK,
    CP_REDUCE_ASYNC_BULK_TENSOR,
    CP_ASYNC_BULK_COMMIT_GROUP,
    CP_ASYNC_BULK_WAIT_GROUP,
    TENSORMAP_REPLACE,
    TENSORMAP_CP_FENCEPROXY,
)
"""The instructions of this family."""
