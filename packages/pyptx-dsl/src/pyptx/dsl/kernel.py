"""``@kernel``: trace a Python function into a PTX module."""

from __future__ import annotations

import functools
import inspect
import itertools
import os
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, overload

from pyptx.ir import (
    Address,
    AddressSize,
    Align,
    BinaryExpr,
    Block,
    Declarator,
    Function,
    FunctionDirective,
    FunctionDirectiveKind,
    FunctionKind,
    Immediate,
    Instruction,
    Linkage,
    Module,
    Node,
    Param,
    PtrQualifier,
    PtxType,
    Rewriter,
    StateSpace,
    Symbol,
    Target,
    VariableDecl,
    Version,
    lookup_target,
)

from ._trace import DYNAMIC_SMEM_NAME, EXTRA_SMEM_PLACEHOLDER, Trace, tracing
from .errors import PtxDslError
from .hooks import runtime_attribute
from .operands import emit_inst
from .regs import Reg, _new
from .tile import Tile
from .tools import assemble, disassemble  # assemble: also public here, where it lived first

__all__ = [
    "DYNAMIC_SMEM_THRESHOLD",
    "RESERVED_CALL_KEYWORDS",
    "Kernel",
    "TensorArg",
    "TracedKernel",
    "assemble",
    "kernel",
    "kernel_by_key",
]

DYNAMIC_SMEM_THRESHOLD = 48 * 1024
"""Static shared memory above this many bytes switches the kernel to dynamic shared memory."""


RESERVED_CALL_KEYWORDS = ("backend", "stream")
"""Keywords a kernel call keeps for the runtime; no template or scalar parameter may use them."""

_LIVE: weakref.WeakValueDictionary[str, Kernel] = weakref.WeakValueDictionary()
_SERIALS = itertools.count()


def kernel_by_key(key: str) -> Kernel | None:
    """The live :class:`Kernel` whose :attr:`Kernel.key` is ``key``, or ``None`` once collected.

    Compiled graphs (``torch.compile``) can hold a kernel's key, a plain string, where they
    could not hold the kernel object; the runtime finds the kernel again through this.
    """
    return _LIVE.get(key)


_ARCHES = ("sm_80", "sm_86", "sm_89", "sm_90a", "sm_100a", "sm_103a", "sm_110a", "sm_120a")


def _resolve_arch(arch: str) -> str:
    if arch != "auto":
        if lookup_target(arch) is None:
            raise PtxDslError(
                f"unknown arch {arch!r}; use one of {', '.join(_ARCHES)}, another sm_XX[a|f] "
                "target, or 'auto'"
            )
        return arch
    env = os.environ.get("PYPTX_ARCH")
    if env:
        return _resolve_arch(env)
    auto_arch = runtime_attribute("auto_arch")
    if auto_arch is not None:
        return str(auto_arch())
    raise PtxDslError(
        "arch='auto' picks the target of the visible GPU (or the emulator's sm_90a), which "
        "needs pyptx-runtime (pip install pyptx-runtime); pass arch='sm_90a' (or another "
        "target) or set PYPTX_ARCH"
    )


