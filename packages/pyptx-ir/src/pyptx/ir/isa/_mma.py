"""Warp-level matrix instructions: ``mma``, ``ldmatrix``, ``stmatrix``, ``wmma`` and kin.

Besides ``mma`` these are ``mma.sp``, ``movmatrix`` and the ``wmma`` load/store/mma trio.

Fragment sizes of ``mma`` follow from the shape and the element types: each of the 32 lanes
holds ``m*k/32`` elements of A (half that when sparse), ``k*n/32`` of B and ``m*n/32`` of C
and D, packed into 32-bit registers (64-bit ones for ``.f64``). ``m8n8k4`` on halves is the
Volta quad-pair layout and is listed apart; it alone takes layouts other than ``.row.col``
and a C type other than D's (f16 C into an f32 D). The sparse selector's range, the
block-scale byte and thread selectors and the ``.sp::ordered_metadata`` spelling that the
``kind::`` forms of ``mma.sp`` need are in the table too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ._common import (
    IMM,
    NO_GATE,
    REG,
    VEC,
    Form,
    Gate,
    InstructionSpec,
    Width,
    addr,
    arch,
    form,
    grp,
    opd,
    req,
    since,
    spec,
    src,
)
from ._model import ModifierGroup, Modifiers, OperandSpec

__all__ = ["SPECS"]

_FAM = "warp-level matrix multiply-accumulate"
_A = "warp-level-matrix-instructions-"

_BITS = {
    "f16": 16, "bf16": 16, "tf32": 32, "f64": 64, "s8": 8, "u8": 8, "e4m3": 8, "e5m2": 8,
    "s4": 4, "u4": 4, "b1": 1, "e2m1": 8, "e2m3": 8, "e3m2": 8,
}  # fmt: skip
"""Bits per element of A/B in registers (fp6/fp4 of kind::f8f6f4 sit in 8-bit containers)."""


def _mnk(mods: Modifiers) -> tuple[int, int, int] | None:
    shape = mods.get("shape")
    if not shape:
        return None
    s = shape[0]
    try:
        m, rest = s[1:].split("n")
        n, k = rest.split("k")
        return int(m), int(n), int(k)
    except ValueError:
        return None


def _operand_count(which: str, sparse: bool = False) -> Callable[[Modifiers], int | None]:
    """Registers of fragment ``which`` (``"a"``, ``"b"``, ``"c"``, ``"d"``) of an mma."""

    def count(mods: Modifiers) -> int | None:
        mnk = _mnk(mods)
        if mnk is None:
            return None
        m, n, k = mnk
        key = {"a": "atype", "b": "btype", "c": "ctype", "d": "dtype"}[which]
        ty = mods.get(key, ("",))[0]
        if which in "ab":
            if (m, n, k) == (8, 8, 4) and ty == "f16":
                return 2
            kind = mods.get("kind", ("",))[0]
            bits = 4 if ty == "e2m1" and kind in ("kind::mxf4", "kind::mxf4nvf4") else _BITS.get(ty)
            if bits is None:
                return None
            elems = (m * k if which == "a" else k * n) // 32
            if which == "a" and sparse:
                elems //= 2
            return elems if bits == 64 else max(1, elems * bits // 32)
        elems = m * n // 32
        if (m, n, k) == (8, 8, 4) and mods.get("atype", ("",))[0] == "f16":
            return 8 if ty == "f32" else 4
        if ty == "f16":
            return elems // 2
        return elems

    return count


def _selector(top: Mapping[str, int]) -> Callable[[Modifiers], tuple[tuple[int, ...], ...] | None]:
    """The sparsity selector ``f`` of ``mma.sp``: ``0..top[shape]``."""

    def values(mods: Modifiers) -> tuple[tuple[int, ...], ...] | None:
        shape = mods.get("shape", ("",))[0]
        return ((*range(top[shape] + 1),),) if shape in top else None

    return values


def _mma_ops(sel: Mapping[str, int] | None) -> tuple[OperandSpec, ...]:
    """``d, a, b, c`` (A and B in 32-bit registers, 64-bit for f64), then ``e, f`` if sparse."""
    sparse = sel is not None
    ops = [
        opd("d", VEC, "@dtype", width=Width.FRAGMENT, count=_operand_count("d")),
        opd("a", VEC, "@atype", width=Width.FRAGMENT, count=_operand_count("a", sparse)),
        opd("b", VEC, "@btype", width=Width.FRAGMENT, count=_operand_count("b")),
        opd("c", VEC | IMM, "@ctype", width=Width.FRAGMENT, count=_operand_count("c")),
    ]
    if sel is not None:
        ops += [src("e", "b32"), opd("f", IMM, values=_selector(sel))]
    return tuple(ops)


_BYTE_IDS = {"scale_vec::1X": (0, 1, 2, 3), "scale_vec::2X": (0, 2), "scale_vec::4X": (0,)}
_DEFAULT_VEC = {"kind::mxf4": "scale_vec::2X", "kind::mxf8f6f4": "scale_vec::1X"}


def _scale_ids(threads: int) -> Callable[[Modifiers], tuple[tuple[int, ...], ...] | None]:
    """``{byte-id, thread-id}`` of a block-scale operand: bytes by scale vector, then lanes."""

    def values(mods: Modifiers) -> tuple[tuple[int, ...], ...] | None:
        vec = mods.get("scale_vec", (_DEFAULT_VEC.get(mods.get("kind", ("",))[0], ""),))[0]
        return (_BYTE_IDS[vec], (*range(threads),)) if vec in _BYTE_IDS else None

    return values


_SCALE_OPS = (
    src("scale-a-data", "b32"),
    opd("a-ids", VEC | IMM, "u16", count=2, values=_scale_ids(2)),
    src("scale-b-data", "b32"),
    opd("b-ids", VEC | IMM, "u16", count=2, values=_scale_ids(4)),
)

_SM75 = since((6, 5), 75)
_SM80 = since((7, 0), 80)
_SM89 = since((8, 4), 89)
_SM90 = since((7, 8), 90)
_SM120A = arch((8, 7), "sm_120a", "sm_120f")
_SM120A_PTX91 = arch((9, 1), "sm_120a", "sm_120f")
_ROW_COL = (req("alayout", ("row",)), req("blayout", ("col",)))
_LAYOUT = [req("alayout", ("row", "col")), req("blayout", ("row", "col"))]
_SYNC = [req("sync", ("sync",)), req("aligned", ("aligned",))]
_ORDERED = ("mma.sp::ordered_metadata",)
_F8 = ("e4m3", "e5m2")
_F8F6F4 = ("e4m3", "e5m2", "e3m2", "e2m3", "e2m1")
_F16_ACC = (("f16", "f16"), ("f32", "f32"))
"""(D, C) accumulator pairs where C must have D's type."""


