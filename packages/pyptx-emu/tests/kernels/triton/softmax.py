"""Triton source: fused row softmax (one program per row, the row fits one block)."""

import triton
import triton.language as tl


@triton.jit
def softmax(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, num / den, mask=mask)


VARIANTS = [
    {
        "name": "softmax_sm80",
        "kernel": softmax,
        "arch": 80,
        "signature": {
            "out_ptr": "*fp32",
            "in_ptr": "*fp32",
            "in_stride": "i32",
            "out_stride": "i32",
            "n_cols": "i32",
        },
        "constexprs": {"BLOCK": 128},
        "num_warps": 4,
        "divisible": ["out_ptr", "in_ptr", "in_stride", "out_stride"],
    },
]
