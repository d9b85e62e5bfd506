#!/usr/bin/env python3
"""Generate the part of the PTX test corpus that Python GPU DSLs write: Triton and CuTe DSL.

``tests/corpus/generated/<dsl>/src/*.py`` are kernels written for this corpus;
``<dsl>/<stem>_<arch>.ptx`` beside ``src/`` is what the DSL compiles each one to. No GPU is
needed: both DSLs compile for a named target without a driver. Each DSL runs from its own
virtualenv (they pin different LLVM builds)::

    python -m venv /tmp/tritonvenv && /tmp/tritonvenv/bin/pip install triton==3.9.0
    python -m venv /tmp/cutevenv && /tmp/cutevenv/bin/pip install nvidia-cutlass-dsl==4.8.1
    /tmp/tritonvenv/bin/python tools/gen_dsl_corpus.py triton
    /tmp/cutevenv/bin/python tools/gen_dsl_corpus.py cute
    python3 tools/gen_corpus.py check --write     # ptxas over the corpus, as for nvcc's files

What a source module defines, by DSL:

* Triton: ``kernel`` (a ``@triton.jit`` function), ``SIGNATURE`` (argument types as Triton
  spells them: ``"*fp16"``, ``"i32"``), ``CONSTANTS`` (the ``tl.constexpr`` values) and
  optionally ``OPTIONS`` (``num_warps``, ``num_stages``);
* CuTe DSL: ``launch`` (a ``@cute.jit`` function that launches the kernel) and
  ``arguments()`` (fake tensors to compile it for);
* both: optionally ``ARCHS``, the targets to build (default: sm_80, sm_90a, sm_100a, sm_120a).

The DSLs write the kernel's source path into ``.file`` (Triton's line info) or into kernel
names, so each source is copied into a fixed staging directory (``--build-dir``, default
``/tmp/pyptx-corpus/<dsl>``) and imported from there: the output does not depend on where
the repository is checked out; Triton compiles into a private cache there, so each run
compiles afresh. With the same DSL versions the output is byte-for-byte reproducible.
``tools/gen_emu_kernels.py`` compiles the emulator's own Triton test kernels, without line
info and with the launch facts its tests need; the kernels here keep Triton's line info, as
a user's Triton output has it.
CuTe DSL reads its target from ``CUTE_DSL_ARCH`` when it is imported, so each CuTe target is
compiled in a fresh process.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

REPO_ROOT = Path(__file__).resolve().parent.parent
GENERATED_DIR = REPO_ROOT / "tests" / "corpus" / "generated"
DEFAULT_ARCHS = ("sm_80", "sm_90a", "sm_100a", "sm_120a")
CAPABILITY = {"sm_80": 80, "sm_90a": 90, "sm_100a": 100, "sm_120a": 120}


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"pyptx_corpus_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def triton_ptx(module: ModuleType, arch: str) -> str:
    """The PTX Triton writes for ``module.kernel`` on ``arch`` (Triton names the target by
    its compute capability; the ``a`` targets follow from it)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    constants = dict(module.CONSTANTS)
    signature = {**module.SIGNATURE, **dict.fromkeys(constants, "constexpr")}
    source = ASTSource(fn=module.kernel, signature=signature, constexprs=constants)
    options = dict(getattr(module, "OPTIONS", {}))
    target = GPUTarget("cuda", CAPABILITY[arch], 32)
    compiled = triton.compile(source, target=target, options=options)
    ptx: str = compiled.asm["ptx"]
    return ptx


def cute_ptx(module: ModuleType, arch: str) -> str:
    """The PTX CuTe DSL writes for ``module.launch``; ``CUTE_DSL_ARCH`` must already name
    ``arch`` (see :func:`_in_fresh_process`)."""
    import cutlass.cute as cute

    assert os.environ.get("CUTE_DSL_ARCH") == arch
    compiled = cute.compile(module.launch, *module.arguments())
    ptx: str = compiled.__ptx__
    return ptx


COMPILERS: dict[str, Callable[[ModuleType, str], str]] = {"triton": triton_ptx, "cute": cute_ptx}
FRESH_PROCESS = {"cute"}
"""DSLs that read the target once per process."""


def _in_fresh_process(dsl: str, staged: Path, arch: str) -> str:
    env = {**os.environ, "CUTE_DSL_ARCH": arch, "CUTE_DSL_KEEP_PTX": "1"}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one", dsl, str(staged), arch]
    with tempfile.TemporaryDirectory() as scratch:  # CuTe DSL also dumps the PTX in the cwd
        done = subprocess.run(
            cmd, env=env, cwd=scratch, capture_output=True, text=True, check=False
        )
    if done.returncode != 0:
        raise SystemExit(f"{staged.name} for {arch} failed:\n{done.stderr[-4000:]}")
    return done.stdout


def generate(dsl: str, only: Sequence[str], build_dir: Path) -> int:
    """Compile every source of ``dsl`` (or those named) for each of its targets."""
    out_dir = GENERATED_DIR / dsl
    sources = sorted((out_dir / "src").glob("*.py"))
    if only:
        sources = [p for p in sources if p.stem in only]
    if build_dir.exists():
        shutil.rmtree(build_dir)
    build_dir.mkdir(parents=True)
    # A private compile cache, so that every run compiles afresh (as gen_emu_kernels does).
    os.environ["TRITON_CACHE_DIR"] = str(build_dir / "cache")
    written = 0
    for path in sources:
        staged = build_dir / path.name
        shutil.copyfile(path, staged)
        module = _load(staged)
        for arch in getattr(module, "ARCHS", DEFAULT_ARCHS):
            if dsl in FRESH_PROCESS:
                ptx = _in_fresh_process(dsl, staged, arch)
            else:
                ptx = COMPILERS[dsl](module, arch)
            out = out_dir / f"{path.stem}_{arch}.ptx"
            out.write_text(ptx, encoding="utf-8")
            print(f"{out.relative_to(REPO_ROOT)}  {out.stat().st_size:>8} bytes")
            written += 1
    print(f"{written} files")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("dsl", choices=sorted(COMPILERS))
    parser.add_argument("only", nargs="*", help="source stems to build (default: all)")
    parser.add_argument("--build-dir", type=Path, help="default: /tmp/pyptx-corpus/<dsl>")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:  # internal: DSL, staged source, arch -> PTX on stdout
        staged, arch = args.only
        sys.stdout.write(COMPILERS[args.dsl](_load(Path(staged)), arch))
        return 0
    build_dir = args.build_dir or Path("/tmp/pyptx-corpus") / args.dsl
    return generate(args.dsl, args.only, build_dir)


if __name__ == "__main__":
    sys.exit(main())
