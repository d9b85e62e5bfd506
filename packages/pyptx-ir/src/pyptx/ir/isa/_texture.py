"""Texture and surface instructions (``tex``, ``tld4``, ``txq``, ``suld``, ``sust``, ...).

Their address operand holds the texture or surface and a coordinate vector,
``[tex, {%f1, %f2}]``; results are always brace-enclosed vectors, ``{%r1}`` included.
"""

from __future__ import annotations

from ._common import (
    IMM,
    REG,
    SYM,
    VEC,
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
from ._model import Modifiers, OperandKind

__all__ = ["SPECS"]

_TEX = "texture"
_SURF = "surface"
_GEOM = ("1d", "2d", "3d", "a1d", "a2d", "cube", "acube", "2dms", "a2dms")
_EXTRA = REG | VEC | IMM


def _vec_or_one(mods: Modifiers) -> int:
    vec = mods.get("vec")
    return int(vec[0][1:]) if vec else 1


_TEX_D = opd("d", VEC | OperandKind.PRED_PAIR, "@dtype", count=_vec_or_one)

TEX = spec(
    "tex",
    [
        form(
            [
                grp("mode", ("base", "level", "grad")),
                req("geom", _GEOM),
                req("vec", ("v4", "v2")),
                req("dtype", ("u32", "s32", "f16", "f32", "f16x2")),
                req("ctype", ("s32", "f32")),
            ],
            (
                _TEX_D,
                addr("a"),
                opd("x", _EXTRA, optional=True),
                opd("y", _EXTRA, optional=True),
                opd("z", _EXTRA, optional=True),
                opd("w", _EXTRA, optional=True),
            ),
        )
    ],
    since((1, 0), 10),
    "texture-instructions-tex",
    "Texture lookup (with optional level of detail, gradients, offsets, depth compare).",
    _TEX,
    examples=(
        "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, {%f5, %f6}];",
        "tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, {%f5, %f6}], %f7;",
    ),
)

TLD4 = spec(
    "tld4",
    [
        form(
            [
                req("comp", ("r", "g", "b", "a")),
                req("geom", ("2d", "a2d", "cube", "acube")),
                req("vec", ("v4",)),
                req("dtype", ("u32", "s32", "f32")),
                req("ctype", ("f32",)),
            ],
            (
                _TEX_D,
                addr("a"),
                opd("e", _EXTRA, optional=True),
                opd("f", _EXTRA, optional=True),
            ),
        )
    ],
    since((2, 2), 20),
    "texture-instructions-tld4",
    "Gather one component of the four texels a bilinear fetch would read.",
    _TEX,
    examples=("tld4.r.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, {%f5, %f6}];",),
)

_TQUERY = (
    "width", "height", "depth", "channel_data_type", "channel_order", "normalized_coords",
    "array_size", "num_mipmap_levels", "num_samples", "force_unnormalized_coords",
    "filter_mode", "addr_mode_0", "addr_mode_1", "addr_mode_2",
)  # fmt: skip

TXQ = spec(
    "txq",
    [
        form(
            [req("query", _TQUERY), req("type", ("b32",))],
            (opd("d", REG, "b32"), addr("a")),
            note="texture or sampler",
        ),
        form(
            [
                req("level", ("level",)),
                req("query", ("width", "height", "depth")),
                req("type", ("b32",)),
            ],
            (opd("d", REG, "b32"), addr("a"), src("lod", "s32")),
            since((4, 3), 30),
            "at a mipmap level",
        ),
    ],
    since((1, 5), 10),
    "texture-instructions-txq",
    "Query an attribute of a texture or sampler.",
    _TEX,
    examples=("txq.width.b32 %r1, [tex0];",),
)

ISTYPEP = spec(
    "istypep",
    [form([req("type", ("texref", "samplerref", "surfref"))], (pdst(), opd("a", REG | SYM)))],
    since((4, 0), 30),
    "texture-instructions-istypep",
    "Test whether a handle is a texture, sampler or surface.",
    _TEX,
    examples=(),
)

_SGEOM = ("1d", "2d", "3d", "a1d", "a2d")
_CLAMP = req("clamp", ("trap", "clamp", "zero"))

SULD = spec(
    "suld",
    [
        form(
            [
                req("mode", ("b",)),
                req("geom", _SGEOM),
                grp("cop", ("ca", "cg", "cs", "cv")),
                grp("vec", ("v2", "v4")),
                req("dtype", ("b8", "b16", "b32", "b64")),
                _CLAMP,
            ],
            (opd("d", VEC, count=_vec_or_one), addr("a")),
        )
    ],
    since((1, 5), 20),
    "surface-instructions-suld",
    "Load from a surface.",
    _SURF,
    examples=("suld.b.2d.v2.b32.trap {%r1, %r2}, [surf0, {%r3, %r4}];",),
)

SUST = spec(
    "sust",
    [
        form(
            [
                req("mode", ("b", "p")),
                req("geom", _SGEOM),
                grp("cop", ("wb", "cg", "cs", "wt")),
                grp("vec", ("v2", "v4")),
                req("ctype", ("b8", "b16", "b32", "b64")),
                _CLAMP,
            ],
            (addr("a"), opd("c", VEC, count=_vec_or_one)),
        )
    ],
    since((1, 5), 20),
    "surface-instructions-sust",
    "Store to a surface.",
    _SURF,
    examples=("sust.b.1d.b32.clamp [surf0, {%r1}], {%r2};",),
)

SURED = spec(
    "sured",
    [
        form(
            [
                req("mode", ("b", "p")),
                req("op", ("add", "min", "max", "and", "or")),
                req("geom", ("1d", "2d", "3d")),
                req("ctype", ("u32", "u64", "s32", "b32", "s64", "b64")),
                _CLAMP,
            ],
            (addr("a"), src("c", "@ctype")),
        )
    ],
    since((2, 0), 20),
    "surface-instructions-sured",
    "Atomic reduction on a surface.",
    _SURF,
    examples=("sured.b.add.1d.u32.trap [surf0, {%r1}], %r2;",),
)

SUQ = spec(
    "suq",
    [
        form(
            [
                req(
                    "query",
                    (
                        "width",
                        "height",
                        "depth",
                        "channel_data_type",
                        "channel_order",
                        "array_size",
                        "memory_layout",
                    ),
                ),
                req("type", ("b32",)),
            ],
            (opd("d", REG, "b32"), addr("a")),
        )
    ],
    since((1, 5), 20),
    "surface-instructions-suq",
    "Query an attribute of a surface.",
    _SURF,
    examples=("suq.width.b32 %r1, [surf0];",),
)

SPECS: tuple[InstructionSpec, ...] = (TEX, TLD4, TXQ, ISTYPEP, SULD, SUST, SURED, SUQ)
"""The instructions of this family."""
