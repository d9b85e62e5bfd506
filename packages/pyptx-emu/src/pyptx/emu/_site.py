"""One instruction, decoded: its table match and compiled operand readers and writers.

Semantics receive a :class:`Site` and return an executor. Everything that depends only on the
instruction (which slots hold which modifiers, which register an operand names, what an
immediate is worth, how an address is formed) is worked out here once, so the executor only
moves numbers. Operands are found by the name the ISA table gives them (``site.src("a")``),
never by position.

Readers take ``(machine, lanes)`` and return one value per lane as a numpy array of
:func:`~pyptx.emu._types.value_dtype` of the requested type (vectors: ``(n, k)``); writers
take ``(machine, lanes, values)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pyptx.emitter import emit
from pyptx.ir import (
    Address,
    BinaryExpr,
    Immediate,
    ImmediateKind,
    Instruction,
    LabelRef,
    Negated,
    Operand,
    ParenExpr,
    PredPair,
    PtxType,
    Register,
    Sink,
    SpecialRegister,
    StateSpace,
    Symbol,
    UnaryExpr,
    VectorOperand,
)
from pyptx.ir.isa import Match

from ._errors import NotEmulated
from ._lanes import Lanes
from ._memory import GLOBAL_BASE, WINDOW_SHIFT, WINDOWS, Space
from ._program import Program, Reg, Statement, Var
from ._special import special_reader
from ._types import bits_of, from_bits, immediate_value, to_bits, value_dtype

__all__ = ["Reader", "Site", "Writer"]

Reader = Callable[[Any, Lanes], np.ndarray]
"""``(machine, lanes) -> values``."""
Writer = Callable[[Any, Lanes, np.ndarray], None]
"""``(machine, lanes, values) -> None``."""


class Site:
    """A decoded instruction (see the module docstring).

    Attributes:
        insn: the IR instruction.
        pc: its program counter.
        line: its PTX line.
        match: how it fits the ISA table.
        program: the program it belongs to.
        mnemonic: its full dotted mnemonic.
        modifiers: its modifiers as a set.
    """

    def __init__(self, stmt: Statement, program: Program, match: Match) -> None:
        self.stmt = stmt
        self.insn: Instruction = stmt.insn
        self.pc = stmt.pc
        self.line = stmt.line
        self.match = match
        self.program = program
        self.scope = stmt.scope
        self.mnemonic = stmt.insn.mnemonic
        self.modifiers = frozenset(stmt.insn.modifiers)

    # ----------------------------------------------------------------- modifiers

    def slot(self, name: str) -> str | None:
        """The modifier in the table's slot ``name`` (``"type"``, ``"rnd"``), or ``None``."""
        return self.match.slot(name)

    def slots(self, name: str) -> tuple[str, ...]:
        """Every modifier in slot ``name`` (repeatable slots)."""
        return tuple(self.match.slots.get(name, ()))

    def has(self, modifier: str) -> bool:
        """Whether ``modifier`` (without dot) is one of the instruction's modifiers."""
        return modifier in self.modifiers

    def type(self, name: str = "type") -> PtxType:
        """The type in slot ``name``.

        Raises:
            NotEmulated: the slot is empty or holds no PTX type.
        """
        value = self.slot(name)
        ty = PtxType.from_name(value) if value is not None else None
        if ty is None:
            raise NotEmulated(f"{self.mnemonic}: no .{name} type to emulate with")
        return ty

    def space(self) -> Space:
        """The state space the modifiers name (:attr:`Space.GENERIC` when none)."""
        return Space.of(self.insn.modifiers)

    def not_emulated(self, what: str) -> NotEmulated:
        """A :class:`NotEmulated` error for ``what`` in this instruction."""
        return NotEmulated(f"{what} is not emulated")

    # ----------------------------------------------------------------- operands

    def operand(self, name: str) -> Operand | None:
        """The spelled operand the table calls ``name``, or ``None`` when left out."""
        i = self.match.index(name)
        return None if i is None else self.insn.operands[i]

    def require(self, name: str) -> Operand:
        """Like :meth:`operand`, but the operand must be there.

        Raises:
            NotEmulated: it is not (the table and the instruction disagree).
        """
        op = self.operand(name)
        if op is None:
            raise NotEmulated(f"{self.mnemonic}: operand '{name}' is missing")
        return op

    def operand_type(self, name: str) -> PtxType:
        """The type the table gives operand ``name`` for this instruction."""
        ty = self.match.operand_type(name)
        if ty is None:
            raise NotEmulated(f"{self.mnemonic}: the table gives operand '{name}' no type")
        return ty

    def src(self, name: str, ty: PtxType | None = None) -> Reader:
        """A reader of operand ``name`` as type ``ty`` (default: the table's type)."""
        return self.reader(self.require(name), ty or self.operand_type(name))

    def dst(self, name: str, ty: PtxType | None = None) -> Writer:
        """A writer of operand ``name`` as type ``ty`` (default: the table's type)."""
        return self.writer(self.require(name), ty or self.operand_type(name))

    def vec_src(self, name: str, ty: PtxType | None = None) -> Reader:
        """A reader of a vector operand (``{a, b, c}``) returning ``(n, k)`` values.

        A scalar operand reads as a one-element vector.
        """
        op = self.require(name)
        ty = ty or self.operand_type(name)
        elements = op.elements if isinstance(op, VectorOperand) else (op,)
        return self.vector_reader(elements, ty)

    def vec_dst(self, name: str, ty: PtxType | None = None) -> Writer:
        """A writer of a vector operand taking ``(n, k)`` values (sinks skip their column)."""
        op = self.require(name)
        ty = ty or self.operand_type(name)
        elements = op.elements if isinstance(op, VectorOperand) else (op,)
        return self.vector_writer(elements, ty)

    def width(self, name: str) -> int:
        """Elements of operand ``name`` (1 for a scalar)."""
        op = self.require(name)
        return len(op.elements) if isinstance(op, VectorOperand) else 1

    def imm(self, name: str) -> int | float:
        """The value of operand ``name``, which must be a constant.

        Raises:
            NotEmulated: it is a register (the semantics need a constant there).
        """
        value = self.constant(self.require(name))
        if value is None:
            raise NotEmulated(f"{self.mnemonic}: operand '{name}' must be a constant here")
        return value

    def addr(self, name: str) -> Reader:
        """A reader of the address operand ``name`` as ``uint64`` addresses of its space.

        ``[reg+off]``, ``[sym+off]`` and ``[imm]`` are supported; a symbol gives its address in
        its own space (a generic instruction gets the generic address).
        """
        op = self.require(name)
        if not isinstance(op, Address):
            return self.reader(op, PtxType.U64)
        return self.address_reader(op)

    # ----------------------------------------------------------------- compiling

    def reader(self, op: Operand, ty: PtxType) -> Reader:
        """Compile a reader of one operand (any kind but address) as type ``ty``."""
        if isinstance(op, Negated):
            inner = self.reader(op.operand, PtxType.PRED)

            def negated(m: Any, lanes: Lanes) -> np.ndarray:
                return ~inner(m, lanes)

            return negated
        if isinstance(op, Register | Symbol):
            bound = self.scope.resolve(op.name)
            if isinstance(bound, Reg):
                return _register_reader(bound, ty)
        if isinstance(op, SpecialRegister):
            return special_reader(op.name, ty)
        if isinstance(op, VectorOperand):
            # A vector read as one value (``mov.b64 %rd1, {%r1, %r2}``): packed, element 0
            # in the low bits.
            return _packed_reader(self, op, ty)
        value = self.constant(op)
        if value is not None:
            return _constant_reader(value, ty, op)
        raise NotEmulated(f"{self.mnemonic}: cannot read {_describe(op)}")

    def writer(self, op: Operand, ty: PtxType) -> Writer:
        """Compile a writer of one operand (a register, a sink, or a packed vector)."""
        if isinstance(op, Sink):
            return _sink
        if isinstance(op, Register | Symbol):
            bound = self.scope.resolve(op.name)
            if isinstance(bound, Reg):
                return _register_writer(bound, ty)
        if isinstance(op, VectorOperand):
            return _packed_writer(self, op, ty)
        raise NotEmulated(f"{self.mnemonic}: cannot write to {_describe(op)}")

    def vector_reader(self, elements: tuple[Operand, ...], ty: PtxType) -> Reader:
        """A reader stacking one reader per element into ``(n, k)``."""
        readers = [self.reader(e, ty) for e in elements]
        dtype = value_dtype(ty)

        def read(m: Any, lanes: Lanes) -> np.ndarray:
            out = np.empty((lanes.n, len(readers)), dtype=dtype)
            for j, r in enumerate(readers):
                out[:, j] = r(m, lanes)
            return out

        return read

    def vector_writer(self, elements: tuple[Operand, ...], ty: PtxType) -> Writer:
        """A writer spreading ``(n, k)`` values over one writer per element."""
        writers = [(j, self.writer(e, ty)) for j, e in enumerate(elements) if not _is_sink(e)]

        def write(m: Any, lanes: Lanes, values: np.ndarray) -> None:
            for j, w in writers:
                w(m, lanes, values[:, j])

        return write

    def predicate_pair(self, name: str) -> tuple[Writer, Writer | None]:
        """Writers of a ``p|q`` destination (or a single predicate: ``q`` is ``None``)."""
        op = self.require(name)
        if isinstance(op, PredPair):
            return self.writer(op.first, PtxType.PRED), self.writer(op.second, PtxType.PRED)
        return self.writer(op, PtxType.PRED), None

    def guard(self) -> Reader | None:
        """A reader of the instruction's guard (``@p`` / ``@!p``) as a bool mask, if any."""
        pred = self.insn.predicate
        if pred is None:
            return None
        inner = self.reader(pred.register, PtxType.PRED)
        if not pred.negated:
            return inner

        def negated(m: Any, lanes: Lanes) -> np.ndarray:
            return ~inner(m, lanes)

        return negated

    def active(self) -> Callable[[Any, Lanes], Lanes | None]:
        """The instruction's guard applied to lanes: which of them execute it.

        For executors that apply the guard themselves (``OWN_GUARD``): the result is ``lanes``
        itself when every guard holds (or there is no guard), the subset where it holds, or
        ``None`` when it holds nowhere.
        """
        guard = self.guard()
        if guard is None:
            return _everyone

        def active(m: Any, lanes: Lanes) -> Lanes | None:
            p = guard(m, lanes)
            if p.all():
                return lanes
            if not p.any():
                return None
            return lanes.subset(p, m.n)

        return active

    def address_reader(self, op: Address) -> Reader:
        """Compile ``[base(+|-)offset]`` into a reader of ``uint64`` addresses."""
        offset = 0
        if op.offset is not None:
            off = self.constant(op.offset)
            if off is None or isinstance(off, float):
                raise NotEmulated(f"{self.mnemonic}: address offset {op.offset} is not constant")
            offset = int(off) if op.sign == "+" else -int(off)
        base = op.base
        if isinstance(base, Register | Symbol):
            bound = self.scope.resolve(base.name)
            if isinstance(bound, Reg):
                raw = _register_reader(bound, PtxType.U64 if bound.type.bits == 64 else PtxType.U32)
                delta = np.uint64(offset & 0xFFFF_FFFF_FFFF_FFFF)

                def register_address(m: Any, lanes: Lanes) -> np.ndarray:
                    return raw(m, lanes).astype(np.uint64) + delta

                return register_address
        value = self.constant(base)
        if value is None or isinstance(value, float):
            raise NotEmulated(f"{self.mnemonic}: cannot form an address from {_describe(base)}")
        address = np.uint64((int(value) + offset) & 0xFFFF_FFFF_FFFF_FFFF)

        def constant_address(m: Any, lanes: Lanes) -> np.ndarray:
            return np.full(lanes.n, address, dtype=np.uint64)

        return constant_address

    # ----------------------------------------------------------------- constants

    def constant(self, op: Operand) -> int | float | None:
        """The value of a constant operand (immediate, expression, symbol address).

        A variable's name stands for its address in its own space; in a generic instruction
        (no state space modifier), for its generic address. ``None`` when not a constant.
        """
        if isinstance(op, Immediate):
            return _immediate(op)
        if isinstance(op, Symbol | LabelRef):
            if op.name == "WARP_SZ":
                return 32
            bound = self.scope.resolve(op.name)
            if isinstance(bound, Var):
                return self.variable_address(bound)
            if isinstance(bound, int) and isinstance(op, LabelRef):
                return bound
            func = self.program.function_addresses.get(op.name)
            if func is not None:
                return func
            return None
        if isinstance(op, ParenExpr):
            return self.constant(op.inner)
        if isinstance(op, UnaryExpr):
            inner = self.constant(op.operand)
            if inner is None:
                return None
            return _UNARY[op.op](inner)
        if isinstance(op, BinaryExpr):
            lhs, rhs = self.constant(op.lhs), self.constant(op.rhs)
            if lhs is None or rhs is None:
                return None
            fn = _BINARY.get(op.op)
            return None if fn is None else fn(lhs, rhs)
        return None

    def variable_address(self, var: Var) -> int:
        """The address of ``var``: in its space, or generic for a generic instruction."""
        space = self.space()
        if var.space is StateSpace.GLOBAL:
            return GLOBAL_BASE + var.offset
        window = _WINDOW_OF_VAR.get(var.space)
        if var.space is StateSpace.SHARED and var.dynamic:
            local = self.program.dynamic_base
        else:
            local = var.offset
        if space is Space.GENERIC and self.insn.opcode not in _SPACE_ADDRESS_OPCODES:
            assert window is not None
            return (WINDOWS[window] << WINDOW_SHIFT) + local
        return local


