"""Histogram and a global sum: integer atomics, float atomics, division by a constant."""

import triton
import triton.language as tl

SIGNATURE = {"x_ptr": "*i32", "hist_ptr": "*i32", "sum_ptr": "*fp32", "n": "i32"}
CONSTANTS = {"BLOCK": 256, "BINS": 64}


@triton.jit
def kernel(x_ptr, hist_ptr, sum_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + (x % BINS), 1, mask=mask)
    tl.atomic_max(hist_ptr + BINS, tl.max(x, 0))
    tl.atomic_add(sum_ptr, tl.sum(x.to(tl.float32), 0) / 3.0)
