#!/usr/bin/env python3
"""Generate and check the nvcc-produced part of the PTX test corpus.

The corpus lives under ``tests/corpus/``:

* ``public/`` -- vendored third-party PTX (see ``public/NOTICE.md``);
* ``generated/src/*.cu`` -- CUDA sources original to this project;
* ``generated/<stem>_<arch>_<O3|G>.ptx`` -- PTX compiled from those sources
  by this script;
* ``ptxas_rejects.txt`` -- every corpus file that ptxas rejects, with the
  first line of its error.

Two sub-commands:

``generate``
    Compile every ``generated/src/*.cu`` with ``nvcc -ptx`` for each target
    architecture at ``-O3`` and at ``-G`` (device debug: ``.loc``, ``.file``
    and ``.section .debug_*``).  A source can narrow what is built with header
    comment lines near its top::

        // archs: sm_90a sm_100a      (default: sm_80 sm_90a sm_100a sm_120a)
        // opts: O3                   (default: O3 G)
        // g-archs: sm_80             (archs that also get -G; default: archs)
        // nvcc-flags: -rdc=true      (extra nvcc arguments)

    ``g-archs`` keeps the corpus small: -G output of header-heavy sources
    (cooperative groups, WMMA, fp16/bf16/fp8, textures) is several hundred
    kilobytes per architecture, so those sources get -G for one arch only.

    nvcc writes the absolute source path into ``.file`` directives and the
    DWARF compilation directory, so sources are copied into a fixed staging
    directory (``--build-dir``, default ``/tmp/pyptx-corpus``) and compiled
    from there with a relative path.  The output therefore does not depend on
    where the repository is checked out; with the same toolchain it is
    byte-for-byte reproducible.

``check``
    Run ``ptxas -arch=<target> -o /dev/null`` on every ``.ptx`` file under
    ``tests/corpus`` (the target is read from the file's ``.target``
    directive) and write ``ptxas_rejects.txt``: one ``<path> # <first error
    line>`` line per rejected file, sorted, paths relative to
    ``tests/corpus``.

Only the Python standard library is used.  The CUDA toolchain is looked up
in the ``nvidia`` Python namespace package first (the ``nvidia-cuda-nvcc``
wheel, e.g. ``nvidia/cu13/bin/nvcc``), then on ``PATH``.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
CORPUS_DIR = REPO_ROOT / "tests" / "corpus"
GENERATED_DIR = CORPUS_DIR / "generated"
SOURCE_DIR = GENERATED_DIR / "src"
REJECTS_FILE = CORPUS_DIR / "ptxas_rejects.txt"

DEFAULT_ARCHS = ("sm_80", "sm_90a", "sm_100a", "sm_120a")
DEFAULT_OPTS = ("O3", "G")
OPT_FLAGS = {"O3": ["-O3"], "G": ["-G"]}
DEFAULT_BUILD_DIR = Path("/tmp/pyptx-corpus")

_HEADER_RE = re.compile(r"^\s*//\s*(archs|opts|g-archs|nvcc-flags)\s*:\s*(.*?)\s*$")
_TARGET_RE = re.compile(r"^\s*\.target\s+([^\n]*)", re.MULTILINE)
_VERSION_RE = re.compile(r"release\s+(\d+)\.(\d+)")


@dataclasses.dataclass(frozen=True)
class Toolchain:
    """Paths of the CUDA tools used to build and check the corpus."""

    nvcc: Path
    ptxas: Path
    cccl_include: Path | None

    def describe(self) -> str:
        """Return a short human-readable description (versions and paths)."""
        lines = [
            f"nvcc:  {self.nvcc} ({tool_version(self.nvcc)})",
            f"ptxas: {self.ptxas} ({tool_version(self.ptxas)})",
            f"cccl:  {self.cccl_include if self.cccl_include else '(toolkit default)'}",
        ]
        return "\n".join(lines)


@dataclasses.dataclass(frozen=True)
class Source:
    """A CUDA source file and the variants its header asks for."""

    path: Path
    archs: tuple[str, ...]
    opts: tuple[str, ...]
    g_archs: tuple[str, ...]
    nvcc_flags: tuple[str, ...]

    @property
    def stem(self) -> str:
        """File name without the ``.cu`` suffix."""
        return self.path.stem

    def jobs(self) -> list[Job]:
        """Expand into one compile job per (arch, opt) combination."""
        return [
            Job(self, arch, opt)
            for arch in self.archs
            for opt in self.opts
            if opt != "G" or arch in self.g_archs
        ]


@dataclasses.dataclass(frozen=True)
class Job:
    """One nvcc invocation: a source at one architecture and optimisation."""

    source: Source
    arch: str
    opt: str

    @property
    def output_name(self) -> str:
        """Name of the PTX file this job produces."""
        return f"{self.source.stem}_{self.arch}_{self.opt}.ptx"


def tool_version(tool: Path) -> str:
    """Return ``"release X.Y, VX.Y.Z"`` from ``tool --version`` (or ``"?"``)."""
    try:
        out = subprocess.run(
            [str(tool), "--version"], capture_output=True, text=True, check=False
        ).stdout
    except OSError:
        return "?"
    for line in out.splitlines():
        if "release" in line:
            return line.strip().replace("Cuda compilation tools, ", "")
    return "?"


def _version_key(tool: Path) -> tuple[int, int]:
    match = _VERSION_RE.search(tool_version(tool))
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)


def _wheel_bin_dirs() -> list[Path]:
    """Return ``bin`` directories of CUDA toolchains installed as ``nvidia-*`` wheels."""
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return []
    if spec is None or spec.submodule_search_locations is None:
        return []
    dirs: list[Path] = []
    for root in spec.submodule_search_locations:
        root_path = Path(root)
        for candidate in sorted(root_path.glob("*/bin")):
            if (candidate / "nvcc").is_file():
                dirs.append(candidate)
    return dirs


def find_toolchain(
    nvcc: str | None = None, ptxas: str | None = None, cccl: str | None = None
) -> Toolchain:
    """Locate nvcc, ptxas and the CCCL headers.

    Explicit arguments win.  Otherwise the newest nvcc found in the ``nvidia``
    wheels is used, then ``nvcc`` on ``PATH``; ptxas is taken from the same
    directory as nvcc when present.  The wheel toolkit ships no CCCL headers
    (``nv/target`` is needed by ``cuda_fp16.h``), so when the toolkit has no
    ``include/cccl`` the first of ``$CCCL_INCLUDE`` and
    ``/usr/local/cuda*/include/cccl`` is added with ``-isystem``.
    """
    if nvcc:
        nvcc_path = Path(nvcc)
    else:
        candidates = [d / "nvcc" for d in _wheel_bin_dirs()]
        candidates.sort(key=_version_key, reverse=True)
        on_path = shutil.which("nvcc")
        if not candidates and on_path:
            candidates.append(Path(on_path))
        if not candidates:
            raise SystemExit(
                "gen_corpus: nvcc not found (install nvidia-cuda-nvcc or put nvcc on PATH)"
            )
        nvcc_path = candidates[0]
    if ptxas:
        ptxas_path = Path(ptxas)
    elif (nvcc_path.parent / "ptxas").is_file():
        ptxas_path = nvcc_path.parent / "ptxas"
    else:
        found = shutil.which("ptxas")
        if not found:
            raise SystemExit("gen_corpus: ptxas not found")
        ptxas_path = Path(found)

    cccl_path: Path | None = None
    if cccl:
        cccl_path = Path(cccl)
    elif not (nvcc_path.parent.parent / "include" / "cccl").is_dir():
        options = []
        if os.environ.get("CCCL_INCLUDE"):
            options.append(Path(os.environ["CCCL_INCLUDE"]))
        options.extend(sorted(Path("/usr/local").glob("cuda*/include/cccl"), reverse=True))
        for option in options:
            if (option / "nv" / "target").is_file():
                cccl_path = option
                break
    return Toolchain(nvcc=nvcc_path, ptxas=ptxas_path, cccl_include=cccl_path)


def parse_source(path: Path) -> Source:
    """Read a source's ``// archs:``, ``// opts:``, ``// g-archs:`` and ``// nvcc-flags:`` lines."""
    archs: Sequence[str] = DEFAULT_ARCHS
    opts: Sequence[str] = DEFAULT_OPTS
    g_archs: Sequence[str] | None = None
    flags: Sequence[str] = ()
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle):
            if line_no >= 40:
                break
            match = _HEADER_RE.match(line)
            if not match:
                continue
            key, value = match.group(1), match.group(2).split()
            if key == "archs":
                archs = value
            elif key == "opts":
                unknown = [o for o in value if o not in OPT_FLAGS]
                if unknown:
                    raise SystemExit(f"gen_corpus: {path.name}: unknown opts {unknown}")
                opts = value
            elif key == "g-archs":
                g_archs = value
            else:
                flags = value
    if g_archs is None:
        g_archs = archs
    elif not set(g_archs) <= set(archs):
        raise SystemExit(
            f"gen_corpus: {path.name}: g-archs {list(g_archs)} not within archs {list(archs)}"
        )
    return Source(
        path=path,
        archs=tuple(archs),
        opts=tuple(opts),
        g_archs=tuple(g_archs),
        nvcc_flags=tuple(flags),
    )


