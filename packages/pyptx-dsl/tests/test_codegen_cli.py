"""``python -m pyptx.codegen`` and ``pyptx transpile``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from codegen_testing import REPO, read_exact

VECTOR_ADD = REPO / "examples" / "ptx" / "vector_add.ptx"
MULTI = REPO / "tests" / "corpus" / "generated" / "linkage_sm_90a_O3.ptx"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize(
    "order",
    [
        ["-m", "pyptx.codegen", "{in}", "--name", "my_kernel", "-o", "{out}"],
        ["-m", "pyptx.codegen", "-o", "{out}", "--name", "my_kernel", "{in}"],
        ["-m", "pyptx.codegen", "--name=my_kernel", "{in}", "--output={out}"],
        ["-m", "pyptx", "transpile", "--name", "my_kernel", "-o", "{out}", "{in}"],
        ["-m", "pyptx", "transpile", "{in}", "-o", "{out}", "--name", "my_kernel"],
    ],
)
def test_flags_work_in_any_order(order: list[str], tmp_path: Path) -> None:
    out = tmp_path / "gen.py"
    args = [a.replace("{in}", str(VECTOR_ADD)).replace("{out}", str(out)) for a in order]
    proc = run(*args)
    assert proc.returncode == 0, proc.stderr
    check = run(
        "-c",
        "import sys; from gen import my_kernel; sys.stdout.write(my_kernel.ptx())",
        cwd=tmp_path,
    )
    assert check.stdout == read_exact(VECTOR_ADD)


def test_sugar_output_runs_as_a_script(tmp_path: Path) -> None:
    out = tmp_path / "k.py"
    proc = run("-m", "pyptx.codegen", "--sugar", str(VECTOR_ADD), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    script = run(str(out))
    assert script.returncode == 0, script.stderr
    assert script.stdout.count("\n") == read_exact(VECTOR_ADD).count("\n")


def test_stdout_when_no_output_file() -> None:
    proc = run("-m", "pyptx.codegen", str(VECTOR_ADD))
    assert proc.returncode == 0 and "@module.entry(" in proc.stdout


def test_plain_name_on_a_multi_kernel_file_is_an_error() -> None:
    proc = run("-m", "pyptx.codegen", str(MULTI), "--name", "k")
    assert proc.returncode == 2
    assert "map each one with --name OLD=NEW" in proc.stderr


def test_mapped_names_apply_to_multi_kernel_files(tmp_path: Path) -> None:
    from pyptx.parser import parse

    kernels = [k.name for k in parse(read_exact(MULTI)).kernels]
    out = tmp_path / "multi.py"
    maps = [a for i, k in enumerate(kernels) for a in ("--name", f"{k}=kernel_{i}")]
    proc = run("-m", "pyptx.codegen", str(MULTI), *maps, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert all(f"def kernel_{i}(" in text for i in range(len(kernels)))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.ptx"], "no such file"),
        (["{in}", "--name", "nope=x"], "no kernel named 'nope'"),
        (["{in}", "--name", "not an identifier"], "cannot name a kernel"),
        (["{in}", "--name", "module"], "cannot name a kernel"),
    ],
)
def test_bad_input_exits_2(args: list[str], message: str) -> None:
    proc = run("-m", "pyptx.codegen", *[a.replace("{in}", str(VECTOR_ADD)) for a in args])
    assert proc.returncode == 2
    assert message in proc.stderr


def test_malformed_ptx_reports_file_line_col(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ptx"
    bad.write_text(".version 8.0\n.target sm_90a\n.entry k()\n{\n\tret\n}\n")
    proc = run("-m", "pyptx.codegen", str(bad))
    assert proc.returncode == 2
    assert "bad.ptx:6:1" in proc.stderr and "^" in proc.stderr


def test_crlf_files_round_trip_through_the_command_line(tmp_path: Path) -> None:
    crlf = tmp_path / "crlf.ptx"
    crlf.write_bytes(VECTOR_ADD.read_bytes().replace(b"\n", b"\r\n"))
    out = tmp_path / "crlf_port.py"
    assert run("-m", "pyptx.codegen", str(crlf), "-o", str(out)).returncode == 0
    script = subprocess.run([sys.executable, str(out)], capture_output=True, check=True)
    assert script.stdout == crlf.read_bytes()