def _mf(
    shapes: Mapping[str, Gate],
    ab: tuple[tuple[str, ...], tuple[str, ...]],
    acc: tuple[tuple[str, ...], tuple[str, ...]],
    ops: tuple[OperandSpec, ...],
    gate: Gate = NO_GATE,
    note: str = "",
    *,
    mid: tuple[ModifierGroup, ...] = (),
    tail: tuple[ModifierGroup, ...] = (),
    layout: tuple[ModifierGroup, ...] = _ROW_COL,
    names: tuple[str, ...] = (),
) -> Form:
    """One ``mma``/``mma.sp`` form: ``.sync.aligned.shape.layouts[mid].d.a.b.c[tail]``."""
    return form(
        [
            *_SYNC,
            req("shape", tuple(shapes), gates=shapes),
            *layout,
            *mid,
            req("dtype", acc[0]),
            req("atype", ab[0]),
            req("btype", ab[1]),
            req("ctype", acc[1]),
            *tail,
        ],
        ops,
        gate,
        note,
        names=names,
        in_order=("alayout", "blayout"),
    )


_SAT = (grp("satfinite", ("satfinite",)),)
_KIND_F8F6F4 = (req("kind", ("kind::f8f6f4",)),)
_S32 = (("s32", "s32"),)
_F32 = (("f32", "f32"),)

