"""Operand values that are plain data: a negated predicate and a memory address.

A leaf of the DSL core (it imports only the IR): :mod:`.operands` turns these and registers
into IR operands, and registers (:mod:`.regs`) emit through :mod:`.operands`, so the core's
imports go one way: ``regs -> operands -> values``, ``operands -> _trace -> validate``.

Registers take part through one method instead of an import: anything with
``ptx_operand()`` (``Reg``, ``SpecialReg``) is converted by calling it.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyptx.ir import Address

__all__ = ["Addr", "NotPred"]


@dataclass(frozen=True)
class NotPred:
    """A negated predicate, written ``~p`` (``@!p`` as a guard, ``!p`` as an operand)."""

    reg: object

    def __invert__(self) -> object:
        return self.reg


@dataclass(frozen=True)
class Addr:
    """A memory address operand ``[base+offset]`` built by :func:`pyptx.ptx.addr`."""

    node: Address
