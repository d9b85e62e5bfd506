"""The `pyptx` namespace across installs, each in a fresh virtualenv with the real pip.

(a) pyptx-ir + pyptx-parser from wheels, alone: they work, pull in no third-party
    distribution and import nothing outside the standard library.
(b) all six distributions from wheels: every `pyptx.*` package imports from site-packages.
(c) all six editable (one src/ directory per distribution on sys.path): every `pyptx.*`
    package imports from packages/*/src.

Wheels are built with `pip wheel` (hatchling comes from the package index, as in any
isolated build); numpy, which pyptx-emu requires, is installed from the index for (b) and (c).
cuda-python is deliberately left out: importing pyptx.runtime must not need it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
PACKAGES_DIR = ROOT / "packages"
DISTRIBUTIONS = (
    "pyptx-ir",
    "pyptx-parser",
    "pyptx-dsl",
    "pyptx-emu",
    "pyptx-runtime",
    "pyptx-kernels",
)
# Import name -> the distribution whose src/ directory provides it.
PROVIDER = {
    "pyptx": "pyptx-dsl",
    "pyptx.ir": "pyptx-ir",
    "pyptx.parser": "pyptx-parser",
    "pyptx.emitter": "pyptx-parser",
    "pyptx.dsl": "pyptx-dsl",
    "pyptx.codegen": "pyptx-dsl",
    "pyptx.emu": "pyptx-emu",
    "pyptx.runtime": "pyptx-runtime",
    "pyptx.kernels": "pyptx-kernels",
}
PIP_ITSELF = {"pip", "setuptools", "wheel"}
NUMPY = "numpy>=1.24"

SNIPPET = """\
.version 8.0
.target sm_90
.address_size 64

// smallest useful kernel
.visible .entry noop(
\t.param .u64 noop_param_0
)
{
\tret;
}
"""

# Runs inside the fresh virtualenv; prints one JSON object.
IR_PARSER_PROBE = """\
import json, sys, sysconfig
from pathlib import Path

before = set(sys.modules)
from pyptx.parser import parse
from pyptx.emitter import emit
import pyptx, pyptx.ir

snippet = sys.argv[1]
module = parse(snippet, filename="snippet.ptx")
text = emit(module)
new_modules = set(sys.modules) - before
purelib = Path(sysconfig.get_paths()["purelib"]).resolve()
try:
    import pyptx.emu
    emu_importable = True
except ModuleNotFoundError:
    emu_importable = False
print(json.dumps({
    "round_trip": text == snippet,
    "is_ir_module": isinstance(module, pyptx.ir.Module),
    "foreign_modules": sorted(
        name for name in new_modules
        if name.partition(".")[0] not in sys.stdlib_module_names
        and name.partition(".")[0] != "pyptx"
    ),
    "namespace_file": getattr(pyptx, "__file__", None),
    "outside_site_packages": [
        m.__file__ for m in (pyptx.ir, sys.modules["pyptx.parser"], sys.modules["pyptx.emitter"])
        if not Path(m.__file__).resolve().is_relative_to(purelib)
    ],
    "emu_importable": emu_importable,
}))
"""

# Runs inside the fresh virtualenv; prints {module name: file} for every pyptx package.
IMPORT_ALL_PROBE = """\
import importlib, json, sys
names = sys.argv[1:]
modules = {name: importlib.import_module(name) for name in names}
print(json.dumps({
    "files": {name: module.__file__ for name, module in modules.items()},
    "pyptx_path": list(modules["pyptx"].__path__),
    "heavy": sorted(
        name for name in sys.modules
        if name.partition(".")[0] in {"torch", "jax", "jaxlib", "cuda", "cupy"}
    ),
}))
"""


def _clean_env() -> dict[str, str]:
    """The environment for child processes, minus anything that would leak our own packages."""
    env = dict(os.environ)
    for name in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP"):
        env.pop(name, None)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [str(arg) for arg in args],
        cwd=cwd,
        env=_clean_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        pytest.fail(
            f"command failed ({result.returncode}): {' '.join(map(str, args))}\n"
            f"--- stdout ---\n{result.stdout}\n--- stderr ---\n{result.stderr}"
        )
    return result


def _make_venv(path: Path) -> Path:
    """Creates a virtualenv with pip at ``path`` and returns its interpreter."""
    _run(sys.executable, "-m", "venv", path, cwd=path.parent)
    return path / "bin" / "python"


def _pip(python: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return _run(python, "-I", "-m", "pip", *args, cwd=python.parents[2])


def _probe(python: Path, script: str, *args: str) -> dict[str, object]:
    # -I: no PYTHONPATH, no user site, no current directory on sys.path.
    result = _run(python, "-I", "-c", script, *args, cwd=python.parents[2])
    return dict(json.loads(result.stdout.splitlines()[-1]))


def _distributions(python: Path) -> set[str]:
    listing = json.loads(_pip(python, "list", "--format=json").stdout)
    return {entry["name"].lower().replace("_", "-") for entry in listing}


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Wheels of all six distributions, built by pip in a throwaway virtualenv."""
    work = tmp_path_factory.mktemp("wheelhouse")
    builder = _make_venv(work / "builder")
    dist = work / "dist"
    _pip(
        builder,
        "wheel",
        "--no-deps",
        "--wheel-dir",
        dist,
        *(PACKAGES_DIR / d for d in DISTRIBUTIONS),
    )
    built = sorted(path.name for path in dist.glob("*.whl"))
    assert len(built) == len(DISTRIBUTIONS), built
    return dist


