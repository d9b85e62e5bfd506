"""Hypothesis profiles for the parser's property tests (``PYPTX_HYPOTHESIS=long``: long run)."""

from __future__ import annotations

from hypothesis_profiles import load_hypothesis_profile

load_hypothesis_profile()
