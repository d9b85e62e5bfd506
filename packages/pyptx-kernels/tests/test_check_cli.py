"""``python -m pyptx.kernels check``: the table, the verdicts and the exit status.

Run in process over fake table entries (a small real kernel, and one that does not trace), and
once as a subprocess for the module's entry point.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from typing import Any

import kernels_testing as kt
import pytest

from pyptx.kernels import __main__ as cli
from pyptx.kernels import _catalog
from pyptx.kernels._ptxas import PtxasUsage


def _broken(**config: Any) -> Any:
    raise ValueError("the example asks for 3 stages, the smem fits 2")


GOOD_80 = kt.fake_swiglu("sm_80")
GOOD_90 = kt.fake_swiglu("sm_90a")
BROKEN = dataclasses.replace(kt.fake_swiglu("sm_100a", name="fake.broken"), build=_broken)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(["check", *argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.usefixtures("ptxas")
def test_all_ok_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    with kt.only([GOOD_80, GOOD_90]):
        status, out, err = run(capsys)
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("ptxas ")
    assert lines[1].split() == [
        "name", "family", "arch", "PTX", "lines", "registers", "spills", "st/ld", "smem", "status"
    ]  # fmt: skip
    row = lines[2].split()
    assert row[:3] == ["fake.swiglu_sm_80", "swiglu", "sm_80"]
    assert int(row[3]) > 20 and 0 < int(row[4]) < 32
    assert row[5:] == ["0/0", "0+0", "OK"]
    assert lines[3].split()[:3] == ["fake.swiglu_sm_90a", "swiglu", "sm_90a"]
    assert lines[4] == "2 kernels, 0 failed"


@pytest.mark.usefixtures("ptxas")
def test_a_fail_exits_1_and_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    with kt.only([GOOD_80, BROKEN]):
        status, out, _ = run(capsys)
    assert status == 1
    lines = out.splitlines()
    assert lines[3].split() == ["fake.broken", "swiglu", "sm_100a", "-", "-", "-", "-", "FAIL"]
    assert lines[4] == (
        "FAIL fake.broken: does not trace: ValueError: the example asks for 3 stages, the smem "
        "fits 2"
    )
    assert lines[5] == "2 kernels, 1 failed"


def test_an_undocumented_spill_is_a_fail(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    usage = PtxasUsage(registers=255, spill_stores=32, spill_loads=32, stack=64, smem=1024)
    monkeypatch.setattr(_catalog, "assemble_verbose", lambda *args: usage)
    monkeypatch.setattr(cli, "find_ptxas", lambda: "ptxas")
    monkeypatch.setattr(cli, "version", lambda path: "13.5.37")
    with kt.only([GOOD_90]):
        status, out, _ = run(capsys)
    assert status == 1
    assert out.splitlines()[2].split()[4:] == ["255", "32/32", "1024+0", "FAIL"]
    assert "FAIL fake.swiglu_sm_90a: spills 64 bytes (stores + loads), none documented" in out


@pytest.mark.usefixtures("ptxas")
def test_arch_filters(capsys: pytest.CaptureFixture[str]) -> None:
    with kt.only([GOOD_80, GOOD_90, BROKEN]):
        status, out, _ = run(capsys, "--arch", "sm_90a")
    assert status == 0
    assert [ln.split()[0] for ln in out.splitlines()[2:-1]] == ["fake.swiglu_sm_90a"]
    assert out.splitlines()[-1] == "1 kernel for sm_90a, 0 failed"


def test_an_unknown_arch_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "--arch", "sm_75")
    assert (status, out) == (2, "")
    assert err == "error: unknown arch 'sm_75'; use one of sm_80, sm_90a, sm_100a\n"


def test_no_ptxas_exits_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli, "find_ptxas", lambda: None)
    monkeypatch.delenv("PYPTX_PTXAS", raising=False)
    status, out, err = run(capsys)
    assert (status, out) == (2, "")
    assert err.startswith("error: check needs ptxas;") and err.count("\n") == 1


def test_a_bad_ptxas_override_exits_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.setenv("PYPTX_PTXAS", str(tmp_path / "nowhere"))
    status, _, err = run(capsys)
    assert status == 2
    assert err == f"error: PYPTX_PTXAS is '{tmp_path / 'nowhere'}', which is not an executable\n"


def test_the_module_runs() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pyptx.kernels", "check", "--arch", "sm_75"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error: unknown arch 'sm_75'")
