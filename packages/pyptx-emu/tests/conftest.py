"""Hypothesis profiles for the emulator's property tests.

The default run is derandomized: the same examples every time, so a run never fails on a
draw no earlier run made. ``PYPTX_HYPOTHESIS=long`` draws fresh examples on every run, 20
times as many, for hunting bugs (repeat the run to explore more)::

    PYPTX_HYPOTHESIS=long python -m pytest packages/pyptx-emu/tests -k "not corpus"
"""

from __future__ import annotations

from hypothesis_profiles import load_hypothesis_profile

load_hypothesis_profile()
