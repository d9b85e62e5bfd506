"""Checking a whole parsed module against the ISA table (``pyptx check``)."""

from __future__ import annotations

from collections.abc import Iterator

from ..declarations import VariableDecl
from ..functions import Function
from ..instructions import Instruction
from ..module import Module
from ..targets import lookup_target
from ..types import PtxType, StateSpace
from ._check import Diagnostic, check

__all__ = ["check_module"]


def check_module(
    module: Module, *, target: str | None = None, version: tuple[int, int] | None = None
) -> Iterator[tuple[Instruction, Diagnostic]]:
    """Every instruction of ``module`` that the ISA table rejects, with the reasons.

    Args:
        module: a parsed module (parse it with ``spans=True`` to have each diagnostic say
            where: ``Diagnostic.span``).
        target: the target to check for; default: the module's first ``.target`` that the
            table knows.
        version: the PTX version; default: the module's ``.version``.

    Yields:
        ``(instruction, diagnostic)`` pairs, in source order.

    Raises:
        ValueError: no target (or version) is given and the module names none the table
            knows.
    """
    arch = target or next((t for t in module.targets if lookup_target(t) is not None), None)
    if arch is None:
        raise ValueError("the module has no .target the ISA table knows; pass target=")
    ptx = version or module.version
    if ptx is None:
        raise ValueError("the module has no .version; pass version=")
    for f in module.functions:
        if f.body is None:
            continue
        types = _register_types(f)
        for s in f.body.walk_statements():
            if isinstance(s, Instruction):
                for diag in check(s, target=arch, version=ptx, reg_type=types.get):
                    yield s, diag


def _register_types(f: Function) -> dict[str, PtxType]:
    """Declared register types of a function: its .reg parameters and .reg declarations."""
    types: dict[str, PtxType] = {}
    for p in (*(f.params or ()), *(f.returns or ())):
        if p.state_space is StateSpace.REG and p.type is not None:
            types[p.name] = p.type
    assert f.body is not None
    for s in f.body.walk_statements():
        if isinstance(s, VariableDecl) and s.state_space is StateSpace.REG and s.type:
            for d in s.declarators:
                for name in d.names():
                    types[name] = s.type
    return types
