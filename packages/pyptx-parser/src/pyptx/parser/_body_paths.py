"""The fast paths of function bodies (the parser's hottest code).

:class:`BodyPaths` recognises the statements of a function body that need none of the general
rules of :mod:`._statements`: whole lines in the layouts compilers write
(:meth:`BodyPaths.whole_line`, split with string methods), single statements at an offset
(:meth:`BodyPaths.step`, by patterns), and the operands of an instruction whose mnemonic the
general rule has read (:meth:`BodyPaths.instruction`). Every path builds exactly the tree the
general rules build; the test suite parses the corpus both ways and compares.
"""

from __future__ import annotations

from typing import Any

from pyptx.ir import (
    SPECIAL_REGISTERS,
    Instruction,
    Label,
    Loc,
    Node,
    Operand,
    Pragma,
    Predicate,
    StateSpace,
    VariableDecl,
)

from ._build import (
    new_instruction,
    new_label,
    new_loc,
    new_predicate,
    new_register,
    new_special_register,
)
from ._calls import fast_call
from ._cursor import Cursor
from ._expressions import bare_name
from ._fast_declarations import fast_declaration
from ._lexer import (
    CALL_STATEMENT,
    CALL_TOKENS,
    FAST_DECLARATION,
    FAST_STATEMENT,
    INSTRUCTION_HEAD,
    LABEL_LINE,
    LOC_LINE,
    OPERAND_SEGMENT,
    SEGMENT_PIECES,
    SIMPLE_INSTRUCTION,
)
from ._pieces import Pieces

_Head = tuple[str, tuple[str, ...], str, Predicate | None, int] | tuple[()]
"""What :meth:`BodyPaths.whole_line` knows of a head: opcode, modifiers, the gap before the
mnemonic, the guard, and the length of the gap after it; or ``()`` for a head it leaves to
the other paths."""

# Statements whose tree depends only on their own text (given no bare identifiers).
_CONTEXT_FREE = (Instruction, VariableDecl, Loc, Pragma)


