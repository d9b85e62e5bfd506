"""Kernels of this module (filled in by the family's implementation)."""

from __future__ import annotations

from .._registry import Implementation

IMPLEMENTATIONS: tuple[Implementation, ...] = ()