@dataclass(frozen=True)
class TensorArg:
    """A positional kernel argument: a tensor passed as a ``.param``.

    Plain tiles arrive as a ``.u64`` global pointer parameter; TMA tiles (``Layout.TMA_*``)
    as a 128-byte, 64-byte aligned ``CUtensorMap`` parameter.

    Attributes:
        symbol: the parameter's PTX name (``<kernel>_param_<i>``).
        tile: the spec, or ``None`` when the kernel has no specs.
        shape: the resolved shape (symbolic names where unbound).
    """

    symbol: str
    tile: Tile | None
    shape: tuple[int | str, ...]

    @property
    def is_tma(self) -> bool:
        """Whether this argument is a TMA descriptor."""
        return self.tile is not None and self.tile.layout.is_tma

    def ptr(self) -> Reg:
        """A ``u64`` register with the tensor's global address.

        Emits ``ld.param.u64`` and ``cvta.to.global.u64`` (two instructions) at the start of
        the kernel on first use, so the register is valid everywhere; later calls return it.
        """
        from ._trace import current

        trace = current()
        key = ("ptr", self.symbol)
        if key not in trace.cache:
            if self.is_tma:
                raise PtxDslError(
                    f"{self.symbol} is a TMA descriptor (layout {self.tile.layout.name}); "  # type: ignore[union-attr]
                    "use .tma_desc() with ptx.cp.async_.bulk.tensor instead of .ptr()"
                )
            with trace.hoisted():
                raw = _new(PtxType.U64)
                emit_inst("ld", ("param", "u64"), (raw, Address(Symbol(self.symbol))))
                ptr = _new(PtxType.U64)
                emit_inst("cvta", ("to", "global", "u64"), (ptr, raw))
            trace.cache[key] = ptr
        return trace.cache[key]  # type: ignore[return-value]

    def tma_desc(self) -> Reg:
        """A ``u64`` register with the generic address of this TMA descriptor parameter.

        Emits ``mov.u64`` of the parameter and ``cvta.param.u64`` (two instructions) at the
        start of the kernel on first use; later calls return the same register.
        """
        from ._trace import current

        if not self.is_tma:
            raise PtxDslError(
                f"{self.symbol} is not a TMA tile; give its Tile a Layout.TMA_* layout "
                "(or use Tile.wgmma_a / Tile.wgmma_b)"
            )
        trace = current()
        key = ("tma", self.symbol)
        if key not in trace.cache:
            with trace.hoisted():
                raw = _new(PtxType.U64)
                emit_inst("mov", ("u64",), (raw, Symbol(self.symbol)))
                desc = _new(PtxType.U64)
                emit_inst("cvta", ("param", "u64"), (desc, raw))
            trace.cache[key] = desc
        return trace.cache[key]  # type: ignore[return-value]


@dataclass(frozen=True)
class TracedKernel:
    """One specialization of a kernel: its module and what a launch needs to know about it.

    Attributes:
        name: the PTX entry name.
        arch: the resolved ``.target``.
        module: the traced IR module.
        smem_bytes: shared memory the kernel needs: the dynamic size to launch with when
            ``dynamic_smem`` is true, else the static size it declares.
        dynamic_smem: whether the kernel declares ``.extern .shared`` memory (so the launch
            passes ``smem_bytes`` as dynamic shared memory).
        python_lines: for each instruction, in :meth:`pyptx.ir.Module.instructions` order,
            the user's ``(file, line)`` that emitted it (``None`` for instructions the DSL
            added itself, such as the final ``ret``).
    """

    name: str
    arch: str
    module: Module
    smem_bytes: int
    dynamic_smem: bool
    python_lines: tuple[tuple[str, int] | None, ...]


@dataclass(frozen=True)
class _Lowered:
    """A flattened kernel body with its shared memory laid out (the ``lower`` step)."""

    body: list[Node]
    shared: list[Node]
    """Static ``.shared`` declarations (empty with dynamic shared memory)."""
    top: list[Node]
    """Module-level declarations (the ``.extern .shared`` array)."""
    smem_bytes: int
    dynamic: bool
    traced: tuple[Instruction, ...]
    """The instructions as traced, before any rewrite (the trace knows their lines)."""


class _ToDynamic(Rewriter):
    """Rewrites references to static shared allocations as offsets into dynamic smem."""

    def __init__(self, offsets: dict[str, int]) -> None:
        self.offsets = offsets

    def rewrite_Symbol(self, s: Symbol) -> Node:
        off = self.offsets.get(s.name)
        if off is None:
            return s
        base = Symbol(DYNAMIC_SMEM_NAME)
        return BinaryExpr("+", base, Immediate(str(off))) if off else base


