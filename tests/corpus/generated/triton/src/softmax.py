"""Row softmax: a row per program, max and sum reductions across warps, exp."""

import triton
import triton.language as tl

SIGNATURE = {"out_ptr": "*fp16", "in_ptr": "*fp16", "stride": "i32", "n_cols": "i32"}
CONSTANTS = {"BLOCK": 1024}


@triton.jit
def kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * stride + cols, y.to(tl.float16), mask=mask)
