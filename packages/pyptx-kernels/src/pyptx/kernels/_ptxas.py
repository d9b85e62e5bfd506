"""Assemble PTX with ``ptxas -v`` and read its resource report.

``ptxas -v`` prints, per entry function::

    ptxas info    : Function properties for rms_norm
        0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 40 registers, used 1 barriers, 32 bytes smem, 376 bytes cmem[0]

:func:`parse_usage` reads the registers, spill bytes and static shared memory out of that.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pyptx.dsl.tools import find_tool

__all__ = [
    "PtxasError",
    "PtxasUsage",
    "assemble_verbose",
    "find_ptxas",
    "parse_usage",
    "run_verbose",
    "version",
]


class PtxasError(RuntimeError):
    """ptxas rejected the PTX, or its report could not be read (the message says which)."""


@dataclass(frozen=True)
class PtxasUsage:
    """What ``ptxas -v`` reports for one entry function.

    Attributes:
        registers: registers per thread.
        spill_stores: bytes of spill stores per thread.
        spill_loads: bytes of spill loads per thread.
        stack: bytes of stack frame per thread.
        smem: bytes of static shared memory (``.shared`` declarations; dynamic shared memory
            is not in the PTX and so not in the report).
    """

    registers: int
    spill_stores: int
    spill_loads: int
    stack: int
    smem: int


_PROPERTIES = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")


def find_ptxas() -> str | None:
    """The ptxas to use (see :func:`pyptx.dsl.tools.find_tool`), or ``None`` if there is none."""
    path = find_tool("ptxas")
    if path is None or not os.access(path, os.X_OK):
        return None
    return path


def version(ptxas: str) -> str:
    """The release of ``ptxas`` (``"13.5.37"``), from ``ptxas --version``."""
    out = subprocess.run([ptxas, "--version"], capture_output=True, text=True, check=False)
    found = re.search(r"V(\d+\.\d+\.\d+)", out.stdout)
    return found.group(1) if found else "unknown"


def parse_usage(report: str, entry: str) -> PtxasUsage:
    """The :class:`PtxasUsage` of ``entry`` in a ``ptxas -v`` report.

    Raises:
        PtxasError: the report has no properties or register line for ``entry``.
    """
    lines = report.splitlines()
    for i, line in enumerate(lines):
        found = _PROPERTIES.search(line)
        if found is None or found.group(1) != entry:
            continue
        frame = _FRAME.search(lines[i + 1]) if i + 1 < len(lines) else None
        used = next(filter(None, (_USED.search(ln) for ln in lines[i + 1 : i + 4])), None)
        if frame is None or used is None:
            break
        smem = _SMEM.search(used.string)
        return PtxasUsage(
            registers=int(used.group(1)),
            spill_stores=int(frame.group(2)),
            spill_loads=int(frame.group(3)),
            stack=int(frame.group(1)),
            smem=int(smem.group(1)) if smem else 0,
        )
    raise PtxasError(f"ptxas -v reported no resource usage for {entry}:\n{report.strip()}")


def run_verbose(ptx: str, arch: str, ptxas: str, name: str = "kernel") -> str:
    """Assemble ``ptx`` for ``arch`` with ``ptxas -v`` and return its report (stdout + stderr).

    Args:
        ptx: the module's PTX text.
        arch: the ``-arch`` target ("sm_90a").
        ptxas: the ptxas executable.
        name: what the PTX is, for the error message (the entry name).

    Raises:
        PtxasError: ptxas rejected the PTX (its first message in the error).
    """
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / f"{name}.ptx"
        src.write_text(ptx)
        proc = subprocess.run(
            [ptxas, "-v", f"-arch={arch}", "-o", str(Path(d) / "k.cubin"), str(src)],
            capture_output=True,
            text=True,
            check=False,
        )
    report = proc.stdout + proc.stderr
    if proc.returncode != 0:
        errors = [ln for ln in report.splitlines() if "error" in ln.lower()]
        raise PtxasError(f"ptxas rejected {name}: {(errors or [report.strip()])[0].strip()}")
    return report


def assemble_verbose(ptx: str, arch: str, entry: str, ptxas: str) -> PtxasUsage:
    """Assemble ``ptx`` for ``arch`` with ``ptxas -v`` and return ``entry``'s usage.

    Args:
        ptx: the module's PTX text.
        arch: the ``-arch`` target ("sm_90a").
        entry: the entry function to report on.
        ptxas: the ptxas executable.

    Raises:
        PtxasError: ptxas rejected the PTX (its first message in the error), or printed no
            report for ``entry``.
    """
    return parse_usage(run_verbose(ptx, arch, ptxas, entry), entry)
