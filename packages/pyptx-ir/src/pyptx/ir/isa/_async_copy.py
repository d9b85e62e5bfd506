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
from ._model import Form, ModifierGroup, Modifiers, OperandSpec

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

_U16 = (range(1 << 16),)
_IM2COL_VALUES = (range(-(1 << 15), 1 << 16),) * 5
"""im2col offsets are 16-bit values, signed or unsigned, one range per element."""
_GROUPS_N = opd("N", IMM, values=lambda _: (range(64),), doc="pending groups, 0..63")
_BULK_SIZE = opd(
    "size", REG | IMM, "b32", values=lambda _: (range(16, 1 << 32, 16),), doc="a multiple of 16"
)
_CP_SIZE = opd(
    "cp-size",
    IMM,
    values=lambda m: ((16,) if m.get("cop") == ("cg",) else (4, 8, 16),),
    doc="4, 8 or 16 bytes (.cg: 16)",
)

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
                _CP_SIZE,
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
                _CP_SIZE,
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
    [form([], (_GROUPS_N,))],
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

_MULTICAST_GRP = grp("multicast", ("multicast::cluster",), gates={"multicast::cluster": _MULTICAST})
_INTO_SHARED = (("shared::cluster", (_MULTICAST_GRP,)), ("shared::cta", ()))
"""Copies into shared memory: (destination, slots); multicast fills the cluster's CTAs only."""
_CTA_MASK = (opd("ctaMask", REG | IMM, "b16", when=("multicast::cluster",), values=lambda _: _U16),)


def _dst_shared(dst: str) -> ModifierGroup:
    return req("dst", (dst,), gates={"shared::cta": _SHARED_CTA_DST})


CP_ASYNC_BULK = spec(
    "cp.async.bulk",
    [
        *(
            form(
                [
                    _dst_shared(dst),
                    req("src", ("global",)),
                    req("completion", (_MBAR,)),
                    *multicast,
                    _HINT,
                ],
                (
                    addr("dstMem"),
                    addr("srcMem"),
                    _BULK_SIZE,
                    addr("mbar"),
                    *(_CTA_MASK if multicast else ()),
                    policy(),
                ),
                note=f"global to {dst} memory",
            )
            for dst, multicast in _INTO_SHARED
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
                _BULK_SIZE,
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
            (addr("dstMem"), addr("srcMem"), _BULK_SIZE, addr("mbar")),
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
                _BULK_SIZE,
                policy(),
                opd("byteMask", REG | IMM, "b16", when=("cp_mask",), values=lambda _: _U16),
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
            (addr("srcMem"), _BULK_SIZE, policy()),
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


_TMAP = opd("tensorMap", ADDR, "b64", count=_coords)
_LOAD_MODES = ("tile", "tile::gather4", "im2col", "im2col::w", "im2col::w::128")
_MODE_GATES = {
    "tile::gather4": since((8, 6), 100),
    "im2col::w": since((8, 6), 100),
    "im2col::w::128": _TCGEN05,
}
"""Load modes into ``.shared::cta``; into ``.shared::cluster`` (and for the prefetch) gather4
and im2col::w are architecture-specific (:data:`_ARCH_MODE_GATES`)."""
_ARCH_MODE_GATES = _MODE_GATES | {"tile::gather4": _TCGEN05, "im2col::w": _TCGEN05}
_IM2COL = opd(
    "im2colOffsets",
    VEC,
    "b16",
    count=_offsets,
    when=("load_mode=im2col",),
    values=lambda _: _IM2COL_VALUES,
)
_IM2COL_W = opd(
    "im2colInfo",
    VEC,
    "b16",
    count=2,
    when=("im2col::w", "im2col::w::128"),
    values=lambda _: _IM2COL_VALUES,
)
_CTA_GROUP = grp(
    "cta_group",
    ("cta_group::1", "cta_group::2"),
    gates={"cta_group::1": _TCGEN05, "cta_group::2": _TCGEN05},
)

_LOAD_CLASSES = (
    (("tile",), _DIMS, False),
    (("tile::gather4",), ("2d",), True),
    (("im2col", "im2col::w", "im2col::w::128"), _DIMS[2:], True),
)
"""Load modes by rank: (modes, dimensions, mode required). The gather4 mode reads a 2d tensor
(five coordinates: a column and four rows); the im2col modes need 3d to 5d."""


def _offsets_ops(modes: tuple[str, ...]) -> tuple[OperandSpec, ...]:
    return (_IM2COL, _IM2COL_W) if modes[0].startswith("im2col") else ()


def _load_forms() -> list[Form]:
    out = []
    for dst, multicast in _INTO_SHARED:
        for modes, dims, needed in _LOAD_CLASSES:
            gates = _MODE_GATES if dst == "shared::cta" else _ARCH_MODE_GATES
            mode = (req if needed else grp)("load_mode", modes, gates=gates)
            groups = [req("dim", dims), _dst_shared(dst), req("src", ("global",)), mode]
            groups += [req("completion", (_MBAR,)), *multicast, _CTA_GROUP, _HINT]
            operands = (addr("dstMem"), _TMAP, addr("mbar"), *_offsets_ops(modes))
            operands += (*(_CTA_MASK if multicast else ()), policy())
            out.append(form(groups, operands, note=f"global to {dst} memory, {modes[0]} modes"))
    return out


def _store_forms(reduce: bool) -> list[Form]:
    """Shared to global tensor stores (and reductions, which lack scatter4).

    The scatter4 mode writes a 2d tensor; im2col_no_offs needs 3d to 5d.
    """
    classes = [(("tile",), _DIMS, False), (("im2col_no_offs",), _DIMS[2:], True)]
    if not reduce:
        classes.insert(1, (("tile::scatter4",), ("2d",), True))
    out = []
    for modes, dims, needed in classes:
        mode = (req if needed else grp)("load_mode", modes, gates={"tile::scatter4": _TCGEN05})
        groups = [req("dim", dims), req("dst", ("global",)), req("src", ("shared::cta",))]
        groups += [*((req("op", _RED_OPS),) if reduce else ()), mode]
        groups += [req("completion", ("bulk_group",)), _HINT]
        out.append(form(groups, (_TMAP, addr("srcMem"), policy()), note=f"{modes[0]} modes"))
    return out


CP_ASYNC_BULK_TENSOR = spec(
    "cp.async.bulk.tensor",
    [*_load_forms(), *_store_forms(False)],
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
                req("dim", dims),
                req("level", ("L2",)),
                req("src", ("global",)),
                (req if needed else grp)("load_mode", modes, gates=_ARCH_MODE_GATES),
                _HINT,
            ],
            (_TMAP, *_offsets_ops(modes), policy()),
            note=f"{modes[0]} modes",
        )
        for modes, dims, needed in _LOAD_CLASSES
    ],
    _SM90,
    _A + "cp-async-bulk-prefetch-tensor",
    "Prefetch a box of a tensor into L2.",
    _FAM,
    examples=("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd1, {%r1, %r2}];",),
)

