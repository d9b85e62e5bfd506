"""The catalog of the library's kernels, and the offline check behind ``python -m pyptx.kernels``.

:func:`catalog` lists the kernels; :func:`trace_example` traces one at its example
configuration (the PTX the snapshots hold); :func:`check_kernel` also assembles it with
``ptxas -v`` and judges the report: a ptxas rejection, or spills beyond what the kernel
documents (:attr:`Implementation.spills`), is a failure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pyptx.dsl.kernel import Kernel, TracedKernel
from pyptx.emitter import emit

from . import _registry
from ._ptxas import PtxasError, PtxasUsage, assemble_verbose
from ._registry import Implementation

__all__ = [
    "CatalogEntry",
    "KernelCheck",
    "catalog",
    "check_kernel",
    "format_checks",
    "trace_example",
]


@dataclass(frozen=True)
class CatalogEntry:
    """One kernel of the library, as :func:`catalog` lists it.

    Attributes:
        name: ``"<arch-dir>.<kernel>"``, e.g. ``"hopper.gemm_bf16"``.
        family: the public function it serves (``"gemm"``, ``"rms_norm"``...).
        arch: the target it is written for (``"sm_90a"``).
        dtypes: the input dtypes it takes, as pyptx type names (``("bf16", "f16")``).
        example: the configuration (its build keywords) the check and the PTX snapshots use.
    """

    name: str
    family: str
    arch: str
    dtypes: tuple[str, ...]
    example: Mapping[str, Any]


def catalog() -> list[CatalogEntry]:
    """Every kernel of the library, in table order (grouped by architecture module).

    Returns:
        One :class:`CatalogEntry` per kernel; building one needs no GPU.
    """
    return [
        CatalogEntry(impl.name, impl.family, impl.arch, impl.dtypes, dict(impl.example))
        for impl in _registry.implementations()
    ]


@dataclass(frozen=True)
class KernelCheck:
    """The outcome of :func:`check_kernel` for one kernel.

    Attributes:
        name: the kernel's name.
        family: its family.
        arch: its arch.
        ptx_lines: lines of PTX at the example configuration (``None`` if tracing failed).
        usage: the ``ptxas -v`` report (``None`` if tracing or assembling failed).
        smem_dynamic: dynamic shared memory bytes the launch asks for (0: static only).
        problems: why the check fails, one sentence each; empty when it passes.
    """

    name: str
    family: str
    arch: str
    ptx_lines: int | None
    usage: PtxasUsage | None
    smem_dynamic: int
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Whether the kernel passed: it assembled, and spills no more than documented."""
        return not self.problems


def trace_example(impl: Implementation) -> tuple[TracedKernel, str]:
    """Trace ``impl`` at ``impl.example``: the traced kernel and its PTX text.

    Raises:
        TypeError: ``impl.build`` returned something other than a ``Kernel``.
        ValueError: the traced target is not ``impl.arch``.
        PtxDslError: the kernel does not trace (from the DSL).
    """
    kernel = impl.build(**impl.example)
    if not isinstance(kernel, Kernel):
        raise TypeError(f"{impl.name}: build() returned {type(kernel).__name__}, not a Kernel")
    traced = kernel.build()
    if traced.arch != impl.arch:
        raise ValueError(
            f"{impl.name}: the entry says {impl.arch} but build() traced for {traced.arch}"
        )
    return traced, emit(traced.module)


def check_kernel(impl: Implementation, ptxas: str) -> KernelCheck:
    """Trace ``impl`` at its example, assemble it with ``ptxas -v`` and judge the report.

    A kernel fails when it does not trace, ptxas rejects it, or ptxas reports more spill bytes
    (stores plus loads) than ``impl.spills`` documents. Errors become problems of the
    result; nothing is raised.

    Args:
        impl: the kernel.
        ptxas: the ptxas executable (see :func:`._ptxas.find_ptxas`).
    """
    try:
        traced, ptx = trace_example(impl)
    except Exception as exc:
        return _failed(impl, None, 0, f"does not trace: {type(exc).__name__}: {_first(exc)}")
    dynamic = traced.smem_bytes if traced.dynamic_smem else 0
    lines = ptx.count("\n")
    try:
        usage = assemble_verbose(ptx, impl.arch, traced.name, ptxas)
    except PtxasError as exc:
        return _failed(impl, lines, dynamic, _first(exc))
    problems = []
    spilled = usage.spill_stores + usage.spill_loads
    if spilled > impl.spills:
        documented = f"{impl.spills} documented" if impl.spills else "none documented"
        problems.append(f"spills {spilled} bytes (stores + loads), {documented}")
    return KernelCheck(impl.name, impl.family, impl.arch, lines, usage, dynamic, tuple(problems))


def _failed(impl: Implementation, lines: int | None, dynamic: int, why: str) -> KernelCheck:
    return KernelCheck(impl.name, impl.family, impl.arch, lines, None, dynamic, (why,))


def _first(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


HEADER = ("name", "family", "arch", "PTX lines", "registers", "spills st/ld", "smem", "status")
"""The columns of :func:`format_checks`; smem is static + dynamic bytes."""


def format_checks(checks: Sequence[KernelCheck]) -> str:
    """The check's table, one row per kernel, then one line per problem.

    Spills are bytes of spill stores / loads per thread; smem is static + dynamic bytes.
    """
    rows = [HEADER]
    for c in checks:
        u = c.usage
        rows.append(
            (
                c.name,
                c.family,
                c.arch,
                "-" if c.ptx_lines is None else str(c.ptx_lines),
                "-" if u is None else str(u.registers),
                "-" if u is None else f"{u.spill_stores}/{u.spill_loads}",
                "-" if u is None else f"{u.smem}+{c.smem_dynamic}",
                "OK" if c.ok else "FAIL",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADER))]
    text = ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    text.extend(f"FAIL {c.name}: {p}" for c in checks for p in c.problems)
    return "\n".join(text) + "\n"
