"""The CUDA command-line tools the DSL drives: find them, assemble PTX, disassemble cubins.

``Kernel.cubin()`` and ``Kernel.sass()`` use these; they are also handy on their own::

    from pyptx.dsl.tools import assemble, disassemble
    sass = disassemble(assemble(ptx_text, "sm_90a", "my_kernel"), "my_kernel")
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .errors import PtxDslError

__all__ = ["assemble", "disassemble", "find_tool"]


def find_tool(name: str) -> str | None:
    """Find a CUDA tool (``"ptxas"``, ``"nvdisasm"``).

    In order: the path in ``PYPTX_<NAME>`` (``PYPTX_PTXAS``) when set, the nvidia-cuda-nvcc
    wheel's copy, ``PATH``, then ``$CUDA_HOME/bin``.
    """
    override = os.environ.get(f"PYPTX_{name.upper()}")
    if override:
        return override
    try:
        nvidia = importlib.import_module("nvidia")
        for base in getattr(nvidia, "__path__", []):
            for sub in ("cu13", "cuda_nvcc"):
                p = Path(base) / sub / "bin" / name
                if p.exists():
                    return str(p)
    except ImportError:
        pass
    found = shutil.which(name)
    if found:
        return found
    home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    p = Path(home) / "bin" / name
    return str(p) if p.exists() else None


def assemble(ptx: str, arch: str, name: str) -> bytes:
    """Assemble PTX text with ptxas for ``arch`` and return the cubin bytes.

    Raises:
        PtxDslError: ptxas is not installed, or it rejects the PTX (its message included).
    """
    ptxas = find_tool("ptxas")
    if ptxas is None:
        raise PtxDslError(
            "assembling needs ptxas; install the CUDA toolkit or `pip install nvidia-cuda-nvcc`"
        )
    with tempfile.TemporaryDirectory() as d:
        src, out = Path(d) / "k.ptx", Path(d) / "k.cubin"
        src.write_text(ptx)
        r = subprocess.run(
            [ptxas, f"-arch={arch}", "-o", str(out), str(src)], capture_output=True, text=True
        )
        if r.returncode != 0:
            raise PtxDslError(f"ptxas rejected {name}: {r.stderr.strip()}")
        return out.read_bytes()


def disassemble(cubin: bytes, name: str) -> str:
    """Disassemble ``cubin`` with nvdisasm and return the SASS text.

    Raises:
        PtxDslError: nvdisasm is not installed, or it rejects the cubin.
    """
    disasm = find_tool("nvdisasm")
    if disasm is None:
        raise PtxDslError(
            "disassembling needs nvdisasm; install the CUDA toolkit or "
            "`pip install nvidia-cuda-nvdisasm`"
        )
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "k.cubin"
        path.write_bytes(cubin)
        out = subprocess.run([disasm, str(path)], capture_output=True, text=True)
    if out.returncode != 0:
        raise PtxDslError(f"nvdisasm failed on {name}: {out.stderr.strip()}")
    return out.stdout
