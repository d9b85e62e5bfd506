"""Helpers for the emulator's tests: wrap a kernel body into a module and run it."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pyptx.emu import LaunchStats, launch
from pyptx.ir.ptxas import too_old_reason

HEADER = ".version {version}\n.target {target}\n.address_size 64\n\n"


def module(
    body: str,
    *,
    params: Sequence[str] = (".param .u64 out",),
    name: str = "k",
    target: str = "sm_90a",
    version: str = "8.7",
    prelude: str = "",
    directives: str = "",
) -> str:
    """PTX text of a module whose one kernel ``name`` has ``params`` and ``body``.

    ``prelude`` goes before the kernel (globals, .func definitions); ``directives`` between
    its signature and body (``.reqntid 128``).
    """
    plist = ",\n\t".join(params)
    head = HEADER.format(version=version, target=target)
    return f"{head}{prelude}.visible .entry {name}(\n\t{plist}\n){directives}\n{{\n{body}\n}}\n"


def checked_module(body: str, params: Sequence[str], target: str = "sm_90a", **kwargs: Any) -> str:
    """:func:`module`, after checking that ptxas assembles it for ``target``."""
    text = module(body, params=params, target=target, **kwargs)
    ok, message = ptxas_accepts(text, target)
    assert ok, message
    return text


def run(
    body: str,
    args: Sequence[Any],
    *,
    params: Sequence[str] = (".param .u64 out",),
    grid: Any = 1,
    block: Any = 32,
    **kwargs: Any,
) -> LaunchStats:
    """Build a one-kernel module from ``body`` and launch it with ``args``."""
    opts = {k: kwargs.pop(k) for k in ("target", "version", "prelude", "directives") if k in kwargs}
    return launch(module(body, params=params, **opts), grid=grid, block=block, args=args, **kwargs)


def find_ptxas() -> str | None:
    """ptxas: ``PYPTX_PTXAS`` when set, else the nvidia-cuda-nvcc wheel's, else PATH's."""
    if os.environ.get("PYPTX_PTXAS"):
        return os.environ["PYPTX_PTXAS"]
    try:
        import nvidia

        for root in nvidia.__path__:
            for sub in ("cu13/bin/ptxas", "cuda_nvcc/bin/ptxas"):
                candidate = Path(root) / sub
                if candidate.exists():
                    return str(candidate)
    except ImportError:
        pass
    return shutil.which("ptxas")


def ptxas_accepts(ptx: str, arch: str) -> tuple[bool, str]:
    """Whether ptxas assembles ``ptx`` for ``arch`` (and its message)."""
    ptxas = find_ptxas()
    if ptxas is None:
        raise RuntimeError("ptxas not found")
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.ptx")
        Path(src).write_text(ptx)
        r = subprocess.run(
            [ptxas, f"-arch={arch}", "-o", os.path.join(d, "k.cubin"), src],
            capture_output=True,
            text=True,
        )
    if r.returncode != 0:
        skip_if_ptxas_too_old(r.stderr, ptxas)
    return r.returncode == 0, r.stderr


PINNED_PTXAS = (13, 5)
"""The ptxas release nox installs (``nvidia-cuda-nvcc==13.5.*``)."""


def skip_if_ptxas_too_old(stderr: str, ptxas: str) -> None:
    """Skip (with the versions found and needed) when the rejection says nothing of the PTX."""
    reason = too_old_reason(stderr, ptxas, PINNED_PTXAS)
    if reason is not None:
        pytest.skip(reason)


def u32(values: Any) -> np.ndarray:
    """A uint32 array."""
    return np.asarray(values, dtype=np.uint32)
