"""Device-side printf (vprintf) and assert (__assertfail) in nvcc's output."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pyptx.emu import EmuError, launch

PTX = (Path(__file__).parent / "data" / "syscalls" / "printf_assert.ptx").read_text()
PRINT = "_Z12print_valuesPKfix"
CHECK = "_Z14check_positivePKi"


def test_printf_prints_one_line_per_thread_in_thread_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    x = np.array([0.0, 1.5, -2.25, 7.0], dtype=np.float32)
    launch(PTX, PRINT, grid=1, block=4, args=[x, 3, 1 << 40])
    expected = "".join(
        f"tid {i} x={x[i]:.2f} big={1 << 40} hex={i * 255:x} str=ok |{i:5d}|{chr(65 + i):<3}|\n"
        for i in range(3)
    )
    assert capsys.readouterr().out == expected


def test_printf_over_several_ctas_keeps_cta_order(capsys: pytest.CaptureFixture[str]) -> None:
    x = np.zeros(2, dtype=np.float32)
    launch(PTX, PRINT, grid=3, block=2, args=[x, 2, -5])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[1] for line in lines] == ["0", "1"] * 3
    assert all("big=-5" in line for line in lines)


def test_a_failed_assert_raises_with_its_message() -> None:
    values = np.array([3, 1, 0, 5], dtype=np.int32)
    with pytest.raises(EmuError) as info:
        launch(PTX, CHECK, grid=1, block=4, args=[values])
    err = info.value
    assert "device-side assertion failed: v > 0" in str(err)
    assert "printf_assert.cu" in str(err)
    assert err.tid == (2, 0, 0)


def test_a_passing_assert_is_silent() -> None:
    launch(PTX, CHECK, grid=1, block=4, args=[np.arange(1, 5, dtype=np.int32)])
