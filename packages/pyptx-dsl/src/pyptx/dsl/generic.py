"""The generic instruction builder ``ptx.inst.<opcode>.<modifier>...(operands)``.

Any PTX instruction can be written through it; the ISA table still checks the result. PTX
spellings that are not Python identifiers map reversibly (see :data:`NAME_MAPPING` and
:func:`python_name` / :func:`ptx_name`):

============================  ===========================  =================================
PTX                           Python attribute             rule
============================  ===========================  =================================
``and``, ``or``, ``not``      ``and_``, ``or_``, ``not_``  Python keyword: append ``_``
``shared::cluster``           ``shared__cluster``          ``::`` becomes ``__``
``2d``, ``128B``              ``_2d``, ``_128B``           leading digit: prepend ``_``
``L2::cache_hint``            ``L2__cache_hint``           (rules combine)
============================  ===========================  =================================

Example::

    ptx.inst.cp.async_.bulk.tensor._2d.shared__cluster.global_.tile.mbarrier__complete_tx__bytes(
        ptx.addr(sA), (desc, x, y), ptx.addr(bar))
"""

from __future__ import annotations

import keyword
from typing import Any

from pyptx.ir import Instruction

from .operands import emit_inst

__all__ = ["NAME_MAPPING", "InstBuilder", "inst", "ptx_name", "python_name"]

NAME_MAPPING: tuple[tuple[str, str, str], ...] = (
    ("keyword", "and", "and_"),
    ("double colon", "shared::cluster", "shared__cluster"),
    ("leading digit", "2d", "_2d"),
)
"""Examples of the three spelling rules, (rule, PTX, Python)."""


def python_name(ptx: str) -> str:
    """The attribute spelling of one PTX mnemonic component (``"2d"`` -> ``"_2d"``)."""
    name = ptx.replace("::", "__")
    if name[:1].isdigit():
        name = "_" + name
    if keyword.iskeyword(name):
        name += "_"
    return name


def ptx_name(attr: str) -> str:
    """The PTX spelling of one attribute (inverse of :func:`python_name`)."""
    name = attr
    if name.endswith("_") and keyword.iskeyword(name[:-1]):
        name = name[:-1]
    if name.startswith("_") and name[1:2].isdigit():
        name = name[1:]
    return name.replace("__", "::")


class InstBuilder:
    """Accumulates mnemonic components by attribute access; calling it emits the instruction.

    ``ptx.inst.add.s32(d, a, b)`` emits ``add.s32 d, a, b;``. Keyword ``pred=`` guards it.
    """

    def __init__(self, parts: tuple[str, ...] = ()) -> None:
        self._parts = parts

    def __getattr__(self, attr: str) -> InstBuilder:
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        child = InstBuilder((*self._parts, ptx_name(attr)))
        # Builders hold nothing but their mnemonic, so each child is made once and kept as
        # an attribute: the next ``ptx.inst.add.s32`` is two plain attribute lookups.
        self.__dict__[attr] = child
        return child

    def __call__(self, *operands: Any, pred: Any = None) -> Instruction:
        """Emit ``[@pred] <mnemonic> operands...;`` (one instruction) and return it."""
        if not self._parts:
            raise TypeError("ptx.inst needs an opcode: ptx.inst.<opcode>.<modifiers>(...)")
        return emit_inst(self._parts[0], self._parts[1:], operands, pred)

    def __repr__(self) -> str:
        return f"ptx.inst.{'.'.join(self._parts)}"


inst = InstBuilder()
"""The root of the generic builder: ``ptx.inst.<opcode>.<modifiers>(...)``."""