class Kernel:
    """A traced PTX kernel; see :func:`kernel`.

    Attributes:
        fn: the Python function.
        name: the PTX entry name (the function's name).
        key: a string naming this kernel object, unique in the process
            (``"<name>#<serial>"``); :func:`kernel_by_key` maps it back while the kernel lives.
        template_params: keyword-only parameters of ``fn`` with their defaults.
        zero_outputs: whether the runtime zero-fills the ``out_specs`` arrays before a launch
            (see :func:`kernel`).
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        arch: str = "sm_90a",
        version: tuple[int, int] | None = None,
        in_specs: Sequence[Tile] | None = None,
        out_specs: Sequence[Tile] | None = None,
        grid: Any = None,
        block: tuple[int, int, int] = (1, 1, 1),
        cluster: tuple[int, int, int] = (1, 1, 1),
        smem: int = 0,
        raw_params: Sequence[tuple[str, str]] | None = None,
        extern_smem: bool = False,
        reqntid: tuple[int, ...] | None = None,
        raw_directives: Sequence[tuple[str, tuple[int, ...]]] | None = None,
        mutates: Sequence[str] = (),
        zero_outputs: bool = True,
    ) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.key = f"{self.name}#{next(_SERIALS)}"
        _LIVE[self.key] = self
        self.arch = arch
        self.version = version
        self.in_specs = tuple(in_specs or ())
        self.out_specs = tuple(out_specs or ())
        self.grid = grid
        self.block = block
        self.cluster = cluster
        self.smem = smem
        self.raw_params = tuple(raw_params or ())
        self.extern_smem = extern_smem
        self.reqntid = reqntid
        self.raw_directives = tuple(raw_directives or ())
        sig = inspect.signature(fn)
        self.positional = [
            p.name
            for p in sig.parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        self.template_params = {
            p.name: p.default for p in sig.parameters.values() if p.kind is p.KEYWORD_ONLY
        }
        specs = self.in_specs + self.out_specs
        if specs and len(specs) != len(self.positional):
            raise PtxDslError(
                f"kernel {self.name} has {len(self.positional)} tensor parameters but "
                f"{len(specs)} in_specs/out_specs; give one Tile per positional parameter"
            )
        self.mutates = self._check_mutates(mutates)
        if not isinstance(zero_outputs, bool):
            raise PtxDslError(
                f"kernel {self.name}: zero_outputs must be True or False, got {zero_outputs!r}"
            )
        self.zero_outputs = zero_outputs
        self._check_reserved()
        self.smem_bytes = 0
        functools.update_wrapper(self, fn)

    def __repr__(self) -> str:
        return f"<pyptx.Kernel {self.name} arch={self.arch}>"

    def _check_mutates(self, mutates: Sequence[str]) -> tuple[str, ...]:
        if isinstance(mutates, str):
            mutates = (mutates,)
        inputs = self.positional[: len(self.in_specs)]
        for name in mutates:
            if name not in inputs:
                raise PtxDslError(
                    f"kernel {self.name}: mutates names {name!r}, which is not one of its "
                    f"in_specs parameters ({', '.join(inputs) or 'none'}); outputs in "
                    "out_specs are allocated by the runtime, inputs it updates are listed here"
                )
        return tuple(dict.fromkeys(mutates))

    def _check_reserved(self) -> None:
        names = [*self.template_params, *(name for _, name in self.raw_params)]
        for name in names:
            if name in RESERVED_CALL_KEYWORDS:
                raise PtxDslError(
                    f"kernel {self.name}: the parameter name {name!r} is reserved for launches "
                    f"({', '.join(k + '=' for k in RESERVED_CALL_KEYWORDS)}); rename it"
                )

    # ------------------------------------------------------------------ binding

    def _bind(self, kwargs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, int]]:
        dims = {d for t in self.in_specs + self.out_specs for d in t.symbolic_dims}
        template: dict[str, Any] = {}
        env: dict[str, int] = {}
        for key, value in kwargs.items():
            if key in self.template_params:
                template[key] = value
            elif key in dims:
                if not isinstance(value, int) or isinstance(value, bool):
                    raise PtxDslError(f"dimension {key} must be an int, got {value!r}")
                env[key] = value
            else:
                known = sorted(set(self.template_params) | dims)
                raise PtxDslError(
                    f"{self.name}() got an unexpected argument {key!r}; template parameters "
                    f"and symbolic dims are: {', '.join(known) or 'none'}"
                )
        for key, default in self.template_params.items():
            if key not in template:
                if default is inspect.Parameter.empty:
                    raise PtxDslError(f"{self.name} needs the template parameter {key}=...")
                template[key] = default
        return template, env

    def _params(self, env: dict[str, int]) -> tuple[list[Param], list[TensorArg]]:
        specs = self.in_specs + self.out_specs
        params: list[Param] = []
        args: list[TensorArg] = []
        for i, _ in enumerate(self.positional):
            symbol = f"{self.name}_param_{i}"
            tile = specs[i] if specs else None
            shape: tuple[int | str, ...] = ()
            if tile is not None:
                shape = tuple(env.get(d, d) if isinstance(d, str) else d for d in tile.dims)
            arg = TensorArg(symbol, tile, shape)
            if arg.is_tma:
                quals: tuple[Any, ...] = (StateSpace.PARAM, Align(64), PtxType.B8)
                params.append(Param(quals, Declarator(symbol, (128,))))
            else:
                quals = (
                    StateSpace.PARAM,
                    PtxType.U64,
                    PtrQualifier(),
                    StateSpace.GLOBAL,
                    Align(16),
                )
                params.append(Param(quals, Declarator(symbol)))
            args.append(arg)
        for ty, pname in self.raw_params:
            t = PtxType.from_name(ty)
            if t is None:
                raise PtxDslError(f"raw_params: unknown PTX type {ty!r} for {pname!r}")
            params.append(Param((StateSpace.PARAM, t), Declarator(pname)))
        return params, args

    # ------------------------------------------------------------------ tracing

    def module(self, **kwargs: Any) -> Module:
        """Trace the kernel and return its IR module (see :meth:`build`).

        Args:
            **kwargs: template parameters and symbolic dimension values.

        Raises:
            PtxDslError: a mistake in the kernel, reported at the user's line.
        """
        return self.build(**kwargs).module

    def build(self, arch: str | None = None, /, **kwargs: Any) -> TracedKernel:
        """Trace the kernel and return the module with its launch facts and source lines.

        Four steps: bind (template parameters and dims from ``kwargs``), trace (run the body
        under a fresh trace), lower (flatten control flow, lay out shared memory) and build
        (the module around it).

        Args:
            arch: a target to trace for instead of the kernel's own (the runtime resolves
                ``arch="auto"`` on each call and passes the result, so a specialization is
                keyed by the target it was traced for).
            **kwargs: template parameters and symbolic dimension values.

        Raises:
            PtxDslError: a mistake in the kernel, reported at the user's line.
        """
        arch = _resolve_arch(arch or self.arch)
        template, env = self._bind(kwargs)
        params, args = self._params(env)
        trace = self._trace(arch, params, args, template)
        lowered = self._lower(trace)
        return self._build(trace, params, lowered)

    def _trace(
        self, arch: str, params: list[Param], args: list[TensorArg], template: dict[str, Any]
    ) -> Trace:
        """Run the kernel body under a fresh trace (step 2 of bind -> trace -> lower -> build)."""
        trace = Trace(self.name, arch, self.version)
        trace.names.update(p.name for p in params)
        symbols = {a.symbol for a in args}
        for p in params:
            if p.type is not None and p.declarator.name not in symbols:
                trace.param_types[p.declarator.name] = p.type
        with tracing(trace):
            self.fn(*args, **template)
        if len(trace.blocks) != 1:
            raise PtxDslError(f"kernel {self.name}: a ptx block was left open")
        return trace

    def _lower(self, trace: Trace) -> _Lowered:
        """Flatten the trace into statements and lay out shared memory (step 3)."""
        body: list[Node] = []
        trace.flatten(trace.prologue, body)
        trace.flatten(trace.blocks[0], body)
        trace.check_labels(body)
        traced = tuple(_instructions(body))  # before any rewrite: the lines the trace knows
        dynamic = self.extern_smem or self.smem > 0 or (trace.shared_bytes > DYNAMIC_SMEM_THRESHOLD)
        if not dynamic:
            if EXTRA_SMEM_PLACEHOLDER in trace.names:
                raise PtxDslError(
                    f"kernel {self.name} calls smem.base() for dynamic shared memory but "
                    "declares none; pass smem=<bytes> (or extern_smem=True) to @kernel"
                )
            return _Lowered(body, list(trace.shared_decls), [], trace.shared_bytes, False, traced)
        shared = list(trace.shared_decls)
        offsets: dict[str, int] = {}
        offset = 0
        for decl in shared:
            align = decl.align or 16
            offset = (offset + align - 1) // align * align
            offsets[decl.declarators[0].name] = offset
            offset += _decl_bytes(decl)
        # smem.base() with no name: the user's region after the allocations.
        offset = (offset + 15) // 16 * 16
        offsets[EXTRA_SMEM_PLACEHOLDER] = offset
        rewriter = _ToDynamic(offsets)
        body = [rewriter.rewrite(s) for s in body]
        # The base must satisfy the strictest allocation (1024 B for 128B-swizzled tiles).
        base_align = max([128, *(d.align or 16 for d in shared)])
        extern = VariableDecl(
            (Linkage.EXTERN, StateSpace.SHARED, Align(base_align), PtxType.B8),
            (Declarator(DYNAMIC_SMEM_NAME, (None,)),),
        )
        return _Lowered(body, [], [extern], offset + self.smem, True, traced)

    def _build(self, trace: Trace, params: list[Param], lowered: _Lowered) -> TracedKernel:
        """Assemble the module around the lowered body (step 4)."""
        from .validate import lowest_version

        self.smem_bytes = lowered.smem_bytes
        statements: list[Node] = [*trace.reg_decls(), *lowered.shared, *lowered.body]
        added_ret = not lowered.body or not _ends_with_exit(lowered.body)
        if added_ret:
            statements.append(Instruction("ret"))
        fn = Function(
            FunctionKind.ENTRY,
            self.name,
            tuple(params),
            Block(tuple(statements)),
            linkage=(Linkage.VISIBLE,),
            directives=tuple(self._directives()),
        )
        version = self.version or lowest_version(trace)
        header: list[Node] = [Version(*version), Target((trace.arch,)), AddressSize(64)]
        lines = [trace.location_of(i) for i in lowered.traced]
        if added_ret:
            lines.append(None)
        return TracedKernel(
            name=self.name,
            arch=trace.arch,
            module=Module(tuple(header + lowered.top + [fn])),
            smem_bytes=lowered.smem_bytes,
            dynamic_smem=lowered.dynamic,
            python_lines=tuple(lines),
        )

    def _directives(self) -> list[Node]:
        out: list[Node] = []
        if self.reqntid is not None:
            vals = tuple(Immediate(str(v)) for v in self.reqntid)
            out.append(FunctionDirective(FunctionDirectiveKind.REQNTID, vals))
        if self.cluster != (1, 1, 1):
            vals = tuple(Immediate(str(v)) for v in self.cluster)
            out.append(FunctionDirective(FunctionDirectiveKind.REQNCTAPERCLUSTER, vals))
        kinds = {k.value: k for k in FunctionDirectiveKind}
        for name, values in self.raw_directives:
            kind = kinds.get(name.lstrip("."))
            if kind is None:
                raise PtxDslError(
                    f"raw_directives: unknown directive {name!r}; known: {', '.join(sorted(kinds))}"
                )
            out.append(FunctionDirective(kind, tuple(Immediate(str(v)) for v in values)))
        return out

    def ptx(self, **kwargs: Any) -> str:
        """Trace the kernel and return its PTX text (byte-identical across runs)."""
        from pyptx.emitter import emit

        return emit(self.module(**kwargs))

    def cubin(self, **kwargs: Any) -> bytes:
        """Trace the kernel and assemble it with ptxas; return the cubin bytes.

        Raises:
            PtxDslError: ptxas is not installed, or it rejects the PTX (its message included).
        """
        from pyptx.emitter import emit

        module = self.module(**kwargs)
        return assemble(emit(module), module.targets[0], self.name)

    def sass(self, **kwargs: Any) -> str:
        """Assemble with ptxas and disassemble with nvdisasm; return the SASS text.

        Raises:
            PtxDslError: ptxas or nvdisasm is not installed, or ptxas rejects the PTX.
        """
        return disassemble(self.cubin(**kwargs), self.name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Launch the kernel through pyptx-runtime (see :func:`pyptx.runtime.launch`).

        Positional arguments are the ``in_specs`` arrays (torch tensors, JAX or numpy
        arrays), then the ``raw_params`` scalars; keywords are template parameters, dims
        that no input fixes, scalars by name, ``backend=`` and ``stream=``. Returns the
        ``out_specs`` arrays (then the ``mutates`` inputs): one array alone, several as a
        tuple.

        Raises:
            PtxDslError: pyptx-runtime is not installed.
        """
        launch = _LAUNCH or _runtime_launch()
        if launch is None:
            raise PtxDslError(
                f"calling {self.name}(...) launches it (on a GPU or in the emulator), which "
                "needs pyptx-runtime (pip install pyptx-runtime); use .ptx() to get the PTX text"
            )
        return launch(self, *args, **kwargs)


