"""A module made ready to run: registers, variables and labels resolved, code laid out.

:class:`Program` walks a :class:`pyptx.ir.Module` once. Every function body is flattened into
one code array (so a program counter is an index into it), nested ``{ }`` scopes become
:class:`Scope` objects that resolve names innermost first, registers get a slot in the
register file, variables an offset in their state space, labels a program counter. Nothing
here depends on a launch: the same program serves every launch of the module.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pyptx.emitter import instruction_lines
from pyptx.ir import (
    Block,
    Declarator,
    Function,
    FunctionKind,
    Instruction,
    Label,
    Linkage,
    Module,
    Node,
    Param,
    PtrQualifier,
    PtxType,
    StateSpace,
    VariableDecl,
)

from ._errors import LaunchError, NotEmulated
from ._types import bits_of, storage_dtype

__all__ = [
    "Func",
    "Program",
    "Reg",
    "Scope",
    "Statement",
    "Var",
    "align_up",
]

FRAME_BASE = 0x10000
"""Param-space addresses from here on are per-thread call frames (call arguments, formal
parameters and return values of ``.func``s); below it is the kernel's parameter buffer."""


def align_up(value: int, align: int) -> int:
    """``value`` rounded up to a multiple of ``align``."""
    return (value + align - 1) // align * align


@dataclass(eq=False)
class Reg:
    """One register (one element of a ``%r<N>`` range counts as one).

    Attributes:
        index: its slot in the machine's register file.
        name: the spelling in the source.
        type: the declared type.
        dtype: the numpy dtype that stores it (raw bits; ``bool`` for predicates).
        halves: 2 for ``.b128`` registers (stored as two ``uint64`` columns), else 1.
    """

    index: int
    name: str
    type: PtxType
    dtype: np.dtype
    halves: int = 1


@dataclass(eq=False)
class Var:
    """A variable in a state space other than ``.reg``.

    Attributes:
        name: the declared name.
        space: ``GLOBAL``, ``CONST``, ``SHARED``, ``LOCAL`` or ``PARAM`` (sub-spaces folded).
        type: the element type.
        size: bytes (0 for an unsized ``.extern .shared`` array: the dynamic shared memory).
        align: alignment in bytes.
        offset: where it starts in its space (see :class:`Program`); for ``GLOBAL`` and
            ``CONST`` relative to the module's own segment of that space.
        decl: the declaration, for initializers.
        declarator: the declarator within it.
        dynamic: an ``.extern .shared`` array sized at launch.
        per_thread_param: a ``.param`` variable in a call frame (not a kernel parameter).
    """

    name: str
    space: StateSpace
    type: PtxType
    size: int
    align: int
    offset: int = 0
    decl: VariableDecl | Param | None = None
    declarator: Declarator | None = None
    dynamic: bool = False
    per_thread_param: bool = False


@dataclass(eq=False)
class Func:
    """A function with a body, laid out in the code array.

    Attributes:
        function: the IR function.
        entry: the program counter of its first instruction.
        end: one past its last instruction.
        params: its parameters as param-space variables (kernel buffer or call frame).
        returns: its return parameters (``.func`` only).
        scope: its outermost scope (parameters).
        address: the generic "code address" a function pointer to it holds.
        param_size: bytes of the kernel parameter buffer (``.entry`` only).
    """

    function: Function
    entry: int
    end: int
    params: tuple[Var, ...]
    returns: tuple[Var, ...]
    scope: Scope
    address: int = 0
    param_size: int = 0


@dataclass(eq=False)
class Scope:
    """A ``{ }`` block's names (registers, variables, labels), resolved inner first."""

    parent: Scope | None
    function: str
    names: dict[str, Reg | Var | int] = field(default_factory=dict)

    def resolve(self, name: str) -> Reg | Var | int | None:
        """What ``name`` means here: a register, a variable or a label's pc."""
        scope: Scope | None = self
        while scope is not None:
            found = scope.names.get(name)
            if found is not None:
                return found
            scope = scope.parent
        return None


@dataclass(eq=False)
class Statement:
    """One instruction in the code array, with what is needed to give it meaning.

    Attributes:
        insn: the instruction.
        pc: its index in the code array.
        line: its 1-based line in the PTX text (see :func:`pyptx.emitter.instruction_lines`).
        scope: the scope its names resolve in.
        function: the function it belongs to.
    """

    insn: Instruction
    pc: int
    line: int
    scope: Scope
    function: Func | None = None


FUNCTION_ADDRESS_BASE = 0x7A00_0000_0000
"""Generic addresses of functions (for function pointers and indirect calls)."""


