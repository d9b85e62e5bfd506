"""Kernel library written with pyptx, organised by architecture (Ampere, Hopper, Blackwell).

One function per kernel family, for torch tensors, JAX arrays and numpy arrays::

    from pyptx.kernels import gemm, rms_norm
    c = gemm(a, b)                 # a (M, K) @ b (K, N), fp32 accumulation
    y = rms_norm(x, w, eps=1e-6)   # over the last dim, any leading dims

Arrays on a GPU run the kernel written for that GPU's arch; host arrays (CPU tensors, numpy,
JAX on the CPU) run in the emulator, ``arch=`` choosing whose kernel ("sm_80", "sm_90a",
"sm_100a"; default "sm_90a"). Where no kernel fits the arch, dtype or shape the call raises
:class:`KernelUnavailable`; nothing falls back to another arch. :func:`catalog` lists the
kernels, and ``python -m pyptx.kernels check`` assembles each with ptxas.

Building a kernel's PTX needs no GPU; running it goes through :mod:`pyptx.runtime`. Importing
this package imports no framework (torch, JAX) and touches no GPU.
"""

from ._api import (
    DEFAULT_ARCH,
    flash_attention,
    gemm,
    grouped_gemm,
    layer_norm,
    rms_norm,
    softmax,
    swiglu,
)
from ._catalog import CatalogEntry, catalog
from ._registry import ARCHES, FAMILIES, Implementation, KernelUnavailable

__all__ = [
    "ARCHES",
    "DEFAULT_ARCH",
    "FAMILIES",
    "CatalogEntry",
    "Implementation",
    "KernelUnavailable",
    "catalog",
    "flash_attention",
    "gemm",
    "grouped_gemm",
    "layer_norm",
    "rms_norm",
    "softmax",
    "swiglu",
]
