"""Where a sugared transpile spends its time, phase by phase (pyptx.codegen).

Usage::

    python benchmarks/transpile_phases.py [CORPUS ...] [--seed-python PY] [--repeat 2]

Runs the steps of ``ptx_to_python(text, sugar=True)`` one at a time on the ``*.ptx`` files
below each CORPUS folder (default tests/corpus) and prints the seconds each step takes, summed over
the files: parsing, each sugar pass, rendering the Python, and the self-check that proves
it (compiling the generated Python, running its module level, tracing it, comparing the
traced program with the input by alpha-equivalence). These are the steps of the
transpiler's usual path, where the sugared output checks at once. Rendering includes
deciding whether the output keeps its ISA checks; that verdict is also timed on its own
(an extra call, not counted in the total). With ``--seed-python`` (the python of a
``pyptx==0.1.1`` virtualenv, as for ``transpile_vs_seed.py``) only the files both systems
transpile are used, the set of the seed-system rows in docs/performance.md. Each figure is
the best of ``--repeat`` passes over all files.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for src in ("packages/pyptx-ir/src", "packages/pyptx-parser/src", "packages/pyptx-dsl/src"):
    sys.path.insert(0, str(REPO / src))

from parse_throughput import machine_header  # noqa: E402
from transpile_vs_seed import corpus_argument, corpus_paths, shared_files  # noqa: E402

from pyptx.codegen import _api  # noqa: E402
from pyptx.codegen._check import passes_checks  # noqa: E402
from pyptx.codegen.alpha import alpha_equivalent  # noqa: E402
from pyptx.codegen.pipeline import SUGAR_PASSES  # noqa: E402
from pyptx.codegen.regions import lower  # noqa: E402
from pyptx.codegen.renames import sharing_index  # noqa: E402
from pyptx.emitter import emit  # noqa: E402
from pyptx.parser import parse  # noqa: E402

_SELF_CHECK = ("compile", "module level", "trace", "alpha-equivalence")


def _phases(text: str, times: dict[str, float]) -> None:
    """Transpile ``text`` with sugar, step by step, adding each step's seconds to ``times``."""

    def timed(phase: str, fn: Callable[..., object], *args: object) -> object:
        t0 = time.perf_counter()
        out = fn(*args)
        times[phase] = times.get(phase, 0.0) + time.perf_counter() - t0
        return out

    module = timed("parse", parse, text, "<ptx>")
    sugared = module
    with sharing_index():
        for p in SUGAR_PASSES:
            sugared = timed(p.name, p, sugared)
    names = _api._readable_function_names(module, sugared, {})
    code = timed("render", lambda: _api.module_to_python(sugared, python_names=names, compact=True))
    timed("  of which the ISA-check verdict", passes_checks, lower(sugared))
    compiled = timed("compile", compile, code, "<generated>", "exec")
    namespace = types.ModuleType("pyptx_codegen_check")
    timed("module level", exec, compiled, namespace.__dict__)
    built = namespace.__dict__["module"]
    built.check = False
    traced = timed("trace", lambda: built.module(layout=False))
    verdict = timed("alpha-equivalence", alpha_equivalent, module, traced)
    if not verdict:  # the DSL built another node for the same text: the text decides
        timed("alpha-equivalence", lambda: alpha_equivalent(module, parse(emit(traced))))


def main(argv: list[str] | None = None) -> int:
    """Run the measurement; return the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    corpus_argument(ap)
    ap.add_argument("--seed-python", default=os.environ.get("PYPTX_SEED_PYTHON"))
    ap.add_argument("--repeat", type=int, default=2, help="passes over the files; the best counts")
    args = ap.parse_args(argv)
    paths = corpus_paths(args.corpus)
    if args.seed_python:
        paths = shared_files(args.seed_python, paths)
    texts = [Path(p).read_text(encoding="utf-8") for p in paths]
    size = sum(len(t.encode()) for t in texts) / 1e6
    best: dict[str, float] = {}
    for _ in range(args.repeat):
        times: dict[str, float] = {}
        for t in texts:
            _api._collector_paused(_phases, t, times)
        for phase, seconds in times.items():
            best[phase] = min(best.get(phase, float("inf")), seconds)
    print(machine_header(sys.argv if argv is None else ["transpile_phases.py", *argv]))
    print(f"{len(texts)} files, {size:.2f} MB, sugar=True, best of {args.repeat} passes")
    total = sum(s for phase, s in best.items() if not phase.startswith(" "))
    check = sum(best[p] for p in _SELF_CHECK)
    for phase, seconds in best.items():
        print(f"{phase:<36} {seconds:6.2f} s")
    print(f"{'self-check (the last four)':<36} {check:6.2f} s")
    print(f"{'total':<36} {total:6.2f} s  ({size / total:.2f} MB/s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
