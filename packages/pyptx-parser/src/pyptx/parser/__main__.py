"""``python -m pyptx.parser FILE``: parse a PTX file, re-emit it and summarize it.

Options:
    --emit       write the re-emitted text (byte-identical to the input) to stdout
    --canonical  write the canonical layout to stdout
    --check      exit with status 1 unless the round trip is byte-identical

Exit status: 0 on success, 1 when --check fails, 2 on a syntax error or unreadable file.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

from pyptx.emitter import emit
from pyptx.ir import Module

from . import PtxSyntaxError, os_error_reason, parse, read_source


def summarize(module: Module, source: str, seconds: float) -> str:
    """A short human-readable description of a parsed module."""
    ops = Counter(i.opcode for i in module.instructions())
    version = "{}.{}".format(*module.version) if module.version else "none"
    lines = [
        f"PTX {version}, target {', '.join(module.targets) or 'none'}, "
        f"address size {module.address_size or 'unspecified'}",
        f"{len(source.encode()):,} bytes, {source.count(chr(10)):,} lines, "
        f"parsed in {seconds * 1e3:.1f} ms",
    ]
    for f in module.functions:
        kind = "kernel" if f.is_kernel else "function"
        n = sum(1 for s in (f.body.walk_statements() if f.body else ()) if hasattr(s, "opcode"))
        params = len(f.params or ())
        body = f"{n} instructions" if f.body is not None else "declaration"
        lines.append(f"  {kind} {f.name}({params} params): {body}")
    top = ", ".join(f"{op} {n}" for op, n in ops.most_common(8))
    lines.append(f"{sum(ops.values())} instructions; most used: {top or 'none'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None, prog: str = "python -m pyptx.parser") -> int:
    """Run the command line; return the exit status.

    Every error is one message on stderr (``FILE:LINE:COL: ...`` with the line and a caret
    when there is a place to show) and exit status 2; no traceback.
    """
    ap = argparse.ArgumentParser(prog=prog, description="Parse a PTX file and re-emit it.")
    ap.add_argument("file", help="the .ptx file")
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--emit", action="store_true", help="print the re-emitted text")
    group.add_argument("--canonical", action="store_true", help="print the canonical layout")
    ap.add_argument("--check", action="store_true", help="fail unless the round trip is exact")
    args = ap.parse_args(argv)
    try:
        source = read_source(args.file)
        t0 = time.perf_counter()
        module = parse(source, args.file)
    except OSError as e:
        print(f"{prog}: {args.file}: {os_error_reason(e)}", file=sys.stderr)
        return 2
    except PtxSyntaxError as e:
        print(e, file=sys.stderr)
        return 2
    seconds = time.perf_counter() - t0
    out = emit(module)
    identical = out == source
    if args.emit:
        sys.stdout.write(out)
    elif args.canonical:
        sys.stdout.write(emit(module, canonical=True))
    else:
        print(summarize(module, source, seconds))
        print(f"round trip: {'byte-identical' if identical else 'DIFFERS'}")
    if args.check and not identical:
        print(f"{prog}: {args.file}: the re-emitted text differs from the input", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