def discover_sources(src_dir: Path, only: Sequence[str] | None = None) -> list[Source]:
    """Return the parsed sources in ``src_dir`` (sorted), optionally filtered by stem."""
    sources = [parse_source(p) for p in sorted(src_dir.glob("*.cu"))]
    if only:
        wanted = set(only)
        missing = wanted - {s.stem for s in sources}
        if missing:
            raise SystemExit(f"gen_corpus: no such source(s): {sorted(missing)}")
        sources = [s for s in sources if s.stem in wanted]
    return sources


def nvcc_command(toolchain: Toolchain, job: Job, output: str) -> list[str]:
    """Build the nvcc argument list for ``job`` (run from the build directory)."""
    cmd = [str(toolchain.nvcc), "-ptx", f"-arch={job.arch}", *OPT_FLAGS[job.opt]]
    if toolchain.cccl_include is not None:
        cmd += ["-isystem", str(toolchain.cccl_include)]
    cmd += list(job.source.nvcc_flags)
    cmd += [f"src/{job.source.path.name}", "-o", output]
    return cmd


def _clean_env() -> dict[str, str]:
    """Environment for tool runs, with a fixed locale."""
    env = dict(os.environ)
    env["LC_ALL"] = "C"
    env["LANG"] = "C"
    return env


