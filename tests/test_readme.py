"""The README's code blocks that run without a GPU do what they say."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _python_blocks() -> list[str]:
    text = (REPO / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_the_emulator_example_runs() -> None:
    blocks = [b for b in _python_blocks() if "pyptx.emu" in b]
    assert len(blocks) == 1, "the README shows one emulator example"
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        namespace: dict[str, object] = {}
        exec(compile(blocks[0], "README.md", "exec"), namespace)
    finally:
        os.chdir(cwd)
    stats = namespace["stats"]
    assert getattr(stats, "warp_instructions", 0) > 0


def test_the_launch_example_runs() -> None:
    """The "Writing a kernel" block defines ``double``; the launch block calls it."""
    blocks = _python_blocks()
    (define,) = [b for b in blocks if "from pyptx import Tile" in b]
    (call,) = [b for b in blocks if "double(x)" in b]
    namespace: dict[str, object] = {}
    exec(compile(define, "README.md", "exec"), namespace)
    exec(compile(call, "README.md", "exec"), namespace)
    y = namespace["y"]
    assert getattr(y, "shape", None) == (1024,)


@pytest.mark.parametrize("needle", ["from pyptx.parser import parse", "from pyptx import Tile"])
def test_the_other_examples_are_still_there(needle: str) -> None:
    assert any(needle in b for b in _python_blocks())


def test_the_kernel_library_example_runs() -> None:
    (block,) = [b for b in _python_blocks() if "pyptx.kernels" in b]
    namespace: dict[str, object] = {}
    exec(compile(block, "README.md", "exec"), namespace)
    import numpy as np

    x, w = namespace["x"], namespace["w"]
    assert isinstance(x, np.ndarray) and isinstance(w, np.ndarray)
    ref = x / np.sqrt((x.astype(np.float64) ** 2).mean(axis=1, keepdims=True) + 1e-6) * w
    for name in ("y", "y80"):
        np.testing.assert_allclose(namespace[name], ref, rtol=1e-5, atol=1e-6)
