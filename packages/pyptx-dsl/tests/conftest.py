"""Shared helpers for the DSL tests: assemble with ptxas, and read back emitted lines."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest
from codegen_testing import skip_if_ptxas_too_old
from hypothesis_profiles import load_hypothesis_profile

from pyptx.dsl.tools import find_tool

load_hypothesis_profile()


@pytest.fixture(scope="session")
def ptxas() -> str:
    """Path of ptxas (the nvidia-cuda-nvcc wheel's first); skips the test if there is none."""
    path = find_tool("ptxas")
    if path is None:
        pytest.skip("no ptxas: pip install nvidia-cuda-nvcc")
    return path


@pytest.fixture
def assemble(ptxas: str):  # type: ignore[no-untyped-def]
    """``assemble(ptx_text)``: run ptxas for the module's own .target; fail with its message."""

    def run(text: str) -> None:
        arch = next(
            ln.split()[1].rstrip(",") for ln in text.splitlines() if ln.startswith(".target")
        )
        with tempfile.TemporaryDirectory() as d:
            src = Path(d) / "k.ptx"
            src.write_text(text)
            proc = subprocess.run(
                [ptxas, f"-arch={arch}", "-o", str(Path(d) / "k.cubin"), str(src)],
                capture_output=True,
                text=True,
            )
        if proc.returncode != 0:
            skip_if_ptxas_too_old(proc.stderr, ptxas)
        assert proc.returncode == 0, f"ptxas -arch={arch} rejected:\n{proc.stderr}\n{text}"

    return run
