"""The fast paths of ``.section`` bodies (DWARF debug data).

:class:`SectionPaths` recognises the data lines of a section with simple values, as
:func:`~._directives.section_data` would build them: whole lines in nvcc's layout
(:meth:`SectionPaths.whole_line`), other one-line data directives, and the directives that
the transpiler's generated code packs several to a line (:meth:`SectionPaths.step`).
"""

from __future__ import annotations

import re
from typing import Any

from pyptx.ir import Immediate, Node, PtxType, SectionData, Symbol

from ._build import new_section_data
from ._cursor import Cursor
from ._lexer import FAST_SECTION_DATA, PACKED_SECTION_DATA
from ._pieces import Pieces

_SECTION_TYPES = {t.value: t for t in PtxType}
# The same by the directive word (``.b8``), for the whole-line path.
_SECTION_HEADS = {"." + t.value: t for t in PtxType}
_SIMPLE_VALUES = (Immediate, Symbol)


class SectionPaths:
    """The fast paths of section bodies, with the caches of what they built.

    Attributes:
        lines: data lines by their text (without the line break before them).
        statements: other data directives by their exact text (lead included).
    """

    __slots__ = ("cur", "lines", "pieces", "statements")

    def __init__(self, cur: Cursor, pieces: Pieces) -> None:
        self.cur = cur
        self.pieces = pieces
        self.lines: dict[str, Node] = {}
        self.statements: dict[str, Node] = {}

    def whole_line(self, line: str) -> SectionData | None:
        """The cheapest fast path of section bodies: a line ``.<type> <values>``.

        That is how nvcc writes DWARF data (at the start of the line, one space), which
        string methods split faster than a pattern does. Gives the node
        :meth:`step` gives for the line (remembered for its repeats), or ``None``
        for any other line.
        """
        k = line.find(" ")
        ty = _SECTION_HEADS.get(line[:k]) if k > 0 else None
        if ty is None or " ." in line:  # not a line of one directive (see step)
            return None
        values = []
        gaps = ["\n"]
        pieces = self.pieces
        cache = pieces.cache
        for piece in line[k:].split(","):
            hit = cache.get(piece) or pieces.new(piece)
            if hit is None or not isinstance(hit[0], _SIMPLE_VALUES):
                return None
            values.append(hit[0])
            gaps.append(hit[1])
        data = new_section_data(ty, tuple(values), tuple(gaps))
        self.lines[line] = data
        return data

    def step(self, pos: int, stop: int) -> tuple[Node, int, bool] | None:
        """The fast path of section bodies at ``pos`` (a :data:`~._lines.Step`)."""
        m = FAST_SECTION_DATA.match(self.cur.text, pos)
        if m is None:
            return None
        values = m.group(3)
        if " ." in values or "\t." in values:  # more directives follow on this line
            m = PACKED_SECTION_DATA.match(self.cur.text, pos)  # the first of them
            if m is None:
                return None
        return self._from_match(m, m.end() != stop)

    def _from_match(self, m: re.Match[str], look_up: bool) -> tuple[Node, int, bool] | None:
        """The node of a matched directive, remembered or new.

        The node remembered for the directive's text is looked up only when ``look_up``;
        a new node may be shared (the third item of the result).
        """
        end = m.end()
        if look_up:
            item = self.statements.get(m.group())
            if item is not None:
                return item, end, False
        data = self._section_data(m.groups())
        if data is None:
            return None
        return data, end, True

    def _section_data(self, groups: tuple[Any, ...]) -> SectionData | None:
        """Build a data directive of simple values, or return ``None``.

        ``groups``: the lead, the type word, the values, and what follows the last value up
        to the directive's end (a comment, or the spaces before the next directive) or
        ``None``.
        """
        lead, name, segment, comment = groups
        ty = _SECTION_TYPES.get(name)
        if ty is None:
            return None
        gaps = [lead]
        values = []
        pieces = self.pieces
        cache = pieces.cache
        for piece in segment.split(","):
            hit = cache.get(piece) or pieces.new(piece)
            if hit is None or not isinstance(hit[0], _SIMPLE_VALUES):
                return None
            values.append(hit[0])
            gaps.append(hit[1])
        if comment:
            gaps[-1] += comment
        return new_section_data(ty, tuple(values), tuple(gaps))
