"""A block's inclusive prefix sum and a bitonic sort: shuffles, selects, compare-exchange."""

import triton
import triton.language as tl

SIGNATURE = {"x_ptr": "*fp32", "scan_ptr": "*fp32", "sorted_ptr": "*fp32", "keys_ptr": "*i16"}
CONSTANTS = {"BLOCK": 512}


@triton.jit
def kernel(x_ptr, scan_ptr, sorted_ptr, keys_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(scan_ptr + offs, tl.cumsum(x, 0))
    tl.store(sorted_ptr + offs, tl.sort(x, 0, descending=True))
    keys = tl.load(keys_ptr + offs)
    tl.store(keys_ptr + offs, tl.sort(keys, 0))
