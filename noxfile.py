"""Development sessions for the pyptx monorepo.

`nox` runs the default sessions (tests of each light package, frameworks: the runtime, kernel
and cross-package tests in one virtualenv, lint, typecheck, layers);
`nox -l` lists everything; `nox -s NAME` runs one session (`nox -s "tests(parser)"` for one
package). Every session gets a fresh virtualenv (pass `-r` to reuse them).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path
from xml.etree import ElementTree

import nox

nox.needs_version = ">=2024.4.15"
# uv makes the many small installs much faster, but it is optional.
nox.options.default_venv_backend = "uv" if shutil.which("uv") else "venv"
nox.options.sessions = ["tests", "frameworks", "lint", "typecheck", "layers"]
nox.options.error_on_external_run = True

ROOT = Path(__file__).resolve().parent
PACKAGES_DIR = ROOT / "packages"

# Layer order, bottom first: a package may only depend on packages before it.
PACKAGES = (
    "pyptx-ir",
    "pyptx-parser",
    "pyptx-dsl",
    "pyptx-emu",
    "pyptx-runtime",
    "pyptx-kernels",
)
TEST_TOOLS = ("pytest>=8.0", "pytest-xdist>=3.5", "hypothesis>=6.100")
# pytest-xdist: one worker per core. `loadfile` keeps a test file on one worker, so a
# module-scoped fixture (a traced kernel, an emulated launch) is built once per run, not once
# per worker. `nox -- -n 0` (or any -n/--dist of your own) overrides it.
XDIST = ("-n", "auto", "--dist", "loadfile")
# ptxas for the offline assembly checks; tests locate it themselves. Only the nvcc wheel is
# needed (ptxas is a static binary), so its NVVM/CRT/runtime dependencies are not installed.
# Pinned to the release the corpus and the emulator's compiled kernels were generated with, so
# every run assembles with the same ptxas.
PTXAS_WHEEL = "nvidia-cuda-nvcc==13.5.*"
# (The frameworks session installs it for pyptx-runtime and pyptx-kernels.)
PACKAGES_NEEDING_PTXAS = frozenset({"pyptx-parser", "pyptx-dsl", "pyptx-emu"})
# nvdisasm, for Kernel.sass() (its test skips without it).
NVDISASM_WHEEL = "nvidia-cuda-nvdisasm==13.5.*"
# The frameworks pyptx-runtime's extras bring, for its tests and the cross-package tests.
# torch is pinned to the CPU build (an unpinned torch resolves to a multi-GB CUDA build).
FRAMEWORKS = ("torch==2.13.0", "jax>=0.6")
# These packages' tests and the cross-package tests share one virtualenv (`frameworks`): it
# holds all six packages and the frameworks, which take most of a session's install time.
FRAMEWORK_PACKAGES = ("pyptx-runtime", "pyptx-kernels")
OWN_VENV_PACKAGES = tuple(name for name in PACKAGES if name not in FRAMEWORK_PACKAGES)

RUFF = "ruff>=0.17,<0.18"
MYPY = "mypy>=2.4,<2.5"
IMPORT_LINTER = "import-linter>=2.1"
# lint-imports, after making pyptx.__spec__ list every portion that pyptx.__path__ lists.
_LINT_IMPORTS = (
    "import sys, pyptx; pyptx.__spec__.submodule_search_locations[:] = pyptx.__path__; "
    "from importlinter.cli import lint_imports_command; "
    "sys.argv[0] = 'lint-imports'; lint_imports_command()"
)
DOCS_TOOLS = ("mkdocs>=1.6", "mkdocs-material>=9.5", "mkdocstrings[python]>=0.26")


def _sibling_dependencies(package: str) -> list[str]:
    """Returns the pyptx-* distributions that ``package`` declares as dependencies."""
    project = nox.project.load_toml(PACKAGES_DIR / package / "pyproject.toml")["project"]
    names = []
    for requirement in project.get("dependencies", []):
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
        if match is None:
            raise ValueError(f"{package}: cannot read the requirement {requirement!r}")
        name = re.sub(r"[-_.]+", "-", match.group(1)).lower()
        if name.startswith("pyptx-"):
            if name not in PACKAGES:
                raise ValueError(f"{package} depends on {name}, which is not under packages/")
            names.append(name)
    return names


def _with_siblings(package: str) -> list[str]:
    """Returns ``package`` and every pyptx-* package it needs, in layer order."""
    needed = {package}
    pending = [package]
    while pending:
        for dependency in _sibling_dependencies(pending.pop()):
            if dependency not in needed:
                needed.add(dependency)
                pending.append(dependency)
    return [name for name in PACKAGES if name in needed]


def _install_local(
    session: nox.Session, packages: Iterable[str], *, deps: bool = True, pins: Iterable[str] = ()
) -> None:
    """Installs local packages editable, in one resolver run.

    Passing all of them to one `pip install` makes the resolver satisfy the sibling
    requirements (``pyptx-ir>=0.1,<0.2``...) from packages/, never from an index; ``pins``
    (exact versions of third-party dependencies, such as the ptxas wheel) join the same run.
    """
    args = [arg for name in packages for arg in ("-e", str(PACKAGES_DIR / name))]
    if not deps:
        args.insert(0, "--no-deps")
    session.install(*args, *pins)


def _test_dirs() -> list[str]:
    dirs = [PACKAGES_DIR / name / "tests" for name in PACKAGES] + [ROOT / "tests"]
    return [str(path.relative_to(ROOT)) for path in dirs if path.is_dir()]


def _pytest_args(session: nox.Session, target: str) -> list[str]:
    """pytest's arguments for one tests/ directory: xdist workers unless posargs choose."""
    own = ("-n", "--numprocesses", "--dist")
    chosen = any(a.startswith(own) for a in session.posargs)
    return [target, "-m", "not gpu", *(() if chosen else XDIST), *session.posargs]


