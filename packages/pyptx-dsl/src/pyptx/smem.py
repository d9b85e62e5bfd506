"""Shared-memory allocation, addressing and barrier objects.

* :func:`alloc` a shared region (``.shared .align A .b8 name[bytes];``)
* :func:`mbarrier` an array of mbarriers
* :func:`base` / :func:`load` / :func:`store` address and access helpers
* :func:`mbarrier_pipeline` the ``full``/``empty`` mbarrier rings of a producer/consumer
  pipeline (see ``docs/guide/dsl-helpers.md``)
* :func:`wgmma_tile` a tile in the canonical GMMA layout for wgmma operands, with
  :func:`apply_swizzle` / :func:`swizzle_offset` / :func:`matrix_descriptor` for addressing

Above 48 KB in total, a kernel switches to dynamic shared memory automatically.
"""

from __future__ import annotations

from .dsl.gmma import (
    GmmaLayout,
    GmmaView,
    MatrixDescriptor,
    apply_swizzle,
    matrix_descriptor,
    subtile,
    swizzle_offset,
    wgmma_tile,
)
from .dsl.shared import (
    MbarrierArray,
    MbarrierRef,
    SharedAlloc,
    SharedSlice,
    alloc,
    alloc_with_layout,
    base,
    load,
    mbarrier,
    store,
)
from .ptx._pipeline import MbarrierPipeline, mbarrier_pipeline

__all__ = [
    "GmmaLayout",
    "GmmaView",
    "MatrixDescriptor",
    "MbarrierArray",
    "MbarrierPipeline",
    "MbarrierRef",
    "SharedAlloc",
    "SharedSlice",
    "alloc",
    "alloc_with_layout",
    "apply_swizzle",
    "base",
    "load",
    "matrix_descriptor",
    "mbarrier",
    "mbarrier_pipeline",
    "store",
    "subtile",
    "swizzle_offset",
    "wgmma_tile",
]
