"""The parser's fast paths behind their one interface, :class:`~._cursor.FastPaths`.

:class:`Shortcuts` is what :func:`~._module.parse_module` puts on the cursor (unless told
not to); the general rules call it before doing their own work, and each of its methods
either builds exactly the tree the general rule would build or declines. Behind it:

* :mod:`._lines`: runs of whole lines, repeats looked up by their text;
* :mod:`._body_paths`: statements of function bodies (instructions, labels, ``.loc``,
  declarations, ``call``), whole lines and single statements;
* :mod:`._section_paths`: data lines of ``.section`` bodies;
* :mod:`._pieces`: single operands, cut from an operand segment at its commas;
* :mod:`._fast_declarations` and :mod:`._calls`: one-pattern declarations, parameters and
  ``call`` statements.

All caches live here, for one parse: nothing is shared between ``parse()`` calls.
"""

from __future__ import annotations

from pyptx.ir import BraceList, Expr, Instruction, Node, Operand, Param, Predicate, VectorOperand

from ._body_paths import BodyPaths
from ._build import new_immediate, new_vector
from ._cursor import MAX_DEPTH, Cursor
from ._fast_declarations import fast_param
from ._lexer import FAST_PARAM, NUMBER_LIST, VECTOR_BODY
from ._lines import LineRunner
from ._pieces import Pieces
from ._section_paths import SectionPaths


class Shortcuts:
    """The fast paths of one parse (implements :class:`~._cursor.FastPaths`).

    Attributes:
        pieces: single operands (:class:`~._pieces.Pieces`).
        bodies: statements of function bodies (:class:`~._body_paths.BodyPaths`).
        sections: data of ``.section`` bodies (:class:`~._section_paths.SectionPaths`).
        runner: the source's lines (:class:`~._lines.LineRunner`).
    """

    __slots__ = ("bodies", "cur", "pieces", "runner", "sections")

    def __init__(self, cur: Cursor) -> None:
        self.cur = cur
        self.pieces = Pieces(cur)
        self.bodies = BodyPaths(cur, self.pieces)
        self.sections = SectionPaths(cur, self.pieces)
        self.runner = LineRunner(cur.text)

    def body(self, items: list[Node]) -> None:
        """Append the function-body statements at the cursor that need no general rule."""
        b = self.bodies
        cur = self.cur
        cur.pos = self.runner.run(cur.pos, items, b.step, b.lines, b.statements, b.whole_line)

    def section(self, items: list[Node]) -> None:
        """Append the ``.section`` body items at the cursor that need no general rule."""
        s = self.sections
        cur = self.cur
        cur.pos = self.runner.run(cur.pos, items, s.step, s.lines, s.statements, s.whole_line)

    def remember(self, start: int, node: Node) -> None:
        """Offer a body statement the general rules parsed from ``start`` for repeats."""
        self.bodies.remember(start, node)

    def instruction(self, lead: str, word: str, predicate: Predicate | None) -> Instruction | None:
        """The instruction whose mnemonic ``word`` ends at the cursor, from its operands."""
        return self.bodies.instruction(lead, word, predicate)

    def vector(self, lead: str) -> VectorOperand | None:
        """A one-line ``{a, b, ...}`` operand of simple operands at the cursor."""
        cur = self.cur
        m = VECTOR_BODY.match(cur.text, cur.pos)
        if m is None:
            return None
        get = self.pieces.get
        items: list[Operand] = []
        gaps = [lead]
        for piece in m.group(1).split(","):
            hit = get(piece)
            if hit is None:
                return None
            items.append(hit[0])
            gaps.append(hit[1])
        cur.pos = m.end()
        return new_vector(tuple(items), tuple(gaps))

    def number_list(self, lead: str) -> BraceList | None:
        """``{1, 2, ...}`` of decimal integers and whitespace only, at the cursor."""
        cur = self.cur
        if cur.depth >= MAX_DEPTH:
            return None  # the general rule reports the depth
        m = NUMBER_LIST.match(cur.text, cur.pos)
        if m is None:
            return None
        items: list[Expr] = []
        gaps = [lead]
        cache = cur.immediates
        for piece in m.group(1).split(","):
            body = piece.lstrip(" \t\r\n")
            number = body.rstrip(" \t\r\n")
            if not number.isdigit():
                return None  # an empty item or two numbers without a comma
            item_lead = piece[: len(piece) - len(body)]
            key = item_lead + number
            imm = cache.get(key)
            if imm is None:
                imm = cache[key] = new_immediate(number, (item_lead,))
            items.append(imm)
            gaps.append(body[len(number) :])
        cur.pos = m.end()
        return BraceList(tuple(items), tuple(gaps))

    def param(self, lead: str) -> Param | None:
        """A simple parameter (qualifiers, name, at most one array size) at the cursor."""
        cur = self.cur
        m = FAST_PARAM.match(cur.text, cur.pos)
        if m is None:
            return None
        node = fast_param(lead, m.groups())
        if node is not None:
            cur.pos = m.end()
        return node
