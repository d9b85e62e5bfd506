"""Triton source: C = A @ B, bf16 inputs, fp32 accumulation and output.

sm_80 lowers the dot to mma.sync.m16n8k16 fed by ldmatrix from shared memory filled with
cp.async (num_stages pipelining); sm_90a lowers it to wgmma.mma_async on shared-memory
descriptors.
"""

import triton
import triton.language as tl


@triton.jit
def matmul(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_bk,
    stride_cm,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    pid = tl.program_id(0)
    grid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // grid_n
    pid_n = pid % grid_n
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < k_left) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    tl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


_SIGNATURE = {
    "a_ptr": "*bf16",
    "b_ptr": "*bf16",
    "c_ptr": "*fp32",
    "M": "i32",
    "N": "i32",
    "K": "i32",
    "stride_am": "i32",
    "stride_bk": "i32",
    "stride_cm": "i32",
}
_DIVISIBLE = list(_SIGNATURE)  # every pointer, size and stride is a multiple of 16
_BLOCKS = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}

VARIANTS = [
    {
        "name": "matmul_bf16_sm80",
        "kernel": matmul,
        "arch": 80,
        "signature": _SIGNATURE,
        "constexprs": _BLOCKS,
        "num_warps": 4,
        "num_stages": 3,
        "divisible": _DIVISIBLE,
    },
    {
        "name": "matmul_bf16_sm90a",
        "kernel": matmul,
        "arch": 90,
        "signature": _SIGNATURE,
        "constexprs": _BLOCKS,
        "num_warps": 4,
        "num_stages": 3,
        "divisible": _DIVISIBLE,
    },
]
