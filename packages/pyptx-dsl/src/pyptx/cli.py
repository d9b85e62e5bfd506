"""The ``pyptx`` command line (also ``python -m pyptx``).

Subcommands:
    ptx FILE.py [--kernel NAME] [--check] [-D key=value ...]
        Import a Python file, trace its ``@kernel`` objects and print their PTX; with
        ``--check``, also assemble each with ptxas and report the result.
    check FILE.ptx [--target sm_XX]
        Check every instruction with the ISA table; print each one it rejects as
        ``FILE:LINE:COL: reason``; exit status 1 when there is one, 0 when there is none.
    parse FILE.ptx
        Parse a PTX file, re-emit it and print a summary (as ``python -m pyptx.parser``).
    transpile FILE.ptx [--sugar] [--name NAME | --name OLD=NEW ...] [-o OUT.py]
        Turn PTX into pyptx Python (as ``python -m pyptx.codegen``).

Every error is one message on stderr: ``FILE:LINE[:COL]: ...`` with the source line (and a
caret where there is a column) when there is a place to show, else ``pyptx CMD: ...``; no
traceback. Exit status: 0 on success, 1 when a check fails, 2 on bad input.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from .codegen.cli import add_arguments, run

__all__ = ["main"]


class CliError(Exception):
    """Bad input: the message is printed as it is and the exit status is 2."""


def _located(filename: str, line: int, column: int | None, message: str, text: str) -> str:
    """``FILE:LINE[:COL]: message``, then the source line and a caret under the column."""
    where = f"{filename}:{line}" + (f":{column}" if column else "")
    out = f"{where}: {message}"
    if text.strip():
        out += f"\n    {text.rstrip()}"
        if column:
            pad = "".join(c if c == "\t" else " " for c in text[: column - 1])
            out += f"\n    {pad}^"
    return out


def _import_failure(path: Path, exc: BaseException) -> str:
    """Where importing the user's file failed: its deepest frame in that file."""
    if isinstance(exc, SyntaxError) and exc.lineno:
        return _located(
            exc.filename or str(path),
            exc.lineno,
            exc.offset,
            f"{type(exc).__name__}: {exc.msg}",
            exc.text or "",
        )
    frames = [
        f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path.resolve()
    ]
    message = f"{type(exc).__name__}: {exc}"
    if not frames:
        return f"{path}: importing it failed: {message}"
    frame = frames[-1]
    return _located(str(path), frame.lineno or 1, None, message, frame.line or "")


def _load_kernels(path: Path) -> dict[str, Any]:
    from .dsl.kernel import Kernel

    spec = importlib.util.spec_from_file_location(f"_pyptx_user_{path.stem}", path.resolve())
    if spec is None or spec.loader is None:
        raise CliError(f"pyptx ptx: {path}: cannot be imported as Python")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's module failed: say where, without our traceback
        raise CliError(_import_failure(path, exc)) from None
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


def _defines(args: argparse.Namespace, kernel: Any) -> dict[str, Any]:
    """The ``-D KEY=VALUE`` options for ``kernel``, checked against what it takes."""
    dims = {d for t in (*kernel.in_specs, *kernel.out_specs) for d in t.symbolic_dims}
    known = sorted(set(kernel.template_params) | dims)
    out: dict[str, Any] = {}
    for define in args.define:
        key, eq, text = define.partition("=")
        if not eq or not key:
            raise CliError(f"pyptx ptx: -D {define}: write -D KEY=VALUE")
        if key not in known:
            raise CliError(
                f"pyptx ptx: -D {define}: kernel {kernel.name} has no template parameter or "
                f"dimension {key} (it takes: {', '.join(known) or 'nothing'})"
            )
        value = _value(text)
        if key in dims and not isinstance(value, int):
            raise CliError(
                f"pyptx ptx: -D {define}: {key} is a dimension of kernel {kernel.name} and "
                "needs an integer"
            )
        out[key] = value
    return out


def _ptxas_for_check() -> None:
    from .dsl.tools import find_tool

    ptxas = find_tool("ptxas")
    if ptxas is None or not os.access(ptxas, os.X_OK):
        where = f" ({ptxas} is not an executable)" if ptxas else ""
        raise CliError(
            f"pyptx ptx: --check assembles with ptxas, which is not available{where}: "
            "pip install nvidia-cuda-nvcc, or set PYPTX_PTXAS to its path"
        )


def _kernels_to_trace(args: argparse.Namespace) -> dict[str, Any]:
    path = Path(args.file)
    if not path.is_file():
        reason = "is a directory, not a file" if path.is_dir() else "no such file"
        raise CliError(f"pyptx ptx: {path}: {reason}")
    kernels = _load_kernels(path)
    if args.kernel:
        if args.kernel not in kernels:
            known = ", ".join(sorted(kernels)) or "none"
            raise CliError(f"pyptx ptx: {path}: no @kernel named {args.kernel!r} (found: {known})")
        kernels = {args.kernel: kernels[args.kernel]}
    if not kernels:
        raise CliError(f"pyptx ptx: {path}: defines no @kernel objects")
    return kernels


def _cmd_ptx(args: argparse.Namespace) -> int:
    from .dsl.errors import PtxDslError

    if args.check:
        _ptxas_for_check()
    status = 0
    for name, k in _kernels_to_trace(args).items():
        options = _defines(args, k)
        try:
            text = k.ptx(**options)
        except PtxDslError as e:
            raise CliError(str(e)) from None
        sys.stdout.write(text)
        if args.check:
            try:
                cubin = k.cubin(**options)
            except PtxDslError as e:
                print(f"// ptxas: {name}: FAILED: {e}", file=sys.stderr)
                status = 1
            else:
                arch = next(t for t in k.module(**options).targets if t.startswith("sm_"))
                print(f"// ptxas -arch={arch}: {name} assembles ({len(cubin):,} byte cubin)")
    return status


def _cmd_check(args: argparse.Namespace) -> int:
    """``pyptx check FILE``: every instruction the ISA table rejects, as file:line:col."""
    from pyptx.ir.isa import check_module
    from pyptx.parser import PtxSyntaxError, os_error_reason, parse, read_source

    try:
        module = parse(read_source(args.file), args.file, spans=True)
        found = list(check_module(module, target=args.target))
    except OSError as e:
        raise CliError(f"pyptx check: {args.file}: {os_error_reason(e)}") from None
    except PtxSyntaxError as e:
        raise CliError(str(e)) from None
    except ValueError as e:
        raise CliError(f"pyptx check: {args.file}: {e}") from None
    for insn, diag in found:
        print(f"{diag}\n    {insn.mnemonic}: {diag.code.value}")
    count = sum(1 for _ in module.instructions())
    print(f"{args.file}: {len(found)} problem(s) in {count} instructions", file=sys.stderr)
    return 1 if found else 0


def _cmd_parse(args: argparse.Namespace) -> int:
    from pyptx.parser.__main__ import main as parser_main

    return parser_main([args.file], prog="pyptx parse")


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
    c = sub.add_parser("check", help="check every instruction of a PTX file with the ISA table")
    c.add_argument("file")
    c.add_argument("--target", help="check for this target instead of the file's .target")
    c.set_defaults(run=_cmd_check)
    q = sub.add_parser("parse", help="parse a PTX file and summarize it")
    q.add_argument("file")
    q.set_defaults(run=_cmd_parse)
    t = sub.add_parser("transpile", help="turn a PTX file into pyptx Python")
    add_arguments(t)
    t.set_defaults(run=run)
    args = ap.parse_args(argv)
    try:
        return int(args.run(args))
    except CliError as e:
        print(e, file=sys.stderr)
        return 2
