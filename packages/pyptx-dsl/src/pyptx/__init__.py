"""pyptx: write NVIDIA PTX from Python.

This top-level package belongs to the ``pyptx-dsl`` distribution and holds the public DSL
API: ``kernel``, ``reg``, ``smem``, ``ptx``, ``Tile``, ``Layout``, ``intrinsic``.

Typical use::

    from pyptx import kernel, reg, ptx
    from pyptx.types import u32

    @kernel(arch="sm_90a")
    def tiny():
        tid = reg.from_(ptx.special.tid.x(), u32)
        value = tid + 1
        ptx.inst.mov.u32(tid, value)
        ptx.ret()

    print(tiny.ptx()) The other ``pyptx-*``
distributions (``pyptx.ir``, ``pyptx.parser``, ``pyptx.emitter``, ``pyptx.emu``,
``pyptx.runtime``, ``pyptx.kernels``) ship ``pyptx`` as a PEP 420 namespace portion without an
``__init__.py``. ``extend_path`` below lets this regular package find those portions when they
live in other ``sys.path`` entries, as they do with editable installs. The line has the exact
pkgutil-style form that static tools (mkdocstrings/griffe) recognise; keep it that way.
"""

__path__ = __import__("pkgutil").extend_path(__path__, __name__)

from . import ptx, reg, smem, types  # noqa: E402
from .dsl.errors import PtxDslError  # noqa: E402
from .dsl.intrinsic import intrinsic  # noqa: E402
from .dsl.kernel import Kernel, TensorArg, kernel  # noqa: E402
from .dsl.tile import Layout, Tile  # noqa: E402

__all__ = [
    "Kernel",
    "Layout",
    "PtxDslError",
    "TensorArg",
    "Tile",
    "intrinsic",
    "kernel",
    "ptx",
    "reg",
    "smem",
    "types",
]