_LAUNCH: Any = None  # pyptx.runtime.launch, once found (every call looks here first)


def _runtime_launch() -> Any:
    global _LAUNCH
    _LAUNCH = runtime_attribute("launch")
    return _LAUNCH


def _instructions(nodes: Sequence[Node]) -> list[Instruction]:
    """The instructions of ``nodes`` (nested blocks included), in source order."""
    out: list[Instruction] = []
    for node in nodes:
        if isinstance(node, Instruction):
            out.append(node)
        elif isinstance(node, Block):
            out.extend(_instructions(node.statements))
    return out


def _ends_with_exit(body: list[Node]) -> bool:
    last = body[-1]
    return (
        isinstance(last, Instruction) and last.opcode in ("ret", "exit") and last.predicate is None
    )


def _decl_bytes(decl: VariableDecl) -> int:
    ty = decl.type or PtxType.B8
    n = 1
    for d in decl.declarators[0].dims:
        n *= d or 0
    return max(ty.bits // 8, 1) * n


@overload
def kernel(fn: Callable[..., Any], /) -> Kernel: ...


@overload
def kernel(
    fn: None = None,
    /,
    *,
    arch: str = "sm_90a",
    version: tuple[int, int] | None = None,
    in_specs: Sequence[Tile] | None = None,
    out_specs: Sequence[Tile] | None = None,
    grid: Any = None,
    block: tuple[int, int, int] = (1, 1, 1),
    cluster: tuple[int, int, int] = (1, 1, 1),
    smem: int = 0,
    raw_params: Sequence[tuple[str, str]] | None = None,
    extern_smem: bool = False,
    reqntid: tuple[int, ...] | None = None,
    raw_directives: Sequence[tuple[str, tuple[int, ...]]] | None = None,
    mutates: Sequence[str] = (),
    zero_outputs: bool = True,
) -> Callable[[Callable[..., Any]], Kernel]: ...


def kernel(fn: Callable[..., Any] | None = None, /, **options: Any) -> Any:
    """Define a PTX kernel; usable as ``@kernel`` or ``@kernel(arch=..., ...)``.

    Positional parameters of the function are tensors (one :class:`Tile` each in
    ``in_specs + out_specs``), passed to the body as :class:`TensorArg`; keyword-only
    parameters are compile-time template parameters bound by ``Kernel.ptx(**kwargs)``.

    Args:
        fn: the function (when used without parentheses).
        **options: ``arch`` ("sm_80", "sm_90a", "sm_100a", "sm_120a", ... or "auto"),
            ``version`` (default: the lowest PTX version the target and the instructions
            need), ``in_specs``, ``out_specs``, ``grid`` (tuple or callable over symbolic
            dims, for launches), ``block``, ``cluster`` (emits ``.reqnctapercluster``),
            ``smem`` (extra dynamic shared bytes), ``raw_params`` ((type, name) pairs),
            ``extern_smem``, ``reqntid``, ``raw_directives`` ((name, values) pairs),
            ``mutates`` (names of ``in_specs`` parameters the kernel writes in place: a
            launch returns them after the outputs, and torch/JAX are told of the update),
            ``zero_outputs`` (default ``True``: the runtime allocates the ``out_specs``
            arrays zero-filled, so a kernel may accumulate into them or leave elements
            alone. ``False`` promises that the kernel writes every element of every output
            and reads none before writing it; the runtime then allocates them uninitialized
            (``torch.empty``; under JAX on a GPU, XLA's own result buffers), saving one full
            write of each output per call, and the emulator fills them with all-ones bytes
            (NaN for floats, -1 or the maximum for integers) so a broken promise shows in the
            results. ``mutates`` inputs are never affected).

    Returns:
        A :class:`Kernel`, or a decorator making one.
    """
    if fn is not None:
        return Kernel(fn, **options)
    return functools.partial(Kernel, **options)


def param(name: str | PtxType, typed_name: str | None = None) -> Reg:
    """A register holding the scalar kernel parameter ``name`` (declared with ``raw_params``).

    Emits ``ld.param.<type> r, [name];`` at the start of the kernel on first use (one
    instruction); later calls return the same register. ``ptx.param(u32, "K")``, the type
    first as the seed system spells it, is the same call and checks that ``raw_params``
    declares ``K`` with exactly that type.

    Raises:
        PtxDslError: the kernel has no scalar parameter of that name, or it is declared with
            another type than the one given.
    """
    from ._trace import current

    given, pname = (name, typed_name) if isinstance(name, PtxType) else (None, name)
    if given is None and typed_name is not None:
        raise PtxDslError(
            f"ptx.param takes a name, or a type and a name (ptx.param(u32, 'K')); got "
            f"{name!r}, {typed_name!r}"
        )
    if not isinstance(pname, str):
        raise PtxDslError(f"ptx.param needs the parameter name as a str, got {pname!r}")
    name = pname
    trace = current()
    ty = trace.param_types.get(name)
    if ty is None:
        known = ", ".join(sorted(trace.param_types)) or "none"
        raise PtxDslError(
            f"no scalar parameter named {name!r}; declare it with "
            f"raw_params=[('u32', {name!r})] (scalar parameters: {known})"
        )
    if given is not None and given is not ty:
        raise PtxDslError(
            f"parameter {name!r} is declared {ty.value} in raw_params, but ptx.param asked for "
            f"{given.value}; pass {ty.value} (or change raw_params)"
        )
    key = ("param", name)
    if key not in trace.cache:
        with trace.hoisted():
            r = _new(ty)
            emit_inst("ld", ("param", ty.value), (r, Address(Symbol(name))))
        trace.cache[key] = r
    return trace.cache[key]  # type: ignore[return-value]
