"""Special registers (``%tid.x``, ``%ctaid.y``, ``%laneid``, ``%cluster_ctarank``, ...).

Each is a function of the machine returning its raw value per lane of the wave (``uint32``,
``uint64`` or ``bool``); :func:`special_reader` compiles a reader for one spelling.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pyptx.ir import PtxType

from ._errors import NotEmulated
from ._lanes import Lanes
from ._types import from_bits

__all__ = ["NSMID", "special_reader"]

NSMID = 132
"""``%nsmid``: the emulated GPU has as many SMs as an H100 SXM."""

Value = Callable[[Any], "np.ndarray | int"]
"""The machine -> a per-lane array, or one value for every lane."""

_AXES = {"x": 0, "y": 1, "z": 2}


def _tid(k: int) -> Value:
    return lambda m: m.tid[:, k]


def _ctaid(k: int) -> Value:
    return lambda m: m.wave.ctaid[m.cta_of, k].astype(np.uint32)


def _cluster_ctaid(k: int) -> Value:
    return lambda m: (m.wave.ctaid[m.cta_of, k] % m.config.cluster[k]).astype(np.uint32)


def _clusterid(k: int) -> Value:
    return lambda m: (m.wave.ctaid[m.cta_of, k] // m.config.cluster[k]).astype(np.uint32)


def _lanemask(op: Callable[[np.ndarray], np.ndarray]) -> Value:
    def value(m: Any) -> np.ndarray:
        lane = m.laneid.astype(np.uint64)
        return (op(lane) & np.uint64(0xFFFF_FFFF)).astype(np.uint32)

    return value


def _smem_total(m: Any) -> int:
    return int(m.mem.shared_size)


def _cta_linear(m: Any) -> np.ndarray:
    gx, gy, _ = m.config.grid
    c = m.wave.ctaid[m.cta_of]
    return c[:, 0] + gx * (c[:, 1] + gy * c[:, 2])


_ONE = np.uint64(1)

_TABLE: dict[str, Value] = {
    "%laneid": lambda m: m.laneid,
    "%warpid": lambda m: (m.tid_linear // 32).astype(np.uint32),
    "%nwarpid": lambda m: 64,
    "%smid": lambda m: (_cta_linear(m) % NSMID).astype(np.uint32),
    "%nsmid": lambda m: NSMID,
    "%gridid": lambda m: 0,
    "%is_explicit_cluster": lambda m: m.config.cluster_size > 1,
    "%cluster_ctarank": lambda m: m.wave.rank[m.cta_of].astype(np.uint32),
    "%cluster_nctarank": lambda m: m.config.cluster_size,
    "%lanemask_eq": _lanemask(lambda lane: _ONE << lane),
    "%lanemask_le": _lanemask(lambda lane: (_ONE << (lane + _ONE)) - _ONE),
    "%lanemask_lt": _lanemask(lambda lane: (_ONE << lane) - _ONE),
    "%lanemask_ge": _lanemask(lambda lane: ~((_ONE << lane) - _ONE)),
    "%lanemask_gt": _lanemask(lambda lane: ~((_ONE << (lane + _ONE)) - _ONE)),
    "%clock": lambda m: m.clock & 0xFFFF_FFFF,
    "%clock_hi": lambda m: (m.clock >> 32) & 0xFFFF_FFFF,
    "%clock64": lambda m: m.clock,
    "%globaltimer": lambda m: m.clock,
    "%globaltimer_lo": lambda m: m.clock & 0xFFFF_FFFF,
    "%globaltimer_hi": lambda m: (m.clock >> 32) & 0xFFFF_FFFF,
    "%dynamic_smem_size": lambda m: m.config.dynamic_smem,
    "%total_smem_size": _smem_total,
    "%aggr_smem_size": _smem_total,
    "%reserved_smem_offset_begin": lambda m: 0,
    "%reserved_smem_offset_end": lambda m: 0,
    "%reserved_smem_offset_cap": lambda m: 0,
    "%reserved_smem_offset_0": lambda m: 0,
    "%reserved_smem_offset_1": lambda m: 0,
    "%current_graph_exec": lambda m: 0,
}


def _config(field: str, k: int) -> Value:
    return lambda m: getattr(m.config, field)[k]


def _nclusterid(k: int) -> Value:
    return lambda m: m.config.grid[k] // m.config.cluster[k]


for _axis, _k in _AXES.items():
    _TABLE[f"%tid.{_axis}"] = _tid(_k)
    _TABLE[f"%ntid.{_axis}"] = _config("block", _k)
    _TABLE[f"%ctaid.{_axis}"] = _ctaid(_k)
    _TABLE[f"%nctaid.{_axis}"] = _config("grid", _k)
    _TABLE[f"%clusterid.{_axis}"] = _clusterid(_k)
    _TABLE[f"%nclusterid.{_axis}"] = _nclusterid(_k)
    _TABLE[f"%cluster_ctaid.{_axis}"] = _cluster_ctaid(_k)
    _TABLE[f"%cluster_nctaid.{_axis}"] = _config("cluster", _k)
# The .w components exist in the table (ptxas accepts them): an index of 0 in a count of 1.
for _base in ("tid", "ctaid", "clusterid", "cluster_ctaid"):
    _TABLE[f"%{_base}.w"] = lambda m: 0
for _base in ("ntid", "nctaid", "nclusterid", "cluster_nctaid"):
    _TABLE[f"%{_base}.w"] = lambda m: 1
for _i in range(8):
    _TABLE[f"%pm{_i}"] = lambda m: 0
    _TABLE[f"%pm{_i}_64"] = lambda m: 0
for _i in range(32):
    _TABLE[f"%envreg{_i}"] = lambda m: 0

_WIDE = frozenset({"%clock64", "%globaltimer", "%gridid", "%current_graph_exec"}) | frozenset(
    f"%pm{i}_64" for i in range(8)
)


def special_reader(name: str, ty: PtxType) -> Callable[[Any, Lanes], np.ndarray]:
    """A reader of special register ``name`` as type ``ty``.

    Raises:
        NotEmulated: the emulator has no value for it.
    """
    value = _TABLE.get(name)
    if value is None:
        raise NotEmulated(f"the special register {name} is not emulated")
    natural: np.dtype[Any]
    if name == "%is_explicit_cluster":
        natural = np.dtype(np.bool_)
    else:
        natural = np.dtype(np.uint64 if name in _WIDE else np.uint32)

    def read(m: Any, lanes: Lanes) -> np.ndarray:
        v = value(m)
        if isinstance(v, np.ndarray):
            raw = v[lanes.sel].astype(natural, copy=False)
        else:
            raw = np.full(lanes.n, v, dtype=natural)
        return from_bits(raw, ty)

    return read
