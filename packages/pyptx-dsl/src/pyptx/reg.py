"""Register allocation and register-level sugar.

* :func:`scalar` one register (optionally initialized with a ``mov``)
* :func:`array` a list of registers
* :func:`from_` allocate + ``mov`` (e.g. ``reg.from_(ptx.special.tid.x(), u32)``)
* :func:`wgmma_frag` accumulator registers sized for a dense Hopper wgmma

Registers support operator sugar (``+ - * // % & | ^ << >>`` and comparisons), each operator
emitting one instruction; see :data:`pyptx.dsl.regs.OPERATOR_TABLE`.
"""

from __future__ import annotations

from .dsl.regs import OPERATOR_TABLE, Reg, RegArray, SpecialReg, array, from_, scalar, wgmma_frag

__all__ = [
    "OPERATOR_TABLE",
    "Reg",
    "RegArray",
    "SpecialReg",
    "array",
    "from_",
    "scalar",
    "wgmma_frag",
]
