"""e4m3 GEMM with per-tensor scales (targets with fp8 tensor cores only)."""

import triton
import triton.language as tl

SIGNATURE = {
    "a_ptr": "*fp8e4nv",
    "b_ptr": "*fp8e4nv",
    "c_ptr": "*bf16",
    "scale_ptr": "*fp32",
    "M": "i32",
    "N": "i32",
    "K": "i32",
}
CONSTANTS = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 128}
OPTIONS = {"num_warps": 8, "num_stages": 3}
ARCHS = ("sm_90a", "sm_100a", "sm_120a")


@triton.jit
def kernel(
    a_ptr, b_ptr, c_ptr, scale_ptr, M, N, K,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a = a_ptr + rm[:, None] * K + rk[None, :]
    b = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        acc = tl.dot(tl.load(a), tl.load(b), acc)
        a += BLOCK_K
        b += BLOCK_K * N
    acc *= tl.load(scale_ptr) * tl.load(scale_ptr + 1)
    c = c_ptr + rm[:, None] * N + rn[None, :]
    tl.store(c, acc.to(tl.bfloat16), mask=(rm[:, None] < M) & (rn[None, :] < N))
