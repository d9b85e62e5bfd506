"""Triton source: a sum reduction, one block-wide partial sum per program, combined with
a float atomic add (atom.global.add.f32 / red).

The pointer after the int parameter is on purpose: its ``.param .u64 .ptr .global .align 1``
declaration sits at an offset that only the parameter's own (8-byte) alignment makes right.
"""

import triton
import triton.language as tl


@triton.jit
def atomic_sum(x_ptr, n, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


VARIANTS = [
    {
        "name": "atomic_sum_sm80",
        "kernel": atomic_sum,
        "arch": 80,
        "signature": {"x_ptr": "*fp32", "n": "i32", "out_ptr": "*fp32"},
        "constexprs": {"BLOCK": 512},
        "num_warps": 4,
        "divisible": ["x_ptr", "out_ptr"],
    },
]
