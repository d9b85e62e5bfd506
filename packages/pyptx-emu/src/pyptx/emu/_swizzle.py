"""The shared-memory swizzle patterns of TMA and of wgmma/tcgen05 matrix descriptors.

A swizzle of span ``S`` bytes (32, 64 or 128) permutes the 16-byte chunks within each
``S``-byte row of shared memory: address bits ``[4, 4 + log2(S/16))`` are XORed with the
bits ``[7, 7 + log2(S/16))`` above them, so the pattern repeats every ``8 * S`` bytes
(1024 bytes for 128B). The same function maps a logical
(unswizzled) byte offset to the physical one and back, since XOR is its own inverse.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SPANS", "swizzle"]

SPANS = (32, 64, 128)
"""The swizzle spans in bytes."""

_MASK = {32: 0b1, 64: 0b11, 128: 0b111}


def swizzle(offsets: np.ndarray, span: int | None) -> np.ndarray:
    """The physical shared-memory byte offsets of logical ``offsets`` under a swizzle.

    The offsets must be relative to an address aligned to the pattern's repeat (``8 *
    span`` bytes; TMA and the descriptors require it of the tile's base).

    Args:
        offsets: byte offsets (any integer dtype, any shape).
        span: 32, 64 or 128; ``None`` for no swizzle.

    Returns:
        The swizzled offsets, same dtype and shape.
    """
    if span is None:
        return offsets
    mask = _MASK[span]
    o = offsets.astype(np.int64)
    chunk = (o >> 4) & mask
    row = (o >> 7) & mask
    return ((o & ~(mask << 4)) | ((chunk ^ row) << 4)).astype(offsets.dtype)
