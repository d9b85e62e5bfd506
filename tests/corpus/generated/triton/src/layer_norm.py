"""Layer norm forward: a loop over the row in blocks, mean and variance, rsqrt, affine."""

import triton
import triton.language as tl

SIGNATURE = {
    "x_ptr": "*bf16",
    "y_ptr": "*bf16",
    "w_ptr": "*fp32",
    "b_ptr": "*fp32",
    "mean_ptr": "*fp32",
    "rstd_ptr": "*fp32",
    "stride": "i32",
    "n": "i32",
    "eps": "fp32",
}
CONSTANTS = {"BLOCK": 512}


@triton.jit
def kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * stride
    y_ptr += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + cols, mask=cols < n, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n, other=0.0).to(tl.float32)
        d = tl.where(cols < n, x - mean, 0.0)
        acc += d * d
    rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / n + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + cols, ((x - mean) * rstd * w + b).to(tl.bfloat16), mask=mask)