class Program:
    """A module laid out for execution.

    Attributes:
        module: the IR module.
        code: every instruction of every function body, in source order.
        registers: every register, by slot index.
        functions: the functions with bodies, by name.
        kernels: the ``.entry`` functions with bodies, by name.
        globals: module-scope ``.global`` variables (offsets within the globals segment).
        consts: module-scope ``.const`` variables (offsets within the const segment).
        shared: static ``.shared`` variables (offsets from shared address 0).
        shared_static: bytes of static shared memory.
        dynamic_align: alignment of the dynamic shared memory region.
        local_size: bytes of ``.local`` memory per thread.
        frame_size: bytes of per-thread call frames (param space from FRAME_BASE).
        globals_size: bytes of the module's ``.global`` segment.
        consts_size: bytes of the module's ``.const`` segment.
        target: the module's ``.target`` architecture, if any.
    """

    def __init__(self, module: Module) -> None:
        self.module = module
        self.code: list[Statement] = []
        self.registers: list[Reg] = []
        self.functions: dict[str, Func] = {}
        self.globals: list[Var] = []
        self.consts: list[Var] = []
        self.shared: list[Var] = []
        self.shared_static = 0
        self.dynamic_align = 16
        self.local_size = 0
        self.frame_size = 0
        self.globals_size = 0
        self.consts_size = 0
        self.function_addresses: dict[str, int] = {}
        self.call_returns: dict[int, tuple[Var, ...]] = {}
        """The caller's return-value variables of each call instruction, by its pc (filled
        in when the calls are compiled)."""
        targets = module.targets
        self.target = targets[0] if targets else None
        self.scope = Scope(None, "")
        self._lines = iter(instruction_lines(module))
        self._layout_module()

    @property
    def dynamic_base(self) -> int:
        """The shared address where the dynamic (``.extern .shared``) region starts."""
        return align_up(self.shared_static, self.dynamic_align)

    # ----------------------------------------------------------------- module scope

    @property
    def kernels(self) -> dict[str, Func]:
        """The ``.entry`` functions with bodies, by name, in source order."""
        return {n: f for n, f in self.functions.items() if f.function.kind is FunctionKind.ENTRY}

    def kernel(self, name: str | None) -> Func:
        """The kernel to launch: ``name``, or the only one.

        Raises:
            LaunchError: no such kernel, or several and no name.
        """
        kernels = self.kernels
        if name is None:
            if len(kernels) == 1:
                return next(iter(kernels.values()))
            listed = ", ".join(kernels) or "none"
            raise LaunchError(
                f"the module has {len(kernels)} kernels ({listed}); pass kernel_name=..."
            )
        found = kernels.get(name)
        if found is None:
            listed = ", ".join(kernels) or "none"
            raise LaunchError(f"no .entry named {name!r} in the module (kernels: {listed})")
        return found

    def _layout_module(self) -> None:
        bodies = [
            s for s in self.module.statements if isinstance(s, Function) and s.body is not None
        ]
        self.function_addresses = {
            fn.name: FUNCTION_ADDRESS_BASE + 16 * (i + 1) for i, fn in enumerate(bodies)
        }
        for stmt in self.module.statements:
            if isinstance(stmt, VariableDecl):
                self._declare(stmt, self.scope, module_level=True)
        for fn in bodies:
            self._layout_function(fn, Scope(self.scope, fn.name))
        self.shared_static = align_up(self.shared_static, 16)

    def _declare(self, decl: VariableDecl, scope: Scope, *, module_level: bool) -> None:
        space = decl.state_space
        ty = decl.type
        if space is StateSpace.REG:
            if ty is None:
                raise NotEmulated(f"a .reg declaration without a type: {decl.declarators}")
            if decl.vector is not None:
                raise NotEmulated(".reg declarations of vector type (.v2/.v4) are not emulated")
            for d in decl.declarators:
                for name in d.names():
                    self._register(scope, name, ty, d)
            return
        if space in (StateSpace.TEX, None) or ty is None or ty.kind.value == "opaque":
            # Textures, samplers and surfaces: declared, but any use is not emulated.
            for d in decl.declarators:
                scope.names.setdefault(
                    d.name, Var(d.name, StateSpace.GLOBAL, PtxType.B64, 8, 8, decl=decl)
                )
            return
        folded = _fold_space(space)
        for d in decl.declarators:
            var = _variable(decl, d, folded)
            self._place(var, module_level=module_level)
            scope.names[d.name] = var

    def _register(self, scope: Scope, name: str, ty: PtxType, d: Declarator) -> None:
        if d.dims:
            raise NotEmulated(f"register arrays ({name}[...]) are not emulated")
        halves = 2 if ty is PtxType.B128 else 1
        dtype = np.dtype(np.uint64) if halves == 2 else storage_dtype(ty)
        reg = Reg(len(self.registers), name, ty, dtype, halves)
        self.registers.append(reg)
        scope.names[name] = reg

    def _place(self, var: Var, *, module_level: bool) -> None:
        """Give ``var`` its offset in its space."""
        if var.space is StateSpace.GLOBAL:
            self.globals_size = align_up(self.globals_size, var.align)
            var.offset = self.globals_size
            self.globals_size += var.size
            self.globals.append(var)
        elif var.space is StateSpace.CONST:
            self.consts_size = align_up(self.consts_size, var.align)
            var.offset = self.consts_size
            self.consts_size += var.size
            self.consts.append(var)
        elif var.space is StateSpace.SHARED:
            if var.dynamic:
                self.dynamic_align = max(self.dynamic_align, var.align)
            else:
                self.shared_static = align_up(self.shared_static, var.align)
                var.offset = self.shared_static
                self.shared_static += var.size
            self.shared.append(var)
        elif var.space is StateSpace.LOCAL:
            self.local_size = align_up(self.local_size, var.align)
            var.offset = self.local_size
            self.local_size += var.size
        elif var.space is StateSpace.PARAM:
            var.per_thread_param = True
            self.frame_size = align_up(self.frame_size, var.align)
            var.offset = FRAME_BASE + self.frame_size
            self.frame_size += var.size
        else:  # pragma: no cover - _fold_space returns one of the above
            raise NotEmulated(f"variables in .{var.space.value} are not emulated")

    # ----------------------------------------------------------------- functions

    def _layout_function(self, fn: Function, scope: Scope) -> None:
        kernel = fn.kind is FunctionKind.ENTRY
        params: list[Var] = []
        offset = 0
        for p in fn.params or ():
            var = _variable(p, p.declarator, StateSpace.PARAM)
            if kernel:
                offset = align_up(offset, var.align)
                var.offset = offset
                offset += var.size
            else:
                self._place(var, module_level=False)
            scope.names[p.declarator.name] = var
            params.append(var)
        returns: list[Var] = []
        for p in fn.returns or ():
            var = _variable(p, p.declarator, StateSpace.PARAM)
            self._place(var, module_level=False)
            scope.names[p.declarator.name] = var
            returns.append(var)
        assert fn.body is not None
        entry = len(self.code)
        func = Func(fn, entry, entry, tuple(params), tuple(returns), scope)
        func.address = self.function_addresses[fn.name]
        self.functions[fn.name] = func
        self._block(fn.body, scope, func)
        func.end = len(self.code)
        func.param_size = offset

    def _block(self, block: Block, scope: Scope, func: Func) -> None:
        # Labels first: a branch may jump forward to a label of this block.
        pc = len(self.code)
        for stmt in block.statements:
            if isinstance(stmt, Label):
                scope.names[stmt.name] = pc
            elif isinstance(stmt, Instruction):
                pc += 1
            elif isinstance(stmt, Block):
                pc += _count_instructions(stmt)
        for stmt in block.statements:
            if isinstance(stmt, Instruction):
                self.code.append(Statement(stmt, len(self.code), next(self._lines), scope, func))
            elif isinstance(stmt, VariableDecl):
                self._declare(stmt, scope, module_level=False)
            elif isinstance(stmt, Block):
                self._block(stmt, Scope(scope, scope.function), func)


