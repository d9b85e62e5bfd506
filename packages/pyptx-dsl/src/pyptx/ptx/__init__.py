"""The PTX instruction namespace: ``from pyptx import ptx``.

Every function here emits exactly one PTX instruction, except the helpers listed in
:data:`MULTI_INSTRUCTION_HELPERS`, which say exactly what they emit.

* ``ptx.inst.<opcode>.<modifiers>(...)`` reaches any instruction of the ISA (see
  :mod:`pyptx.dsl.generic` for the spelling rules); typed wrappers per family live in the
  submodules and are re-exported here (``ptx.ld``, ``ptx.mma``, ``ptx.wgmma``, ...).
* ``ptx.raw(text)`` splices hand-written PTX (parsed, so malformed text is an error).
* ``ptx.if_`` / ``ptx.else_`` / ``ptx.loop`` / ``ptx.range_`` / ``ptx.label`` / ``ptx.bra``:
  device control flow with kernel-unique labels.
* ``ptx.special.<name>()``: special-register operands (``ptx.special.tid.x()``).
* Kernel helpers built on the wrappers (reductions, mbarrier rings and pipelines, named
  barriers, ``ptx.tma``, the transposed bf16 epilogue, fragment orders, ``ptx.kloop``):
  see ``docs/guide/dsl-helpers.md``; what each emits is in :data:`MULTI_INSTRUCTION_HELPERS`.
* ``ptx.addr(base, offset)``: an address operand.
* ``ptx.param(name)``: a scalar kernel parameter (``raw_params``) loaded into a register.
* ``ptx.declare`` / ``ptx.block`` (also ``ptx.scope``) / ``ptx.args`` / ``ptx.operand`` /
  ``ptx.imm`` / ``ptx.sym`` / ``ptx.label_ref`` / ``ptx.instruction``: verbatim PTX
  (declarations placed where written, operands in their PTX spelling), the vocabulary of
  transpiled code; see :mod:`pyptx.dsl.verbatim` and :class:`pyptx.PtxModule`.
* The seed system's (upstream pyptx 0.1.1) spellings where they mean the same thing
  (``ptx.mbarrier.array``, ``ptx.fence.proxy_async_shared_cta``, ``ptx.tcgen05.wait_ld``,
  ``ptx.loop(..., pred=p)``, ...): see ``docs/guide/porting.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..dsl.control import bra, else_, if_, label, loop, new_label, range_
from ..dsl.generic import inst
from ..dsl.kernel import param
from ..dsl.operands import addr, emit_inst
from ..dsl.raw import raw
from ..dsl.special import special
from ..dsl.verbatim import (
    args,
    block,
    declare,
    imm,
    instruction,
    label_ref,
    operand,
    scope,
    sym,
)
from . import (
    _arith,
    _atomic,
    _bulk,
    _cluster,
    _compare,
    _convert,
    _cp_async,
    _epilogue,
    _fragments,
    _kloop,
    _logic,
    _matrix,
    _mbarrier,
    _memory,
    _mma,
    _named_barrier,
    _pipeline,
    _pointers,
    _reductions,
    _sync,
    _tcgen05,
    _tma,
    _warp,
    _wgmma,
)
from ._helpers import CORE_HELPERS

if TYPE_CHECKING:  # what _export_families puts in this namespace, spelled for type checkers
    from ._arith import *  # noqa: F403
    from ._atomic import *  # noqa: F403
    from ._bulk import *  # noqa: F403
    from ._cluster import *  # noqa: F403
    from ._compare import *  # noqa: F403
    from ._convert import *  # noqa: F403
    from ._cp_async import *  # noqa: F403
    from ._epilogue import *  # noqa: F403
    from ._fragments import *  # noqa: F403
    from ._kloop import *  # noqa: F403
    from ._logic import *  # noqa: F403
    from ._matrix import *  # noqa: F403
    from ._mbarrier import *  # noqa: F403
    from ._memory import *  # noqa: F403
    from ._mma import *  # noqa: F403
    from ._named_barrier import *  # noqa: F403
    from ._pipeline import *  # noqa: F403
    from ._pointers import *  # noqa: F403
    from ._reductions import *  # noqa: F403
    from ._sync import *  # noqa: F403
    from ._tcgen05 import *  # noqa: F403
    from ._tma import *  # noqa: F403
    from ._warp import *  # noqa: F403
    from ._wgmma import *  # noqa: F403

_FAMILIES = (
    _arith, _convert, _compare, _logic, _memory, _warp, _atomic, _sync, _cp_async, _bulk,
    _mbarrier, _cluster, _mma, _matrix, _wgmma, _tcgen05,
)  # fmt: skip
# Kernel-writing helpers built on the families (docs/guide/dsl-helpers.md).
_KERNEL_HELPERS = (
    _reductions, _pipeline, _named_barrier, _pointers, _tma, _epilogue, _fragments, _kloop,
)  # fmt: skip


def ret(*, pred: object = None) -> None:
    """``[@pred] ret;`` (one instruction)."""
    emit_inst("ret", (), (), pred)


def exit(*, pred: object = None) -> None:
    """``[@pred] exit;`` (one instruction)."""
    emit_inst("exit", (), (), pred)


__all__ = [
    "MULTI_INSTRUCTION_HELPERS",
    "addr",
    "args",
    "block",
    "bra",
    "declare",
    "else_",
    "exit",
    "if_",
    "imm",
    "inst",
    "instruction",
    "label",
    "label_ref",
    "loop",
    "new_label",
    "operand",
    "param",
    "range_",
    "raw",
    "ret",
    "scope",
    "special",
    "sym",
]


def _export_families() -> None:
    namespace = globals()
    for family in (*_FAMILIES, *_KERNEL_HELPERS):
        for name in family.__all__:
            namespace[name] = getattr(family, name)
            __all__.append(name)


_export_families()

MULTI_INSTRUCTION_HELPERS: dict[str, str] = dict(CORE_HELPERS)
"""Every ``ptx.*``/``reg``/``smem`` helper that emits more than one instruction, with exactly
what it emits. Every other ``ptx.*`` call emits exactly one instruction."""
for _family in (*_FAMILIES, *_KERNEL_HELPERS):
    MULTI_INSTRUCTION_HELPERS.update(getattr(_family, "MULTI_INSTRUCTION", {}))
del _family