_Row = tuple[
    str,
    dict[str, Gate],
    dict[str, int],
    tuple[tuple[str, ...], tuple[str, ...]],
    tuple[tuple[str, str], ...],
    Gate,
    tuple[ModifierGroup, ...],
]
_ROWS: tuple[_Row, ...] = (
    ("f16", {"m16n8k8": _SM75, "m16n8k16": _SM80}, {"m16n8k16": 3, "m16n8k32": 1},
     (("f16",), ("f16",)), _F16_ACC, NO_GATE, ()),
    ("bf16", {"m16n8k8": _SM80, "m16n8k16": _SM80}, {"m16n8k16": 3, "m16n8k32": 1},
     (("bf16",), ("bf16",)), _F32, _SM80, ()),
    ("tf32", {"m16n8k4": _SM80, "m16n8k8": _SM80}, {"m16n8k8": 3, "m16n8k16": 1},
     (("tf32",), ("tf32",)), _F32, _SM80, ()),
    ("8-bit integer", {"m8n8k16": _SM75, "m16n8k16": _SM80, "m16n8k32": _SM80},
     {"m16n8k32": 1, "m16n8k64": 0}, (("s8", "u8"), ("s8", "u8")), _S32, NO_GATE, _SAT),
    ("4-bit integer", {"m8n8k32": _SM75, "m16n8k32": _SM80, "m16n8k64": _SM80},
     {"m16n8k64": 1, "m16n8k128": 0}, (("s4", "u4"), ("s4", "u4")), _S32, NO_GATE, _SAT),
    ("fp8", {"m16n8k16": since((8, 7), 89), "m16n8k32": _SM89}, {"m16n8k64": 0}, (_F8, _F8),
     _F16_ACC, NO_GATE, ()),
)  # fmt: skip
"""(note, dense shapes with gates, sparse shapes with the selector's top, A/B types, (D, C)
pairs, gate, slots between the layouts and the types) of the forms dense and sparse share."""


def _mma_forms(sparse: bool) -> list[Form]:
    """The forms of ``mma`` or ``mma.sp``: the shared rows, then each one's own forms."""
    forms = []
    for note, dense, tops, ab, accs, gate, mid in _ROWS:
        shapes = {s: _SM89 if note == "fp8" else NO_GATE for s in tops} if sparse else dense
        ops = _mma_ops(tops if sparse else None)
        if sparse and note == "fp8":
            accs = _F32  # mma.sp on e4m3/e5m2 accumulates in f32 only
        forms += [_mf(shapes, ab, ((d,), (c,)), ops, gate, note, mid=mid) for d, c in accs]
    if sparse:
        ops = _mma_ops({"m16n8k64": 0})
        k128 = _mma_ops({"m16n8k128": 0})
        return [
            *forms,
            *(_mf({"m16n8k64": NO_GATE}, (_F8F6F4, _F8F6F4), ((d,), (c,)), ops, _SM120A,
                  "kind::f8f6f4", mid=_KIND_F8F6F4, names=_ORDERED) for d, c in _F16_ACC),
            _mxf8f6f4("m16n8k64", (*ops, *_SCALE_OPS)),
            *_fp4_block_scaled("m16n8k128", (*k128, *_SCALE_OPS)),
        ]  # fmt: skip
    ops = _mma_ops(None)
    return [
        *forms,
        _mf({"m8n8k4": NO_GATE}, (("f16",), ("f16",)), (("f16",), ("f16",)), ops,
            since((6, 4), 70), "f16 m8n8k4 (Volta)", layout=(*_LAYOUT,)),
        _mf({"m8n8k4": NO_GATE}, (("f16",), ("f16",)), (("f32",), ("f16", "f32")), ops,
            since((6, 4), 70), "f16 m8n8k4 (Volta)", layout=(*_LAYOUT,)),
        _mf({"m8n8k4": _SM80, "m16n8k4": _SM90, "m16n8k8": _SM90, "m16n8k16": _SM90},
            (("f64",), ("f64",)), (("f64",), ("f64",)), ops, _SM80, "f64",
            mid=(grp("rnd", ("rn", "rz", "rm", "rp")),)),
        _mf({"m8n8k128": since((7, 0), 75), "m16n8k128": _SM80, "m16n8k256": _SM80},
            (("b1",), ("b1",)), (("s32",), ("s32",)), ops, NO_GATE, "single bit",
            tail=(req("bitop", ("xor", "and"), gates={"and": since((7, 1), 80)}),
                  req("popc", ("popc",)))),
        *(_mf({"m16n8k32": NO_GATE}, (_F8F6F4, _F8F6F4), ((d,), (c,)), ops, _SM120A,
              "kind::f8f6f4", mid=_KIND_F8F6F4) for d, c in _F16_ACC),
        _mxf8f6f4("m16n8k32", (*ops, *_SCALE_OPS)),
        *_fp4_block_scaled("m16n8k64", (*ops, *_SCALE_OPS)),
    ]  # fmt: skip


