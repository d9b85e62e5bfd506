"""Blackwell fifth-generation tensor core instructions (``tcgen05``, sm_100a family).

The family's semantics are split by concern:

* :mod:`.tcgen05_tmem`: tensor memory (128 lanes x 512 columns of 32-bit cells per CTA),
  ``tcgen05.alloc`` / ``dealloc`` / ``relinquish_alloc_permit``, ``tcgen05.ld`` / ``st`` /
  ``wait``, ``tcgen05.shift``;
* :mod:`.tcgen05_desc`: the instruction descriptor and the shared-memory descriptor, and
  reading matrices laid out the canonical ways from shared memory;
* :mod:`.tcgen05_mma`: ``tcgen05.mma`` (and ``.ws``), ``tcgen05.cp``, ``tcgen05.commit``.

The asynchronous operations (``mma``, ``cp``, ``shift``) complete when they are issued, so
``tcgen05.commit`` arrives on its mbarrier at once and the ``tcgen05.fence`` forms, which only
order them against thread synchronization, have nothing to do.
"""

from __future__ import annotations

from typing import Any

from .._lanes import Lanes
from .._machine import Executor
from .._site import Site
from .tcgen05_mma import commit, cp, mma, mma_ws, sparse
from .tcgen05_tmem import alloc, dealloc, ld, relinquish, shift, st, wait

__all__ = ["SEMANTICS"]


def fence(site: Site) -> Executor:
    """``tcgen05.fence::before_thread_sync`` / ``::after_thread_sync``: no-ops here."""

    def run(m: Any, lanes: Lanes) -> Any:
        return None

    return run


SEMANTICS = {
    "tcgen05.alloc": alloc,
    "tcgen05.dealloc": dealloc,
    "tcgen05.relinquish_alloc_permit": relinquish,
    "tcgen05.ld": ld,
    "tcgen05.st": st,
    "tcgen05.wait::ld": wait,
    "tcgen05.wait::st": wait,
    "tcgen05.shift": shift,
    "tcgen05.cp": cp,
    "tcgen05.mma": mma,
    "tcgen05.mma.ws": mma_ws,
    "tcgen05.mma.sp": sparse,
    "tcgen05.mma.ws.sp": sparse,
    "tcgen05.commit": commit,
    "tcgen05.fence::before_thread_sync": fence,
    "tcgen05.fence::after_thread_sync": fence,
}
