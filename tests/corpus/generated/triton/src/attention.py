"""Flash attention forward: two dots per block, online softmax with exp2, causal mask."""

import triton
import triton.language as tl

SIGNATURE = {
    "q_ptr": "*bf16",
    "k_ptr": "*bf16",
    "v_ptr": "*bf16",
    "o_ptr": "*bf16",
    "lse_ptr": "*fp32",
    "seq": "i32",
    "stride_h": "i32",
    "stride_s": "i32",
    "scale": "fp32",
}
CONSTANTS = {"BLOCK_M": 128, "BLOCK_N": 64, "HEAD": 64}
OPTIONS = {"num_warps": 4, "num_stages": 2}


@triton.jit
def kernel(
    q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, seq, stride_h, stride_s, scale,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD: tl.constexpr,
):  # fmt: skip
    start_m = tl.program_id(0)
    head = tl.program_id(1)
    base = head * stride_h
    rm = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rd = tl.arange(0, HEAD)
    q = tl.load(q_ptr + base + rm[:, None] * stride_s + rd[None, :], mask=rm[:, None] < seq)
    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD], tl.float32)
    qk_scale = scale * 1.44269504
    for start_n in range(0, (start_m + 1) * BLOCK_M, BLOCK_N):
        rn = start_n + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + base + rn[None, :] * stride_s + rd[:, None], mask=rn[None, :] < seq)
        qk = tl.dot(q, k) * qk_scale
        qk = tl.where(rm[:, None] >= rn[None, :], qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_ptr + base + rn[:, None] * stride_s + rd[None, :], mask=rn[:, None] < seq)
        acc = tl.dot(p.to(tl.bfloat16), v, acc)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(lse_ptr + head * seq + rm, m_i + tl.math.log2(l_i), mask=rm < seq)
    out = o_ptr + base + rm[:, None] * stride_s + rd[None, :]
    tl.store(out, acc.to(tl.bfloat16), mask=rm[:, None] < seq)