class BodyPaths:
    """The fast paths of function bodies, with the caches of what they built.

    Attributes:
        lines: statements that fill one whole line, by the line's text (without the line
            break before it); nodes are immutable values, so identical lines share one.
        statements: other statements by their exact text (lead and trailing included).
        mnemonics: mnemonics split into opcode and modifiers.
        heads: heads of instruction lines, by their text (see :meth:`whole_line`).
    """

    __slots__ = ("cur", "heads", "lines", "mnemonics", "names", "pieces", "statements")

    def __init__(self, cur: Cursor, pieces: Pieces) -> None:
        self.cur = cur
        self.names = cur.names
        self.pieces = pieces
        self.lines: dict[str, Node] = {}
        self.statements: dict[str, Node] = {}
        self.mnemonics: dict[str, tuple[str, tuple[str, ...]]] = {}
        self.heads: dict[str, _Head] = {}

    def instruction(self, lead: str, word: str, predicate: Predicate | None) -> Instruction | None:
        """The instruction whose mnemonic ``word`` ends at the cursor, or ``None``.

        Built when its operands up to the ``;`` are simple pieces (see
        :data:`~._lexer.OPERAND_SEGMENT`); ``None`` leaves the cursor where it was.
        """
        cur = self.cur
        m = OPERAND_SEGMENT.match(cur.text, cur.pos)
        if m is None:
            return None
        split = self.mnemonics.get(word)
        if split is None:
            opcode, *mods = word.split(".")
            split = self.mnemonics[word] = (opcode, tuple(mods))
        opcode = split[0]
        if opcode == "call":
            return None
        segment = m.group(1)
        start = cur.pos
        cur.pos = m.end()
        trail = cur.trailing()
        if not segment or segment.isspace():
            return new_instruction(opcode, split[1], (), predicate, (lead, segment, trail), None)
        insn = self._simple_instruction(opcode, split[1], predicate, lead, segment, trail)
        if insn is None:
            cur.pos = start
        return insn

    def remember(self, start: int, node: Node) -> None:
        """Remember a statement the general rules parsed from ``start``, for repeats of it.

        Only one whole line whose meaning does not depend on the function around it is kept.
        """
        text = self.cur.text
        end = self.cur.pos
        if text[start] != "\n" or text.find("\n", start + 1, end) >= 0:
            return
        if not isinstance(node, _CONTEXT_FREE):
            return
        if (
            isinstance(node, VariableDecl)
            and StateSpace.REG in node.qualifiers
            and any(not d.name.startswith("%") for d in node.declarators)
        ):
            return  # declares bare register names: it changes how later lines read
        if text[end] in "\n\0":
            self.lines[text[start + 1 : end]] = node
        else:
            self.statements[text[start:end]] = node

    def whole_line(self, line: str) -> Node | None:
        """The cheapest fast path: a whole line in nvcc's layout of an instruction.

        Labels and ``.loc`` lines go to :meth:`_label_line` and :meth:`_loc_line`. The layout
        of an unguarded instruction is ``<indentation><mnemonic> <tab><simple operands>;``,
        which string methods split faster than a pattern does; any other line gives
        ``None``. The head before the operands is checked once per distinct text against
        the rules of :data:`SIMPLE_INSTRUCTION`, and every operand piece is one the piece
        rules accept, so the node is the one :meth:`step` builds (and, when it
        may be shared, it is remembered for repeats of the line the same way).
        """
        end = line[-1:]
        if end != ";":
            if end == ":":
                return self._label_line(line)
            if line.startswith("\t.loc\t"):
                return self._loc_line(line)
            return None
        k = line.find("\t", 1)
        if k < 0:
            # No tab after the indentation (as Triton writes): the gap after the mnemonic
            # starts with a space.
            k = line.find(" ", len(line) - len(line.lstrip(" \t")))
            if k < 0:
                return None
        head = self.heads.get(line[: k + 1])
        if head is None:
            head = self._new_head(line[: k + 1])
        if not head or k + 2 == len(line):
            return None  # another path, or no operands
        opcode, mods, lead, predicate, sep = head
        # The operand segment as SIMPLE_INSTRUCTION cuts it: from the gap after the mnemonic.
        seen = self.names.bare_names_seen
        node = self._simple_instruction(opcode, mods, predicate, lead, line[k + 1 - sep : -1], "")
        if node is not None and self.names.bare_names_seen == seen:
            self.lines[line] = node
        return node

    def _label_line(self, line: str) -> Label | None:
        """``name:`` alone on its line (see :meth:`whole_line`), as FAST_STATEMENT reads it."""
        name = line[:-1]
        # [A-Za-z_$][A-Za-z0-9_$]* is an ASCII identifier once '$' reads as '_'.
        if not (name.isascii() and name.replace("$", "_").isidentifier()):
            return None
        self.names.labels.add(name)
        return new_label(name, ("\n", "", ""))

    def _loc_line(self, line: str) -> Loc | None:
        """``<tab>.loc<tab>F L C`` in nvcc's layout (see :meth:`whole_line`).

        Built as LOC_LINE reads it, and remembered for repeats of the line.
        """
        numbers = line[6:].split(" ")
        if len(numbers) != 3:
            return None
        f, ln, column = numbers
        if not (f.isdigit() and ln.isdigit() and column.isdigit() and line.isascii()):
            return None
        loc = new_loc(int(f), int(ln), int(column), (), ("\n\t", "\t", " ", " ", ""))
        self.lines[line] = loc
        return loc

    def _new_head(self, text: str) -> _Head:
        """Check the head of a line for :meth:`whole_line`, and remember it."""
        m = INSTRUCTION_HEAD.fullmatch(text)
        head: _Head = ()
        if m is not None:
            indent, pg1, bang, pg2, pred_name, mlead, word, sep = m.groups()
            opcode, *mods = word.split(".")
            if opcode != "call" and "" not in mods:
                lead = "\n" + indent
                predicate = None
                if pred_name is not None:  # a %register: the guard needs no context
                    predicate, lead = self._guard(lead, pg1, bang, pg2, pred_name, mlead)
                head = (opcode, tuple(mods), lead, predicate, len(sep))
        self.heads[text] = head
        return head

    def step(self, pos: int, stop: int) -> tuple[Node, int, bool] | None:
        """The fast paths of function bodies at ``pos`` (a :data:`~._lines.Step`)."""
        t = self.cur.text
        seen = self.names.bare_names_seen
        m = SIMPLE_INSTRUCTION.match(t, pos)
        if m is not None:
            end = m.end()
            if end != stop:
                node = self.statements.get(m.group())
                if node is not None:
                    return node, end, False
            lead, word, segment, trail = m.groups()
            insn = self.fast_instruction(lead, word, segment, trail)
            if insn is None:
                return None
            return insn, end, self.names.bare_names_seen == seen
        # Lines SIMPLE_INSTRUCTION leaves, by their first character (after one tab).
        c = t[pos + 1]
        if c == "\t":
            c = t[pos + 2]
            if c == "{" or c == "}":
                return None  # a block: the general rules
            if c == ".":
                # A directive: of FAST_STATEMENT's cases only a .loc can start so.
                if t.startswith(".loc", pos + 2):
                    m = LOC_LINE.match(t, pos)
                    if m is not None:
                        lead, g1, f, g2, line, g3, column, trail = m.groups()
                        node = new_loc(
                            int(f), int(line), int(column), (), (lead, g1, g2, g3, trail)
                        )
                        return node, m.end(), True
                return self._declaration_step(pos)
        elif c == "$" or c == "\n":
            m = LABEL_LINE.match(t, pos)
            if m is not None:
                lead, name, gap, trail = m.groups()
                self.names.labels.add(name)
                return new_label(name, (lead, gap, trail)), m.end(), False
        m = FAST_STATEMENT.match(t, pos)
        if m is None:
            return self._call_step(pos) or self._declaration_step(pos)
        end = m.end()
        if end != stop:
            node = self.statements.get(m.group())
            if node is not None:
                return node, end, False
        node = self.fast_statement(m.groups())
        if node is None:
            return None
        return node, end, self.names.bare_names_seen == seen and not isinstance(node, Label)

    def _call_step(self, pos: int) -> tuple[Node, int, bool] | None:
        """The :data:`CALL_STATEMENT` fast path at ``pos`` (see :meth:`step`)."""
        m = CALL_STATEMENT.match(self.cur.text, pos)
        if m is None:
            return None
        lead, word, segment, trail = m.groups()
        insn = fast_call(self.cur, lead, word, CALL_TOKENS.findall(segment), trail)
        if insn is None:
            return None
        return insn, m.end(), False

    def _declaration_step(self, pos: int) -> tuple[Node, int, bool] | None:
        """The :data:`FAST_DECLARATION` fast path at ``pos`` (see :meth:`step`)."""
        m = FAST_DECLARATION.match(self.cur.text, pos)
        if m is None:
            return None
        decl = fast_declaration(m.groups())
        if decl is None:
            return None
        d = decl.declarators[0]
        if d.name.startswith("%") or StateSpace.REG not in decl.qualifiers:
            return decl, m.end(), True
        # declares a bare register name: it changes how later lines read
        if d.range_count is None:
            self.names.bare_regs.add(d.name)
        else:
            self.names.reg_ranges[d.name] = d.range_count
        return decl, m.end(), False

    def fast_statement(self, groups: tuple[Any, ...]) -> Node | None:
        """Build the node for a :data:`FAST_STATEMENT` match, or ``None`` to use the rules.

        Produces exactly the tree the general rules produce for the same text. A node whose
        meaning does not depend on the surrounding function (no label, no bare identifier:
        see :attr:`bare_names_seen`) may stand for every repeat of its text.
        """
        (
            lead,
            pg1,
            bang,
            pg2,
            pred_name,
            mlead,
            word,
            segment,
            label,
            lgap,
            lg1,
            lf,
            lg2,
            ll,
            lg3,
            lc,
            trail,
        ) = groups
        if word is None:
            if label is not None:
                self.names.labels.add(label)
                return new_label(label, (lead, lgap, trail))
            return new_loc(int(lf), int(ll), int(lc), (), (lead, lg1, lg2, lg3, trail))
        if pred_name is None:
            return self.fast_instruction(lead, word, segment, trail)
        guard = (pg1, bang, pg2, pred_name, mlead)
        return self.fast_instruction(lead, word, segment, trail, guard)

    def fast_instruction(
        self,
        lead: str,
        word: str,
        segment: str,
        trail: str,
        guard: tuple[str, str, str, str, str] | None = None,
    ) -> Instruction | None:
        """Build an instruction from the groups of :data:`FAST_STATEMENT`, or return ``None``.

        ``guard`` holds the predicate's groups (gap after ``@``, ``!``, gap, name, gap before
        the mnemonic) when there is one. See :meth:`fast_statement`.
        """
        split = self.mnemonics.get(word)
        if split is None:
            opcode, *mods = word.split(".")
            if "" in mods:
                return None  # not a mnemonic (see SIMPLE_INSTRUCTION): the rules report it
            split = (opcode, tuple(mods))
            self.mnemonics[word] = split
        opcode = split[0]
        if opcode == "call":
            return None
        predicate = None
        if guard is not None:
            predicate, lead = self._guard(lead, *guard)
        if not segment or segment.isspace():
            return new_instruction(opcode, split[1], (), predicate, (lead, segment, trail), None)
        return self._simple_instruction(opcode, split[1], predicate, lead, segment, trail)

    def _guard(
        self, lead: str, pg1: str, bang: str, pg2: str, name: str, mlead: str
    ) -> tuple[Predicate, str]:
        """The guard ``@[!]name`` from FAST_STATEMENT's groups, after ``lead``.

        Returns the predicate and the gap before the mnemonic, which starts the
        instruction's own trivia.
        """
        if bang:
            return new_predicate(self._pred_atom(name, pg2), True, (lead, pg1)), mlead
        return new_predicate(self._pred_atom(name, pg1 + pg2), False, (lead,)), mlead

    def _simple_instruction(
        self,
        opcode: str,
        mods: tuple[str, ...],
        predicate: Predicate | None,
        lead: str,
        segment: str,
        trail: str,
    ) -> Instruction | None:
        """The instruction of a non-empty operand segment of simple pieces.

        Each piece is cached or accepted by :meth:`~._pieces.Pieces.new`; otherwise ``None``
        (the general rules take the text).
        """
        if "{" in segment:
            pieces = SEGMENT_PIECES.findall(segment)
            if ",".join(pieces) != segment:
                return None  # an empty operand or stray brace: the general rules report it
        else:
            pieces = segment.split(",")
        operands: list[Operand] = []
        gaps = [lead]
        cache = self.pieces.cache
        new = self.pieces.new
        names = self.names
        names.opcode = opcode  # bare names in new pieces read it
        for piece in pieces:
            hit = cache.get(piece)
            if hit is None:
                hit = new(piece)
                if hit is None:
                    names.opcode = ""
                    return None
            operands.append(hit[0])
            gaps.append(hit[1])
        names.opcode = ""
        gaps.append(trail)
        return new_instruction(opcode, mods, tuple(operands), predicate, tuple(gaps), None)

    def _pred_atom(self, name: str, lead: str) -> Any:
        if name.startswith("%"):
            if name in SPECIAL_REGISTERS:
                return new_special_register(name, (lead,))
            return new_register(name, (lead,))
        self.names.opcode = ""
        return bare_name(self.cur, name, lead)
