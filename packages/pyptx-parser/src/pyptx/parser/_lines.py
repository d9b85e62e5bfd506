"""Runs of whole lines that the one-line fast paths handle (function and section bodies).

Most lines of a body are exact repeats of an earlier line, and a repeated line yields the
same (immutable) node. :meth:`LineRunner.fast_lines` looks such lines up by their text in
a list of the source's lines, without matching any pattern, and hands every other line to a
*step*: a fast path that parses one statement at an offset, or gives up so that the general
rules take over.
"""

from __future__ import annotations

from collections.abc import Callable

from pyptx.ir import Node

from ._expressions import ExprParser

Step = Callable[[int], "tuple[Node, int, bool] | None"]
"""Parse one statement at an offset: ``(node, end offset, whether its line may be cached)``,
or ``None`` when the fast path does not apply there."""


class LineRunner(ExprParser):
    """Source lines and the line-keyed caches of the fast paths."""

    def __init__(self, text: str, filename: str, fast: bool = True) -> None:
        super().__init__(text, filename, fast)
        # The source's lines; lines[i] follows the i-th line break. The NUL line after the
        # last one is never cached, so a run of cached lines always stops there.
        self._lines = text.split("\n")
        self._lines.append("\0")
        # A line break's offset and the index of the line after it, to count from.
        self._mark = (-1, 0)

    def fast_lines(self, pos: int, items: list[Node], step: Step, cache: dict[str, Node]) -> int:
        """Append the nodes of the statements at ``pos`` that need no general rule.

        Lines found in ``cache`` (keyed by their text, without the line break before them)
        are taken from it; any other statement goes to ``step``, and a statement that
        ``step`` parses as exactly one whole line is added to ``cache`` when ``step``
        allows it. Returns the offset where the general rules must take over.
        """
        t = self.text
        lines = self._lines
        get = cache.get
        append = items.append
        mark, i = self._mark
        while True:
            if t[pos] != "\n":
                hit = step(pos)
                if hit is None:
                    break
                append(hit[0])
                pos = hit[1]
                continue
            if pos != mark:
                if pos < mark:
                    mark, i = -1, 0
                i += t.count("\n", mark + 1, pos + 1)
                mark = pos
            start = i
            node = get(lines[i])
            while node is not None:
                append(node)
                i += 1
                node = get(lines[i])
            if i != start:
                pos += i - start + sum(map(len, lines[start:i]))
                mark = pos
            hit = step(pos)
            if hit is None:
                break
            node, end, cacheable = hit
            append(node)
            line = lines[i]
            if end == pos + 1 + len(line):
                if cacheable:
                    cache[line] = node
                mark = end
                i += 1
            pos = end
        self._mark = (mark, i)
        return pos