def compile_job(
    toolchain: Toolchain, job: Job, build_dir: Path, out_dir: Path
) -> tuple[Job, str | None]:
    """Compile one job; return ``(job, error)`` where error is None on success."""
    tmp_name = f"out/{job.output_name}"
    cmd = nvcc_command(toolchain, job, tmp_name)
    proc = subprocess.run(
        cmd, cwd=build_dir, capture_output=True, text=True, env=_clean_env(), check=False
    )
    if proc.returncode != 0:
        return job, (proc.stderr or proc.stdout).strip()
    data = (build_dir / tmp_name).read_bytes()
    target = out_dir / job.output_name
    if not target.exists() or target.read_bytes() != data:
        target.write_bytes(data)
    return job, None


def prepare_build_dir(build_dir: Path, sources: Sequence[Source]) -> None:
    """Recreate ``build_dir`` with ``src/`` copies of the sources and an ``out/`` folder."""
    if build_dir.exists():
        shutil.rmtree(build_dir)
    (build_dir / "src").mkdir(parents=True)
    (build_dir / "out").mkdir()
    for source in sources:
        shutil.copyfile(source.path, build_dir / "src" / source.path.name)


def cmd_generate(args: argparse.Namespace) -> int:
    """Entry point of the ``generate`` sub-command."""
    toolchain = find_toolchain(args.nvcc, args.ptxas, args.cccl)
    print(toolchain.describe())
    src_dir = Path(args.src_dir).resolve()
    out_dir = Path(args.out_dir).resolve()
    build_dir = Path(args.build_dir)
    if not build_dir.is_absolute():
        raise SystemExit("gen_corpus: --build-dir must be an absolute path (it ends up in the PTX)")
    sources = discover_sources(src_dir, args.only)
    jobs = [job for s in sources for job in s.jobs() if not args.archs or job.arch in args.archs]
    prepare_build_dir(build_dir, sources)
    out_dir.mkdir(parents=True, exist_ok=True)

    failures = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(compile_job, toolchain, job, build_dir, out_dir) for job in jobs]
        for future in concurrent.futures.as_completed(futures):
            job, error = future.result()
            if error is not None:
                failures += 1
                print(f"FAILED {job.output_name}:\n{error}", file=sys.stderr)

    if not args.only and not args.archs:
        expected = {job.output_name for job in jobs}
        for stale in sorted(out_dir.glob("*.ptx")):
            if stale.name not in expected:
                print(f"removing stale {stale.name}")
                stale.unlink()
    if not args.keep_build_dir:
        shutil.rmtree(build_dir, ignore_errors=True)

    total = 0
    for job in sorted(jobs, key=lambda j: j.output_name):
        path = out_dir / job.output_name
        if path.exists():
            size = path.stat().st_size
            total += size
            if args.verbose:
                print(f"{size:>9}  {job.output_name}")
    print(f"{len(jobs) - failures} files, {total} bytes in {out_dir}")
    return 1 if failures else 0


