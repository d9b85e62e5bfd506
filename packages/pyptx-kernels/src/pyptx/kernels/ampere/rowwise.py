"""Row-wise kernels for Ampere (sm_80): RMSNorm, LayerNorm, SwiGLU and softmax.

One CTA per row (:func:`pyptx.kernels._rowwise_common.threads_for` threads). The row is
staged into shared memory with ``cp.async.cg`` 16-byte copies: thread ``t`` copies the vectors
``t, t + T, ...`` it will later read, all copies of the row are in flight at once (no
register round trip, unlike ``ld.global`` + ``st.shared``), and one
``cp.async.commit_group`` / ``cp.async.wait_group 0`` per thread makes them visible to that
thread. Because each thread reads back only its own vectors, no ``bar.sync`` is needed before
the first pass. The passes then read shared memory, so ``x`` leaves DRAM once; ``w``/``b`` come
through ``ld.global.nc`` (the same for every row: L1/L2 hits). Rows over 64 KiB are streamed
(each pass reads global memory again). SwiGLU is elementwise (vectorized ``ld.global.nc``,
no shared memory). The design is in docs/guide/kernels/rowwise.md.
"""

from __future__ import annotations

from typing import Any

from pyptx import ptx, reg, smem
from pyptx.reg import Reg
from pyptx.types import u32

from .._rowwise_common import (
    VEC_BYTES,
    RowKernelSpec,
    owned_vectors,
    rowwise_implementations,
    vector_addr,
)

__all__ = ["IMPLEMENTATIONS", "stage_row_cp_async"]

ARCH = "sm_80"


def stage_row_cp_async(spec: RowKernelSpec, tid: Reg, x_row: Reg, row_smem: Any) -> None:
    """Copy this thread's vectors of the row into ``row_smem`` with ``cp.async.cg``.

    Emits a device loop of ``cp.async.cg.shared.global [row + 16 v], [x_row + 16 v], 16``
    over the thread's vectors, then ``cp.async.commit_group`` and ``cp.async.wait_group 0``:
    the wait covers this thread's copies only, which is all it will read. ``.cg`` caches in
    L2 only: each row is read once.
    """
    base = smem.base(row_smem)
    for v in owned_vectors(spec, tid):
        dst = reg.scalar(u32)
        ptx.mad(dst, v, VEC_BYTES, base, mode="lo")
        ptx.cp.async_.cg(ptx.addr(dst), vector_addr(x_row, v), VEC_BYTES)
    ptx.cp.async_.commit_group()
    ptx.cp.async_.wait_group(0)


IMPLEMENTATIONS = rowwise_implementations(
    "ampere",
    ARCH,
    stage_row_cp_async,
    ("rms_norm", "layer_norm", "swiglu", "softmax"),
    notes="one CTA per row, row staged with cp.async (rows over 64 KiB streamed)",
)
"""RMSNorm, LayerNorm, SwiGLU and softmax for sm_80."""
