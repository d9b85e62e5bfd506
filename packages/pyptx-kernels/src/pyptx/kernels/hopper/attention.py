"""Hopper (sm_90a) flash-attention forward: TMA + mbarrier pipeline, wgmma, online softmax.

``flash_attention(q, k, v, causal)`` computes ``softmax(q k^T / sqrt(head_dim) [+ mask]) v`` for
q ``(batch, heads, seq_q, head_dim)`` and k, v ``(batch, heads, seq_k, head_dim)`` in bf16 or
f16, head dim 64 or 128, and returns ``(batch, heads, seq_q, head_dim)`` in the input dtype,
like ``torch.nn.functional.scaled_dot_product_attention``. ``causal=True`` is torch's
``is_causal``: query ``i`` sees keys ``0..i`` (aligned top-left, also when ``seq_q !=
seq_k``). Any sequence lengths work; one kernel (and one PTX) serves them all. The design is
in ``docs/guide/kernels/attention.md`` and in :mod:`._attention_kernel`.
"""

from __future__ import annotations

from typing import Any

from pyptx import Kernel

from .._registry import Implementation, KernelUnavailable
from ._attention_kernel import BM, HEAD_DIMS, attention_kernel

__all__ = ["IMPLEMENTATIONS", "build", "flash_attention"]

_NAME = "hopper.flash_attention"
_DTYPES = {"bfloat16": "bf16", "float16": "f16"}
_MAX_CTAS_Y = 65535  # gridDim.y: one CTA row per (batch, head)
_MAX_ROWS = 2**31 - 1  # TMA coordinates are signed 32-bit


def build(head_dim: int = 128, causal: bool = False, dtype: str = "bf16") -> Kernel:
    """The kernel for one configuration (cached; see :func:`._attention_kernel.attention_kernel`).

    Args:
        head_dim: 64 or 128.
        causal: top-left causal mask.
        dtype: ``"bf16"`` or ``"f16"``.

    Raises:
        KernelUnavailable: another head dim or dtype.
    """
    if head_dim not in HEAD_DIMS:
        raise KernelUnavailable(
            f"head_dim {head_dim} is not supported; the kernel is built for "
            f"head_dim {' or '.join(map(str, HEAD_DIMS))}"
        )
    if dtype not in _DTYPES.values():
        raise KernelUnavailable(f"dtype {dtype} is not supported; use bf16 or f16")
    return attention_kernel(head_dim, bool(causal), dtype)


def _dtype_name(x: Any) -> str:
    """``"bfloat16"`` for torch.bfloat16, a JAX or ml_dtypes bfloat16, ``"float16"``..."""
    return str(x.dtype).rsplit(".", 1)[-1]


def _rows(x: Any, rows: int, cols: int) -> Any:
    """``x`` as a C-contiguous ``(rows, cols)`` array of the same library (a copy if needed)."""
    y = x.reshape(rows, cols)
    if hasattr(y, "contiguous"):  # torch
        return y.contiguous()
    flags = getattr(y, "flags", None)  # numpy; JAX arrays are always dense
    if flags is not None and not flags["C_CONTIGUOUS"]:
        return y.copy()
    return y


def flash_attention(q: Any, k: Any, v: Any, causal: bool = False) -> Any:
    """Attention forward for torch tensors, JAX arrays or numpy arrays (``call`` of the entry).

    Args:
        q: ``(batch, heads, seq_q, head_dim)``, bf16 or f16.
        k: ``(batch, heads, seq_k, head_dim)``, q's dtype.
        v: ``(batch, heads, seq_k, head_dim)``, q's dtype.
        causal: mask key ``j > i`` for query ``i`` (torch's ``is_causal``, top-left aligned).

    Returns:
        ``(batch, heads, seq_q, head_dim)`` in q's dtype and library (CPU arrays: computed in
        the emulator).

    Raises:
        KernelUnavailable: a rank, shape, head dim or dtype the kernel cannot take.
    """
    shapes = [tuple(x.shape) for x in (q, k, v)]
    if any(len(s) != 4 for s in shapes):
        raise KernelUnavailable(
            f"q, k and v must be (batch, heads, seq, head_dim), got shapes {shapes}"
        )
    (batch, heads, seq_q, head_dim), k_shape = shapes[0], shapes[1]
    seq_k = k_shape[2]
    if shapes[2] != k_shape or k_shape[:2] != (batch, heads) or k_shape[3] != head_dim:
        raise KernelUnavailable(
            f"k and v must be (batch, heads, seq_k, head_dim) with q's batch, heads "
            f"and head_dim {(batch, heads, head_dim)}; got q {shapes[0]}, k {shapes[1]}, "
            f"v {shapes[2]}"
        )
    names = [_dtype_name(x) for x in (q, k, v)]
    if len(set(names)) != 1 or names[0] not in _DTYPES:
        raise KernelUnavailable(f"q, k and v must all be bfloat16 or all float16, got {names}")
    if min(batch, heads, seq_q, seq_k) == 0:
        raise KernelUnavailable(f"empty input (q {shapes[0]}, k {shapes[1]})")
    bh = batch * heads
    if bh > _MAX_CTAS_Y or bh * max(seq_q, seq_k) > _MAX_ROWS:
        raise KernelUnavailable(
            f"batch * heads = {bh} must be at most {_MAX_CTAS_Y} and batch * heads * "
            f"seq at most {_MAX_ROWS} rows (TMA coordinates are 32-bit)"
        )
    kern = build(head_dim, causal, _DTYPES[names[0]])
    out = kern(
        _rows(q, bh * seq_q, head_dim),
        _rows(k, bh * seq_k, head_dim),
        _rows(v, bh * seq_k, head_dim),
        seq_q,
        seq_k,
        BH=bh,
        SQ=seq_q,
    )
    return out.reshape(batch, heads, seq_q, head_dim)


IMPLEMENTATIONS: tuple[Implementation, ...] = (
    Implementation(
        name=_NAME,
        family="flash_attention",
        arch="sm_90a",
        dtypes=("bf16", "f16"),
        example={"head_dim": 128, "causal": True, "dtype": "bf16"},
        build=build,
        call=flash_attention,
        notes=(
            f"FA2/FA3-style forward: {BM}-row query tiles over two consumer warpgroups, a "
            "producer warp streaming 128-key K/V tiles through a 2-stage TMA/mbarrier ring, "
            "wgmma for S = QK^T and O += PV (P from registers), online softmax with ex2.approx; "
            "head_dim 64/128, any seq_q/seq_k, causal top-left (torch is_causal)"
        ),
    ),
)
"""The Hopper flash-attention forward (bf16 and f16)."""
