"""Initial contents of ``.global`` and ``.const`` variables (``= {1, 2, 3}``, ``= sym``)."""

from __future__ import annotations

import struct

import numpy as np

from pyptx.ir import (
    BinaryExpr,
    BraceList,
    GenericAddress,
    Immediate,
    ParenExpr,
    PtxType,
    StateSpace,
    Symbol,
    UnaryExpr,
)

from ._errors import NotEmulated
from ._memory import GLOBAL_BASE, WINDOW_SHIFT, WINDOWS, Segment, Space
from ._numeric import f32_to_bf16
from ._program import Program, Var
from ._types import bits_of

__all__ = ["fill_constants", "fill_globals"]


def fill_globals(program: Program, data: np.ndarray, segments: list[Segment]) -> None:
    """Write the initializers of the module's ``.global`` variables into ``data``."""
    for var in program.globals:
        _fill(program, var, data)


def fill_constants(program: Program, data: np.ndarray, segments: list[Segment]) -> None:
    """Write the initializers of the module's ``.const`` variables into ``data``."""
    for var in program.consts:
        _fill(program, var, data)


def _fill(program: Program, var: Var, data: np.ndarray) -> None:
    d = var.declarator
    if d is None or d.initializer is None:
        return
    values: list[object] = []
    _flatten(d.initializer, values)
    ty = var.type
    size = bits_of(ty) // 8 if ty is not PtxType.PRED else 1
    raw = bytearray()
    for v in values:
        raw += _encode(program, v, ty, size, var.name)
    raw = raw[: var.size]
    data[var.offset : var.offset + len(raw)] = np.frombuffer(bytes(raw), dtype=np.uint8)


def _flatten(init: object, out: list[object]) -> None:
    if isinstance(init, BraceList):
        for item in init.items:
            _flatten(item, out)
    else:
        out.append(init)


def _encode(program: Program, value: object, ty: PtxType, size: int, name: str) -> bytes:
    number = _evaluate(program, value, name)
    if ty is PtxType.F32:
        return struct.pack("<f", float(number))
    if ty is PtxType.F64:
        return struct.pack("<d", float(number))
    if ty is PtxType.F16:
        return np.array([number], dtype=np.float16).tobytes()
    if ty is PtxType.BF16:
        return f32_to_bf16(np.array([number], dtype=np.float32)).tobytes()
    if isinstance(number, float):
        if isinstance(value, Immediate):
            kind = value.kind.value
            if kind in ("hex_f32", "hex_f64"):
                number = int(value.text.lstrip("-")[2:], 16)
            else:
                raise NotEmulated(f"a float initializer for .{ty.value} variable {name}")
        else:
            raise NotEmulated(f"a float initializer for .{ty.value} variable {name}")
    return (int(number) & ((1 << (8 * size)) - 1)).to_bytes(size, "little")


def _evaluate(program: Program, value: object, name: str) -> int | float:
    if isinstance(value, Immediate):
        return value.value
    if isinstance(value, ParenExpr):
        return _evaluate(program, value.inner, name)
    if isinstance(value, UnaryExpr):
        inner = _evaluate(program, value.operand, name)
        return -inner if value.op == "-" else (~int(inner) if value.op == "~" else int(not inner))
    if isinstance(value, BinaryExpr):
        lhs = _evaluate(program, value.lhs, name)
        rhs = _evaluate(program, value.rhs, name)
        ops = {"+": lambda: lhs + rhs, "-": lambda: lhs - rhs, "*": lambda: lhs * rhs}
        if value.op not in ops:
            raise NotEmulated(f"the initializer operator {value.op!r} of {name}")
        return ops[value.op]()
    if isinstance(value, GenericAddress):
        return _address(program, value.operand, name, generic=True)
    if isinstance(value, Symbol):
        return _address(program, value, name, generic=False)
    raise NotEmulated(f"the initializer {value!r} of {name}")


def _address(program: Program, sym: object, name: str, *, generic: bool) -> int:
    target = getattr(sym, "name", None)
    if target is None:
        raise NotEmulated(f"the initializer of {name}")
    func = program.function_addresses.get(target)
    if func is not None:
        return func
    var = program.scope.names.get(target)
    if not isinstance(var, Var):
        raise NotEmulated(f"{name}'s initializer names {target}, which is not a variable")
    if var.space is StateSpace.GLOBAL:
        return GLOBAL_BASE + var.offset
    space = {StateSpace.SHARED: Space.SHARED, StateSpace.CONST: Space.CONST}.get(var.space)
    if space is None:
        raise NotEmulated(f"{name}'s initializer takes the address of a .{var.space.value}")
    offset = program.dynamic_base if var.dynamic else var.offset
    return (WINDOWS[space] << WINDOW_SHIFT) + offset if generic else offset
