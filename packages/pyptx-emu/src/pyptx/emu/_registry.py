"""The semantics registry: one table from ISA spec names to semantics, and the compiler.

Semantics are registered under the keys of :data:`pyptx.ir.isa.SPECS` (the ISA table stays
the one source of what an instruction is); each family module declares its part as data and
this module merges them, so nothing is registered as a side effect of importing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from pyptx.ir.isa import match

from ._errors import EmuError, NotEmulated
from ._lanes import Lanes
from ._machine import Executor, refusal
from ._ops import FAMILIES
from ._program import Program, Reg, Statement
from ._site import Site

__all__ = ["OWN_GUARD", "SEMANTICS", "Semantics", "compile_program"]

Semantics = Callable[[Site], Executor]
"""Turns a decoded instruction into an executor."""


def _merge() -> tuple[dict[str, Semantics], frozenset[str]]:
    table: dict[str, Semantics] = {}
    own: set[str] = set()
    for module in FAMILIES:
        for name, factory in module.SEMANTICS.items():
            if name in table:
                raise RuntimeError(f"semantics for {name!r} are declared twice")
            table[name] = factory
        own |= set(getattr(module, "OWN_GUARD", ()))
    return table, frozenset(own)


_TABLE, _OWN = _merge()

SEMANTICS: Mapping[str, Semantics] = MappingProxyType(_TABLE)
"""Every emulated instruction's semantics, by ISA spec name."""

OWN_GUARD: frozenset[str] = _OWN
"""Spec names whose executors apply the ``@p`` guard themselves."""


def compile_program(program: Program) -> list[Executor]:
    """One executor per instruction of ``program``.

    An instruction the table does not know, or whose semantics are missing or refuse it, gets
    an executor that raises :class:`NotEmulated` when (and only when) it runs, so a kernel
    whose unsupported paths are never taken still runs.
    """
    reg_type = _register_types(program)
    return [_compile(stmt, program, reg_type) for stmt in program.code]


def _register_types(program: Program) -> Callable[[Statement], Callable[[str], Any]]:
    def for_statement(stmt: Statement) -> Callable[[str], Any]:
        def reg_type(name: str) -> Any:
            bound = stmt.scope.resolve(name)
            return bound.type if isinstance(bound, Reg) else None

        return reg_type

    return for_statement


def _compile(
    stmt: Statement, program: Program, reg_type: Callable[[Statement], Callable[[str], Any]]
) -> Executor:
    found = match(stmt.insn, reg_type=reg_type(stmt))
    mnemonic = stmt.insn.mnemonic
    if found is None:
        return _refuse(f"'{mnemonic}' is not an instruction of the PTX ISA table, so it")
    factory = SEMANTICS.get(found.spec.name)
    if factory is None:
        return _refuse(f"{found.spec.name} ({mnemonic})")
    site = Site(stmt, program, found)
    try:
        run = factory(site)
    except NotEmulated as err:
        return _refuse_with(err)
    if found.spec.name in OWN_GUARD or site.insn.predicate is None:
        return run
    return _guarded(run, site.active())


def _guarded(run: Executor, active: Callable[[Any, Lanes], Lanes | None]) -> Executor:
    def guarded(m: Any, lanes: Lanes) -> Any:
        on = active(m, lanes)
        return None if on is None else run(m, on)

    return guarded


def _refuse(what: str) -> Executor:
    return refusal(f"{what} is not emulated")


def _refuse_with(err: EmuError) -> Executor:
    return refusal(err.detail)