_SPACE_ADDRESS_OPCODES = frozenset({"mov", "cvta", "mapa"})
"""``mov %r, sym`` gives the address in the variable's own space even without a space
modifier (``cvta`` then converts it)."""

_WINDOW_OF_VAR = {
    StateSpace.SHARED: Space.SHARED,
    StateSpace.LOCAL: Space.LOCAL,
    StateSpace.PARAM: Space.PARAM,
    StateSpace.CONST: Space.CONST,
}


def _everyone(m: Any, lanes: Lanes) -> Lanes | None:
    return lanes


def _is_sink(op: Operand) -> bool:
    return isinstance(op, Sink)


def _sink(m: Any, lanes: Lanes, values: np.ndarray) -> None:
    return None


def _describe(op: object) -> str:
    try:
        return f"'{emit(op).strip()}'"  # type: ignore[arg-type]
    except TypeError:
        return repr(op)


def _immediate(op: Immediate) -> int | float:
    return op.value


def _imm_bits(op: Immediate) -> int | None:
    """The bit pattern of a ``0f``/``0d`` immediate (usable with bit and integer types)."""
    kind = op.kind
    if kind not in (ImmediateKind.HEX_F32, ImmediateKind.HEX_F64):
        return None
    body = op.text.lstrip("-")
    bits = int(body[2:], 16)
    if op.text.startswith("-"):
        bits ^= 1 << (31 if kind is ImmediateKind.HEX_F32 else 63)
    return bits


