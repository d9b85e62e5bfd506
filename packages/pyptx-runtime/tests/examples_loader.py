"""Load a kernel from the repository's examples/dsl (the runtime tests call a few of them)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from pyptx import Kernel

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "dsl"


def example(name: str) -> Kernel:
    """The one kernel of ``examples/dsl/<name>.py`` (skips when the examples are absent)."""
    path = EXAMPLES / f"{name}.py"
    if not path.exists():
        pytest.skip(f"examples/dsl/{name}.py is not in this checkout")
    spec = importlib.util.spec_from_file_location(f"runtime_example_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    (found,) = [v for v in vars(module).values() if isinstance(v, Kernel)]
    return found
