"""What importing each layer pulls in, with all six distributions installed.

import-linter (`nox -s layers`) sees every import statement, including lazy ones inside
functions, and lists the few deliberate lazy upward imports in `ignore_imports`. These tests
check the other half of the rule: importing any module of a layer, at module level, never
imports a higher layer or a framework. Every submodule is imported, in a fresh interpreter per
layer, so a stray module-level import anywhere in the package is caught.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# Imports the given packages and, recursively, every submodule (except __main__ and the
# subpackages named in the first argument); prints the modules that this pulled in.
PROBE = """\
import importlib, json, pkgutil, sys
skip = set(json.loads(sys.argv[1]))

def load(name):
    module = importlib.import_module(name)
    for info in pkgutil.iter_modules(getattr(module, "__path__", []), name + "."):
        if info.name not in skip and info.name.rpartition(".")[2] != "__main__":
            load(info.name)

before = set(sys.modules)
for name in sys.argv[2:]:
    load(name)
print(json.dumps(sorted(set(sys.modules) - before)))
"""

FRAMEWORKS = ("torch", "jax", "jaxlib", "cuda", "cupy", "tensorflow")
# Subpackages of pyptx that other distributions provide; everything else belongs to pyptx-dsl.
NOT_DSL = (
    "pyptx.ir",
    "pyptx.parser",
    "pyptx.emitter",
    "pyptx.emu",
    "pyptx.runtime",
    "pyptx.kernels",
)


def _imported_by(*packages: str, skip: tuple[str, ...] = ()) -> list[str]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(skip), *packages],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return list(json.loads(result.stdout.splitlines()[-1]))


def _roots(modules: list[str]) -> set[str]:
    return {name.partition(".")[0] for name in modules}


def _layers(modules: list[str]) -> set[str]:
    return {".".join(name.split(".")[:2]) for name in modules if name.startswith("pyptx.")}


def test_ir_parser_emitter_import_only_the_standard_library() -> None:
    # With pyptx-dsl installed, importing pyptx.ir first runs pyptx/__init__.py (the DSL), so
    # this covers the DSL too: it must need nothing beyond pyptx-ir and pyptx-parser either.
    imported = _imported_by("pyptx.ir", "pyptx.parser", "pyptx.emitter")
    assert _roots(imported) - set(sys.stdlib_module_names) - {"pyptx"} == set()


def test_dsl_never_imports_runtime_kernels_emu_or_frameworks() -> None:
    imported = _imported_by("pyptx", skip=NOT_DSL)
    assert _layers(imported) & {"pyptx.runtime", "pyptx.kernels", "pyptx.emu"} == set()
    assert _roots(imported) & {*FRAMEWORKS, "numpy"} == set()


def test_emu_never_imports_runtime_kernels_or_frameworks() -> None:
    imported = _imported_by("pyptx.emu")
    assert _layers(imported) & {"pyptx.runtime", "pyptx.kernels"} == set()
    assert _roots(imported) & set(FRAMEWORKS) == set()


# Runtime modules that exist to bind one framework and import it at module level. The runtime
# imports each only once an array of that framework is passed to a kernel.
FRAMEWORK_BINDINGS = {"pyptx.runtime._torch": "torch", "pyptx.runtime._eager": "torch"}


@pytest.mark.parametrize("package", ["pyptx.runtime", "pyptx.kernels"])
def test_runtime_and_kernels_import_no_framework_eagerly(package: str) -> None:
    """torch and jax are optional extras; the CUDA bindings load on first use."""
    imported = _imported_by(package, skip=tuple(FRAMEWORK_BINDINGS))
    assert _roots(imported) & set(FRAMEWORKS) == set()


@pytest.mark.parametrize(("module", "framework"), sorted(FRAMEWORK_BINDINGS.items()))
def test_a_framework_binding_imports_only_its_framework(module: str, framework: str) -> None:
    pytest.importorskip(framework)
    roots = _roots(_imported_by(module))
    assert framework in roots
    assert roots & {"jax", "jaxlib", "tensorflow", "cupy"} - {framework} == set()
