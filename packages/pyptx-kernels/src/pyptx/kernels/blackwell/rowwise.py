"""Row-wise kernels for Blackwell (sm_100a): RMSNorm and LayerNorm.

The Hopper design (:mod:`pyptx.kernels.hopper.rowwise`: one CTA per row, the row staged by
one ``cp.async.bulk`` completing an mbarrier), built for sm_100a. The one difference: the bulk
copy names its destination ``.shared::cta`` (PTX 8.6), the CTA's own shared memory, instead of
Hopper's ``.shared::cluster`` form, since no other CTA of a cluster is involved. The design is
in docs/guide/kernels/rowwise.md.
"""

from __future__ import annotations

from typing import Any

from pyptx.reg import Reg

from .._rowwise_common import RowKernelSpec, rowwise_implementations
from ..hopper.rowwise import stage_row_bulk

__all__ = ["IMPLEMENTATIONS", "stage_row_bulk_cta"]

ARCH = "sm_100a"


def stage_row_bulk_cta(spec: RowKernelSpec, tid: Reg, x_row: Reg, row_smem: Any) -> None:
    """:func:`~pyptx.kernels.hopper.rowwise.stage_row_bulk` into ``.shared::cta``."""
    stage_row_bulk(spec, tid, x_row, row_smem, dst_space="shared::cta")


IMPLEMENTATIONS = rowwise_implementations(
    "blackwell",
    ARCH,
    stage_row_bulk_cta,
    ("rms_norm", "layer_norm"),
    notes="the Hopper design: one CTA per row, row staged by one cp.async.bulk (.shared::cta) "
    "+ mbarrier (rows over 64 KiB streamed)",
)
"""RMSNorm and LayerNorm for sm_100a."""
