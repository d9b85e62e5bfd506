"""``python -m pyptx.kernels check [--arch sm_90a]``: assemble every kernel, print its resources.

Each kernel of the library is traced at its example configuration and assembled with
``ptxas -v`` for its arch; one row per kernel shows its PTX lines, registers, spill bytes
(stores/loads), shared memory (static + dynamic) and OK or FAIL. A ptxas rejection or a spill
the kernel does not document is a FAIL. Exit status: 0 all OK, 1 any FAIL, 2 a usage error
(unknown arch, no ptxas).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from . import _registry
from ._catalog import check_kernel, format_checks
from ._ptxas import find_ptxas, version
from ._registry import ARCHES

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m pyptx.kernels", description="The pyptx kernel library."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser(
        "check",
        help="assemble every kernel at its example configuration and print its resources",
        description=__doc__,
    )
    check.add_argument("--arch", help=f"only the kernels for this arch ({', '.join(ARCHES)})")
    args = parser.parse_args(argv)
    return _check(args.arch)


def _check(arch: str | None) -> int:
    if arch is not None and arch not in ARCHES:
        print(f"error: unknown arch {arch!r}; use one of {', '.join(ARCHES)}", file=sys.stderr)
        return 2
    ptxas = find_ptxas()
    override = os.environ.get("PYPTX_PTXAS")
    if ptxas is None and override:
        print(f"error: PYPTX_PTXAS is {override!r}, which is not an executable", file=sys.stderr)
        return 2
    if ptxas is None:
        print(
            "error: check needs ptxas; pip install nvidia-cuda-nvcc, install the CUDA "
            "toolkit, or set PYPTX_PTXAS",
            file=sys.stderr,
        )
        return 2
    impls = [i for i in _registry.implementations() if arch is None or i.arch == arch]
    print(f"ptxas {version(ptxas)} ({ptxas})")
    checks = [check_kernel(impl, ptxas) for impl in impls]
    print(format_checks(checks), end="")
    failed = sum(not c.ok for c in checks)
    where = f" for {arch}" if arch else ""
    plural = "" if len(checks) == 1 else "s"
    print(f"{len(checks)} kernel{plural}{where}, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