_RED_OPS = ("add", "min", "max", "inc", "dec", "and", "or", "xor")

_RED_INTO: tuple[tuple[str, tuple[tuple[tuple[str, ...], tuple[str, ...], bool], ...]], ...] = (
    (
        "shared::cluster",
        (
            (("and", "or", "xor"), ("b32",), False),
            (("add",), ("u32", "s32", "u64"), False),
            (("inc", "dec"), ("u32",), False),
            (("min", "max"), ("u32", "s32"), False),
        ),
    ),
    (
        "global",
        (
            (("and", "or", "xor"), ("b32", "b64"), False),
            (("add",), ("u32", "s32", "u64", "f32", "f64"), False),
            (("add",), ("f16", "bf16"), True),
            (("inc", "dec"), ("u32",), False),
            (("min", "max"), ("u32", "s32", "u64", "s64", "f16", "bf16"), False),
        ),
    ),
)
"""Per destination, the types each operation takes: (operations, types, needs ``.noftz``)."""


def _reduce_forms() -> list[Form]:
    out = []
    for dst, rows in _RED_INTO:
        cluster = dst == "shared::cluster"
        head = [req("dst", (dst,)), req("src", ("shared::cta",))]
        head.append(req("completion", (_MBAR,) if cluster else ("bulk_group",)))
        last = addr("mbar") if cluster else policy()
        operands = (addr("dstMem"), addr("srcMem"), _BULK_SIZE, last)
        for ops, types, noftz in rows:
            groups = [*head, *(() if cluster else (_HINT,)), req("op", ops)]
            groups += [*((req("noftz", ("noftz",)),) if noftz else ()), req("type", types)]
            out.append(form(groups, operands, note=f"{'/'.join(ops)} into {dst} memory"))
    return out


CP_REDUCE_ASYNC_BULK = spec(
    "cp.reduce.async.bulk",
    _reduce_forms(),
    _SM90,
    _A + "cp-reduce-async-bulk",
    "Bulk asynchronous reduction of a block of shared memory into global or cluster memory.",
    _FAM,
    examples=("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd1], [%r1], 1024;",),
)

CP_REDUCE_ASYNC_BULK_TENSOR = spec(
    "cp.reduce.async.bulk.tensor",
    _store_forms(True),
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
    [form([grp("read", ("read",))], (_GROUPS_N,))],
    _SM90,
    _A + "cp-async-bulk-wait-group",
    "Wait until at most N bulk async-groups are pending (.read: until their sources are read).",
    _FAM,
    examples=("cp.async.bulk.wait_group.read 0;",),
)

_TENSORMAP = arch((8, 3), "sm_90a", "sm_100f", "sm_110f", "sm_120f")
_FIELDS = (
    (("global_address",), "b64", False),
    (("rank",), "b32", False),
    (("box_dim", "global_dim", "element_stride"), "b32", True),
    (("global_stride",), "b64", True),
)
"""Fields set from a register or number: (fields, type, indexed by a dimension ``ord``)."""
_ENUMS = ("elemtype", "interleave_layout", "swizzle_mode", "swizzle_atomicity", "fill_mode")
"""Fields set from an enumerated immediate (``.b32``)."""
_TM_SPACE = grp("space", ("global", "shared::cta"))
_TM_GATES = {"swizzle_atomicity": arch((8, 6), "sm_100f", "sm_110f", "sm_120f")}


def _replace_forms() -> list[Form]:
    head = [req("mode", ("tile",))]
    tail = [_TM_SPACE, req("object", ("b1024",))]
    out = [
        form(
            [*head, req("field", fields), *tail, req("type", (ty,))],
            (
                addr("addr"),
                *((opd("ord", IMM, values=lambda _: (range(5),)),) if dim else ()),
                src("new_val", "@type"),
            ),
            note=f"{'per-dimension' if dim else 'whole-tensor'} {ty} field",
        )
        for fields, ty, dim in _FIELDS
    ]
    groups = [*head, req("field", _ENUMS, gates=_TM_GATES), *tail, req("type", ("b32",))]
    return [*out, form(groups, (addr("addr"), imm("new_val")), note="enumerated field")]


TENSORMAP_REPLACE = spec(
    "tensormap.replace",
    _replace_forms(),
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
            (addr("dst"), addr("src"), opd("size", IMM, values=lambda _: ((128,),))),
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
