"""Checking traced instructions against the ISA table before ptxas sees them."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Protocol, TypeVar

from pyptx.ir import (
    Address,
    Immediate,
    Instruction,
    Negated,
    Node,
    PredPair,
    PtxType,
    Register,
    SpecialRegister,
    VectorOperand,
    isa,
    lookup_target,
)

from .errors import PtxDslError

_K = TypeVar("_K")
_V = TypeVar("_V")

__all__ = [
    "LATEST_PTX",
    "SPECIAL_REGISTER_READERS",
    "TraceFacts",
    "check_instruction",
    "lowest_version",
]


class TraceFacts(Protocol):
    """What checking reads from a trace (:class:`pyptx.dsl._trace.Trace` has all of it).

    A protocol rather than an import keeps this module below the trace in the DSL core.
    """

    @property
    def arch(self) -> str:
        """The ``.target``."""
        ...

    @property
    def version(self) -> tuple[int, int] | None:
        """The pinned PTX version, or ``None`` for the lowest that works."""
        ...

    @property
    def reg_types(self) -> Mapping[str, PtxType]:
        """The declared type of every register name."""
        ...

    @property
    def instructions(self) -> Sequence[Instruction]:
        """Every instruction traced so far."""
        ...


SPECIAL_REGISTER_READERS = frozenset({"mov"})
"""Opcodes that may take a special register (``%tid.x``) operand; ptxas rejects the rest."""

LATEST_PTX = (9, 2)
"""The PTX version assumed while tracing when the kernel does not pin one (``version=None``);
the emitted ``.version`` is then lowered to the least every instruction and the target need."""


class _Bounded(dict[_K, _V]):
    """A dict that empties itself rather than grow past ``limit`` entries."""

    limit = 1 << 16

    def __setitem__(self, key: _K, value: _V) -> None:
        if len(self) >= self.limit:
            self.clear()
        super().__setitem__(key, value)


def check_instruction(trace: TraceFacts, insn: Instruction) -> None:
    """Raise at the user's line if ``insn`` breaks the ISA table for this kernel's target.

    Raises:
        PtxDslError: the first diagnostic, in "expected ..., got ..., fix" form.
    """
    if not _plainly_declared(insn, trace.reg_types):  # else neither check below can fail
        if insn.opcode not in SPECIAL_REGISTER_READERS:
            for i, op in enumerate(insn.operands):
                if isinstance(op, SpecialRegister):
                    raise PtxDslError(
                        f"{insn.mnemonic}: operand {i + 1} is the special register {op.name}, "
                        f"which only mov can read; copy it first with "
                        f"reg.from_(ptx.special...(), ty)"
                    )
        undeclared = _first_undeclared(insn, trace.reg_types)
        if undeclared is not None:
            raise PtxDslError(
                f"{insn.mnemonic}: register {undeclared} is not declared in this kernel; "
                "allocate registers with reg.scalar / reg.array / reg.from_ (or declare them in "
                "ptx.raw)"
            )
    version = trace.version or LATEST_PTX
    reg_type = trace.reg_types.get
    shape = isa.shape_key(insn, reg_type)
    key = (trace.arch, version, shape)
    if key in _PASSED:
        return
    said = _VERDICTS.get(shape)
    if said is None:
        said = _VERDICTS[shape] = isa.verdict(insn, reg_type=reg_type)
    if not said.passes(trace.arch, version):
        diags = isa.check(insn, target=trace.arch, version=version, reg_type=reg_type)
        raise PtxDslError(f"{insn.mnemonic}: {diags[0].message}")
    _PASSED[key] = None


# Instruction shapes (isa.shape_key) with the target and version that passed them, and each
# shape's isa.verdict: a kernel or a transpiled file repeats a few hundred shapes over
# thousands of instructions, and files of other targets repeat most of them again. A failure
# is checked again for its message, which names the operands.
_PASSED: _Bounded[Hashable, None] = _Bounded()
_VERDICTS: _Bounded[Hashable, isa.Verdict] = _Bounded()


def _plainly_declared(insn: Instruction, declared: Mapping[str, object]) -> bool:
    """Whether every operand is a declared register or a number, and so is the guard.

    Most instructions are: they read no special register and name nothing undeclared.
    """
    for op in insn.operands:
        kind = type(op)
        if kind is Register:
            if op.name not in declared:  # type: ignore[union-attr]
                return False
        elif kind is not Immediate:
            return False
    guard = insn.predicate
    return guard is None or (type(guard.register) is Register and guard.register.name in declared)


def _first_undeclared(insn: Instruction, declared: Mapping[str, object]) -> str | None:
    stack: list[Node] = list(insn.operands)
    if insn.predicate is not None:
        stack.append(insn.predicate.register)
    while stack:
        op = stack.pop()
        if isinstance(op, Register):
            if op.name not in declared:
                return op.name
        elif isinstance(op, VectorOperand):
            stack.extend(op.elements)
        elif isinstance(op, Address):
            stack.append(op.base)
            stack.extend(op.extra)
        elif isinstance(op, PredPair):
            stack += (op.first, op.second)
        elif isinstance(op, Negated):
            stack.append(op.operand)
    return None


def lowest_version(trace: TraceFacts) -> tuple[int, int]:
    """The least PTX version that the target and every traced instruction accept."""
    info = lookup_target(trace.arch)
    best = info.min_ptx if info is not None else (7, 0)
    for insn in trace.instructions:
        req = isa.requirements(insn, reg_type=trace.reg_types.get)
        if req is not None and req.min_ptx > best:
            best = req.min_ptx
    return best
