"""The transpiler's command line: ``python -m pyptx.codegen`` and ``pyptx transpile``.

Usage::

    python -m pyptx.codegen KERNEL.ptx [--sugar] [--name NAME | --name OLD=NEW ...] [-o OUT.py]

``--name NAME`` names the Python object of a single-kernel file; for files with several
kernels, map each PTX name: ``--name _Z4gemmPf=gemm``. Without ``-o`` the Python goes to
stdout. Options may come in any order. Exit status: 0 on success, 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["add_arguments", "main", "run"]


class UsageError(Exception):
    """Bad command-line input (reported on stderr, exit status 2)."""


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """Add the transpiler's arguments to ``ap`` (shared by both command lines)."""
    ap.add_argument("input", help="the PTX file ('-' reads stdin)")
    ap.add_argument("--sugar", action="store_true", help="apply the readability passes")
    ap.add_argument(
        "--name",
        action="append",
        default=[],
        metavar="NAME|OLD=NEW",
        help="Python name of the kernel (single-kernel files) or OLD=NEW per kernel",
    )
    ap.add_argument("-o", "--output", help="write the Python here instead of stdout")


def _names(specs: list[str], kernels: list[str]) -> dict[str, str]:
    mapped: dict[str, str] = {}
    for spec in specs:
        old, eq, new = spec.partition("=")
        if not eq:
            if len(kernels) != 1:
                raise UsageError(
                    f"--name {spec} needs a single-kernel file, but this one has "
                    f"{len(kernels)} kernels ({', '.join(kernels) or 'none'}); "
                    "map each one with --name OLD=NEW"
                )
            old, new = kernels[0], spec
        elif old not in kernels:
            raise UsageError(
                f"--name {spec}: no kernel named {old!r} (kernels: {', '.join(kernels)})"
            )
        mapped[old] = new  # transpile() checks that it can name a Python object
    return mapped


def run(args: argparse.Namespace, prog: str = "pyptx transpile") -> int:
    """Transpile as ``args`` says; return the exit status.

    Every error is one message on stderr (``FILE:LINE:COL: ...`` with the line and a caret
    when there is a place to show) and exit status 2; no traceback.
    """
    from pyptx.parser import PtxSyntaxError, decode_source, os_error_reason, parse

    from ._api import transpile

    label = "<stdin>" if args.input == "-" else args.input
    try:
        # Bytes in, so line endings (CRLF included) reach the parser untouched.
        data = sys.stdin.buffer.read() if args.input == "-" else Path(label).read_bytes()
        module = parse(decode_source(data, label), label)
        kernels = [f.name for f in module.functions if f.body is not None and f.is_kernel]
        names = _names(args.name, kernels)
        text = transpile(module, sugar=args.sugar, kernel_name=names, source_name=Path(label).name)
    except OSError as e:
        print(f"{prog}: {label}: {os_error_reason(e)}", file=sys.stderr)
        return 2
    except PtxSyntaxError as e:
        print(e, file=sys.stderr)
        return 2
    except (UsageError, ValueError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as e:
            print(f"{prog}: {args.output}: cannot write: {os_error_reason(e)}", file=sys.stderr)
            return 2
    else:
        sys.stdout.write(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run ``python -m pyptx.codegen``; return the exit status."""
    ap = argparse.ArgumentParser(
        prog="python -m pyptx.codegen", description="Transpile PTX to pyptx Python."
    )
    add_arguments(ap)
    return run(ap.parse_args(argv), prog="python -m pyptx.codegen")
