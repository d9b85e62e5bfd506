"""Whether a module passes the DSL's tracing checks (so generated code can keep them on)."""

from __future__ import annotations

from pyptx.ir import (
    Function,
    Instruction,
    Label,
    LabelRef,
    Module,
    StateSpace,
    Target,
    VariableDecl,
    lookup_target,
)

from ..dsl._trace import Trace
from ..dsl.errors import PtxDslError
from ..dsl.validate import check_instruction

__all__ = ["passes_checks"]


def _target(module: Module) -> str | None:
    for s in module.statements:
        if isinstance(s, Target):
            return next((t for t in s.targets if lookup_target(t) is not None), None)
    return None


def passes_checks(module: Module) -> bool:
    """Whether every function passes what ``PtxModule(check=True)`` checks while tracing.

    That is the ISA table for the module's target and version, declared registers, and
    branches to placed labels.
    """
    arch = _target(module)
    if arch is None:
        return False
    for f in module.functions:
        if f.body is not None and not _function_passes(f, arch, module.version):
            return False
    return True


def _function_passes(f: Function, arch: str, version: tuple[int, int] | None) -> bool:
    trace = Trace(f.name, arch, version)
    placed: set[str] = set()
    used: set[str] = set()
    statements = list(f.body.walk_statements()) if f.body is not None else []
    for s in statements:
        if isinstance(s, VariableDecl) and s.state_space is StateSpace.REG and s.type:
            for d in s.declarators:
                for name in d.names():
                    trace.reg_types[name] = s.type
        elif isinstance(s, Label):
            placed.add(s.name)
    for s in statements:
        if isinstance(s, Instruction):
            for o in s.operands:
                if type(o) is LabelRef:
                    used.add(o.name)
            try:
                check_instruction(trace, s)
            except PtxDslError:
                return False
    return used <= placed
