"""The table of PTX targets (``.target`` strings) and the PTX version each one needs.

``sm_XX`` targets come in three flavours: the baseline (``sm_90``), the architecture-specific
``a`` form (``sm_90a``: features that run only on that exact chip, e.g. ``wgmma``), and the
family-specific ``f`` form (``sm_100f``: features shared by a family of chips). Besides
architectures, ``.target`` accepts platform options (``texmode_unified``, ``debug``, ...).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

__all__ = [
    "TARGETS",
    "TARGET_OPTIONS",
    "TargetInfo",
    "TargetVariant",
    "lookup_target",
    "min_ptx_version",
]


class TargetVariant(enum.Enum):
    """Which flavour of an ``sm_XX`` target a string names."""

    BASE = ""
    ARCH_SPECIFIC = "a"
    FAMILY_SPECIFIC = "f"


@dataclass(frozen=True, slots=True)
class TargetInfo:
    """One row of :data:`TARGETS`.

    Attributes:
        name: the ``.target`` spelling, e.g. ``"sm_90a"``.
        sm: the compute capability times ten plus minor, e.g. ``90`` for ``sm_90a``.
        variant: base, ``a`` or ``f``.
        min_ptx: lowest PTX ISA version (major, minor) that accepts this target.
    """

    name: str
    sm: int
    variant: TargetVariant
    min_ptx: tuple[int, int]

    @property
    def family(self) -> int:
        """The major architecture generation, e.g. ``10`` for ``sm_100a`` and ``sm_103f``."""
        return self.sm // 10


# (sm, min PTX for base, for "a", for "f"); None where that flavour does not exist.
_ROWS: tuple[
    tuple[int, tuple[int, int] | None, tuple[int, int] | None, tuple[int, int] | None], ...
]
_ROWS = (
    (10, (1, 0), None, None),
    (11, (1, 0), None, None),
    (12, (1, 2), None, None),
    (13, (1, 2), None, None),
    (20, (2, 0), None, None),
    (21, (2, 0), None, None),
    (30, (3, 0), None, None),
    (32, (4, 0), None, None),
    (35, (3, 1), None, None),
    (37, (4, 1), None, None),
    (50, (4, 0), None, None),
    (52, (4, 1), None, None),
    (53, (4, 2), None, None),
    (60, (5, 0), None, None),
    (61, (5, 0), None, None),
    (62, (5, 0), None, None),
    (70, (6, 0), None, None),
    (72, (6, 1), None, None),
    (75, (6, 3), None, None),
    (80, (7, 0), None, None),
    (86, (7, 1), None, None),
    (87, (7, 4), None, None),
    (88, (9, 0), None, None),
    (89, (7, 8), None, None),
    (90, (7, 8), (8, 0), None),
    (100, (8, 6), (8, 6), (8, 8)),
    (101, (8, 6), (8, 6), (8, 8)),
    (103, (8, 8), (8, 8), (8, 8)),
    (110, (9, 0), (9, 0), (9, 0)),
    (120, (8, 7), (8, 7), (8, 8)),
    (121, (8, 8), (8, 8), (8, 8)),
)


def _build() -> dict[str, TargetInfo]:
    table: dict[str, TargetInfo] = {}
    for sm, base, arch, fam in _ROWS:
        for variant, version in (
            (TargetVariant.BASE, base),
            (TargetVariant.ARCH_SPECIFIC, arch),
            (TargetVariant.FAMILY_SPECIFIC, fam),
        ):
            if version is not None:
                name = f"sm_{sm}{variant.value}"
                table[name] = TargetInfo(name, sm, variant, version)
    return table


TARGETS: dict[str, TargetInfo] = _build()
"""Every ``sm_XX[a|f]`` target PTX knows, by spelling."""

TARGET_OPTIONS: frozenset[str] = frozenset(
    {"texmode_unified", "texmode_independent", "debug", "map_f64_to_f32"}
)
"""Platform options that may appear in a ``.target`` list besides architectures."""

_SM_RE = re.compile(r"sm_(\d+)([af]?)\Z")


def lookup_target(name: str) -> TargetInfo | None:
    """Return the :class:`TargetInfo` for ``name`` (e.g. ``"sm_90a"``), or ``None``.

    Args:
        name: a ``.target`` architecture string.

    Returns:
        The table row, or ``None`` for platform options and unknown names.
    """
    return TARGETS.get(name)


def min_ptx_version(name: str) -> tuple[int, int]:
    """Return the lowest PTX ISA version that accepts target ``name``.

    Args:
        name: a ``.target`` architecture string such as ``"sm_100a"``.

    Returns:
        ``(major, minor)``.

    Raises:
        ValueError: ``name`` is not a known ``sm_XX`` target; the message lists the nearest
            spellings.
    """
    info = TARGETS.get(name)
    if info is None:
        m = _SM_RE.match(name)
        hint = ""
        if m:
            near = sorted(t for t in TARGETS if t.startswith(f"sm_{m.group(1)}"))
            hint = f"; known forms of sm_{m.group(1)}: {', '.join(near)}" if near else ""
        raise ValueError(f"unknown PTX target {name!r}{hint}")
    return info.min_ptx
