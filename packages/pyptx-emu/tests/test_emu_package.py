"""Import-level contracts of the pyptx-emu distribution."""

from __future__ import annotations

import json
import subprocess
import sys

import pyptx.emu

# Frameworks and GPU bindings that importing pyptx.emu must not pull in.
FORBIDDEN_ROOTS = ("torch", "jax", "jaxlib", "cuda", "cupy")


def _modules_after_import(statement: str) -> list[str]:
    """Runs ``statement`` in a fresh interpreter and returns every module it left imported."""
    code = f"{statement}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    return list(json.loads(result.stdout.splitlines()[-1]))


def test_import_pulls_in_no_framework() -> None:
    loaded = _modules_after_import("import pyptx.emu")
    offenders = [m for m in loaded if m.split(".")[0] in FORBIDDEN_ROOTS]
    assert offenders == [], f"importing pyptx.emu imported {offenders}"


def test_all_names_exist() -> None:
    assert isinstance(pyptx.emu.__all__, list)
    missing = [name for name in pyptx.emu.__all__ if not hasattr(pyptx.emu, name)]
    assert missing == []


def test_semantics_are_registered_under_the_isa_tables_names() -> None:
    """The emulator is no second copy of the ISA: every semantics key is a spec name."""
    from pyptx.emu._registry import SEMANTICS
    from pyptx.ir.isa import SPECS

    assert set(SEMANTICS) - set(SPECS) == set()
    assert len(SEMANTICS) > 100
