"""What a ptxas binary can judge: its release, and "too old for this PTX" in its messages.

Tools that assemble PTX (the test suites of every package, the runtime's toolchain chain)
must tell "this ptxas is older than the PTX it was given" apart from "this PTX is wrong".
Standard library only, like the rest of :mod:`pyptx.ir`; nothing runs at import.
"""

from __future__ import annotations

import functools
import re
import subprocess

__all__ = ["ptxas_release", "too_old_reason", "unsupported_version"]

_UNSUPPORTED = re.compile(r"Unsupported \.version (\d+\.\d+); current version is '(\d+\.\d+)'")
_RELEASE = re.compile(r"release (\d+)\.(\d+)")


@functools.lru_cache(maxsize=8)
def ptxas_release(ptxas: str) -> tuple[int, int] | None:
    """The CUDA release of the ptxas at ``ptxas`` (``(13, 5)``), from ``ptxas --version``.

    ``None`` when the binary does not say (or cannot run).
    """
    try:
        out = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout
    except OSError:
        return None
    found = _RELEASE.search(out)
    return (int(found[1]), int(found[2])) if found else None


def unsupported_version(log: str) -> tuple[str, str] | None:
    """``(needed, supported)`` PTX versions when ``log`` says the ``.version`` is too new."""
    found = _UNSUPPORTED.search(log)
    return (found[1], found[2]) if found else None


def too_old_reason(log: str, ptxas: str, pinned: tuple[int, int]) -> str | None:
    """Why a rejection by ``ptxas`` says nothing about the PTX, or ``None`` when it does.

    A rejection is not the PTX's fault when ptxas does not know its ``.version``, or when
    ptxas is older than the ``pinned`` release the PTX was checked against (releases
    disagree on some forms and on the lowest ``.version`` a feature needs; only the pinned
    release's verdict counts).

    Args:
        log: ptxas's messages.
        ptxas: the binary that wrote them.
        pinned: the release the caller's expectations were made with.
    """
    install = f"pip install 'nvidia-cuda-nvcc=={pinned[0]}.{pinned[1]}.*'"
    versions = unsupported_version(log)
    if versions is not None:
        return (
            f"needs a ptxas for PTX {versions[0]}, but {ptxas} supports up to PTX "
            f"{versions[1]}; {install} (the release the tests are pinned to)"
        )
    release = ptxas_release(ptxas)
    if release is not None and release < pinned:
        return (
            f"ptxas {release[0]}.{release[1]} ({ptxas}) rejected this; the tests need ptxas "
            f"{pinned[0]}.{pinned[1]}: {install}"
        )
    return None
