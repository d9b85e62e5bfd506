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

from . import PtxSyntaxError, parse


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


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    ap = argparse.ArgumentParser(
        prog="python -m pyptx.parser", description="Parse a PTX file and re-emit it."
    )
    ap.add_argument("file", help="the .ptx file")
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--emit", action="store_true", help="print the re-emitted text")
    group.add_argument("--canonical", action="store_true", help="print the canonical layout")
    ap.add_argument("--check", action="store_true", help="fail unless the round trip is exact")
    args = ap.parse_args(argv)
    try:
        with open(args.file, encoding="utf-8", newline="") as f:
            source = f.read()
    except OSError as e:
        print(f"error: cannot read {args.file}: {e.strerror}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    try:
        module = parse(source, args.file)
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
        print("error: the re-emitted text differs from the input", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
