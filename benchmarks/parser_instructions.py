"""Machine instructions spent by pyptx.parser on the whole test corpus, for valgrind.

Usage::

    PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        python benchmarks/parser_instructions.py parse
    PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        python benchmarks/parser_instructions.py read

Both modes import pyptx.parser and read every ``*.ptx`` file below tests/corpus (exactly, no
newline translation); ``parse`` then parses each file once, in one process. The parser's own
cost is the total instruction count (``I refs``) of ``parse`` minus that of ``read``. Counts are
deterministic for one machine, Python build and hash seed, unlike wall time. Record them in
docs/performance.md with the machine, the date and the commit (the script prints nothing of
its own that would add to the counts). Without valgrind it just parses the corpus once;
``--check`` also asserts that every file round-trips through the emitter.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for src in ("packages/pyptx-ir/src", "packages/pyptx-parser/src"):
    sys.path.insert(0, str(REPO / src))

from pyptx.parser import parse  # noqa: E402


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def main(argv: list[str] | None = None) -> int:
    """Read (and in ``parse`` mode parse) the corpus; return the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", nargs="?", default="parse", choices=("parse", "read"))
    ap.add_argument("--corpus", default=str(REPO / "tests" / "corpus"))
    ap.add_argument("--check", action="store_true", help="also check emit(parse(s)) == s")
    args = ap.parse_args(argv)
    texts = [_read(p) for p in sorted(Path(args.corpus).rglob("*.ptx"))]
    if not texts:
        print(f"no .ptx files under {args.corpus}", file=sys.stderr)
        return 2
    if args.mode == "parse":
        for text in texts:
            module = parse(text)
            if args.check:
                # Imported here so that the counted runs (without --check) load no emitter.
                from pyptx.emitter import emit

                assert emit(module) == text, "round trip failed"
            del module
    print(f"{args.mode}: {len(texts)} files, {sum(len(t) for t in texts)} characters")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