def _count_instructions(block: Block) -> int:
    return sum(isinstance(s, Instruction) for s in block.walk_statements())


def _fold_space(space: StateSpace) -> StateSpace:
    folded = _SPACE_FOLD.get(space)
    if folded is None:
        raise NotEmulated(f"variables in .{space.value} are not emulated")
    return folded


_SPACE_FOLD = {
    StateSpace.GLOBAL: StateSpace.GLOBAL,
    StateSpace.CONST: StateSpace.CONST,
    StateSpace.SHARED: StateSpace.SHARED,
    StateSpace.SHARED_CTA: StateSpace.SHARED,
    StateSpace.SHARED_CLUSTER: StateSpace.SHARED,
    StateSpace.LOCAL: StateSpace.LOCAL,
    StateSpace.PARAM: StateSpace.PARAM,
    StateSpace.PARAM_ENTRY: StateSpace.PARAM,
    StateSpace.PARAM_FUNC: StateSpace.PARAM,
}


def _variable(decl: VariableDecl | Param, d: Declarator, space: StateSpace) -> Var:
    ty = decl.type or PtxType.B8
    lanes = decl.vector or 1
    elem = bits_of(ty) // 8 * lanes if ty is not PtxType.PRED else 1
    count = 1
    dynamic = False
    for i, dim in enumerate(d.dims):
        if dim is None:
            if i == 0 and d.initializer is not None:
                dim = _initializer_length(d.initializer)
            else:
                dynamic = True
                dim = 0
        count *= dim
    # ``.param .u64 .ptr .global .align 16 p``: that .align describes what p points to, not
    # the parameter, which is aligned as its type.
    pointer = any(isinstance(q, PtrQualifier) for q in decl.qualifiers)
    align = elem if pointer else (decl.align or elem)
    return Var(
        d.name,
        space,
        ty,
        elem * count,
        max(1, align),
        decl=decl,
        declarator=d,
        dynamic=dynamic and space is StateSpace.SHARED and Linkage.EXTERN in decl.linkage,
    )


def _initializer_length(init: Node) -> int:
    items = getattr(init, "items", None)
    return len(items) if items is not None else 1