def _block(kind: str, scale_vec: ModifierGroup) -> tuple[ModifierGroup, ...]:
    return (req("kind", (kind,)), req("block_scale", ("block_scale",)), scale_vec)


def _mxf8f6f4(shape: str, operands: tuple[OperandSpec, ...]) -> Form:
    """The block-scaled ``kind::mxf8f6f4`` form of one shape (ue8m0 scales, ``1X``)."""
    return _mf(
        {shape: NO_GATE},
        (_F8F6F4, _F8F6F4),
        (("f32",), ("f32",)),
        operands,
        _SM120A,
        "kind::mxf8f6f4 block scaled",
        mid=_block("kind::mxf8f6f4", grp("scale_vec", ("scale_vec::1X",))),
        tail=(req("stype", ("ue8m0",)),),
        names=_ORDERED if shape == "m16n8k64" else (),
    )


def _fp4_block_scaled(shape: str, operands: tuple[OperandSpec, ...]) -> list[Form]:
    """The block-scaled e2m1 forms of one shape, one per (kind, scale vector, scale type).

    ``kind::mxf4`` scales every 32 elements with ue8m0 (``scale_vec::2X``, which may be left
    out); ``kind::mxf4nvf4`` every 32 with ue8m0 (``2X``) or every 16 with ue4m3 (``4X``),
    and, from PTX 9.1, every 16 with ue8m0.
    """
    combos = (
        ("kind::mxf4", grp("scale_vec", ("scale_vec::2X",)), "ue8m0", _SM120A),
        ("kind::mxf4nvf4", req("scale_vec", ("scale_vec::2X",)), "ue8m0", _SM120A),
        ("kind::mxf4nvf4", req("scale_vec", ("scale_vec::4X",)), "ue4m3", _SM120A),
        ("kind::mxf4nvf4", req("scale_vec", ("scale_vec::4X",)), "ue8m0", _SM120A_PTX91),
    )
    return [
        _mf(
            {shape: NO_GATE},
            (("e2m1",), ("e2m1",)),
            (("f32",), ("f32",)),
            operands,
            gate,
            f"{kind} {scale_vec.values[0].removeprefix('scale_vec::')} {stype} block scaled",
            mid=_block(kind, scale_vec),
            tail=(req("stype", (stype,)),),
            names=_ORDERED if shape == "m16n8k128" else (),
        )
        for kind, scale_vec, stype, gate in combos
    ]


MMA = spec(
    "mma",
    _mma_forms(False),
    since((6, 4), 70),
    _A + "mma",
    "Warp-wide matrix multiply-accumulate on register fragments, D = A*B + C.",
    _FAM,
    examples=(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4},"
        " {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};",
    ),
)

MMA_SP = spec(
    "mma.sp",
    _mma_forms(True),
    since((7, 1), 80),
    _A + "mma-sp",
    "Warp-wide sparse matrix multiply-accumulate (A is 2:4 structured sparse).",
    _FAM,
    aliases=("mma.sp::ordered_metadata",),
    alias_gates={"mma.sp::ordered_metadata": since((8, 5), 80)},
    examples=(
        "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4},"
        " {%r1, %r2}, {%r3, %r4}, {%f5, %f6, %f7, %f8}, %r5, 0;",
    ),
)

