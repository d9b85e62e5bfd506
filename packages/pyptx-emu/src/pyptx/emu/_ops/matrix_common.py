"""Helpers shared by the warp-level matrix instructions: whole warps, packing, NaNs."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._errors import EmuError, Fault
from .._lanes import WARP, Lanes
from .._site import Site
from .._warp import converged, full_warps

__all__ = ["aligned", "canonical_nan", "pack", "unpack"]


def aligned(m: Any, site: Site, lanes: Lanes) -> bool:
    """Whether a ``.sync.aligned`` matrix instruction may run on ``lanes`` now.

    Returns ``False`` (the lanes were set aside to wait for the rest of their warp; the
    executor returns ``YIELD``) until every lane of each warp has arrived.

    Raises:
        Fault: a warp has exited lanes (the PTX ISA leaves the result undefined).
    """
    if not converged(m, site, lanes, None):
        return False
    if not full_warps(lanes):
        present = np.bincount(lanes.idx // WARP, minlength=m.n // WARP)
        warp = int(np.flatnonzero((present > 0) & (present < WARP))[0])
        first = int(lanes.idx[np.searchsorted(lanes.idx // WARP, warp)])
        raise Fault(
            EmuError,
            f"{site.mnemonic} needs all 32 threads of the warp, but"
            f" {WARP - int(present[warp])} of them have exited (the PTX ISA leaves the result"
            " undefined); keep every thread of the warp alive until the matrix instruction",
            lane=first,
        )
    return True


def unpack(regs: np.ndarray, bits: int) -> np.ndarray:
    """Split ``(..., r)`` registers into ``(..., r * p)`` elements of ``bits`` bits each.

    Element ``i`` of a register sits at bits ``i * bits`` upward (least significant first).
    Registers wider than ``bits`` give ``uint64`` codes; ``bits`` equal to the register width
    returns the registers as they are.
    """
    width = regs.dtype.itemsize * 8
    if bits >= width:
        return regs
    per = width // bits
    shifts = (np.arange(per, dtype=np.uint64) * np.uint64(bits))[None, :]
    mask = np.uint64((1 << bits) - 1)
    codes = (regs.astype(np.uint64)[..., None] >> shifts) & mask
    return codes.reshape(*regs.shape[:-1], regs.shape[-1] * per)


def pack(codes: np.ndarray, bits: int, width: int = 32) -> np.ndarray:
    """The inverse of :func:`unpack`: ``(..., r * p)`` codes into ``(..., r)`` registers."""
    if bits >= width:
        return codes
    per = width // bits
    shaped = codes.astype(np.uint64).reshape(*codes.shape[:-1], codes.shape[-1] // per, per)
    shifts = np.arange(per, dtype=np.uint64) * np.uint64(bits)
    out = np.bitwise_or.reduce(shaped << shifts, axis=-1)
    return out.astype(np.dtype(f"u{width // 8}"))


def canonical_nan(bits: np.ndarray, values: np.ndarray, nan_bits: int) -> np.ndarray:
    """``bits`` with every NaN of ``values`` replaced by the canonical NaN ``nan_bits``."""
    nan = np.isnan(values)
    if nan.any():
        bits = np.where(nan, bits.dtype.type(nan_bits), bits)
    return bits
