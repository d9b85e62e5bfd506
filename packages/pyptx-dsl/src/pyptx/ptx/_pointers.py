"""Global pointers and special registers by name: ``global_ptrs``, ``global_ptr``, ``sreg``.

``ptx.global_ptrs(x, w, y)`` is ``(x.ptr(), w.ptr(), y.ptr())``: each tensor argument's
``ld.param.u64`` + ``cvta.to.global.u64`` pair, emitted once at the start of the kernel
(see ``TensorArg.ptr``). A ``u64`` register holding a generic address (read from memory,
say) is converted with one ``cvta.to.global.u64`` through ``ptx.cvta.to``.
"""

from __future__ import annotations

from pyptx.ir import SPECIAL_REGISTERS, PtxType

from ..dsl.errors import PtxDslError
from ..dsl.kernel import TensorArg
from ..dsl.regs import Reg, SpecialReg, _new
from ._convert import cvta

__all__ = ["global_ptr", "global_ptrs", "sreg"]


def global_ptr(value: object, *, dst: Reg | None = None) -> Reg:
    """A ``u64`` register with a global-space address.

    Args:
        value: a tensor argument of the kernel (its ``.ptr()``: ``ld.param.u64`` +
            ``cvta.to.global.u64`` at the kernel start, once), or a 64-bit register with a
            generic address (``cvta.to.global.u64 d, value;`` here).
        dst: the register to write for a register ``value`` (default: a fresh ``u64``).

    Returns:
        The global address register.

    Raises:
        PtxDslError: ``value`` is neither (a TMA tensor argument included: use
            ``.tma_desc()``).

    See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvta
    """
    if isinstance(value, TensorArg):
        if dst is not None:
            raise PtxDslError("ptx.global_ptr of a tensor argument returns its .ptr(); drop dst=")
        return value.ptr()
    if isinstance(value, Reg) and value.type.bits == 64 and value.type is not PtxType.F64:
        out = _new(PtxType.U64) if dst is None else dst
        cvta.to(out, value, space="global")
        return out
    raise PtxDslError(
        "ptx.global_ptr takes a tensor argument or a 64-bit generic address register, "
        f"got {value!r}"
    )


def global_ptrs(*values: object) -> tuple[Reg, ...]:
    """:func:`global_ptr` of each argument, as a tuple: ``px, py = ptx.global_ptrs(x, y)``.

    Returns:
        One ``u64`` register per argument (a 1-tuple for one argument).
    """
    return tuple(global_ptr(v) for v in values)


def sreg(name: str) -> SpecialReg:
    """A special register by its PTX name: ``ptx.sreg("%cluster_ctarank")`` (emits nothing).

    The same operand as ``ptx.special.cluster_ctarank()``; ``"%tid.x"`` is
    ``ptx.special.tid.x()``. Read it into a register with ``reg.from_(..., u32)``.

    Raises:
        PtxDslError: ``name`` is not a special register of the ISA table.
    """
    info = SPECIAL_REGISTERS.get(name) if isinstance(name, str) else None
    if info is None:
        raise PtxDslError(
            f"ptx.sreg takes a PTX special register name such as '%tid.x', got {name!r}"
        )
    return SpecialReg(name, info.type)
