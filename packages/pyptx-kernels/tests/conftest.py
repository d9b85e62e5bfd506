"""Shared fixtures of the pyptx-kernels tests: ptxas, the emulator settings, each kernel's checks.

The helpers themselves (numpy references per family, the tables, a small real kernel for
testing the machinery) are in ``kernels_testing.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from pyptx.kernels import Implementation
from pyptx.kernels._catalog import KernelCheck, check_kernel, trace_example
from pyptx.kernels._ptxas import find_ptxas, version


@pytest.fixture(scope="session", autouse=True)
def _emulator_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """For the whole session: cubins go to a temporary directory (never ~/.cache), and every
    emulated launch runs the shared-memory race checker (a race raises DataRace)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYPTX_CACHE_DIR", str(tmp_path_factory.mktemp("pyptx-cache")))
        mp.setenv("PYPTX_EMU_CHECK_RACES", "1")
        yield


@pytest.fixture(scope="session")
def ptxas() -> str:
    """The ptxas executable (the nvidia-cuda-nvcc wheel's first); skips without one."""
    path = find_ptxas()
    if path is None:
        pytest.skip("no ptxas: pip install nvidia-cuda-nvcc")
    return path


@pytest.fixture(scope="session")
def ptxas_version(ptxas: str) -> str:
    """The release of :func:`ptxas` ("13.5.37")."""
    return version(ptxas)


@pytest.fixture(scope="session")
def example_ptx() -> Callable[[Implementation], str]:
    """``example_ptx(impl)``: its PTX at the example configuration (traced once a session)."""
    found: dict[str, str] = {}

    def get(impl: Implementation) -> str:
        if impl.name not in found:
            found[impl.name] = trace_example(impl)[1]
        return found[impl.name]

    return get


@pytest.fixture(scope="session")
def kernel_check(ptxas: str) -> Callable[[Implementation], KernelCheck]:
    """``kernel_check(impl)``: its ptxas -v figures and verdict (checked once a session)."""
    found: dict[str, KernelCheck] = {}

    def get(impl: Implementation) -> KernelCheck:
        if impl.name not in found:
            found[impl.name] = check_kernel(impl, ptxas)
        return found[impl.name]

    return get