def _constant_reader(value: int | float, ty: PtxType, op: Operand) -> Reader:
    dtype = value_dtype(ty)
    if isinstance(op, Immediate) and dtype.kind != "f":
        # ``mov.b32 %r1, 0f3F800000``: a float spelled by its bits, used as bits.
        bits = _imm_bits(op)
        if bits is not None:
            value = bits
    try:
        scalar = immediate_value(value, ty)
    except ValueError as err:
        raise NotEmulated(str(err)) from None

    def constant(m: Any, lanes: Lanes) -> np.ndarray:
        return np.full(lanes.n, scalar, dtype=dtype)

    return constant


def _register_reader(reg: Reg, ty: PtxType) -> Reader:
    index = reg.index
    name = reg.name
    if reg.halves == 2:
        if bits_of(ty) != 128:
            raise NotEmulated(f"reading the .b128 register {name} as .{ty.value}")

        def wide(m: Any, lanes: Lanes) -> np.ndarray:
            if m.init[index] is not None:
                m.check_init(index, lanes, name)
            return m.regs[index][lanes.sel]

        return wide
    if ty is PtxType.B128:
        raise NotEmulated(f"reading the .{reg.type.value} register {name} as .b128")
    want = value_dtype(ty)
    have = reg.dtype
    same_width = have.itemsize == want.itemsize or (want == np.bool_ and have == np.bool_)

    if same_width and want.kind != "b":
        if have == want:

            def same(m: Any, lanes: Lanes) -> np.ndarray:
                if m.init[index] is not None:
                    m.check_init(index, lanes, name)
                return m.regs[index][lanes.sel]

            return same

        def view(m: Any, lanes: Lanes) -> np.ndarray:
            if m.init[index] is not None:
                m.check_init(index, lanes, name)
            return m.regs[index][lanes.sel].view(want)

        return view

    def convert(m: Any, lanes: Lanes) -> np.ndarray:
        if m.init[index] is not None:
            m.check_init(index, lanes, name)
        return from_bits(m.regs[index][lanes.sel], ty)

    return convert


