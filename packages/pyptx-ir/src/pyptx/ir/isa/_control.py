"""Control flow, stack manipulation and miscellaneous instructions."""

from __future__ import annotations

from ._common import (
    IMM,
    LABEL,
    NO_GATE,
    REG,
    SYM,
    InstructionSpec,
    dst,
    form,
    grp,
    imm,
    opd,
    req,
    since,
    spec,
    src,
)
from ._model import OperandKind

__all__ = ["SPECS"]

_FAM = "control flow"
_MISC = "miscellaneous"
_UNI = grp("uni", ("uni",))
_PARAMS = OperandKind.PARAM_LIST

BRA = spec(
    "bra",
    [form([_UNI], (opd("tgt", LABEL | SYM),))],
    NO_GATE,
    "control-flow-instructions-bra",
    "Branch to a label (.uni: the branch is not divergent).",
    _FAM,
    examples=("bra.uni $L0;",),
)

BRX_IDX = spec(
    "brx.idx",
    [form([_UNI], (src("index", "u32"), opd("tlist", LABEL | SYM)))],
    since((6, 0), 30),
    "control-flow-instructions-brx-idx",
    "Branch to the index-th label of a .branchtargets list.",
    _FAM,
    examples=("brx.idx %r1, $Ltab;",),
)

CALL = spec(
    "call",
    [
        form(
            [_UNI],
            (
                opd("ret", _PARAMS, optional=True),
                opd("func", SYM | REG | LABEL),
                opd("args", _PARAMS, optional=True),
                opd("targets", SYM | LABEL, optional=True),
            ),
        )
    ],
    NO_GATE,
    "control-flow-instructions-call",
    "Call a function, directly or through a pointer with a prototype or target list.",
    _FAM,
    examples=("call.uni (%r1), callee, (%r2);",),
)


def _bare(name: str, anchor: str, summary: str, family: str, uni: bool = False) -> InstructionSpec:
    return spec(
        name,
        [form([_UNI] if uni else [], ())],
        NO_GATE,
        anchor,
        summary,
        family,
        examples=(f"{name};",),
    )


RET = _bare("ret", "control-flow-instructions-ret", "Return from a function.", _FAM, uni=True)
EXIT = _bare("exit", "control-flow-instructions-exit", "Terminate the thread.", _FAM)
TRAP = _bare("trap", "miscellaneous-instructions-trap", "Abort the kernel with an error.", _MISC)
BRKPT = spec(
    "brkpt",
    [form([], ())],
    since((1, 0), 11),
    "miscellaneous-instructions-brkpt",
    "Suspend execution for a debugger.",
    _MISC,
    examples=("brkpt;",),
)

PMEVENT = spec(
    "pmevent",
    [
        form([], (imm("a"),), note="event index"),
        form([req("mask", ("mask",))], (imm("a"),), since((3, 0), 20), "event mask"),
    ],
    NO_GATE,
    "miscellaneous-instructions-pmevent",
    "Trigger a performance-monitor event.",
    _MISC,
    examples=("pmevent 1;",),
)

_U32 = (range(1 << 32),)

NANOSLEEP = spec(
    "nanosleep",
    [form([req("type", ("u32",))], (opd("t", REG | IMM, "@type", values=lambda _: _U32),))],
    since((6, 3), 70),
    "miscellaneous-instructions-nanosleep",
    "Suspend the thread for about t nanoseconds.",
    _MISC,
    examples=("nanosleep.u32 100;",),
)

_STACK = "stack manipulation"
_PTR = ("u32", "u64")

ALLOCA = spec(
    "alloca",
    [
        form(
            [grp("space", ("local",)), req("type", _PTR)],
            (dst(), src("size", "@type"), imm("align", optional=True)),
        )
    ],
    since((7, 3), 52),
    "stack-manipulation-instructions-alloca",
    "Allocate memory on the stack.",
    _STACK,
    examples=("alloca.u64 %rd1, 64;",),
)

STACKSAVE = spec(
    "stacksave",
    [form([req("type", _PTR)], (dst(),))],
    since((7, 3), 52),
    "stack-manipulation-instructions-stacksave",
    "Save the stack pointer.",
    _STACK,
    examples=("stacksave.u64 %rd1;",),
)

STACKRESTORE = spec(
    "stackrestore",
    [form([req("type", _PTR)], (opd("a", REG, "@type"),))],
    since((7, 3), 52),
    "stack-manipulation-instructions-stackrestore",
    "Restore the stack pointer.",
    _STACK,
    examples=("stackrestore.u64 %rd1;",),
)

SPECS: tuple[InstructionSpec, ...] = (
    BRA,
    BRX_IDX,
    CALL,
    RET,
    EXIT,
    TRAP,
    BRKPT,
    PMEVENT,
    NANOSLEEP,
    ALLOCA,
    STACKSAVE,
    STACKRESTORE,
)
"""The instructions of this family."""
