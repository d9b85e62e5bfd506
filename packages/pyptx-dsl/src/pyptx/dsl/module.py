"""``PtxModule``: a whole PTX module (header, globals, several kernels and device functions).

``@kernel`` builds a module around one kernel and chooses the header, register declarations
and parameter layout itself. :class:`PtxModule` is the verbatim counterpart: it emits exactly
the statements it is given, in order, which is what ported and transpiled PTX needs::

    from pyptx import PtxModule, ptx

    module = PtxModule()
    module.version(8, 0)
    module.target("sm_90a")
    module.address_size(64)
    counter = module.declare(".global .align 4 .u32 counter = 0;")

    @module.entry(".visible .entry bump(.param .u64 bump_param_0)")
    def bump(out):
        rd = ptx.declare(".reg .b64 %rd<3>;")
        ptx.inst.ld.param.u64(rd[1], ptx.addr(out))
        ptx.inst.ret()

    print(module.ptx())          # the whole module; bump.ptx() returns the same text

Each function body is traced when the module's PTX is requested. A recorded
:class:`~pyptx.dsl.layout.SourceLayout` (``module.layout(...)``) restores the original formatting.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pyptx.ir import (
    AddressSize,
    Block,
    Function,
    FunctionKind,
    Module,
    Node,
    Target,
    VariableDecl,
    Version,
    lookup_target,
)
from pyptx.parser import PtxSyntaxError, parse

from ._trace import Trace, tracing
from .errors import PtxDslError
from .layout import SourceLayout, SourceLayoutError
from .verbatim import Sym, _handles

__all__ = ["PtxFunction", "PtxModule"]


@functools.lru_cache(maxsize=1024)
def _parse_module_text(text: str) -> tuple[Node, ...]:
    try:
        module = parse(text, "<ptx>")
    except PtxSyntaxError as e:
        raise PtxDslError(f"malformed PTX: {e.message} in {text!r}") from None
    return tuple(s.without_trivia() for s in module.statements)


class PtxFunction:
    """A kernel (``.entry``) or device function (``.func``) of a :class:`PtxModule`.

    The Python function receives one :class:`~pyptx.dsl.verbatim.Sym` per PTX return
    parameter and then per parameter, in declaration order.

    Attributes:
        name: the PTX name.
        header: the signature as IR (a :class:`~pyptx.ir.Function` with an empty body).
        module_builder: the module this function belongs to.
    """

    def __init__(self, module: PtxModule, header: Function, fn: Callable[..., Any]) -> None:
        self.module_builder = module
        self.header = header
        self.fn = fn
        self.name = header.name
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn

    def __repr__(self) -> str:
        return f"<pyptx.PtxFunction {self.header.kind.ptx} {self.name}>"

    def trace(self, arch: str, version: tuple[int, int] | None, check: bool) -> Function:
        """Trace the body and return the complete function.

        Raises:
            PtxDslError: a mistake in the body, reported at the user's line.
        """
        trace = Trace(self.name, arch, version, check=check, verbatim=True)
        params = (*(self.header.returns or ()), *(self.header.params or ()))
        for p in params:
            trace.names.add(p.name)
        with tracing(trace):
            self.fn(*(Sym(p.name) for p in params))
        if len(trace.blocks) != 1:
            raise PtxDslError(f"function {self.name}: a ptx block was left open")
        body: list[Node] = []
        trace.flatten(trace.prologue, body)
        trace.flatten(trace.blocks[0], body)
        if check:
            trace.check_labels(body)
        statements = (*trace.reg_decls(), *body)
        return replace(self.header, body=Block(statements))

    def module(self) -> Module:
        """The IR of the whole module this function belongs to."""
        return self.module_builder.module()

    def ptx(self) -> str:
        """The PTX text of the whole module this function belongs to.

        A function is loaded as part of its module, so this is the same text as
        ``PtxModule.ptx()`` (for a transpiled single-kernel file: the original PTX).
        """
        return self.module_builder.ptx()

    def cubin(self) -> bytes:
        """Assemble the module with ptxas and return the cubin.

        Raises:
            PtxDslError: ptxas is missing or rejects the module.
        """
        return self.module_builder.cubin()


class PtxModule:
    """A PTX module built statement by statement, emitted exactly in that order.

    Args:
        check: check every instruction against the ISA table (and registers against their
            declarations) while tracing; transpiled code turns it off when the input PTX
            itself does not pass (for example a fragment without declarations).
    """

    def __init__(self, *, check: bool = True) -> None:
        self.check = check
        self.items: list[Node | PtxFunction] = []
        self._layout: str | None = None

    def __repr__(self) -> str:
        return f"<pyptx.PtxModule with {len(self.items)} statements>"

    # ------------------------------------------------------------------ header

    def version(self, major: int, minor: int) -> None:
        """``.version major.minor``."""
        self.items.append(Version(major, minor))

    def target(self, *targets: str) -> None:
        """``.target sm_90a[, option...]``."""
        if not targets or not all(isinstance(t, str) and t for t in targets):
            raise PtxDslError(f"module.target takes target names, got {targets!r}")
        self.items.append(Target(tuple(targets)))

    def address_size(self, bits: int) -> None:
        """``.address_size 32|64``."""
        if bits not in (32, 64):
            raise PtxDslError(f".address_size must be 32 or 64, got {bits!r}")
        self.items.append(AddressSize(bits))

    # ------------------------------------------------------------------ statements

    def raw(self, text: str) -> None:
        """Add module-level PTX statements (``.file``, ``.section``, prototypes...), parsed.

        Raises:
            PtxDslError: the text is not well-formed module-level PTX.
        """
        if not isinstance(text, str):
            raise PtxDslError(f"module.raw takes PTX text, got {type(text).__name__}")
        self.items.extend(_parse_module_text(text))

    def declare(self, text: str) -> Any:
        """Add a module-scope variable declaration and return a handle per declared name.

        ``counter = module.declare(".global .u32 counter;")`` gives a
        :class:`~pyptx.dsl.verbatim.Sym` usable in any function of the module.

        Raises:
            PtxDslError: the text is not one variable declaration.
        """
        stmts = _parse_module_text(text)
        if len(stmts) != 1 or not isinstance(stmts[0], VariableDecl):
            raise PtxDslError(f"module.declare takes one declaration statement, got {text!r}")
        self.items.append(stmts[0])
        handles = _handles(stmts[0])
        return handles[0] if len(handles) == 1 else tuple(handles)

    def entry(self, signature: str) -> Callable[[Callable[..., Any]], PtxFunction]:
        """Decorate a Python function as the body of the kernel ``signature``.

        Args:
            signature: the PTX text before the body, e.g.
                ``".visible .entry k(.param .u64 k_param_0) .maxntid 128"``.
        """
        return self._function(signature, FunctionKind.ENTRY)

    def func(self, signature: str) -> Callable[[Callable[..., Any]], PtxFunction]:
        """Decorate a Python function as the body of the device function ``signature``.

        Args:
            signature: the PTX text before the body, e.g.
                ``".func (.param .b32 r) add1(.param .b32 x)"``.
        """
        return self._function(signature, FunctionKind.FUNC)

    def _function(
        self, signature: str, kind: FunctionKind
    ) -> Callable[[Callable[..., Any]], PtxFunction]:
        stmts = _parse_module_text(f"{signature}\n{{\n}}")
        header = stmts[0] if len(stmts) == 1 else None
        if not isinstance(header, Function) or header.kind is not kind:
            raise PtxDslError(
                f"expected one {kind.ptx} signature (the PTX before the body), got {signature!r}"
            )

        def decorate(fn: Callable[..., Any]) -> PtxFunction:
            f = PtxFunction(self, header, fn)
            self.items.append(f)
            return f

        return decorate

    def layout(self, text: str) -> None:
        """Record the formatting to restore on emission (a :meth:`SourceLayout.dumps` string).

        Raises:
            PtxDslError: the text is not a layout.
        """
        try:
            SourceLayout.loads(text)
        except SourceLayoutError as e:
            raise PtxDslError(f"module.layout: {e}") from None
        self._layout = text

    # ------------------------------------------------------------------ output

    def _arch_version(self) -> tuple[str, tuple[int, int] | None]:
        arch, version = "", None
        for item in self.items:
            if isinstance(item, Version) and version is None:
                version = (item.major, item.minor)
            elif isinstance(item, Target) and not arch:
                arch = next((t for t in item.targets if lookup_target(t) is not None), "")
        if not arch and self.check:
            raise PtxDslError(
                "the module has no known .target, so instructions cannot be checked; add "
                "module.target('sm_90a') (or another target) or pass PtxModule(check=False)"
            )
        return arch or "sm_90a", version

    def module(self, *, layout: bool = True) -> Module:
        """Trace every function and return the module's IR.

        Args:
            layout: put the recorded layout (:meth:`layout`) on it; ``False`` leaves the
                traced trivia (the canonical formatting), which is all a comparison of
                programs needs.
        """
        arch, version = self._arch_version()
        statements: list[Node] = []
        for item in self.items:
            if isinstance(item, PtxFunction):
                statements.append(item.trace(arch, version, self.check))
            else:
                statements.append(item)
        module = Module(tuple(statements))
        if layout and self._layout is not None:
            module = SourceLayout.loads(self._layout).apply(module)
        return module

    def ptx(self) -> str:
        """The module's PTX text."""
        from pyptx.emitter import emit

        return emit(self.module())

    def cubin(self) -> bytes:
        """Assemble the module with ptxas (for its first ``.target``) and return the cubin.

        Raises:
            PtxDslError: ptxas is missing or rejects the module.
        """
        from .tools import assemble

        arch, _ = self._arch_version()
        return assemble(self.ptx(), arch, "module")

    def main(self) -> None:
        """Write the module's PTX to standard output, byte for byte (``python out.py``)."""
        data = self.ptx().encode("utf-8")
        out = getattr(sys.stdout, "buffer", None)
        if out is None:
            sys.stdout.write(data.decode("utf-8"))
        else:
            sys.stdout.flush()
            out.write(data)
        sys.stdout.flush()

    @property
    def functions(self) -> tuple[PtxFunction, ...]:
        """The kernels and device functions defined so far, in order."""
        return tuple(i for i in self.items if isinstance(i, PtxFunction))
