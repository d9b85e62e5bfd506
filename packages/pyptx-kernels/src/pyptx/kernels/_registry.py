"""The table every kernel of the library is listed in.

Each architecture module (``pyptx.kernels.ampere.norms``, ``pyptx.kernels.hopper.gemm``...)
exports ``IMPLEMENTATIONS``, a tuple of :class:`Implementation`. The public functions
(:func:`pyptx.kernels.gemm`...) pick one by (family, arch, dtype); the catalog and
``python -m pyptx.kernels check`` walk all of them. Nothing here imports a framework or traces
a kernel: modules are imported when the table is first asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from pyptx import Kernel

__all__ = [
    "ARCHES",
    "FAMILIES",
    "MODULES",
    "Implementation",
    "KernelUnavailable",
    "implementations",
]

ARCHES = ("sm_80", "sm_90a", "sm_100a")
"""The architectures the library has kernels for, oldest first."""

FAMILIES = (
    "gemm",
    "grouped_gemm",
    "rms_norm",
    "layer_norm",
    "swiglu",
    "softmax",
    "flash_attention",
)
"""The kernel families, one per public function of :mod:`pyptx.kernels`."""

MODULES = (
    "pyptx.kernels.ampere.gemm",
    "pyptx.kernels.ampere.rowwise",
    "pyptx.kernels.hopper.gemm",
    "pyptx.kernels.hopper.grouped_gemm",
    "pyptx.kernels.hopper.rowwise",
    "pyptx.kernels.hopper.attention",
    "pyptx.kernels.blackwell.gemm",
    "pyptx.kernels.blackwell.rowwise",
)
"""The modules whose ``IMPLEMENTATIONS`` make up the library, in catalog order."""


class KernelUnavailable(ValueError):
    """No kernel of the library fits the call: its arch, dtype or shape (the message says which).

    Also a ``ValueError``, since the arguments are what does not fit.
    """


@dataclass(frozen=True)
class Implementation:
    """One kernel of the library, for one family on one architecture.

    ``build(**config)`` returns the traced :class:`~pyptx.dsl.kernel.Kernel` for a
    configuration (tile sizes, the fixed dims the kernel is specialized on, the dtype...);
    ``example`` is the configuration the catalog, the ``check`` command and the PTX snapshots
    use. ``call(*arrays, **params)`` runs the kernel on arrays of any library the runtime takes
    (torch, JAX, numpy) and returns the result in that library; the public function has
    already flattened leading dims (rows kernels see 2-D arrays) and checked the dtype, and
    ``call`` raises :class:`KernelUnavailable` for a shape it cannot take. ``spills`` is the
    number of spill bytes ``ptxas -v`` is documented to report at ``example`` (0: none
    allowed), with ``notes`` saying why.
    """

    name: str
    family: str
    arch: str
    dtypes: tuple[str, ...]
    example: Mapping[str, Any]
    build: Callable[..., Kernel]
    call: Callable[..., Any]
    spills: int = 0
    notes: str = ""

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(f"{self.name}: unknown family {self.family!r}")
        if self.arch not in ARCHES:
            raise ValueError(f"{self.name}: unknown arch {self.arch!r}")
        if not self.dtypes:
            raise ValueError(f"{self.name}: no dtypes")


@cache
def implementations() -> tuple[Implementation, ...]:
    """Every kernel of the library, in :data:`MODULES` order (imports the modules once)."""
    found: list[Implementation] = []
    for name in MODULES:
        found.extend(importlib.import_module(name).IMPLEMENTATIONS)
    names = [impl.name for impl in found]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise RuntimeError(f"kernel names listed twice: {duplicates}")
    return tuple(found)
