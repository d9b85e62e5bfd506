"""Symbolic registers and their operator sugar.

Every operator on a :class:`Reg` emits exactly one PTX instruction at trace time and returns
a fresh register holding the result (see the table in :data:`OPERATOR_TABLE`). A register
has no Python truth value: ``if r == 0:`` raises and points to ``ptx.if_``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from pyptx.ir import PtxType, Register, SpecialRegister, TypeKind

from ._trace import current
from .errors import PtxDslError
from .operands import NotPred, emit_inst

__all__ = [
    "OPERATOR_TABLE",
    "Reg",
    "RegArray",
    "SpecialReg",
    "array",
    "from_",
    "scalar",
    "wgmma_frag",
]


class SpecialReg:
    """A special register read (``%tid.x``); usable wherever a register operand is."""

    __slots__ = ("node", "type")

    def __init__(self, name: str, ty: PtxType) -> None:
        self.node = SpecialRegister(name)
        self.type = ty

    def __repr__(self) -> str:
        return f"SpecialReg({self.node.name})"

    def ptx_operand(self) -> SpecialRegister:
        """The IR operand this special register stands for."""
        return self.node

    def _no_compare(self, op: str) -> PtxDslError:
        name = self.node.name
        return PtxDslError(
            f"special register {name} cannot be compared with {op} directly (a Python "
            f"comparison would not emit PTX); move it into a register first: "
            f"reg.from_(ptx.special.{name[1:]}(), {self.type.value}) {op} ..."
        )

    def __bool__(self) -> bool:
        raise PtxDslError(
            f"special register {self.node.name} has no Python truth value at trace time; move "
            "it into a register, compare that to get a predicate, and branch with ptx.if_"
        )

    __hash__ = object.__hash__

    def __eq__(self, o: object) -> bool:
        raise self._no_compare("==")

    def __ne__(self, o: object) -> bool:
        raise self._no_compare("!=")

    def __lt__(self, o: object) -> bool:
        raise self._no_compare("<")

    def __le__(self, o: object) -> bool:
        raise self._no_compare("<=")

    def __gt__(self, o: object) -> bool:
        raise self._no_compare(">")

    def __ge__(self, o: object) -> bool:
        raise self._no_compare(">=")


def _arith_type(ty: PtxType) -> PtxType:
    """The type arithmetic instructions use for a register of logical type ``ty``."""
    return {PtxType.B32: PtxType.U32, PtxType.B64: PtxType.U64, PtxType.B16: PtxType.U16}.get(
        ty, ty
    )


def _bits_type(ty: PtxType) -> PtxType:
    if ty is PtxType.PRED:
        return ty
    return {16: PtxType.B16, 32: PtxType.B32, 64: PtxType.B64}.get(ty.bits, ty)


def _is_float(ty: PtxType) -> bool:
    return ty.kind is TypeKind.FLOAT


# operator -> (int opcode + modifiers, float opcode + modifiers, type chooser)
OPERATOR_TABLE: dict[str, tuple[tuple[str, ...], tuple[str, ...] | None, str]] = {
    "+": (("add",), ("add",), "arith"),
    "-": (("sub",), ("sub",), "arith"),
    "*": (("mul", "lo"), ("mul",), "arith"),
    "//": (("div",), None, "arith"),
    "/": (("div",), ("div", "rn"), "arith"),
    "%": (("rem",), None, "arith"),
    "&": (("and",), None, "bits"),
    "|": (("or",), None, "bits"),
    "^": (("xor",), None, "bits"),
    "<<": (("shl",), None, "bits"),
    ">>": (("shr",), None, "arith"),
}
"""Binary operators on registers: each emits one instruction (``r + 1`` -> ``add.u32``)."""

_COMPARE = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}


class Reg:
    """A symbolic PTX register of a given logical type.

    Attributes:
        name: the register's PTX name (``%r3``).
        type: the logical type the user asked for (``u32``, ``f32``, ``pred``, ...); the
            declaration uses a same-width storage type (``.b32`` for ``u32``).
    """

    __slots__ = ("_node", "name", "type")

    def __init__(self, name: str, ty: PtxType) -> None:
        self.name = name
        self.type = ty
        self._node: Register | None = None

    def __repr__(self) -> str:
        return f"Reg({self.name}: {self.type.ptx})"

    def ptx_operand(self) -> Register:
        """The IR operand this register stands for (one node, made on first use)."""
        node = self._node
        if node is None or node.name is not self.name:
            node = self._node = Register(self.name)
        return node

    def __bool__(self) -> bool:
        raise PtxDslError(
            f"register {self.name} has no Python truth value at trace time; branch on the "
            "device with `with ptx.if_(pred):` (compare with ==, <, ... to get a predicate)"
        )

    __hash__ = object.__hash__

    def __index__(self) -> int:
        raise PtxDslError(
            f"register {self.name} is not a Python int; use ptx.range_ for a device loop or "
            "pass a Python int for a compile-time value"
        )

    # ------------------------------------------------------------------ arithmetic

    def _binary(self, op: str, other: object, swap: bool = False) -> Reg:
        int_form, float_form, chooser = OPERATOR_TABLE[op]
        ty = self.type
        if ty is PtxType.PRED and op in ("&", "|", "^"):
            form: tuple[str, ...] = int_form
            inst_ty = PtxType.PRED
        elif _is_float(ty):
            if float_form is None:
                raise PtxDslError(f"operator {op!r} is not defined for {ty.ptx} registers")
            form = float_form
            inst_ty = ty
        else:
            form = int_form
            inst_ty = _arith_type(ty) if chooser == "arith" else _bits_type(ty)
        if op == ">>" and inst_ty.kind is TypeKind.BITS:
            inst_ty = _arith_type(inst_ty)
        dst = _new(ty)
        a, b = (other, self) if swap else (self, other)
        emit_inst(form[0], (*form[1:], inst_ty.value), (dst, a, b))
        return dst

    def __add__(self, o: object) -> Reg:
        return self._binary("+", o)

    def __radd__(self, o: object) -> Reg:
        return self._binary("+", o, True)

    def __sub__(self, o: object) -> Reg:
        return self._binary("-", o)

    def __rsub__(self, o: object) -> Reg:
        return self._binary("-", o, True)

    def __mul__(self, o: object) -> Reg:
        return self._binary("*", o)

    def __rmul__(self, o: object) -> Reg:
        return self._binary("*", o, True)

    def __floordiv__(self, o: object) -> Reg:
        return self._binary("//", o)

    def __truediv__(self, o: object) -> Reg:
        return self._binary("/", o)

    def __mod__(self, o: object) -> Reg:
        return self._binary("%", o)

    def __and__(self, o: object) -> Reg:
        return self._binary("&", o)

    def __rand__(self, o: object) -> Reg:
        return self._binary("&", o, True)

    def __or__(self, o: object) -> Reg:
        return self._binary("|", o)

    def __ror__(self, o: object) -> Reg:
        return self._binary("|", o, True)

    def __xor__(self, o: object) -> Reg:
        return self._binary("^", o)

    def __lshift__(self, o: object) -> Reg:
        return self._binary("<<", o)

    def __rshift__(self, o: object) -> Reg:
        return self._binary(">>", o)

    def __neg__(self) -> Reg:
        dst = _new(self.type)
        ty = (
            self.type
            if _is_float(self.type)
            else {32: PtxType.S32, 64: PtxType.S64}.get(self.type.bits, PtxType.S16)
        )
        emit_inst("neg", (ty.value,), (dst, self))
        return dst

    def __invert__(self) -> Any:
        if self.type is PtxType.PRED:
            return NotPred(self)
        dst = _new(self.type)
        emit_inst("not", (_bits_type(self.type).value,), (dst, self))
        return dst

    # ------------------------------------------------------------------ comparisons

    def _compare(self, op: str, other: object) -> Reg:
        ty = self.type
        if ty is PtxType.PRED:
            raise PtxDslError(
                f"cannot compare predicate {self.name} with {op}; combine predicates with & | ^"
            )
        inst_ty = ty if _is_float(ty) else _arith_type(ty)
        dst = _new(PtxType.PRED)
        emit_inst("setp", (_COMPARE[op], inst_ty.value), (dst, self, other))
        return dst

    def __eq__(self, o: object) -> Reg:  # type: ignore[override]
        return self._compare("==", o)

    def __ne__(self, o: object) -> Reg:  # type: ignore[override]
        return self._compare("!=", o)

    def __lt__(self, o: object) -> Reg:
        return self._compare("<", o)

    def __le__(self, o: object) -> Reg:
        return self._compare("<=", o)

    def __gt__(self, o: object) -> Reg:
        return self._compare(">", o)

    def __ge__(self, o: object) -> Reg:
        return self._compare(">=", o)

    # ------------------------------------------------------------------ named operations

    def max(self, other: object) -> Reg:
        """The larger of this register and ``other``, in a fresh register (one instruction).

        Emits ``max.<type> d, self, other;`` with the type the operators use (``u32`` for a
        ``b32`` register, ``f32`` for ``f32``): the same instruction as ``ptx.max(d, self,
        other)`` into a fresh ``d`` of this register's type. This is the seed system's
        spelling (``num_blocks_k.max(2)``); ``ptx.max`` also takes ``relu=``, ``nan=``, ...

        Raises:
            PtxDslError: a predicate register (the ISA table judges the other types).

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-max
        """
        if self.type is PtxType.PRED:
            raise PtxDslError(f"max of predicate {self.name}: combine predicates with & | ^")
        ty = self.type if _is_float(self.type) else _arith_type(self.type)
        dst = _new(self.type)
        emit_inst("max", (ty.value,), (dst, self, other))
        return dst


def _new(ty: PtxType) -> Reg:
    return Reg(current().new_reg(ty), ty)


class RegArray(Sequence[Reg]):
    """A fixed-size list of registers of one type (``reg.array(f32, 8)``)."""

    def __init__(self, regs: Sequence[Reg], ty: PtxType) -> None:
        self._regs = tuple(regs)
        self.type = ty

    def __len__(self) -> int:
        return len(self._regs)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return RegArray(self._regs[i], self.type)
        return self._regs[i]

    def __iter__(self) -> Iterator[Reg]:
        return iter(self._regs)

    def __repr__(self) -> str:
        return f"RegArray({len(self)} x {self.type.ptx})"

    def regs(self) -> list[Reg]:
        """The registers as a list, in order (the same as ``list(array)``; emits nothing)."""
        return list(self._regs)

    def hw_order(self, *, reverse: bool = False) -> list[Reg]:
        """The registers in declaration order, or reversed with ``reverse=True`` (emits nothing).

        The seed system's name for ``list(array)`` / ``list(reversed(array))``. Our
        ``reg.array`` / ``reg.wgmma_frag`` order already is the register order
        ``wgmma.mma_async`` and ``mma.sync`` expect (``d0, d1, ...``); a reversed list is
        equally valid as long as every instruction that reads or writes the fragment is given
        the same list.
        """
        return list(reversed(self._regs)) if reverse else list(self._regs)


def scalar(ty: PtxType, init: object = None) -> Reg:
    """Allocate one register of type ``ty``; with ``init``, also emit ``mov`` of that value.

    Emits nothing without ``init`` (the register is declared with the kernel's ``.reg``
    lines); with ``init`` emits ``mov.<ty> r, init`` (one instruction).
    """
    r = _new(ty)
    if init is not None:
        emit_inst("mov", (_mov_type(ty).value,), (r, init))
    return r


def array(ty: PtxType, count: int) -> RegArray:
    """Allocate ``count`` registers of type ``ty`` (emits no instruction)."""
    if not isinstance(count, int) or count <= 0:
        raise PtxDslError(f"reg.array needs a positive int count, got {count!r}")
    return RegArray([_new(ty) for _ in range(count)], ty)


def _mov_type(ty: PtxType) -> PtxType:
    """``mov`` has no half/fp8 forms: those move as same-width bits (``mov.b16``)."""
    if ty in (PtxType.PRED, PtxType.F32, PtxType.F64) or ty.kind is not TypeKind.FLOAT:
        return ty
    return _bits_type(ty)


def from_(value: object, ty: PtxType) -> Reg:
    """Allocate a register and ``mov`` ``value`` into it (one ``mov`` instruction).

    ``value`` may be a special register (``ptx.special.tid.x()``), a register, or a constant.
    """
    r = _new(ty)
    emit_inst("mov", (_mov_type(ty).value,), (r, value))
    return r


_WGMMA_N = frozenset(range(8, 257, 8))


def wgmma_frag(n: int, dtype: PtxType = PtxType.F32, m: int = 64) -> RegArray:
    """Accumulator registers for one dense ``wgmma.mma_async`` of shape m64nNk*.

    A warpgroup's m64nN accumulator holds ``N / 2`` 32-bit values per thread for f32/s32
    accumulators (``N / 4`` registers of packed f16x2 for f16). Emits no instruction.

    Raises:
        PtxDslError: ``n`` is not a legal wgmma N (8..256, multiple of 8) or m is not 64.
    """
    if m != 64 or n not in _WGMMA_N:
        raise PtxDslError(f"wgmma shapes are m64nNk*, N in 8..256 step 8; got m={m}, n={n}")
    if dtype is PtxType.F16:
        return RegArray([_new(PtxType.F16X2) for _ in range(n // 4)], PtxType.F16X2)
    if dtype not in (PtxType.F32, PtxType.S32):
        raise PtxDslError(f"wgmma accumulators are f32, s32 or f16, got {dtype.ptx}")
    return array(dtype, n // 2)
