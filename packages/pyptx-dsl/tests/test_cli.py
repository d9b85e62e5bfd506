"""The ``pyptx`` command line."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pyptx.cli import main

KERNELS = textwrap.dedent(
    """
    from pyptx import kernel, reg, ptx
    from pyptx.types import u32

    @kernel(arch="sm_80")
    def first(*, step=1):
        t = reg.from_(ptx.special.tid.x(), u32)
        ptx.inst.add.u32(t, t, step)

    @kernel(arch="sm_90a")
    def second():
        ptx.inst.bar.sync(0)
    """
)


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "kernels.py"
    path.write_text(KERNELS)
    return path


def test_ptx_prints_every_kernel(source: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ptx", str(source)]) == 0
    out = capsys.readouterr().out
    assert ".visible .entry first()" in out and ".visible .entry second()" in out


def test_ptx_one_kernel_with_template_value_and_check(
    source: Path, capsys: pytest.CaptureFixture[str], ptxas: str
) -> None:
    assert main(["ptx", str(source), "--kernel", "first", "-D", "step=7", "--check"]) == 0
    out = capsys.readouterr().out
    assert "add.u32 %r0, %r0, 7;" in out
    assert "// ptxas -arch=sm_80: first assembles" in out
    assert "second" not in out


def test_unknown_kernel_and_missing_file(source: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ptx", str(source), "--kernel", "third"]) == 2
    assert "no @kernel named 'third'" in capsys.readouterr().err
    assert main(["ptx", str(source.with_name("missing.py"))]) == 2


def test_parse_subcommand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ptx_file = tmp_path / "k.ptx"
    ptx_file.write_text(".version 8.0\n.target sm_80\n.entry k()\n{\n\tret;\n}\n")
    assert main(["parse", str(ptx_file)]) == 0
    assert "round trip: byte-identical" in capsys.readouterr().out
