"""Every command-line error is one message, exit status 2, and no traceback.

The commands: ``pyptx ptx|parse|transpile`` (``python -m pyptx``), ``python -m pyptx.parser``
and ``python -m pyptx.codegen``. Where there is a place to show, the message starts with
``FILE:LINE[:COL]`` and shows the line (with a caret under the column).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

KERNEL = """from pyptx import Tile, kernel, ptx, reg
from pyptx.types import f32


@kernel(in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),), arch="sm_80")
def copy(x, y, *, SCALE=1):
    v = reg.scalar(f32)
    ptx.ld(v, ptx.addr(x.ptr()), space="global")
    ptx.st(ptx.addr(y.ptr()), v, space="global")
"""

PTX_COMMANDS = [
    ["-m", "pyptx", "parse"],
    ["-m", "pyptx", "transpile"],
    ["-m", "pyptx.parser"],
    ["-m", "pyptx.codegen"],
]


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env={**os.environ, **(env or {})}
    )


def assert_one_error(proc: subprocess.CompletedProcess[str], *expected: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    for text in expected:
        assert text in proc.stderr, proc.stderr


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "k.py").write_text(KERNEL)
    (tmp_path / "bad_import.py").write_text("x = 1\nimport pyptx_no_such_module\n")
    (tmp_path / "bad_syntax.py").write_text("x = 1\ndef f(:\n    pass\n")
    (tmp_path / "raises.py").write_text("def f():\n    raise RuntimeError('boom')\n\n\nf()\n")
    (tmp_path / "binary.ptx").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00")
    (tmp_path / "latin1.ptx").write_bytes(b".version 8.0\n// caf\xe9\n")
    return tmp_path


@pytest.mark.parametrize("command", PTX_COMMANDS, ids=" ".join)
def test_a_missing_file(command: list[str], files: Path) -> None:
    assert_one_error(run(*command, str(files / "missing.ptx")), "missing.ptx: no such file")


@pytest.mark.parametrize("command", PTX_COMMANDS, ids=" ".join)
def test_a_directory(command: list[str], files: Path) -> None:
    assert_one_error(run(*command, str(files)), "is a directory")


@pytest.mark.parametrize("command", PTX_COMMANDS, ids=" ".join)
def test_a_binary_file(command: list[str], files: Path) -> None:
    proc = run(*command, str(files / "binary.ptx"))
    assert_one_error(proc, "binary.ptx:1:8: a NUL byte: this is not a PTX text file", "^")


@pytest.mark.parametrize("command", PTX_COMMANDS, ids=" ".join)
def test_a_file_that_is_not_utf8(command: list[str], files: Path) -> None:
    proc = run(*command, str(files / "latin1.ptx"))
    assert_one_error(proc, "latin1.ptx:2:7: byte 0xe9 is not UTF-8", "// caf?", "^")


def test_ptx_on_a_missing_file_or_a_directory(files: Path) -> None:
    assert_one_error(run("-m", "pyptx", "ptx", str(files / "nope.py")), "nope.py: no such file")
    assert_one_error(run("-m", "pyptx", "ptx", str(files)), "is a directory")


def test_ptx_on_a_file_with_a_syntax_error(files: Path) -> None:
    proc = run("-m", "pyptx", "ptx", str(files / "bad_syntax.py"))
    assert_one_error(proc, "bad_syntax.py:2:7: SyntaxError", "def f(:", "      ^")


def test_ptx_on_a_file_whose_import_fails(files: Path) -> None:
    proc = run("-m", "pyptx", "ptx", str(files / "bad_import.py"))
    assert_one_error(proc, "bad_import.py:2: ModuleNotFoundError", "import pyptx_no_such_module")


def test_ptx_on_a_file_that_raises_deeper_down(files: Path) -> None:
    proc = run("-m", "pyptx", "ptx", str(files / "raises.py"))
    assert_one_error(proc, "raises.py:2: RuntimeError: boom", "raise RuntimeError('boom')")


@pytest.mark.parametrize(
    ("define", "message"),
    [
        ("N=x", "-D N=x: N is a dimension of kernel copy and needs an integer"),
        (
            "Q=3",
            "-D Q=3: kernel copy has no template parameter or dimension Q (it takes: N, SCALE)",
        ),
        ("N", "-D N: write -D KEY=VALUE"),
    ],
)
def test_ptx_with_a_bad_define(files: Path, define: str, message: str) -> None:
    proc = run("-m", "pyptx", "ptx", str(files / "k.py"), "-D", define)
    assert_one_error(proc, f"pyptx ptx: {message}")
    assert "runpy" not in proc.stderr and "cli.py" not in proc.stderr


def test_ptx_check_without_ptxas(files: Path) -> None:
    proc = run(
        "-m", "pyptx", "ptx", str(files / "k.py"), "-D", "N=64", "--check",
        env={"PYPTX_PTXAS": str(files / "no-ptxas")},
    )  # fmt: skip
    assert_one_error(proc, "--check assembles with ptxas, which is not available")


def test_transpile_to_an_unwritable_output(files: Path) -> None:
    ptx = files / "ok.ptx"
    ptx.write_text(".version 8.0\n.target sm_90a\n.address_size 64\n")
    proc = run("-m", "pyptx", "transpile", str(ptx), "-o", str(files))
    assert_one_error(proc, f"{files}: cannot write")