@nox.session
@nox.parametrize(
    "package", OWN_VENV_PACKAGES, ids=[name.removeprefix("pyptx-") for name in OWN_VENV_PACKAGES]
)
def tests(session: nox.Session, package: str) -> None:
    """Run one package's tests with only that package and what it declares installed."""
    _install_local(session, _with_siblings(package))
    session.install(*TEST_TOOLS)
    if package in PACKAGES_NEEDING_PTXAS:
        session.install("--no-deps", PTXAS_WHEEL)
    if package == "pyptx-dsl":
        session.install("--no-deps", NVDISASM_WHEEL)
    session.run("pytest", *_pytest_args(session, f"packages/{package}/tests"))


@nox.session
def frameworks(session: nox.Session) -> None:
    """Run pyptx-runtime's, pyptx-kernels' and the cross-package tests in one virtualenv.

    All six packages editable with ptxas and the CPU builds of torch and JAX; one pytest per
    tests/ directory (their helper modules may share names). `nox -s frameworks -- ARGS`
    passes ARGS to each run.
    """
    _install_local(session, PACKAGES, pins=(PTXAS_WHEEL, *FRAMEWORKS))
    session.install(*TEST_TOOLS)
    for target in (*(f"packages/{name}/tests" for name in FRAMEWORK_PACKAGES), "tests"):
        session.run("pytest", *_pytest_args(session, target))


@nox.session
def lint(session: nox.Session) -> None:
    """Lint and check formatting of the whole repository with ruff."""
    session.install(RUFF)
    session.run("ruff", "check", *(session.posargs or ["."]))
    session.run("ruff", "format", "--check", *(session.posargs or ["."]))


@nox.session
def typecheck(session: nox.Session) -> None:
    """Type-check every package's src/ with mypy (strict for ir, parser/emitter and dsl)."""
    # Packages are found through mypy_path (pyproject.toml), not installed; numpy brings the
    # stubs the emulator needs.
    session.install(MYPY, "numpy>=1.24")
    session.run("mypy", *[f"packages/{name}/src" for name in PACKAGES], *session.posargs)


@nox.session
def layers(session: nox.Session) -> None:
    """Check the import-linter contracts (imports only go down the layers) on editable installs."""
    _install_local(session, PACKAGES, deps=False)
    session.install(IMPORT_LINTER)
    # Editable installs put each src/ on sys.path separately and pyptx-dsl's pyptx/ is a regular
    # package, so find_spec("pyptx"), which grimp uses, sees only pyptx-dsl's directory.
    # Importing pyptx runs its extend_path; copying __path__ into the spec shows grimp the rest.
    session.run("python", "-c", _LINT_IMPORTS, *session.posargs)


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """Run the benchmark scripts in benchmarks/ (not run by default)."""
    scripts = sorted((ROOT / "benchmarks").glob("*.py"))
    if not scripts:
        session.error("no benchmark scripts (benchmarks/*.py) to run")
    # torch/jax are not installed here: launch_overhead.py uses whatever the machine has
    # (on a GPU machine, install the CUDA builds first) and skips without a GPU.
    _install_local(
        session,
        ["pyptx-ir", "pyptx-parser", "pyptx-dsl", "pyptx-emu", "pyptx-runtime"],
        pins=(PTXAS_WHEEL,),
    )
    for script in scripts:
        session.run("python", str(script.relative_to(ROOT)), *session.posargs)


@nox.session(default=False)
def docs(session: nox.Session) -> None:
    """Build the documentation site with mkdocs --strict (not run by default)."""
    session.install(*DOCS_TOOLS)
    session.run("mkdocs", "build", "--strict", *session.posargs, env={"NO_MKDOCS_2_WARNING": "1"})


@nox.session(default=False)
def gpu(session: nox.Session) -> None:
    """Run the tests marked gpu on an NVIDIA GPU machine, sources on PYTHONPATH (not default)."""
    # pyptx-runtime's dependencies (with CUDA builds of the frameworks), the packages
    # themselves from PYTHONPATH. Without a package index use scripts/gpu_suite.sh instead.
    session.install(
        *TEST_TOOLS,
        "numpy>=1.24",
        "ml_dtypes>=0.4",
        "cuda-python>=12.8",
        "nvidia-nvjitlink>=13,<14",
        "nvidia-cuda-runtime>=13,<14",
        PTXAS_WHEEL,
        "torch>=2.6",
        "jax[cuda13]>=0.6",
    )
    src_dirs = [str(PACKAGES_DIR / name / "src") for name in PACKAGES]
    env = {"PYTHONPATH": os.pathsep.join(src_dirs)}
    reports = Path(session.create_tmp()) / "gpu-reports"
    shutil.rmtree(reports, ignore_errors=True)
    reports.mkdir()
    # One pytest process per tests/ directory, as in the other sessions (helper modules of
    # different directories may share a name). Exit code 5 = nothing marked gpu there.
    for index, test_dir in enumerate(_test_dirs()):
        session.run(
            "pytest",
            "-m",
            "gpu",
            f"--junitxml={reports / f'{index}.xml'}",
            test_dir,
            *session.posargs,
            env=env,
            success_codes=[0, 5],
        )
    ran = sum(
        len(ElementTree.parse(report).getroot().findall(".//testcase"))
        for report in reports.glob("*.xml")
    )
    if ran == 0:
        session.error("no tests marked gpu were collected; nothing was checked on the GPU")