_NUM = ("x1", "x2", "x4")
_SS = grp("ss", ("shared", "shared::cta"), gates={"shared::cta": since((7, 8), 0)})
_LDM_NARROW = arch((8, 6), "sm_100a", "sm_101a", "sm_120a", "sm_100f", "sm_110f", "sm_120f")


def _ldmatrix_count(mods: Modifiers) -> int | None:
    num = int(mods.get("num", ("x1",))[0][1:])
    return num * 2 if mods.get("shape", ("",))[0] == "m16n16" else num


LDMATRIX = spec(
    "ldmatrix",
    [
        form(
            [
                *_SYNC,
                req("shape", ("m8n8",)),
                req("num", _NUM),
                grp("trans", ("trans",)),
                _SS,
                req("type", ("b16",)),
            ],
            (opd("d", VEC | REG, "b32", count=_ldmatrix_count), addr("p")),
            note="16-bit elements",
        ),
        form(
            [
                *_SYNC,
                req("shape", ("m16n16",)),
                req("num", ("x1", "x2")),
                req("trans", ("trans",)),
                _SS,
                req("type", ("b8",)),
            ],
            (opd("d", VEC | REG, "b32", count=_ldmatrix_count), addr("p")),
            _LDM_NARROW,
            "8-bit elements",
        ),
        *(
            form(
                [
                    *_SYNC,
                    req("shape", (shape,)),
                    req("num", nums),
                    *trans,
                    _SS,
                    req("dst_fmt", ("b8x16",)),
                    req("src_fmt", ("b6x16_p32", "b4x16_p64")),
                ],
                (opd("d", VEC | REG, "b32", count=_ldmatrix_count), addr("p")),
                _LDM_NARROW,
                "fp6/fp4 elements unpacked to bytes",
            )
            for shape, nums, trans in (
                ("m8n16", _NUM, ()),
                ("m16n16", ("x1", "x2"), (req("trans", ("trans",)),)),
            )
        ),
    ],
    _SM75,
    _A + "ldmatrix",
    "Load 8x8 (or 16x16) matrices from shared memory into the fragment layout of mma.",
    _FAM,
    examples=("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];",),
)

STMATRIX = spec(
    "stmatrix",
    [
        form(
            [
                *_SYNC,
                req("shape", ("m8n8",)),
                req("num", _NUM),
                grp("trans", ("trans",)),
                _SS,
                req("type", ("b16",)),
            ],
            (addr("p"), opd("r", VEC | REG, "b32", count="num")),
            note="16-bit elements",
        ),
        form(
            [
                *_SYNC,
                req("shape", ("m16n8",)),
                req("num", _NUM),
                req("trans", ("trans",)),
                _SS,
                req("type", ("b8",)),
            ],
            (addr("p"), opd("r", VEC | REG, "b32", count="num")),
            _LDM_NARROW,
            "8-bit elements",
        ),
    ],
    since((7, 8), 90),
    _A + "stmatrix",
    "Store matrices from mma fragments to shared memory.",
    _FAM,
    examples=("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r1], {%r2, %r3};",),
)

MOVMATRIX = spec(
    "movmatrix",
    [
        form(
            [*_SYNC, req("shape", ("m8n8",)), req("trans", ("trans",)), req("type", ("b16",))],
            (opd("d", REG, "b32"), opd("a", REG, "b32")),
        )
    ],
    since((7, 8), 75),
    _A + "movmatrix",
    "Transpose an 8x8 matrix held in mma fragment layout.",
    _FAM,
    examples=("movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;",),
)

# wmma ------------------------------------------------------------------------------------

_WMMA_SHAPES = {
    "m16n16k16": since((6, 0), 70),
    "m32n8k16": since((6, 1), 70),
    "m8n32k16": since((6, 1), 70),
    "m16n16k8": _SM80,
    "m8n8k4": _SM80,
    "m8n8k32": since((6, 3), 75),
    "m8n8k128": since((6, 3), 75),
}
_WMMA_TYPES = ("f16", "f32", "s32", "s8", "u8", "bf16", "tf32", "f64", "s4", "u4", "b1")
_WMMA_TYPE_GATES = {
    "s8": since((6, 3), 72),
    "u8": since((6, 3), 72),
    "s32": since((6, 3), 72),
    "s4": since((6, 3), 75),
    "u4": since((6, 3), 75),
    "b1": since((6, 3), 75),
    "bf16": _SM80,
    "tf32": _SM80,
    "f64": _SM80,
}
_WSS = grp("ss", ("global", "shared", "shared::cta"))
_WSHAPE = req("shape", tuple(_WMMA_SHAPES), gates=_WMMA_SHAPES)
_FRAG = opd("r", VEC)


