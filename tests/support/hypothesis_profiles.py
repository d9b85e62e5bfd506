"""Hypothesis settings shared by every tests/ directory (on sys.path through pytest's
``pythonpath`` option in pyproject.toml).

Property tests are bounded and derandomized by default: the same examples every run, so CI
never fails on a draw no earlier run made. ``PYPTX_HYPOTHESIS=long`` draws fresh examples,
``LONG_FACTOR`` times as many, for hunting bugs (see docs/development.md).
"""

from __future__ import annotations

import os

LONG_RUN = os.environ.get("PYPTX_HYPOTHESIS", "") == "long"
LONG_FACTOR = 20


def examples(n: int) -> int:
    """A property test's example count: ``n``, or ``LONG_FACTOR * n`` in the long run."""
    return n * LONG_FACTOR if LONG_RUN else n


def load_hypothesis_profile() -> None:
    """Select the bounded (default) or long Hypothesis profile; a conftest.py calls this."""
    from hypothesis import settings

    settings.register_profile("pyptx", derandomize=True, deadline=None)
    settings.register_profile("pyptx-long", derandomize=False, deadline=None)
    settings.load_profile("pyptx-long" if LONG_RUN else "pyptx")
