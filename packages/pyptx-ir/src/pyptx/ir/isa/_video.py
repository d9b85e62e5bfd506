"""Scalar and SIMD video instructions (``vadd``, ``vabsdiff4``, ``vset2``, ...).

These are legacy byte/halfword operations; the table checks their names, types and operand
counts. Byte and halfword selectors written on operands (``%r1.b0``) are not modelled.
"""

from __future__ import annotations

from ._common import (
    IMM,
    REG,
    InstructionSpec,
    form,
    grp,
    opd,
    req,
    since,
    spec,
)
from ._model import ModifierGroup, OperandSpec

__all__ = ["SPECS"]

_FAM = "video"
_T = ("u32", "s32")
_CMP = ("eq", "ne", "lt", "le", "gt", "ge")


_SCALAR_ANCHOR = {
    "vshl": "scalar-video-instructions-vshl-vshr",
    "vshr": "scalar-video-instructions-vshl-vshr",
    "vmad": "scalar-video-instructions-vmad",
}


def _operands(c_optional: bool) -> tuple[OperandSpec, ...]:
    src_kinds = REG | IMM
    return (
        opd("d", REG, "b32"),
        opd("a", src_kinds, "b32", negatable=True),
        opd("b", src_kinds, "b32", negatable=True),
        opd("c", src_kinds, "b32", negatable=True, optional=c_optional),
    )


def _scalar(
    name: str,
    summary: str,
    extra: tuple[ModifierGroup, ...] = (),
    c_optional: bool = True,
    example: str = "",
) -> InstructionSpec:
    groups = [req("dtype", _T), req("atype", _T), req("btype", _T), grp("sat", ("sat",)), *extra]
    return spec(
        name,
        [form([*groups, grp("op2", ("add", "min", "max"))], _operands(c_optional))],
        since((2, 0), 20),
        _SCALAR_ANCHOR.get(name, "scalar-video-instructions-vadd-vsub-vabsdiff-vmin-vmax"),
        summary,
        _FAM,
        examples=(example or f"{name}.u32.u32.u32 %r1, %r2, %r3;",),
    )


def _simd(name: str, summary: str) -> InstructionSpec:
    return spec(
        name,
        [
            form(
                [
                    req("dtype", _T),
                    req("atype", _T),
                    req("btype", _T),
                    grp("sat", ("sat",)),
                    grp("add", ("add",)),
                ],
                _operands(False),
            )
        ],
        since((3, 0), 30),
        "simd-video-instructions-"
        + "-".join(
            f"{op}{name[-1]}" for op in ("vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax")
        ),
        summary,
        _FAM,
        examples=(f"{name}.u32.u32.u32 %r1, %r2, %r3, %r4;",),
    )


_SHIFT_MODE = req("mode", ("clamp", "wrap"))

VIDEO = (
    _scalar("vadd", "Add bytes/halfwords of a and b (scalar video)."),
    _scalar("vsub", "Subtract (scalar video)."),
    _scalar("vabsdiff", "Absolute difference (scalar video)."),
    _scalar("vmin", "Minimum (scalar video)."),
    _scalar("vmax", "Maximum (scalar video)."),
    _scalar(
        "vshl",
        "Shift left (scalar video).",
        (_SHIFT_MODE,),
        example="vshl.u32.u32.u32.clamp %r1, %r2, %r3;",
    ),
    _scalar(
        "vshr",
        "Shift right (scalar video).",
        (_SHIFT_MODE,),
        example="vshr.s32.s32.u32.wrap %r1, %r2, %r3;",
    ),
    _scalar(
        "vmad",
        "Multiply-add (scalar video).",
        (grp("scale", ("shr7", "shr15")),),
        False,
        "vmad.s32.s32.s32 %r1, %r2, %r3, %r4;",
    ),
    spec(
        "vset",
        [
            form(
                [
                    req("atype", _T),
                    req("btype", _T),
                    req("cmp", _CMP),
                    grp("op2", ("add", "min", "max")),
                ],
                _operands(True),
            )
        ],
        since((2, 0), 20),
        "scalar-video-instructions-vset",
        "Compare (scalar video).",
        _FAM,
        examples=("vset.u32.u32.lt %r1, %r2, %r3;",),
    ),
    *(
        _simd(f"{op}{n}", f"{op[1:].capitalize()} of {n} lanes (SIMD video).")
        for n in (2, 4)
        for op in ("vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax")
    ),
    *(
        spec(
            f"vset{n}",
            [
                form(
                    [req("atype", _T), req("btype", _T), req("cmp", _CMP), grp("add", ("add",))],
                    _operands(False),
                )
            ],
            since((3, 0), 30),
            "simd-video-instructions-vset2" if n == 2 else "simd-video-instructions-vset4",
            f"Compare {n} lanes (SIMD video).",
            _FAM,
            examples=(f"vset{n}.u32.u32.lt %r1, %r2, %r3, %r4;",),
        )
        for n in (2, 4)
    ),
)

SPECS: tuple[InstructionSpec, ...] = VIDEO
"""The instructions of this family."""