WMMA_LOAD = spec(
    "wmma.load",
    [
        form(
            [
                req("frag", ("a", "b", "c")),
                *_SYNC,
                req("layout", ("row", "col")),
                _WSHAPE,
                _WSS,
                req("type", _WMMA_TYPES, gates=_WMMA_TYPE_GATES),
            ],
            (_FRAG, addr("p"), src("stride", "b32", optional=True)),
        )
    ],
    since((6, 0), 70),
    _A + "wmma-load",
    "Load an A, B or C fragment of a wmma matrix from memory.",
    _FAM,
    examples=(
        "wmma.load.a.sync.aligned.row.m16n16k16.global.f16"
        " {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], 16;",
    ),
)

WMMA_STORE = spec(
    "wmma.store",
    [
        form(
            [
                req("frag", ("d",)),
                *_SYNC,
                req("layout", ("row", "col")),
                _WSHAPE,
                _WSS,
                req("type", ("f16", "f32", "s32", "f64"), gates=_WMMA_TYPE_GATES),
            ],
            (addr("p"), _FRAG, src("stride", "b32", optional=True)),
        )
    ],
    since((6, 0), 70),
    _A + "wmma-store",
    "Store a D fragment of a wmma matrix to memory.",
    _FAM,
    examples=(
        "wmma.store.d.sync.aligned.row.m16n16k16.global.f32"
        " [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, 16;",
    ),
)

_WMMA_OPS = (opd("d", VEC), opd("a", VEC), opd("b", VEC), opd("c", VEC))

WMMA_MMA = spec(
    "wmma.mma",
    [
        form(
            [
                *_SYNC,
                *_LAYOUT,
                _WSHAPE,
                req("dtype", ("f16", "f32")),
                req("ctype", ("f16", "f32")),
                grp("satfinite", ("satfinite",)),
            ],
            _WMMA_OPS,
            note="f16",
        ),
        form(
            [
                *_SYNC,
                *_LAYOUT,
                _WSHAPE,
                req("dtype", ("s32", "f32", "f64")),
                req(
                    "atype", ("s8", "u8", "bf16", "tf32", "f64", "s4", "u4"), gates=_WMMA_TYPE_GATES
                ),
                req(
                    "btype", ("s8", "u8", "bf16", "tf32", "f64", "s4", "u4"), gates=_WMMA_TYPE_GATES
                ),
                req("ctype", ("s32", "f32", "f64")),
                grp("satfinite", ("satfinite",)),
                grp("rnd", ("rn", "rz", "rm", "rp")),
            ],
            _WMMA_OPS,
            note="integer, bf16, tf32, f64",
        ),
        form(
            [
                req("bitop", ("xor", "and")),
                req("popc", ("popc",)),
                *_SYNC,
                *_LAYOUT,
                _WSHAPE,
                req("dtype", ("s32",)),
                req("atype", ("b1",)),
                req("btype", ("b1",)),
                req("ctype", ("s32",)),
            ],
            _WMMA_OPS,
            note="single bit",
        ),
    ],
    since((6, 0), 70),
    _A + "wmma-mma",
    "Warp-wide matrix multiply-accumulate on wmma fragments.",
    _FAM,
    examples=(
        "wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4},"
        " {%fd5, %fd6};",
    ),
)

SPECS: tuple[InstructionSpec, ...] = (
    MMA,
    MMA_SP,
    LDMATRIX,
    STMATRIX,
    MOVMATRIX,
    WMMA_LOAD,
    WMMA_STORE,
    WMMA_MMA,
)
"""The instructions of this family."""
