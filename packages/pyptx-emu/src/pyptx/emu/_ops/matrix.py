"""Warp-level matrix instructions: ``mma``, ``ldmatrix``, ``stmatrix``, ``movmatrix``, ``wmma``.

The semantics live in :mod:`.matrix_mma` (``mma.sync`` and its fragment arithmetic),
:mod:`.matrix_shared` (``ldmatrix``/``stmatrix``/``movmatrix``) and :mod:`.matrix_wmma`;
fragment layouts are tables in :mod:`.matrix_fragments`. All of them are ``.sync.aligned``:
an executor first waits until every lane of the warp has arrived (and refuses warps with
exited lanes, which the PTX ISA leaves undefined), then works on all warps of the group at
once.

Not emulated (each raises :class:`~pyptx.emu.NotEmulated` naming the reason when it runs):
``mma.sp`` (sparse A with metadata), the decompressing ``ldmatrix ... .b8x16.b6x16_p32`` /
``.b4x16_p64`` forms, and ``wmma`` other than ``m16n16k16`` (``.f16``, ``.bf16``,
``.s8``/``.u8``) and ``m16n16k8`` (``.tf32``).
"""

from __future__ import annotations

from typing import Any

from .._errors import NotEmulated
from .._machine import Executor
from .._site import Site
from .matrix_mma import mma
from .matrix_shared import ldmatrix, movmatrix, stmatrix
from .matrix_wmma import wmma_load, wmma_mma, wmma_store

__all__ = ["SEMANTICS"]


def mma_sp(site: Site) -> Executor:
    """``mma.sp``: not emulated (the sparsity metadata selection is not implemented)."""
    raise NotEmulated(
        f"{site.mnemonic}: sparse mma (mma.sp) is not emulated; the metadata operand's"
        " selection of A's nonzero elements is not implemented"
    )


SEMANTICS: dict[str, Any] = {
    "mma": mma,
    "mma.sp": mma_sp,
    "ldmatrix": ldmatrix,
    "stmatrix": stmatrix,
    "movmatrix": movmatrix,
    "wmma.load": wmma_load,
    "wmma.store": wmma_store,
    "wmma.mma": wmma_mma,
}
