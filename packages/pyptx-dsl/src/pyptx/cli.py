"""The ``pyptx`` command line (also ``python -m pyptx``).

Subcommands:
    ptx FILE.py [--kernel NAME] [--check] [-D key=value ...]
        Import a Python file, trace its ``@kernel`` objects and print their PTX; with
        ``--check``, also assemble each with ptxas and report the result.
    parse FILE.ptx
        Parse a PTX file, re-emit it and print a summary (as ``python -m pyptx.parser``).
    transpile FILE.ptx [--sugar] [--name NAME | --name OLD=NEW ...] [-o OUT.py]
        Turn PTX into pyptx Python (as ``python -m pyptx.codegen``).

Exit status: 0 on success, 1 when a check fails, 2 on bad input.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

from .codegen.cli import add_arguments, run

__all__ = ["main"]


def _load_kernels(path: Path) -> dict[str, Any]:
    from .dsl.kernel import Kernel

    spec = importlib.util.spec_from_file_location(f"_pyptx_user_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"pyptx: cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    return {k.name: k for k in vars(module).values() if isinstance(k, Kernel)}


def _value(text: str) -> Any:
    try:
        return int(text, 0)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def _cmd_ptx(args: argparse.Namespace) -> int:
    from .dsl.errors import PtxDslError

    path = Path(args.file)
    if not path.is_file():
        print(f"pyptx: no such file: {path}", file=sys.stderr)
        return 2
    kernels = _load_kernels(path)
    if args.kernel:
        if args.kernel not in kernels:
            known = ", ".join(sorted(kernels)) or "none"
            print(
                f"pyptx: no @kernel named {args.kernel!r} in {path} (found: {known})",
                file=sys.stderr,
            )
            return 2
        kernels = {args.kernel: kernels[args.kernel]}
    if not kernels:
        print(f"pyptx: {path} defines no @kernel objects", file=sys.stderr)
        return 2
    options = dict(d.split("=", 1) for d in args.define)
    status = 0
    for name, k in kernels.items():
        try:
            text = k.ptx(**{key: _value(v) for key, v in options.items()})
        except PtxDslError as e:
            print(f"pyptx: {e}", file=sys.stderr)
            return 2
        sys.stdout.write(text)
        if args.check:
            try:
                cubin = k.cubin(**{key: _value(v) for key, v in options.items()})
            except PtxDslError as e:
                print(f"// ptxas: {name}: FAILED: {e}", file=sys.stderr)
                status = 1
            else:
                module = k.module(**{key: _value(v) for key, v in options.items()})
                arch = next(t for t in module.targets if t.startswith("sm_"))
                print(f"// ptxas -arch={arch}: {name} assembles ({len(cubin):,} byte cubin)")
    return status


def _cmd_parse(args: argparse.Namespace) -> int:
    from pyptx.parser.__main__ import main as parser_main

    return parser_main([args.file])


def main(argv: list[str] | None = None) -> int:
    """Run the ``pyptx`` command line; return the exit status."""
    ap = argparse.ArgumentParser(prog="pyptx", description="Write NVIDIA PTX from Python.")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("ptx", help="trace the @kernel objects of a Python file, print PTX")
    p.add_argument("file")
    p.add_argument("--kernel", help="only this kernel")
    p.add_argument("--check", action="store_true", help="also assemble with ptxas")
    p.add_argument(
        "-D",
        "--define",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a template parameter or symbolic dimension",
    )
    p.set_defaults(run=_cmd_ptx)
    q = sub.add_parser("parse", help="parse a PTX file and summarize it")
    q.add_argument("file")
    q.set_defaults(run=_cmd_parse)
    t = sub.add_parser("transpile", help="turn a PTX file into pyptx Python")
    add_arguments(t)
    t.set_defaults(run=run)
    args = ap.parse_args(argv)
    return int(args.run(args))
