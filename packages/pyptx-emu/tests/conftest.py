"""Hypothesis profiles for the emulator's property tests.

The default run is derandomized: the same examples every time, so a run never fails on a
draw no earlier run made. ``PYPTX_EMU_FUZZ=1`` draws fresh examples on every run instead,
for hunting bugs (repeat the run to explore more)::

    PYPTX_EMU_FUZZ=1 python -m pytest packages/pyptx-emu/tests -k "not corpus"
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("emu", derandomize=True)
settings.register_profile("emu-fuzz", derandomize=False, deadline=None)
settings.load_profile("emu-fuzz" if os.environ.get("PYPTX_EMU_FUZZ") else "emu")
