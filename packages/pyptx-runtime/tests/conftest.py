"""Every runtime test caches cubins and shim builds under one temporary directory per run,
never in the user's ~/.cache (tests that need their own cache set PYPTX_CACHE_DIR again)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    previous = os.environ.get("PYPTX_CACHE_DIR")
    os.environ["PYPTX_CACHE_DIR"] = str(tmp_path_factory.mktemp("pyptx-cache"))
    yield
    if previous is None:
        del os.environ["PYPTX_CACHE_DIR"]
    else:
        os.environ["PYPTX_CACHE_DIR"] = previous
