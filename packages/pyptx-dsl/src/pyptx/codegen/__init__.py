"""PTX -> pyptx Python: turn any PTX module into an editable pyptx program that re-emits it.

Quick start::

    from pyptx.codegen import ptx_to_python

    source = open("kernel.ptx").read()
    python_source = ptx_to_python(source, kernel_name="my_kernel")

or ``python -m pyptx.codegen kernel.ptx --name my_kernel -o my_kernel.py`` (also
``pyptx transpile``). The generated module defines one :class:`pyptx.PtxFunction` per
kernel/device function; ``my_kernel.ptx()`` returns the input text byte for byte, and running
the file writes it to stdout.
"""

from __future__ import annotations

from ._api import module_to_python, ptx_to_python, transpile

__all__ = ["module_to_python", "ptx_to_python", "transpile"]
