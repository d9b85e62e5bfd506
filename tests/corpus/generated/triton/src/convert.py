"""Conversions: fp32 to bf16 / fp16 / fp8 and back, integer widths, rounding, bit casts."""

import triton
import triton.language as tl

SIGNATURE = {
    "x_ptr": "*fp32",
    "h_ptr": "*fp16",
    "b_ptr": "*bf16",
    "q_ptr": "*i8",
    "u_ptr": "*u64",
    "n": "i32",
}
CONSTANTS = {"BLOCK": 256}


@triton.jit
def kernel(x_ptr, h_ptr, b_ptr, q_ptr, u_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(h_ptr + offs, x.to(tl.float16), mask=mask)
    tl.store(b_ptr + offs, x.to(tl.bfloat16), mask=mask)
    q = tl.clamp(x * 127.0, -128.0, 127.0).to(tl.int8)
    tl.store(q_ptr + offs, q, mask=mask)
    bits = x.to(tl.uint32, bitcast=True).to(tl.uint64)
    tl.store(u_ptr + offs, (bits << 7) ^ (bits >> 3) | offs.to(tl.uint64), mask=mask)
    tl.store(x_ptr + offs, tl.floor(x) + tl.math.rsqrt(tl.abs(x) + 1.0), mask=mask)