def ptx_target(path: Path) -> str | None:
    """Return the first architecture named in the file's ``.target`` directive."""
    text = path.read_text(encoding="utf-8", errors="replace")
    match = _TARGET_RE.search(text)
    if not match:
        return None
    directive = match.group(1).split("//", 1)[0]
    for token in directive.split(","):
        token = token.strip()
        if token.startswith(("sm_", "compute_")):
            return token
    return None


OLDEST_ASSEMBLED_SM = 75
"""ptxas 13 dropped targets before sm_75; older files are assembled for sm_75 instead."""


def assembly_arch(arch: str) -> str:
    """The ``-arch`` to assemble a file whose ``.target`` is ``arch`` with (see above).

    The same policy is used by the parser's canonical-emission test, so the rejects list and
    that test agree on which files ptxas accepts.
    """
    match = re.fullmatch(r"sm_(\d+)", arch)
    if match and int(match.group(1)) < OLDEST_ASSEMBLED_SM:
        return f"sm_{OLDEST_ASSEMBLED_SM}"
    return arch


def run_ptxas(toolchain: Toolchain, rel_path: str, corpus_dir: Path) -> tuple[str, str | None]:
    """Assemble one corpus file; return ``(rel_path, first error line or None)``."""
    arch = ptx_target(corpus_dir / rel_path)
    if arch is None:
        return rel_path, "no .target directive"
    cmd = [str(toolchain.ptxas), "-c", f"-arch={assembly_arch(arch)}", "-o", os.devnull, rel_path]
    proc = subprocess.run(
        cmd, cwd=corpus_dir, capture_output=True, text=True, env=_clean_env(), check=False
    )
    if proc.returncode == 0:
        return rel_path, None
    lines = [ln.strip() for ln in (proc.stderr + proc.stdout).splitlines() if ln.strip()]
    errors = [ln for ln in lines if "warning" not in ln.lower() and not ln.startswith("ptxas info")]
    first = (errors or lines or [f"ptxas exited with status {proc.returncode}"])[0]
    return rel_path, re.sub(r"\s+", " ", first)


def cmd_check(args: argparse.Namespace) -> int:
    """Entry point of the ``check`` sub-command."""
    toolchain = find_toolchain(args.nvcc, args.ptxas, args.cccl)
    print(toolchain.describe())
    corpus_dir = Path(args.corpus_dir).resolve()
    files = sorted(p.relative_to(corpus_dir).as_posix() for p in corpus_dir.rglob("*.ptx"))
    rejects: dict[str, str] = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for rel_path, error in pool.map(lambda f: run_ptxas(toolchain, f, corpus_dir), files):
            if error is not None:
                rejects[rel_path] = error
    lines = [f"{path} # {rejects[path]}" for path in sorted(rejects)]
    print(f"{len(files)} files checked, {len(rejects)} rejected by ptxas")
    for line in lines:
        print(f"  {line}")
    if args.write:
        Path(args.rejects_file).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        print(f"wrote {args.rejects_file}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """Create the command-line parser."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--nvcc", help="nvcc to use (default: newest from the nvidia wheels, else PATH)"
    )
    parser.add_argument("--ptxas", help="ptxas to use (default: next to nvcc, else PATH)")
    parser.add_argument("--cccl", help="CCCL include directory to pass with -isystem")
    parser.add_argument(
        "-j", "--jobs", type=int, default=os.cpu_count() or 4, help="parallel tool runs"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    gen = sub.add_parser("generate", help="compile generated/src/*.cu to PTX")
    gen.add_argument("--src-dir", default=str(SOURCE_DIR), help="directory of .cu sources")
    gen.add_argument("--out-dir", default=str(GENERATED_DIR), help="directory for the .ptx output")
    gen.add_argument(
        "--build-dir",
        default=str(DEFAULT_BUILD_DIR),
        help="fixed absolute staging directory; its path is recorded in -G output",
    )
    gen.add_argument("--only", nargs="+", metavar="STEM", help="build only these sources")
    gen.add_argument("--archs", nargs="+", metavar="ARCH", help="build only these architectures")
    gen.add_argument(
        "--keep-build-dir", action="store_true", help="leave the staging directory in place"
    )
    gen.add_argument("-v", "--verbose", action="store_true", help="list every output with its size")
    gen.set_defaults(func=cmd_generate)

    chk = sub.add_parser("check", help="run ptxas over the whole corpus and list rejects")
    chk.add_argument("--corpus-dir", default=str(CORPUS_DIR), help="corpus root (tests/corpus)")
    chk.add_argument(
        "--rejects-file", default=str(REJECTS_FILE), help="where --write puts the list"
    )
    chk.add_argument("--write", action="store_true", help="write the rejects file")
    chk.set_defaults(func=cmd_check)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments and run the chosen sub-command."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
