"""Runs of whole lines that the one-line fast paths handle (function and section bodies).

Most lines of a body are exact repeats of an earlier line, and a repeated line yields the
same (immutable) node. :meth:`LineRunner.run` looks such lines up by their text in
a list of the source's lines, without matching any pattern, and hands every other line to a
*step*: a fast path that parses one statement at an offset, or gives up so that the general
rules take over.
"""

from __future__ import annotations

from collections.abc import Callable

from pyptx.ir import Node

Step = Callable[[int, int], "tuple[Node, int, bool] | None"]
"""``step(pos, stop)`` parses one statement at ``pos``: ``(node, end offset, whether the node
may stand for every later occurrence of its text)``, or ``None`` when the fast path does not
apply there. ``stop`` is where the line that starts at ``pos`` ends, or -1 when ``pos`` is
not at a line break; a statement ending there was looked up by its line already (see
:meth:`LineRunner.run`), any other one the step looks up itself."""


class LineRunner:
    """The source's lines, and runs of statements over them (:meth:`run`)."""

    __slots__ = ("lines", "mark", "text")

    def __init__(self, text: str) -> None:
        """Split ``text`` (the cursor's, with its NUL sentinels) into its lines."""
        self.text = text
        # The source's lines; lines[i] follows the i-th line break. The NUL line after the
        # last one is never cached, so a run of cached lines always stops there.
        self.lines = text[:-2].split("\n")
        self.lines.append("\0")
        # A line break's offset and the index of the line after it, to count from.
        self.mark = (-1, 0)

    def run(
        self,
        pos: int,
        items: list[Node],
        step: Step,
        lines_cache: dict[str, Node],
        cache: dict[str, Node],
        whole: Callable[[str], Node | None] | None = None,
    ) -> int:
        """Append the nodes of the statements at ``pos`` that need no general rule.

        Lines found in ``lines_cache`` (keyed by their text, without the line break before
        them) are taken from it; any other line goes to ``whole`` first (when given), which
        parses a whole line or returns ``None`` (and remembers what it may share itself),
        and any other statement to ``step``. A node that ``step`` allows to be shared is
        remembered: in ``lines_cache`` when its statement is exactly one whole line,
        otherwise in ``cache`` under its exact text. A whole line is never put in ``cache``,
        so a line missing from ``lines_cache`` is also missing there.
        Returns the offset where the general rules must take over.
        """
        t = self.text
        lines = self.lines
        get = lines_cache.get
        append = items.append
        mark, i = self.mark
        while True:
            if t[pos] != "\n":
                hit = step(pos, -1)
                if hit is None:
                    break
                append(hit[0])
                end = hit[1]
                if hit[2]:
                    cache[t[pos:end]] = hit[0]
                pos = end
                continue
            if pos != mark:
                if pos < mark:
                    mark, i = -1, 0
                i += t.count("\n", mark + 1, pos + 1)
                mark = pos
            # Whole lines: repeats from lines_cache, new ones from whole.
            line = lines[i]
            node: Node | None = get(line)
            while True:
                if node is None:
                    if whole is None:
                        break
                    node = whole(line)
                    if node is None:
                        break
                append(node)
                pos += len(line) + 1
                i += 1
                line = lines[i]
                node = get(line)
            mark = pos
            stop = pos + 1 + len(line)
            hit = step(pos, stop)
            if hit is None:
                break
            new, end, share = hit
            append(new)
            if end == stop:
                if share:
                    lines_cache[line] = new
                mark = end
                i += 1
            elif share:
                cache[t[pos:end]] = new
            pos = end
        self.mark = (mark, i)
        return pos
