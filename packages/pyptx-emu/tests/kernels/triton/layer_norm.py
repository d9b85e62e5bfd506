"""Triton source: layer norm forward (one program per row; writes mean and 1/std too)."""

import triton
import triton.language as tl


@triton.jit
def layer_norm(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n
    diff = tl.where(mask, x - mean, 0.0)
    var = tl.sum(diff * diff, axis=0) / n
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * stride + cols, diff * rstd * w + b, mask=mask)


VARIANTS = [
    {
        "name": "layer_norm_sm80",
        "kernel": layer_norm,
        "arch": 80,
        "signature": {
            "x_ptr": "*fp32",
            "y_ptr": "*fp32",
            "w_ptr": "*fp32",
            "b_ptr": "*fp32",
            "mean_ptr": "*fp32",
            "rstd_ptr": "*fp32",
            "stride": "i32",
            "n": "i32",
            "eps": "fp32",
        },
        "constexprs": {"BLOCK": 256},
        "num_warps": 4,
        "divisible": ["x_ptr", "y_ptr", "w_ptr", "b_ptr", "mean_ptr", "rstd_ptr", "stride"],
    },
]