def _register_writer(reg: Reg, ty: PtxType) -> Writer:
    index = reg.index
    if reg.halves == 2:

        def wide(m: Any, lanes: Lanes, values: np.ndarray) -> None:
            m.regs[index][lanes.sel] = values
            if m.init[index] is not None:
                m.mark_init(index, lanes)

        return wide
    have = reg.dtype
    if have == np.bool_:

        def predicate(m: Any, lanes: Lanes, values: np.ndarray) -> None:
            m.regs[index][lanes.sel] = values
            if m.init[index] is not None:
                m.mark_init(index, lanes)

        return predicate
    bits = have.itemsize * 8
    extend_signed = ty.kind.value == "signed"

    def write(m: Any, lanes: Lanes, values: np.ndarray) -> None:
        v = values
        if v.dtype.itemsize * 8 != bits and v.dtype.kind == "f":
            v = v.view(np.dtype(f"u{v.dtype.itemsize}"))
        if extend_signed and v.dtype.kind == "u" and v.dtype.itemsize * 8 < bits:
            v = v.view(np.dtype(f"i{v.dtype.itemsize}"))
        m.regs[index][lanes.sel] = to_bits(v, bits)
        if m.init[index] is not None:
            m.mark_init(index, lanes)

    return write


def _packed_reader(site: Site, op: VectorOperand, ty: PtxType) -> Reader:
    """``{a, b}`` read as one ``ty`` value: element 0 in the lowest bits."""
    total = bits_of(ty)
    k = len(op.elements)
    if total % k:
        raise NotEmulated(f"{site.mnemonic}: {k} elements do not pack into .{ty.value}")
    part = total // k
    part_ty = PtxType.from_name(f"b{part}")
    if part_ty is None:
        raise NotEmulated(f"{site.mnemonic}: cannot pack {k} elements into .{ty.value}")
    readers = [site.reader(e, part_ty) for e in op.elements]
    out_dtype = np.dtype(f"u{total // 8}") if total <= 64 else None
    if out_dtype is None:

        def pack128(m: Any, lanes: Lanes) -> np.ndarray:
            parts = np.stack([r(m, lanes) for r in readers], axis=1)
            return np.ascontiguousarray(parts).view(np.uint64).reshape(lanes.n, 2)

        return pack128

    def pack(m: Any, lanes: Lanes) -> np.ndarray:
        parts = np.stack([r(m, lanes) for r in readers], axis=1)
        return from_bits(np.ascontiguousarray(parts).view(out_dtype).reshape(lanes.n), ty)

    return pack


