"""Helpers for the ISA table tests: a reader of single PTX instructions, register types.

pyptx-ir does not depend on the parser, so instructions are built with a small reader of
single-instruction PTX (:func:`insn`) that covers the operand shapes the tests use. Register
names follow nvcc's conventions and carry their declared type: %r .b32, %rd .b64, %rs .b16,
%rb .b8, %f .f32, %fd .f64, %p .pred, %q .b128.
"""

from __future__ import annotations

import re

from pyptx.ir import (
    TARGETS,
    Address,
    Immediate,
    Instruction,
    LabelRef,
    Negated,
    Operand,
    ParenList,
    PredPair,
    PtxType,
    Register,
    Sink,
    SpecialRegister,
    Symbol,
    VectorOperand,
    is_special_register,
)
from pyptx.ir.isa import Diagnostic, DiagnosticCode, Requirements, check, requirements

_REG_TYPES = {
    "%rd": PtxType.B64,
    "%rs": PtxType.B16,
    "%rb": PtxType.B8,
    "%r": PtxType.B32,
    "%fd": PtxType.F64,
    "%f": PtxType.F32,
    "%p": PtxType.PRED,
    "%q": PtxType.B128,
}


def reg_type(name: str) -> PtxType | None:
    """Declared types by nvcc naming convention (%r7 is .b32, %rd2 is .b64, ...)."""
    m = re.fullmatch(r"(%[a-z]+)(\d+)", name)
    return _REG_TYPES.get(m.group(1)) if m else None


def _split(text: str) -> list[str]:
    """Split on commas that are not nested in brackets, braces or parentheses."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _atom(text: str) -> Operand:
    if text == "_":
        return Sink()
    if text.startswith("!"):
        return Negated(_atom(text[1:]))
    if "|" in text:
        a, b = text.split("|")
        return PredPair(_atom(a), _atom(b))
    if text.startswith("{"):
        return VectorOperand(tuple(_atom(t) for t in _split(text[1:-1])))
    if text.startswith("("):
        return ParenList(tuple(_atom(t) for t in _split(text[1:-1])))
    if text.startswith("["):
        base, *extra = _split(text[1:-1])
        rest = tuple(_atom(e) for e in extra)
        m = re.fullmatch(r"(.+?)\s*([+-])\s*(\d+)", base)
        if m:
            start = _atom(m.group(1))
            assert isinstance(start, Register | Symbol)
            return Address(start, Immediate(m.group(3)), m.group(2), rest)
        start = _atom(base)
        assert isinstance(start, Register | Symbol)
        return Address(start, None, "+", rest)
    if text.startswith("%"):
        return SpecialRegister(text) if is_special_register(text) else Register(text)
    if re.match(r"-?(0[fFdDxX][0-9a-fA-F]+|\d)", text):
        return Immediate(text)
    if text.startswith("$"):
        return LabelRef(text)
    return Symbol(text)


def insn(text: str) -> Instruction:
    """Read one instruction such as ``add.s32 %r1, %r2, 3;`` into the IR."""
    text = text.strip().rstrip(";").strip()
    mnemonic, _, rest = text.partition(" ")
    opcode, *mods = mnemonic.split(".")
    return Instruction(opcode, tuple(mods), tuple(_atom(t) for t in _split(rest)))


def codes(diags: tuple[Diagnostic, ...]) -> set[DiagnosticCode]:
    return {d.code for d in diags}


def run(
    text: str, target: str = "sm_100a", version: tuple[int, int] = (9, 2)
) -> tuple[Diagnostic, ...]:
    return check(insn(text), target=target, version=version, reg_type=reg_type)


def need(text: str) -> Requirements:
    """The requirements of an instruction the table knows."""
    req = requirements(insn(text))
    assert req is not None, text
    return req


def at_minimum(text: str) -> tuple[str, tuple[int, int]]:
    """The lowest target and version the table says an instruction needs."""
    req = need(text)
    target = req.suggest_target()
    version = max(req.min_ptx, TARGETS[target].min_ptx) if target in TARGETS else req.min_ptx
    return target, version
