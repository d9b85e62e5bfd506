"""pyptx.ir.ptxas: reading a ptxas release and "too old for this PTX" from its messages."""

from __future__ import annotations

import stat
from pathlib import Path

from pyptx.ir.ptxas import ptxas_release, too_old_reason, unsupported_version

UNSUPPORTED = (
    "ptxas /tmp/k.ptx, line 1; fatal   : Unsupported .version 9.5; current version is '9.0'\n"
)


def _fake_ptxas(tmp_path: Path, release: str) -> str:
    """A script that answers ``--version`` the way ptxas does."""
    path = tmp_path / f"ptxas-{release}"
    path.write_text(
        "#!/bin/sh\necho 'ptxas: NVIDIA (R) Ptx optimizing assembler'\n"
        f"echo 'Cuda compilation tools, release {release}, V{release}.1'\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_the_release_comes_from_version(tmp_path: Path) -> None:
    assert ptxas_release(_fake_ptxas(tmp_path, "13.0")) == (13, 0)
    assert ptxas_release(str(tmp_path / "missing")) is None


def test_an_unsupported_version_names_both_versions() -> None:
    assert unsupported_version(UNSUPPORTED) == ("9.5", "9.0")
    assert unsupported_version("error : Arguments mismatch for instruction 'mov'") is None


def test_why_a_rejection_says_nothing_about_the_ptx(tmp_path: Path) -> None:
    old, pinned = _fake_ptxas(tmp_path, "13.0"), _fake_ptxas(tmp_path, "13.5")
    bad_operand = "error : Arguments mismatch for instruction 'mov'"
    reason = too_old_reason(UNSUPPORTED, pinned, (13, 5))
    assert reason is not None and "needs a ptxas for PTX 9.5" in reason
    reason = too_old_reason(bad_operand, old, (13, 5))
    assert reason is not None and "ptxas 13.0" in reason and "need ptxas 13.5" in reason
    assert too_old_reason(bad_operand, pinned, (13, 5)) is None  # a real rejection