def _packed_writer(site: Site, op: VectorOperand, ty: PtxType) -> Writer:
    """One ``ty`` value written to ``{a, b}``: element 0 takes the lowest bits."""
    total = bits_of(ty)
    k = len(op.elements)
    if total % k:
        raise NotEmulated(f"{site.mnemonic}: .{ty.value} does not split into {k} elements")
    part = total // k
    part_ty = PtxType.from_name(f"b{part}")
    if part_ty is None:
        raise NotEmulated(f"{site.mnemonic}: cannot split .{ty.value} into {k} elements")
    writers = [(j, site.writer(e, part_ty)) for j, e in enumerate(op.elements) if not _is_sink(e)]
    part_dtype = np.dtype(f"u{part // 8}")

    def unpack(m: Any, lanes: Lanes, values: np.ndarray) -> None:
        raw = np.ascontiguousarray(values)
        if raw.dtype.kind == "f" or raw.dtype.kind == "i":
            raw = raw.view(np.dtype(f"u{raw.dtype.itemsize}"))
        parts = raw.view(part_dtype).reshape(lanes.n, k)
        for j, w in writers:
            w(m, lanes, parts[:, j])

    return unpack


_UNARY: dict[str, Callable[[Any], Any]] = {
    "-": lambda v: -v,
    "~": lambda v: ~int(v),
    "!": lambda v: int(not v),
}

_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a // b if isinstance(a, int) and isinstance(b, int) else a / b,
    "%": lambda a, b: a % b,
    "<<": lambda a, b: int(a) << int(b),
    ">>": lambda a, b: int(a) >> int(b),
    "&": lambda a, b: int(a) & int(b),
    "|": lambda a, b: int(a) | int(b),
    "^": lambda a, b: int(a) ^ int(b),
    "==": lambda a, b: int(a == b),
    "!=": lambda a, b: int(a != b),
    "<": lambda a, b: int(a < b),
    ">": lambda a, b: int(a > b),
    "<=": lambda a, b: int(a <= b),
    ">=": lambda a, b: int(a >= b),
    "&&": lambda a, b: int(bool(a) and bool(b)),
    "||": lambda a, b: int(bool(a) or bool(b)),
}
