"""Collision-free Python names for the PTX names of one scope."""

from __future__ import annotations

import builtins

from ._literals import identifier

__all__ = ["RESERVED", "Namer"]

RESERVED = frozenset({"ptx", "reg", "module", "PtxModule", "range", "len", "print"})
"""Names generated code uses itself; no PTX name is given one of them."""


class Namer:
    """Gives each key (a PTX name and what it names) a distinct Python identifier.

    The same key always gets the same identifier; different keys never share one, and no
    identifier is in ``taken`` (names of the enclosing scope the code refers to).
    """

    def __init__(self, taken: frozenset[str] | set[str] = RESERVED) -> None:
        self.taken = set(taken)
        self.names: dict[object, str] = {}

    def name(self, key: object, ptx_name: str, preferred: str | None = None) -> str:
        """The identifier for ``key``, allocating one from ``preferred`` or ``ptx_name``."""
        found = self.names.get(key)
        if found is not None:
            return found
        stem = identifier(preferred or ptx_name)
        if hasattr(builtins, stem):
            stem += "_"
        name, i = stem, 2
        while name in self.taken:
            name = f"{stem}_{i}"
            i += 1
        self.taken.add(name)
        self.names[key] = name
        return name
