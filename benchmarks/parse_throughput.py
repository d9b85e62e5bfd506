"""Parse and emit throughput of pyptx.parser / pyptx.emitter over a directory of PTX files.

Usage::

    python benchmarks/parse_throughput.py [CORPUS_DIR] [--repeat N] [--min-size BYTES]

Prints MB/s and lines/s for parse and for emit (best of N passes over every ``*.ptx`` file
below CORPUS_DIR, default tests/corpus), plus the same for the largest file alone. Each pass
parses every file from scratch (no caches survive between files or passes).
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for src in ("packages/pyptx-ir/src", "packages/pyptx-parser/src"):
    sys.path.insert(0, str(REPO / src))

from pyptx.emitter import emit  # noqa: E402
from pyptx.parser import parse  # noqa: E402


def _best(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    """Best wall time of ``fn()``; its result is freed after the clock stops, so tearing
    down the previous pass's trees is not counted as parsing."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
        del result
    return best


def _report(label: str, texts: list[str], repeat: int) -> None:
    size = sum(len(t.encode()) for t in texts)
    lines = sum(t.count("\n") for t in texts)
    modules = [parse(t) for t in texts]
    t_parse = _best(lambda: [parse(t) for t in texts], repeat)
    t_emit = _best(lambda: [emit(m) for m in modules], repeat)
    assert [emit(m) for m in modules] == texts, "round trip failed"
    mb = size / 1e6
    print(
        f"{label:<28} {len(texts):>4} files {mb:7.2f} MB {lines:>8} lines | "
        f"parse {mb / t_parse:6.2f} MB/s {lines / t_parse:>9.0f} lines/s | "
        f"emit {mb / t_emit:6.2f} MB/s {lines / t_emit:>9.0f} lines/s"
    )


def machine_info(argv: list[str]) -> dict[str, str]:
    """The CPU (model, cores, Python), date, commit and command, for docs/performance.md."""
    import datetime

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {
        "machine": f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "date": datetime.date.today().isoformat(),
        "commit": git_commit(short=True),
        "command": "python " + " ".join(argv),
    }


def git_commit(*, short: bool = False) -> str:
    """The checkout's commit: ``git rev-parse HEAD``, else ``$PYPTX_COMMIT`` (a copy of the
    repository without .git, as on the GPU machine), else ``unknown``."""
    import subprocess

    try:
        result = subprocess.run(
            ["git", "rev-parse", *(["--short"] if short else []), "HEAD"],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=30,
        )
        commit = result.stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        commit = ""
    return commit or os.environ.get("PYPTX_COMMIT", "") or "unknown"


def machine_header(argv: list[str]) -> str:
    """One line naming the CPU, Python, date, commit and command, for docs/performance.md."""
    info = machine_info(argv)
    return f"{info['machine']}, {info['date']}, commit {info['commit']}, command: {info['command']}"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; return the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?", default=str(REPO / "tests" / "corpus"))
    ap.add_argument("--repeat", type=int, default=5, help="passes; the best one counts")
    ap.add_argument("--min-size", type=int, default=0, help="only files at least this big")
    args = ap.parse_args(argv)
    paths = sorted(p for p in Path(args.corpus).rglob("*.ptx") if p.stat().st_size >= args.min_size)
    if not paths:
        print(f"no .ptx files under {args.corpus}", file=sys.stderr)
        return 2
    texts = [p.read_text(encoding="utf-8") for p in paths]
    print(machine_header(sys.argv))
    print(f"best of {args.repeat} passes")
    _report("all files", texts, args.repeat)
    big = max(range(len(paths)), key=lambda i: len(texts[i]))
    _report(f"largest: {paths[big].name}"[:28], [texts[big]], args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
