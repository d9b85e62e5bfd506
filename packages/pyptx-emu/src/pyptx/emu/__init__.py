"""pyptx.emu: run PTX kernels on the CPU, on numpy arrays, with every access checked.

:func:`launch` executes one kernel of a PTX module (text from any compiler, or a
:class:`pyptx.ir.Module` such as a traced kernel's ``.module(...)``) over a whole grid:
clusters, CTAs, warps and threads, vectorized over the threads with numpy. Instruction
semantics are registered under the spec names of the ISA table in :mod:`pyptx.ir.isa`.
Faults a GPU would let pass (out-of-bounds and misaligned accesses, reads of registers never
written, barrier and mbarrier deadlocks, and with ``check_races=True`` shared-memory races)
raise subclasses of :class:`EmuError` naming the instruction, its PTX line and the thread.

Example::

    import numpy as np
    from pyptx.emu import launch

    x = np.arange(1024, dtype=np.float32)
    y = np.zeros_like(x)
    stats = launch(ptx_text, grid=4, block=256, args=[x, y, 1024])
    print(stats.warp_instructions, stats.by_mnemonic.most_common(3))
"""

from __future__ import annotations

from ._errors import (
    DataRace,
    Deadlock,
    EmuError,
    LaunchError,
    Misaligned,
    NotEmulated,
    OutOfBounds,
    UninitializedRead,
)
from ._launch import LaunchStats, launch
from ._tensor_map import TensorMap, tensor_map

__all__ = [
    "DataRace",
    "Deadlock",
    "EmuError",
    "LaunchError",
    "LaunchStats",
    "Misaligned",
    "NotEmulated",
    "OutOfBounds",
    "TensorMap",
    "UninitializedRead",
    "launch",
    "tensor_map",
]
