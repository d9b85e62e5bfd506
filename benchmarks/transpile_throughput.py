"""Throughput and readability of the PTX -> Python transpiler (pyptx.codegen).

Usage::

    python benchmarks/transpile_throughput.py [CORPUS_DIR] [--repeat N] [--largest K]

For every ``*.ptx`` below CORPUS_DIR (default tests/corpus) it prints, without and with
sugar: transpile MB/s (parse + passes + code generation), the round trip's time per MB
(exec the generated Python, trace, emit), and the readability ratio (lines of Python per line
of PTX; lower is better), with and without the trailing layout table. Then the same timings
for the K largest files alone, to show the cost stays linear in file size.
"""

from __future__ import annotations

import argparse
import sys
import time
import types
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for src in ("packages/pyptx-ir/src", "packages/pyptx-parser/src", "packages/pyptx-dsl/src"):
    sys.path.insert(0, str(REPO / src))

from parse_throughput import machine_header  # noqa: E402

from pyptx.codegen import ptx_to_python  # noqa: E402


def _code_lines(code: str) -> tuple[int, int]:
    """(all lines, lines before the layout table)."""
    lines = code.count("\n")
    head = code.split("\nmodule.layout(\n", 1)[0]
    return lines, head.count("\n") + 1


def _measure(texts: list[str], sugar: bool, repeat: int) -> dict[str, float]:
    best_gen = best_rt = float("inf")
    codes: list[str] = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        codes = [ptx_to_python(t, sugar=sugar) for t in texts]
        best_gen = min(best_gen, time.perf_counter() - t0)
        t0 = time.perf_counter()
        outs = []
        for code in codes:
            mod = types.ModuleType("generated")
            exec(compile(code, "generated.py", "exec"), mod.__dict__)
            outs.append(mod.module.ptx())
        best_rt = min(best_rt, time.perf_counter() - t0)
        if not sugar:
            assert outs == texts, "round trip failed"
    size = sum(len(t.encode()) for t in texts) / 1e6
    ptx_lines = sum(t.count("\n") for t in texts)
    py_all = sum(_code_lines(c)[0] for c in codes)
    py_code = sum(_code_lines(c)[1] for c in codes)
    return {
        "mb": size,
        "gen_mbs": size / best_gen,
        "rt_s_per_mb": best_rt / size,
        "ratio_all": py_all / ptx_lines,
        "ratio_code": py_code / ptx_lines,
    }


def _row(label: str, texts: list[str], repeat: int) -> None:
    for sugar in (False, True):
        m = _measure(texts, sugar, repeat)
        print(
            f"{label:<34} {'sugar' if sugar else 'plain':<5} {m['mb']:6.2f} MB | "
            f"transpile {m['gen_mbs']:5.2f} MB/s | round trip {m['rt_s_per_mb']:5.2f} s/MB | "
            f"py/ptx lines {m['ratio_code']:.2f} (with layout {m['ratio_all']:.2f})"
        )


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; return the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?", default=str(REPO / "tests" / "corpus"))
    ap.add_argument("--repeat", type=int, default=1, help="passes; the best one counts")
    ap.add_argument("--largest", type=int, default=3, help="also time the K largest files")
    args = ap.parse_args(argv)
    paths = sorted(Path(args.corpus).rglob("*.ptx"))
    if not paths:
        print(f"no .ptx files under {args.corpus}", file=sys.stderr)
        return 2
    with_text = [(p, p.read_text(encoding="utf-8")) for p in paths]
    print(machine_header(sys.argv))
    print(f"best of {args.repeat} passes")
    _row(f"all {len(paths)} files", [t for _, t in with_text], args.repeat)
    for p, t in sorted(with_text, key=lambda pt: -len(pt[1]))[: args.largest]:
        _row(p.name[:34], [t], args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
