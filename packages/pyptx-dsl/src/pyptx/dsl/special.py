"""Special registers as values: ``ptx.special.tid.x()``, ``ptx.special.clock64()``.

Each call returns a :class:`~pyptx.dsl.regs.SpecialReg` operand and emits nothing; move it
into a register with ``reg.from_(ptx.special.tid.x(), u32)`` (one ``mov``).
"""

from __future__ import annotations

from pyptx.ir import SPECIAL_REGISTERS

from .errors import PtxDslError
from .regs import SpecialReg

__all__ = ["SpecialNamespace", "special"]


class _Component:
    __slots__ = ("_base",)

    def __init__(self, base: str) -> None:
        self._base = base

    def __getattr__(self, comp: str) -> _Reader:
        if comp.startswith("__"):
            raise AttributeError(comp)
        return _Reader(f"%{self._base}.{comp}")

    def __call__(self) -> SpecialReg:
        return _Reader(f"%{self._base}")()


class _Reader:
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __call__(self) -> SpecialReg:
        info = SPECIAL_REGISTERS.get(self._name)
        if info is None:
            raise PtxDslError(f"{self._name} is not a PTX special register")
        return SpecialReg(self._name, info.type)


class SpecialNamespace:
    """Attribute access to every special register of :data:`pyptx.ir.SPECIAL_REGISTERS`."""

    def __getattr__(self, name: str) -> _Component:
        if name.startswith("__"):
            raise AttributeError(name)
        if f"%{name}" not in SPECIAL_REGISTERS and f"%{name}.x" not in SPECIAL_REGISTERS:
            raise AttributeError(f"no special register %{name}")
        return _Component(name)

    def __dir__(self) -> list[str]:
        return sorted({k[1:].split(".")[0] for k in SPECIAL_REGISTERS})


special = SpecialNamespace()
"""``ptx.special.<name>[.<component>]()``: a special-register operand."""
