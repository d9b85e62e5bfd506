"""Triton source: elementwise vector add with a masked tail."""

import triton
import triton.language as tl


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


VARIANTS = [
    {
        "name": "vector_add_sm80",
        "kernel": vector_add,
        "arch": 80,
        "signature": {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
        "constexprs": {"BLOCK": 256},
        "num_warps": 4,
        "divisible": ["x_ptr", "y_ptr", "out_ptr"],
    },
]
