"""Row-wise kernels for Hopper (sm_90a): RMSNorm, LayerNorm, SwiGLU and softmax.

The kernels of :mod:`pyptx.kernels.ampere.rowwise` (one CTA per row, three or fewer passes
over a row held in shared memory), with the row brought in by the Hopper copy engine: thread 0
initializes an mbarrier, announces the row's bytes (``mbarrier.arrive.expect_tx``) and issues
one ``cp.async.bulk`` of the whole row; every thread then waits on the barrier's phase 0.
Compared with Ampere's per-thread ``cp.async``, the CTA issues one instruction instead of
``row_bytes / 16`` copies with their address arithmetic, the copy engine streams the row
while the other threads do nothing but wait, and a CTA's whole row is in flight as one
transaction. SwiGLU is elementwise and has no row to stage: it is the Ampere kernel built for
sm_90a. The design is in docs/guide/kernels/rowwise.md.
"""

from __future__ import annotations

from typing import Any

from pyptx import ptx, smem
from pyptx.reg import Reg

from .._rowwise_common import RowKernelSpec, rowwise_implementations

__all__ = ["IMPLEMENTATIONS", "stage_row_bulk"]

ARCH = "sm_90a"


def stage_row_bulk(
    spec: RowKernelSpec, tid: Reg, x_row: Reg, row_smem: Any, *, dst_space: str = "shared::cluster"
) -> None:
    """Copy the whole row into ``row_smem`` with one ``cp.async.bulk`` completing an mbarrier.

    Thread 0:

    1. ``mbarrier.init [full], 1``: one arrival (its own ``expect_tx``) completes phase 0
       once the transaction count also drains;
    2. ``fence.mbarrier_init.release.cluster``: makes the initialized barrier visible to the
       async proxy (the copy engine) before the copy can signal it;
    3. ``mbarrier.arrive.expect_tx [full], row_bytes``: arrive, expecting the row's bytes;
    4. ``cp.async.bulk.<dst_space>.global.mbarrier::complete_tx::bytes [row], [x_row],
       row_bytes, [full]``: the copy counts its bytes down on the barrier as they land.

    Then ``bar.sync 0`` (no thread may poll a barrier before it is initialized) and every
    thread spins on ``mbarrier.try_wait.parity [full], 0``: once it succeeds, the whole row is
    visible to every thread of the CTA. Each CTA handles one row, so the barrier is used for
    one phase only and needs no invalidation.
    """
    full = smem.mbarrier(1, name="row_full")
    with ptx.if_(tid == 0):
        ptx.mbarrier.init(full[0], 1)
        ptx.fence.mbarrier_init()
        ptx.mbarrier.arrive.expect_tx(full[0], spec.row_bytes)
        ptx.cp.async_.bulk(row_smem, x_row, spec.row_bytes, mbar=full[0], dst_space=dst_space)
    ptx.bar.sync(0)
    ptx.mbarrier.wait(full[0], 0)


IMPLEMENTATIONS = rowwise_implementations(
    "hopper",
    ARCH,
    stage_row_bulk,
    ("rms_norm", "layer_norm", "swiglu", "softmax"),
    notes="one CTA per row, row staged by one cp.async.bulk + mbarrier (rows over 64 KiB streamed)",
)
"""RMSNorm, LayerNorm, SwiGLU and softmax for sm_90a."""
