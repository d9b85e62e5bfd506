"""``pyptx.specs``: the seed system's module for the tile specifications.

``from pyptx.specs import Layout, Tile`` imports the same :class:`~pyptx.dsl.tile.Layout` and
:class:`~pyptx.dsl.tile.Tile` as ``from pyptx import Layout, Tile`` (the spelling to prefer).
"""

from __future__ import annotations

from .dsl.tile import Layout, Tile

__all__ = ["Layout", "Tile"]
