"""Shared-memory allocation, addressing and barrier objects.

* :func:`alloc` a shared region (``.shared .align A .b8 name[bytes];``)
* :func:`mbarrier` an array of mbarriers
* :func:`base` / :func:`load` / :func:`store` address and access helpers

Above 48 KB in total, a kernel switches to dynamic shared memory automatically.
"""

from __future__ import annotations

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

__all__ = [
    "MbarrierArray",
    "MbarrierRef",
    "SharedAlloc",
    "SharedSlice",
    "alloc",
    "alloc_with_layout",
    "base",
    "load",
    "mbarrier",
    "store",
]
