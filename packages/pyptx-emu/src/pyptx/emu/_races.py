"""Shared-memory race checking (``launch(..., check_races=True)``)."""

from __future__ import annotations

from typing import Any

from ._errors import NotEmulated

__all__ = ["RaceChecker"]


class RaceChecker:
    """Placeholder until the checker lands."""

    @staticmethod
    def attach(machine: Any) -> None:
        """Attach a checker to ``machine``."""
        raise NotEmulated("check_races")
