"""Transpile speed of this checkout beside the seed system (upstream pyptx 0.1.1), side by side.

Usage::

    python benchmarks/transpile_vs_seed.py --seed-python /path/to/seedvenv/bin/python
        [CORPUS ...] [--rounds 2] [--repeat 2] [--unchecked] [--cold]

Without ``--seed-python`` (or ``PYPTX_SEED_PYTHON``) it prints why and exits 0.

The seed system installs the same ``pyptx`` import name, so it lives in its own virtualenv
(``python3 -m venv seedvenv && seedvenv/bin/pip install pyptx==0.1.1``); this script runs
each system in its own interpreter on the same files: the ``*.ptx`` files below each CORPUS
folder (default tests/corpus; a ``.ptx`` path counts as itself) that both systems transpile
in both modes. ``tests/corpus/generated/triton tests/corpus/generated/cute`` is the output
of the Python GPU DSLs (Triton and CuTe DSL), the kind of file the transpiler speed goal
names. Every round times the seed, then this checkout, so load on the machine falls on both
alike; within a round each system's figure is the best of ``--repeat`` passes over all files
(``ptx_to_python(text, sugar=False)`` and ``sugar=True``, the same call in both systems). It
prints MB/s per system and mode for every round, and this checkout's speed as a multiple of
the seed's. With ``--unchecked`` it also times this checkout's sugar without the self-check
that proves the sugared Python (the same passes and rendering, called directly), beside the
seed's sugar, which checks nothing. With ``--cold`` each system and mode runs in a fresh
process, one pass over the files: no cache is warm from an earlier pass over the same files,
as when each file is transpiled once (this checkout caches ISA verdicts by instruction
shape, so its warm figures are higher; the seed system's do not change).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCES = [str(p) for p in sorted((REPO / "packages").glob("*/src"))]

# Runs in the measured interpreter: argv = files.json, "accepts" or "time", repeat, and the
# modes to time, comma-separated: plain, sugar, unchecked (this checkout's sugar without its
# self-check).
_WORKER = r"""
import json, sys, time
from pathlib import Path
from pyptx.codegen import ptx_to_python
files = json.load(open(sys.argv[1]))
texts = [Path(f).read_text(encoding="utf-8") for f in files]
if sys.argv[2] == "accepts":
    ok = []
    for f, t in zip(files, texts):
        try:
            ptx_to_python(t, sugar=False)
            ptx_to_python(t, sugar=True)
        except Exception:
            continue
        ok.append(f)
    print(json.dumps(ok))
else:

    if "unchecked" in sys.argv[4].split(","):  # this checkout only; the seed has no _api
        # Imported here, not in the timed function: imports in it made the unchecked figure
        # about 10 % lower with the collector on (not with it off), which says nothing of
        # the transpiler.
        from pyptx.codegen import _api
        from pyptx.codegen.pipeline import SUGAR_PASSES, run_passes
        from pyptx.parser import parse

    def sugared_python(text):
        module = parse(text)
        sugared = run_passes(module, SUGAR_PASSES)
        names = _api._readable_function_names(module, sugared, {})
        return _api.module_to_python(sugared, python_names=names, compact=True)

    def unchecked(text):  # as ptx_to_python does: the collector paused around the call
        return _api._collector_paused(sugared_python, text)

    modes = {
        "plain": lambda t: ptx_to_python(t, sugar=False),
        "sugar": lambda t: ptx_to_python(t, sugar=True),
        "unchecked": unchecked,
    }
    out = {}
    size = sum(len(t.encode()) for t in texts) / 1e6
    for mode in sys.argv[4].split(","):
        best = float("inf")
        for _ in range(int(sys.argv[3])):
            t0 = time.perf_counter()
            for t in texts:
                modes[mode](t)
            best = min(best, time.perf_counter() - t0)
        out[mode] = size / best
    print(json.dumps(out))
