#!/usr/bin/env python3
"""Regenerate the compiled-kernel corpus of the emulator's tests.

The kernels live under ``packages/pyptx-emu/tests/kernels/``:

* ``cuda/*.cu`` -- CUDA sources, each naming its one target with a header line
  ``// arch: sm_80`` (or ``sm_90a``, ``sm_100a``, ...);
* ``triton/*.py`` -- Triton sources, each defining ``@triton.jit`` kernels and a
  ``VARIANTS`` list of dicts: ``name`` (the output stem), ``kernel``, ``arch`` (80, 90,
  100: the compute capability), ``signature`` (argument name -> Triton type, constexprs
  left out), ``constexprs``, ``num_warps``, optionally ``num_stages`` and ``divisible``
  (the arguments the JIT would mark ``tt.divisibility=16`` at a launch: 16-byte aligned
  pointers, ints that are multiples of 16; the tests must launch with such values);
* ``ptx/<name>.ptx`` -- the generated PTX, one file per CUDA source or Triton variant;
* ``ptx/manifest.json`` -- per kernel: its source, target, entry name, toolchain, and for
  Triton the launch facts the tests need (threads per CTA, dynamic shared memory).

CUDA sources are compiled with ``nvcc -ptx -O3 -arch=<arch>`` from a fixed staging
directory with a relative path, so the output does not depend on where the repository is
checked out. Triton sources are compiled with ``triton.compile`` for a
``GPUTarget("cuda", <arch>, 32)``, which needs no GPU; line information is disabled (it would
record the source path) and a private, temporary cache directory is used, so every run
compiles afresh. With the same nvcc and Triton the output is byte-for-byte the same.

The instruction-family tests keep small nvcc outputs of their own under
``packages/pyptx-emu/tests/data/<family>/``: each ``.cu`` there names, in a comment near its
top, the ``nvcc ... X.cu -o X.ptx`` command(s) that produce the ``.ptx`` next to it.
``--data`` reruns those commands (in that directory, with the nvcc found as below).

Usage::

    python tools/gen_emu_kernels.py                  # everything
    python tools/gen_emu_kernels.py --data           # only the family data files
    python tools/gen_emu_kernels.py --data --check   # ... compared with the committed files
    python tools/gen_emu_kernels.py --only softmax_sm80 histogram
    python tools/gen_emu_kernels.py --check          # regenerate in memory, diff, exit 1
    python tools/gen_emu_kernels.py --list

Only the Python standard library and ``triton`` (for the Triton sources) are used; nvcc is
``--nvcc``, else ``nvcc`` on ``PATH``, else ``/usr/local/bin/nvcc``.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
KERNELS_DIR = REPO_ROOT / "packages" / "pyptx-emu" / "tests" / "kernels"
CUDA_DIR = KERNELS_DIR / "cuda"
TRITON_DIR = KERNELS_DIR / "triton"
PTX_DIR = KERNELS_DIR / "ptx"
MANIFEST = PTX_DIR / "manifest.json"
STAGING_DIR = Path("/tmp/pyptx-emu-kernels")
DATA_DIR = REPO_ROOT / "packages" / "pyptx-emu" / "tests" / "data"

_DATA_COMMAND = re.compile(r"^//.*?\bnvcc\s+(.*?)\s+(\S+\.cu)\s+-o\s+(\S+\.ptx)", re.MULTILINE)
"""``// ... nvcc <flags> X.cu -o Y.ptx`` in the header of a family data source."""

_ARCH_RE = re.compile(r"^\s*//\s*arch\s*:\s*(sm_\d+[a-z]?)\s*$", re.MULTILINE)
_ENTRY_RE = re.compile(r"^\s*\.(?:visible\s+)?\.entry\s+([A-Za-z_$][\w$]*)", re.MULTILINE)


@dataclasses.dataclass(frozen=True)
class Kernel:
    """One PTX file to produce: a CUDA source, or one variant of a Triton source."""

    name: str
    source: Path
    arch: str
    variant: dict[str, Any] | None = None

    @property
    def kind(self) -> str:
        """``"cuda"`` or ``"triton"``."""
        return "cuda" if self.variant is None else "triton"