def test_ir_and_parser_alone_need_only_the_standard_library(
    wheelhouse: Path, tmp_path: Path
) -> None:
    python = _make_venv(tmp_path / "venv")
    _pip(python, "install", "--no-index", "--find-links", wheelhouse, "pyptx-ir", "pyptx-parser")

    assert _distributions(python) - PIP_ITSELF == {"pyptx-ir", "pyptx-parser"}

    report = _probe(python, IR_PARSER_PROBE, SNIPPET)
    assert report["round_trip"] is True
    assert report["is_ir_module"] is True
    assert report["foreign_modules"] == []
    assert report["namespace_file"] is None, "pyptx must be a namespace package here"
    assert report["outside_site_packages"] == []
    assert report["emu_importable"] is False

    # The command-line entry point works from the installed wheel too.
    example = ROOT / "examples" / "ptx" / "vector_add.ptx"
    result = _run(python, "-I", "-m", "pyptx.parser", example, cwd=tmp_path)
    assert "vector_add" in result.stdout
    assert "sm_80" in result.stdout


def test_all_six_from_wheels_share_one_namespace(wheelhouse: Path, tmp_path: Path) -> None:
    python = _make_venv(tmp_path / "venv")
    _pip(python, "install", "--no-index", "--find-links", wheelhouse, "--no-deps", *DISTRIBUTIONS)
    _pip(python, "install", NUMPY)
    assert set(DISTRIBUTIONS) <= _distributions(python)

    report = _probe(python, IMPORT_ALL_PROBE, *PROVIDER)
    files = report["files"]
    assert isinstance(files, dict)
    purelib = _purelib(python)
    for name in PROVIDER:
        expected = purelib.joinpath(*name.split("."), "__init__.py")
        assert Path(files[name]).resolve() == expected, name
    pyptx_path = report["pyptx_path"]
    assert isinstance(pyptx_path, list)
    assert [Path(p).resolve() for p in pyptx_path] == [purelib / "pyptx"]
    assert report["heavy"] == []


def test_all_six_editable_import_from_their_src_directories(tmp_path: Path) -> None:
    python = _make_venv(tmp_path / "venv")
    editable = [arg for d in DISTRIBUTIONS for arg in ("-e", str(PACKAGES_DIR / d))]
    _pip(python, "install", "--no-deps", *editable)
    _pip(python, "install", NUMPY)
    assert set(DISTRIBUTIONS) <= _distributions(python)

    report = _probe(python, IMPORT_ALL_PROBE, *PROVIDER)
    files = report["files"]
    assert isinstance(files, dict)
    for name, distribution in PROVIDER.items():
        src = PACKAGES_DIR / distribution / "src"
        expected = src.joinpath(*name.split("."), "__init__.py")
        assert Path(files[name]).resolve() == expected.resolve(), name
    pyptx_path = report["pyptx_path"]
    assert isinstance(pyptx_path, list)
    portions = {Path(p).resolve() for p in pyptx_path}
    assert portions == {(PACKAGES_DIR / d / "src" / "pyptx").resolve() for d in DISTRIBUTIONS}
    assert report["heavy"] == []


def _purelib(python: Path) -> Path:
    result = _run(
        python,
        "-I",
        "-c",
        "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        cwd=python.parents[2],
    )
    return Path(result.stdout.strip()).resolve()