"""


def _run(python: str, files: Path, what: str, repeat: int, ours: bool, modes: str = "") -> object:
    env = dict(os.environ)
    if ours:  # this checkout's sources first; the seed interpreter gets a clean path
        env["PYTHONPATH"] = os.pathsep.join(SOURCES)
    else:
        env.pop("PYTHONPATH", None)
    result = subprocess.run(
        [python, "-c", _WORKER, str(files), what, str(repeat), modes],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"{python} failed:\n{result.stderr}")
    return json.loads(result.stdout.splitlines()[-1])


def _time(
    python: str, files: Path, modes: list[str], args: argparse.Namespace, ours: bool
) -> dict[str, float]:
    """MB/s of each mode: in one process (best of ``--repeat`` passes), or with ``--cold`` in
    a fresh process per mode (one pass)."""
    if not args.cold:
        return _run(python, files, "time", args.repeat, ours, ",".join(modes))  # type: ignore[return-value]
    out: dict[str, float] = {}
    for mode in modes:
        out.update(_run(python, files, "time", 1, ours, mode))  # type: ignore[arg-type]
    return out


def corpus_paths(places: list[str]) -> list[str]:
    """The ``.ptx`` files below each folder of ``places`` (a file counts as itself), sorted."""
    return sorted(
        str(p)
        for where in map(Path, places)
        for p in (where.rglob("*.ptx") if where.is_dir() else [where])
    )


def corpus_argument(ap: argparse.ArgumentParser) -> None:
    """Add the CORPUS arguments that :func:`corpus_paths` reads."""
    ap.add_argument(
        "corpus",
        nargs="*",
        default=[str(REPO / "tests" / "corpus")],
        help="folders (searched recursively) or .ptx files; default: the whole test corpus",
    )


def shared_files(seed_python: str, paths: list[str]) -> list[str]:
    """The files of ``paths`` that both the seed system and this checkout transpile."""
    with tempfile.TemporaryDirectory() as tmp:
        listing = Path(tmp) / "files.json"
        listing.write_text(json.dumps(paths))
        seed_ok = _run(seed_python, listing, "accepts", 1, ours=False)
        ours_ok = set(_run(sys.executable, listing, "accepts", 1, ours=True))  # type: ignore[arg-type]
    return [p for p in seed_ok if p in ours_ok]  # type: ignore[union-attr]


def main(argv: list[str] | None = None) -> int:
    """Run the comparison; return the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    corpus_argument(ap)
    ap.add_argument(
        "--seed-python",
        default=os.environ.get("PYPTX_SEED_PYTHON"),
        help="python of a pyptx==0.1.1 virtualenv (default: $PYPTX_SEED_PYTHON)",
    )
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=2, help="passes per round; the best counts")
    ap.add_argument(
        "--unchecked",
        action="store_true",
        help="also time this checkout's sugar without the self-check that proves its output "
        "(the same passes and rendering, called directly; the seed system checks nothing)",
    )
    ap.add_argument(
        "--cold",
        action="store_true",
        help="time each system and mode in a fresh process, one pass (caches fill only from "
        "the files themselves, as when each file is transpiled once); --repeat is ignored",
    )
    args = ap.parse_args(argv)
    if not args.seed_python:
        print("skipped: no seed system (pass --seed-python or set PYPTX_SEED_PYTHON)")
        return 0
    paths = corpus_paths(args.corpus)
    if not paths:
        print(f"no .ptx files under {' '.join(args.corpus)}", file=sys.stderr)
        return 2
    common = shared_files(args.seed_python, paths)
    with tempfile.TemporaryDirectory() as tmp:
        listing = Path(tmp) / "files.json"
        listing.write_text(json.dumps(common))
        size = sum(Path(p).stat().st_size for p in common) / 1e6
        print(f"{len(common)} of {len(paths)} files both systems transpile ({size:.2f} MB)")
        ours_modes = ["plain", "sugar", *(["unchecked"] if args.unchecked else [])]
        for r in range(1, args.rounds + 1):
            seed = _time(args.seed_python, listing, ["plain", "sugar"], args, ours=False)
            ours = _time(sys.executable, listing, ours_modes, args, ours=True)
            for mode in ("plain", "sugar"):
                s, o = seed[mode], ours[mode]  # type: ignore[index]
                print(
                    f"round {r} {mode:<5}  seed {s:5.2f} MB/s  this checkout {o:5.2f} MB/s"
                    f"  x{o / s:.2f}"
                )
            if args.unchecked:
                s, o = seed["sugar"], ours["unchecked"]  # type: ignore[index]
                print(
                    f"round {r} sugar without the self-check (this checkout only): "
                    f"{o:5.2f} MB/s  x{o / s:.2f} the seed's sugar"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
