"""Instruction semantics, one module per family of the PTX ISA.

Each module declares ``SEMANTICS``, a mapping from ISA table spec names (the keys of
:data:`pyptx.ir.isa.SPECS`) to factories that turn a decoded :class:`~pyptx.emu._site.Site`
into an executor, and optionally ``OWN_GUARD``, the names whose executors apply the
instruction's ``@p`` guard themselves (branches, waits). :data:`FAMILIES` lists the modules;
:mod:`pyptx.emu._registry` merges their tables.
"""

from __future__ import annotations

from types import ModuleType

from . import (
    arith,
    async_copy,
    atomic,
    barrier,
    compare,
    control,
    convert,
    floating,
    integer,
    logic,
    matrix,
    mbarrier,
    misc,
    movement,
    tcgen05,
    tma,
    video,
    warp,
    wgmma,
)

__all__ = ["FAMILIES"]

FAMILIES: tuple[ModuleType, ...] = (
    movement,
    mbarrier,
    async_copy,
    tma,
    warp,
    atomic,
    misc,
    control,
    barrier,
    arith,
    integer,
    floating,
    compare,
    convert,
    logic,
    video,
    matrix,
    wgmma,
    tcgen05,
)
"""Every semantics module, each declaring ``SEMANTICS`` (and ``OWN_GUARD``)."""
