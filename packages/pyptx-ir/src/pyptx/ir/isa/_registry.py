"""The registry: every family's specs, by name and by first mnemonic component."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from . import (
    _arith,
    _async_copy,
    _atomic,
    _control,
    _convert,
    _float,
    _logic,
    _mbarrier,
    _memory,
    _mma,
    _sync,
    _tcgen05,
    _texture,
    _video,
    _wgmma,
)
from ._model import InstructionSpec

__all__ = ["FAMILY_MODULES", "INDEX", "SPECS", "IndexRow"]

FAMILY_MODULES: tuple[tuple[InstructionSpec, ...], ...] = (
    _arith.SPECS,
    _float.SPECS,
    _logic.SPECS,
    _convert.SPECS,
    _memory.SPECS,
    _atomic.SPECS,
    _async_copy.SPECS,
    _mbarrier.SPECS,
    _sync.SPECS,
    _control.SPECS,
    _texture.SPECS,
    _video.SPECS,
    _mma.SPECS,
    _wgmma.SPECS,
    _tcgen05.SPECS,
)
"""Each family module's specs, in the order the PTX ISA presents the families."""


def _build() -> dict[str, InstructionSpec]:
    table: dict[str, InstructionSpec] = {}
    for specs in FAMILY_MODULES:
        for sp in specs:
            table.setdefault(sp.name, sp)
    return table


SPECS: Mapping[str, InstructionSpec] = MappingProxyType(_build())
"""Every instruction spec, by its dotted name (``"cp.async.bulk.tensor"``)."""


IndexRow = tuple[tuple[str, ...], str, InstructionSpec]
"""(components after the first, the dotted name matched, the spec)."""


def _index() -> dict[str, tuple[IndexRow, ...]]:
    rows: dict[str, list[IndexRow]] = {}
    for sp in SPECS.values():
        for name in (sp.name, *sp.aliases):
            head, *tail = name.split(".")
            rows.setdefault(head, []).append((tuple(tail), name, sp))
    return {k: tuple(sorted(v, key=lambda r: -len(r[0]))) for k, v in rows.items()}


INDEX: Mapping[str, tuple[IndexRow, ...]] = MappingProxyType(_index())
"""Specs by first mnemonic component, longest compound name first (for :func:`lookup`)."""
