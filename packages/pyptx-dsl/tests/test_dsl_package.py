"""Import-level contracts of the pyptx-dsl distribution."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# Frameworks and GPU bindings the DSL must never pull in at import time.
FORBIDDEN_ROOTS = ("torch", "jax", "jaxlib", "numpy", "cuda", "cupy")


def _modules_after_import(statement: str) -> list[str]:
    """Runs ``statement`` in a fresh interpreter and returns every module it left imported."""
    code = f"{statement}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    return list(json.loads(result.stdout.splitlines()[-1]))


@pytest.mark.parametrize("module", ["pyptx", "pyptx.dsl", "pyptx.codegen"])
def test_import_pulls_in_no_framework(module: str) -> None:
    loaded = _modules_after_import(f"import {module}")
    offenders = [m for m in loaded if m.split(".")[0] in FORBIDDEN_ROOTS]
    assert offenders == [], f"importing {module} imported {offenders}"


@pytest.mark.parametrize("module", ["pyptx", "pyptx.dsl", "pyptx.codegen"])
def test_import_never_reaches_the_runtime(module: str) -> None:
    loaded = _modules_after_import(f"import {module}")
    upward = [m for m in loaded if m.split(".")[:2] in (["pyptx", "runtime"], ["pyptx", "kernels"])]
    assert upward == [], f"importing {module} imported {upward}"


def test_top_level_all_names_exist() -> None:
    import importlib.util

    import pyptx

    assert isinstance(pyptx.__all__, list)
    has_runtime = importlib.util.find_spec("pyptx.runtime") is not None
    dsl_names = [name for name in pyptx.__all__ if name not in pyptx._RUNTIME]
    missing = [name for name in dsl_names if not hasattr(pyptx, name)]
    assert missing == []
    for name in pyptx._RUNTIME:
        if has_runtime:
            assert callable(getattr(pyptx, name))
        else:
            with pytest.raises(AttributeError, match="provided by pyptx-runtime"):
                getattr(pyptx, name)


def test_top_level_package_reaches_namespace_portions() -> None:
    """pyptx/__init__.py must not hide pyptx.ir and pyptx.parser installed elsewhere."""
    import pyptx
    import pyptx.emitter
    import pyptx.ir
    import pyptx.parser

    portions = {Path(p).resolve() for p in pyptx.__path__}
    for sub in (pyptx.ir, pyptx.parser, pyptx.emitter):
        assert sub.__file__ is not None
        assert Path(sub.__file__).resolve().parent.parent in portions, sub.__file__
