"""pyptx: write NVIDIA PTX from Python.

This top-level package belongs to the ``pyptx-dsl`` distribution and holds the public DSL
API: ``kernel``, ``reg``, ``smem``, ``ptx``, ``Tile``, ``Layout``, ``intrinsic``, and
``PtxModule`` for verbatim multi-function modules (what the transpiler writes).

Typical use::

    from pyptx import kernel, reg, ptx
    from pyptx.types import u32

    @kernel(arch="sm_90a")
    def tiny():
        tid = reg.from_(ptx.special.tid.x(), u32)
        value = tid + 1
        ptx.inst.mov.u32(tid, value)
        ptx.ret()

    print(tiny.ptx())

The other ``pyptx-*`` distributions (``pyptx.ir``, ``pyptx.parser``, ``pyptx.emitter``,
``pyptx.emu``, ``pyptx.runtime``, ``pyptx.kernels``) ship ``pyptx`` as a PEP 420 namespace
portion without an ``__init__.py``. ``extend_path`` below lets this regular package find
those portions when they live in other ``sys.path`` entries, as they do with editable
installs. The line has the exact pkgutil-style form that static tools (mkdocstrings/griffe)
recognise; keep it that way.
"""

__path__ = __import__("pkgutil").extend_path(__path__, __name__)

import importlib
from typing import TYPE_CHECKING, Any

# Public names, resolved on first use (PEP 562) so that importing a sibling such as
# pyptx.ir or pyptx.parser does not load the DSL.
_LAZY: dict[str, tuple[str, str | None]] = {
    "ptx": ("pyptx.ptx", None),
    "reg": ("pyptx.reg", None),
    "smem": ("pyptx.smem", None),
    "types": ("pyptx.types", None),
    "PtxDslError": ("pyptx.dsl.errors", "PtxDslError"),
    "intrinsic": ("pyptx.dsl.intrinsic", "intrinsic"),
    "Kernel": ("pyptx.dsl.kernel", "Kernel"),
    "TensorArg": ("pyptx.dsl.kernel", "TensorArg"),
    "kernel": ("pyptx.dsl.kernel", "kernel"),
    "Layout": ("pyptx.dsl.tile", "Layout"),
    "PtxFunction": ("pyptx.dsl.module", "PtxFunction"),
    "PtxModule": ("pyptx.dsl.module", "PtxModule"),
    "Tile": ("pyptx.dsl.tile", "Tile"),
}
# Public names that pyptx-runtime provides, resolved through the DSL's one runtime hook
# (pyptx.dsl.hooks); without pyptx-runtime installed they raise an AttributeError that says so.
_RUNTIME = ("differentiable_kernel",)

__all__ = sorted([*_LAZY, *_RUNTIME])


def __getattr__(name: str) -> Any:
    if name in _RUNTIME:
        from pyptx.dsl.hooks import runtime_attribute

        value = runtime_attribute(name)
        if value is None:
            raise AttributeError(
                f"pyptx.{name} is provided by pyptx-runtime, which is not installed "
                "(pip install pyptx-runtime)"
            )
        return value
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'pyptx' has no attribute {name!r}")
    module = importlib.import_module(target[0])
    value = module if target[1] is None else getattr(module, target[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | set(_RUNTIME))


if TYPE_CHECKING:  # the lazy names, spelled for type checkers (`X as X`: re-exported)
    from . import ptx as ptx
    from . import reg as reg
    from . import smem as smem
    from . import types as types
    from .dsl.errors import PtxDslError as PtxDslError
    from .dsl.intrinsic import intrinsic as intrinsic
    from .dsl.kernel import Kernel as Kernel
    from .dsl.kernel import TensorArg as TensorArg
    from .dsl.kernel import kernel as kernel
    from .dsl.module import PtxFunction as PtxFunction
    from .dsl.module import PtxModule as PtxModule
    from .dsl.tile import Layout as Layout
    from .dsl.tile import Tile as Tile
