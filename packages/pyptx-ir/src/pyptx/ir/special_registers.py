"""The table of PTX special registers (``%tid.x``, ``%clock64``, ``%cluster_ctarank``, ...).

See the PTX ISA chapter "Special Registers". Vector registers (``%tid``) are read one
component at a time (``%tid.x``); both the bare and the component spellings are listed.
"""

from __future__ import annotations

from dataclasses import dataclass

from .types import PtxType

__all__ = ["SPECIAL_REGISTERS", "SpecialRegisterInfo", "is_special_register"]


@dataclass(frozen=True, slots=True)
class SpecialRegisterInfo:
    """One row of :data:`SPECIAL_REGISTERS`.

    Attributes:
        name: spelling with ``%`` and component, e.g. ``"%ctaid.y"``.
        type: the register's PTX type.
        min_sm: lowest ``sm_XX`` (as an int) that has it.
        min_ptx: lowest PTX version that has it.
    """

    name: str
    type: PtxType
    min_sm: int = 20
    min_ptx: tuple[int, int] = (2, 0)


# (base name, type, has .x/.y/.z components, min sm, min ptx)
_ROWS: tuple[tuple[str, PtxType, bool, int, tuple[int, int]], ...] = (
    ("tid", PtxType.U32, True, 10, (1, 0)),
    ("ntid", PtxType.U32, True, 10, (1, 0)),
    ("ctaid", PtxType.U32, True, 10, (1, 0)),
    ("nctaid", PtxType.U32, True, 10, (1, 0)),
    ("laneid", PtxType.U32, False, 10, (1, 3)),
    ("warpid", PtxType.U32, False, 10, (1, 3)),
    ("nwarpid", PtxType.U32, False, 20, (2, 0)),
    ("smid", PtxType.U32, False, 10, (1, 3)),
    ("nsmid", PtxType.U32, False, 20, (2, 0)),
    ("gridid", PtxType.U64, False, 10, (3, 0)),
    ("is_explicit_cluster", PtxType.PRED, False, 90, (7, 8)),
    ("clusterid", PtxType.U32, True, 90, (7, 8)),
    ("nclusterid", PtxType.U32, True, 90, (7, 8)),
    ("cluster_ctaid", PtxType.U32, True, 90, (7, 8)),
    ("cluster_nctaid", PtxType.U32, True, 90, (7, 8)),
    ("cluster_ctarank", PtxType.U32, False, 90, (7, 8)),
    ("cluster_nctarank", PtxType.U32, False, 90, (7, 8)),
    ("lanemask_eq", PtxType.U32, False, 20, (2, 0)),
    ("lanemask_le", PtxType.U32, False, 20, (2, 0)),
    ("lanemask_lt", PtxType.U32, False, 20, (2, 0)),
    ("lanemask_ge", PtxType.U32, False, 20, (2, 0)),
    ("lanemask_gt", PtxType.U32, False, 20, (2, 0)),
    ("clock", PtxType.U32, False, 10, (1, 0)),
    ("clock_hi", PtxType.U32, False, 50, (5, 0)),
    ("clock64", PtxType.U64, False, 20, (2, 0)),
    ("globaltimer", PtxType.U64, False, 30, (3, 1)),
    ("globaltimer_lo", PtxType.U32, False, 30, (3, 1)),
    ("globaltimer_hi", PtxType.U32, False, 30, (3, 1)),
    ("reserved_smem_offset_begin", PtxType.B32, False, 80, (7, 6)),
    ("reserved_smem_offset_end", PtxType.B32, False, 80, (7, 6)),
    ("reserved_smem_offset_cap", PtxType.B32, False, 80, (7, 6)),
    ("total_smem_size", PtxType.U32, False, 20, (4, 1)),
    ("aggr_smem_size", PtxType.U32, False, 90, (8, 1)),
    ("dynamic_smem_size", PtxType.U32, False, 20, (4, 1)),
    ("current_graph_exec", PtxType.U64, False, 50, (8, 0)),
)


def _build() -> dict[str, SpecialRegisterInfo]:
    table: dict[str, SpecialRegisterInfo] = {}
    for base, ty, vec, sm, ptx in _ROWS:
        table[f"%{base}"] = SpecialRegisterInfo(f"%{base}", ty, sm, ptx)
        if vec:
            for c in "xyzw":
                table[f"%{base}.{c}"] = SpecialRegisterInfo(f"%{base}.{c}", ty, sm, ptx)
    for i in range(8):
        table[f"%pm{i}"] = SpecialRegisterInfo(f"%pm{i}", PtxType.U32, 20, (1, 3))
        table[f"%pm{i}_64"] = SpecialRegisterInfo(f"%pm{i}_64", PtxType.U64, 50, (4, 0))
    for i in range(32):
        table[f"%envreg{i}"] = SpecialRegisterInfo(f"%envreg{i}", PtxType.B32, 20, (2, 1))
    for i in range(2):
        name = f"%reserved_smem_offset_{i}"
        table[name] = SpecialRegisterInfo(name, PtxType.B32, 80, (7, 6))
    return table


SPECIAL_REGISTERS: dict[str, SpecialRegisterInfo] = _build()
"""Every special register by spelling (``"%tid.x"``, ``"%clock64"``, ...)."""


def is_special_register(name: str) -> bool:
    """Return whether ``name`` (with its ``%``) is a PTX special register."""
    return name in SPECIAL_REGISTERS