def find_nvcc(explicit: str | None) -> Path:
    """The nvcc to use: ``explicit``, else ``nvcc`` on PATH, else /usr/local/bin/nvcc."""
    if explicit:
        return Path(explicit)
    found = shutil.which("nvcc")
    if found:
        return Path(found)
    fallback = Path("/usr/local/bin/nvcc")
    if fallback.is_file():
        return fallback
    raise SystemExit("gen_emu_kernels: nvcc not found (pass --nvcc or put nvcc on PATH)")


def tool_version(tool: Path) -> str:
    """``"release X.Y, VX.Y.Z"`` from ``tool --version``."""
    out = subprocess.run([str(tool), "--version"], capture_output=True, text=True, check=False)
    for line in out.stdout.splitlines():
        if "release" in line:
            return line.strip().replace("Cuda compilation tools, ", "")
    return "?"


def _load_module(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"_emu_kernel_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"gen_emu_kernels: cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cuda_kernels() -> list[Kernel]:
    """Every CUDA source, with the arch of its ``// arch:`` header."""
    kernels = []
    for path in sorted(CUDA_DIR.glob("*.cu")):
        match = _ARCH_RE.search(path.read_text(encoding="utf-8"))
        if match is None:
            raise SystemExit(f"gen_emu_kernels: {path.name} has no '// arch: sm_XX' header line")
        kernels.append(Kernel(path.stem, path, match.group(1)))
    return kernels


def triton_kernels() -> list[Kernel]:
    """Every variant of every Triton source (imports triton)."""
    kernels = []
    for path in sorted(TRITON_DIR.glob("*.py")):
        module = _load_module(path)
        for variant in module.VARIANTS:
            arch = int(variant["arch"])
            kernels.append(Kernel(variant["name"], path, _triton_arch(arch), variant))
    return kernels


def _triton_arch(capability: int) -> str:
    return f"sm_{capability}a" if capability >= 90 else f"sm_{capability}"


def _header(kernel: Kernel, tool: str) -> str:
    rel = kernel.source.relative_to(KERNELS_DIR).as_posix()
    return (
        f"// Generated by tools/gen_emu_kernels.py from {rel} ({tool}, {kernel.arch}).\n"
        "// Do not edit; regenerate with: python tools/gen_emu_kernels.py --only "
        f"{kernel.name}\n"
    )


def compile_cuda(kernel: Kernel, nvcc: Path) -> tuple[str, dict[str, Any]]:
    """nvcc ``-ptx -O3`` of one source, from the fixed staging directory."""
    if STAGING_DIR.exists():
        shutil.rmtree(STAGING_DIR)
    (STAGING_DIR / "src").mkdir(parents=True)
    shutil.copyfile(kernel.source, STAGING_DIR / "src" / kernel.source.name)
    out = f"{kernel.name}.ptx"
    cmd = [str(nvcc), "-ptx", "-O3", f"-arch={kernel.arch}", f"src/{kernel.source.name}"]
    env = dict(os.environ, LC_ALL="C", LANG="C")
    proc = subprocess.run(
        [*cmd, "-o", out], cwd=STAGING_DIR, capture_output=True, text=True, env=env, check=False
    )
    if proc.returncode != 0:
        raise SystemExit(f"gen_emu_kernels: nvcc failed on {kernel.source.name}:\n{proc.stderr}")
    ptx = (STAGING_DIR / out).read_text(encoding="utf-8")
    shutil.rmtree(STAGING_DIR, ignore_errors=True)
    version = tool_version(nvcc)
    meta = {
        "toolchain": f"nvcc {version}",
        "command": " ".join(["nvcc", *cmd[1:]]),
    }
    return _header(kernel, f"nvcc {version}") + ptx, meta


def compile_triton(kernel: Kernel) -> tuple[str, dict[str, Any]]:
    """``triton.compile`` of one variant for ``GPUTarget("cuda", arch, 32)``; no GPU needed."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    variant = kernel.variant
    assert variant is not None
    constexprs = dict(variant.get("constexprs", {}))
    signature = dict(variant["signature"])
    signature.update({name: "constexpr" for name in constexprs})
    options = {"num_warps": variant["num_warps"]}
    if "num_stages" in variant:
        options["num_stages"] = variant["num_stages"]
    # What the JIT infers at a launch from 16-byte-aligned pointers and ints divisible by 16.
    arg_names = variant["kernel"].arg_names
    attrs = {(arg_names.index(a),): [["tt.divisibility", 16]] for a in variant.get("divisible", ())}
    src = ASTSource(fn=variant["kernel"], signature=signature, constexprs=constexprs, attrs=attrs)
    compiled = triton.compile(
        src, target=GPUTarget("cuda", int(variant["arch"]), 32), options=options
    )
    ptx = compiled.asm["ptx"]
    md = compiled.metadata
    tool = f"triton {triton.__version__}"
    meta = {
        "toolchain": tool,
        "num_warps": md.num_warps,
        "num_ctas": md.num_ctas,
        "shared": md.shared,
        "global_scratch_size": md.global_scratch_size,
        "profile_scratch_size": md.profile_scratch_size,
        "arguments": list(variant["signature"]),
        "constexprs": constexprs,
        "divisible_by_16": list(variant.get("divisible", ())),
        "options": options,
    }
    return _header(kernel, tool) + ptx, meta


def _configure_triton(cache_dir: str) -> None:
    """Environment for deterministic, path-free Triton output (set before importing it)."""
    os.environ["TRITON_CACHE_DIR"] = cache_dir
    os.environ["TRITON_DISABLE_LINE_INFO"] = "1"  # .loc/.file would record the source path
    os.environ["TRITON_DEFAULT_FP_FUSION"] = "1"  # fma contraction, Triton's 3.x default
    os.environ.setdefault("TRITON_HOME", cache_dir)


def _check_portable(name: str, ptx: str, cache_dir: str) -> None:
    for marker in (str(REPO_ROOT), str(STAGING_DIR), cache_dir):
        if marker in ptx:
            raise SystemExit(f"gen_emu_kernels: {name}: the PTX contains the path {marker!r}")


def generate(
    kernels: Sequence[Kernel], nvcc: Path | None, cache_dir: str
) -> dict[str, tuple[str, dict]]:
    """Compile ``kernels``; return ``{name: (ptx, manifest entry)}``."""
    results: dict[str, tuple[str, dict]] = {}
    for kernel in kernels:
        if kernel.kind == "cuda":
            assert nvcc is not None
            ptx, meta = compile_cuda(kernel, nvcc)
        else:
            ptx, meta = compile_triton(kernel)
        _check_portable(kernel.name, ptx, cache_dir)
        entries = _ENTRY_RE.findall(ptx)
        if len(entries) != 1:
            raise SystemExit(f"gen_emu_kernels: {kernel.name}: expected one .entry, got {entries}")
        entry = {
            "source": kernel.source.relative_to(KERNELS_DIR).as_posix(),
            "kind": kernel.kind,
            "arch": kernel.arch,
            "entry": entries[0],
            **meta,
        }
        results[kernel.name] = (ptx, entry)
    return results


def data_commands() -> list[tuple[Path, list[str], str]]:
    """Every family data output: (source, nvcc flags, output file name), from the headers."""
    commands = []
    for path in sorted(DATA_DIR.glob("*/*.cu")):
        head = "\n".join(path.read_text(encoding="utf-8").splitlines()[:20])
        found = _DATA_COMMAND.findall(head)
        if not found:
            raise SystemExit(f"gen_emu_kernels: {path} names no 'nvcc ... -o X.ptx' command")
        for flags, source, output in found:
            if source != path.name:
                raise SystemExit(f"gen_emu_kernels: {path} names another source ({source})")
            commands.append((path, flags.split(), output))
    return commands


def regenerate_data(nvcc: Path, check: bool) -> int:
    """Rerun the family data commands; write the outputs, or (``check``) compare them."""
    env = dict(os.environ, LC_ALL="C", LANG="C")
    stale = []
    for source, flags, output in data_commands():
        with tempfile.TemporaryDirectory(prefix="pyptx-emu-data-") as tmp:
            shutil.copyfile(source, Path(tmp) / source.name)
            proc = subprocess.run(
                [str(nvcc), *flags, source.name, "-o", output],
                cwd=tmp,
                capture_output=True,
                text=True,
                env=env,
                check=False,
            )
            if proc.returncode != 0:
                raise SystemExit(f"gen_emu_kernels: nvcc failed on {source}:\n{proc.stderr}")
            ptx = (Path(tmp) / output).read_text(encoding="utf-8")
        target = source.parent / output
        rel = target.relative_to(REPO_ROOT)
        if target.exists() and target.read_text(encoding="utf-8") == ptx:
            continue
        stale.append(rel)
        if not check:
            target.write_text(ptx, encoding="utf-8")
            print(f"wrote {rel}")
    if check:
        for rel in stale:
            print(f"differs: {rel}")
        print(f"{len(data_commands())} family data files compiled, {len(stale)} differ")
    return 1 if check and stale else 0


def _read_manifest() -> dict[str, Any]:
    if MANIFEST.exists():
        return dict(json.loads(MANIFEST.read_text(encoding="utf-8")))
    return {}


def _manifest_text(manifest: dict[str, Any]) -> str:
    return json.dumps(dict(sorted(manifest.items())), indent=2, sort_keys=True) + "\n"


def build_parser() -> argparse.ArgumentParser:
    """The command-line parser."""
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Sources: packages/pyptx-emu/tests/kernels/{cuda,triton}; output: .../ptx.",
    )
    parser.add_argument("--only", nargs="+", metavar="NAME", help="build only these kernels")
    parser.add_argument("--nvcc", help="nvcc to use (default: PATH, else /usr/local/bin/nvcc)")
    parser.add_argument(
        "--check",
        action="store_true",
        help="compile and compare with the committed files instead of writing; exit 1 on a diff",
    )
    parser.add_argument("--list", action="store_true", help="list the kernels and exit")
    parser.add_argument(
        "--no-triton", action="store_true", help="skip the Triton sources (no triton installed)"
    )
    parser.add_argument(
        "--data",
        action="store_true",
        help="only the instruction-family data files under tests/data (from their headers)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments and regenerate (or check) the kernels."""
    args = build_parser().parse_args(argv)
    if args.data:
        return regenerate_data(find_nvcc(args.nvcc), args.check)
    with tempfile.TemporaryDirectory(prefix="pyptx-emu-triton-") as cache_dir:
        _configure_triton(cache_dir)
        kernels = cuda_kernels()
        if not args.no_triton:
            kernels += triton_kernels()
        if args.list:
            for k in kernels:
                print(f"{k.name:32} {k.kind:7} {k.arch:8} {k.source.relative_to(KERNELS_DIR)}")
            return 0
        if args.only:
            known = {k.name for k in kernels}
            missing = sorted(set(args.only) - known)
            if missing:
                raise SystemExit(f"gen_emu_kernels: no such kernel(s): {missing} (see --list)")
            kernels = [k for k in kernels if k.name in set(args.only)]
        needs_nvcc = any(k.kind == "cuda" for k in kernels)
        nvcc = find_nvcc(args.nvcc) if needs_nvcc else None
        results = generate(kernels, nvcc, cache_dir)

    manifest = _read_manifest()
    if not args.only:
        # A full run drops entries of deleted sources (Triton ones too, unless skipped).
        manifest = {
            name: m
            for name, m in manifest.items()
            if name in results or (args.no_triton and m.get("kind") == "triton")
        }
    for name, (_, entry) in results.items():
        manifest[name] = entry
    manifest_text = _manifest_text(manifest)

    if args.check:
        stale = [
            name
            for name, (ptx, _) in results.items()
            if not (PTX_DIR / f"{name}.ptx").exists()
            or (PTX_DIR / f"{name}.ptx").read_text(encoding="utf-8") != ptx
        ]
        if not MANIFEST.exists() or MANIFEST.read_text(encoding="utf-8") != manifest_text:
            stale.append("manifest.json")
        for name in stale:
            print(f"differs: {name}")
        print(f"{len(results)} kernels compiled, {len(stale)} differ")
        return 1 if stale else 0

    PTX_DIR.mkdir(parents=True, exist_ok=True)
    for name, (ptx, _) in results.items():
        target = PTX_DIR / f"{name}.ptx"
        if not target.exists() or target.read_text(encoding="utf-8") != ptx:
            target.write_text(ptx, encoding="utf-8")
            print(f"wrote {target.relative_to(REPO_ROOT)}")
    if not args.only:
        for stale_file in sorted(PTX_DIR.glob("*.ptx")):
            if stale_file.stem not in manifest:
                print(f"removing stale {stale_file.name}")
                stale_file.unlink()
    MANIFEST.write_text(manifest_text, encoding="utf-8")
    print(f"{len(results)} kernels in {PTX_DIR.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
