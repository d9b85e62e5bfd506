"""The PTX of every kernel at its example configuration, kept in tests/snapshots/<name>.ptx.

A change to the DSL or to a kernel that changes its PTX shows up as a diff here; when it is
meant, ``PYPTX_UPDATE_KERNEL_TABLES=1`` rewrites the snapshots (and the ptxas table).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import kernels_testing as kt
import pytest

from pyptx.kernels import Implementation, _registry
from pyptx.kernels._catalog import trace_example

IMPLEMENTATIONS = _registry.implementations()
NAMES = [i.name for i in IMPLEMENTATIONS]


def test_tracing_is_deterministic() -> None:
    impl = kt.fake_swiglu()
    first = trace_example(impl)[1]
    assert first.startswith(".version") and ".target sm_80" in first
    assert trace_example(impl)[1] == first


def test_compare_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(kt.UPDATE_ENV, raising=False)
    ptx = trace_example(kt.fake_swiglu())[1]
    with pytest.raises(pytest.fail.Exception, match=r"(?s)no PTX snapshot fake\.k\.ptx .*UPDATE"):
        kt.compare_snapshot(tmp_path, "fake.k", ptx)
    monkeypatch.setenv(kt.UPDATE_ENV, "1")
    kt.compare_snapshot(tmp_path / "snaps", "fake.k", ptx)
    assert (tmp_path / "snaps" / "fake.k.ptx").read_text() == ptx
    monkeypatch.delenv(kt.UPDATE_ENV)
    kt.compare_snapshot(tmp_path / "snaps", "fake.k", ptx)
    edited = ptx.replace("ex2.approx", "ex2.approx.ftz")
    assert edited != ptx
    with pytest.raises(pytest.fail.Exception, match=r"(?s)changed:.*\+\s+ex2\.approx\.ftz"):
        kt.compare_snapshot(tmp_path / "snaps", "fake.k", edited)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS, ids=NAMES)
def test_kernel_ptx_matches_its_snapshot(
    impl: Implementation, example_ptx: Callable[[Implementation], str]
) -> None:
    kt.compare_snapshot(kt.SNAPSHOTS, impl.name, example_ptx(impl))


def test_snapshots_are_only_of_existing_kernels() -> None:
    files = {p.stem: p for p in kt.SNAPSHOTS.glob("*.ptx")}
    gone = kt.stale(list(files), NAMES)
    if gone and kt.updating():
        for name in gone:
            files[name].unlink()
        return
    assert gone == [], f"snapshots of kernels that no longer exist; regenerate with {kt.REGENERATE}"
