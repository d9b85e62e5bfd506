"""Directive rules: module header, debug info, sections, pragmas, labels and name lists.

Every rule records the trivia before each of its own tokens in the order the emitter
writes them back (see :mod:`pyptx.ir.node`), so ``emit(parse(s)) == s``.
"""

from __future__ import annotations

from typing import Any

from pyptx.ir import (
    AddressSize,
    Alias,
    BranchTargets,
    CallTargets,
    File,
    Immediate,
    Label,
    Loc,
    LocFunctionName,
    LocInlinedAt,
    Node,
    Pragma,
    PtxType,
    Section,
    SectionData,
    StringLiteral,
    Symbol,
    Target,
    Version,
)

from ._lexer import (
    DIRECTIVE,
    FAST_SECTION_DATA,
    IDENT,
    LABEL,
    NUMBER,
    VERSION,
)
from ._lines import LineRunner
from ._nodes import new_label, new_section_data

_SECTION_TYPES = {t.value: t for t in PtxType}
# The same by the directive word (``.b8``), for the whole-line path.
_SECTION_HEADS = {"." + t.value: t for t in PtxType}
_SIMPLE_VALUES = (Immediate, Symbol)


class DirectiveParser(LineRunner):
    """The directive rules of :class:`~._parser.Parser` (one module per concern)."""

    def version(self, lead: str) -> Version:
        g = self.ws()
        m = VERSION.match(self.text, self.pos)
        if not m:
            self.expected("a version number like 8.7 after .version")
        self.pos = m.end()
        return Version(int(m.group(1)), int(m.group(2)), (lead, g, self.trailing()))

    def target(self, lead: str) -> Target:
        gaps = [lead, self.ws()]
        names = [self.ident("a target name such as sm_90a")]
        while True:
            p0 = self.pos
            g = self.ws()
            if self.text[self.pos] != ",":
                self.pos = p0
                break
            self.pos += 1
            gaps += (g, self.ws())
            names.append(self.ident("a target name after ','"))
        gaps.append(self.trailing())
        return Target(tuple(names), tuple(gaps))

    def address_size(self, lead: str) -> AddressSize:
        g = self.ws()
        bits = self.integer()
        if bits not in (32, 64):
            self.error(f".address_size must be 32 or 64, got {bits}", self.pos - len(str(bits)))
        return AddressSize(bits, (lead, g, self.trailing()))

    def file(self, lead: str) -> File:
        gaps = [lead, self.ws()]
        index = self.integer()
        g = self.ws()
        if self.text[self.pos] != '"':
            self.expected("a quoted file name after the .file index")
        path = self.string(g)
        extras: list[Immediate] = []
        while True:
            p0 = self.pos
            g = self.ws()
            if self.text[self.pos] != ",":
                self.pos = p0
                break
            gaps.append(g)
            self.pos += 1
            lead2 = self.ws()
            m = NUMBER.match(self.text, self.pos)
            if not m:
                self.expected("a number (timestamp or size) in .file")
            self.pos = m.end()
            extras.append(Immediate(m.group(), (lead2,)))
        gaps.append(self.trailing())
        return File(index, path, tuple(extras), tuple(gaps))

    def section(self, lead: str) -> Section:
        gaps = [lead, self.ws()]
        m = DIRECTIVE.match(self.text, self.pos) or IDENT.match(self.text, self.pos)
        if not m:
            self.expected("a section name such as .debug_info")
        self.pos = m.end()
        name = m.group()
        gaps.append(self.ws())
        open_pos = self.pos
        self.expect("{", "'{' to open the section body")
        items: list[Node] = []
        self.in_section = True
        t = self.text
        step = self._section_step
        whole = self._section_line
        while True:
            if self.fast:
                self.pos = self.fast_lines(
                    self.pos, items, step, self._section_lines, self._section_cache, whole
                )
            g = self.ws()
            c = t[self.pos]
            if c == "}":
                break
            if self.pos >= self.n:
                self.error("missing '}' to close this .section", open_pos)
            if c == ".":
                items.append(self.section_data(g))
            else:
                items.append(self.label(g))
        self.in_section = False
        self.pos += 1
        gaps += (g, self.trailing())
        return Section(name, tuple(items), tuple(gaps))

    def _section_line(self, line: str) -> SectionData | None:
        """The cheapest fast path of section bodies: a line ``.<type> <values>``.

        That is how nvcc writes DWARF data (at the start of the line, one space), which
        string methods split faster than a pattern does. Gives the node
        :meth:`_section_step` gives for the line (remembered for its repeats), or ``None``
        for any other line.
        """
        k = line.find(" ")
        ty = _SECTION_HEADS.get(line[:k]) if k > 0 else None
        if ty is None:
            return None
        values = []
        gaps = ["\n"]
        cache = self._piece_cache
        for piece in line[k:].split(","):
            hit = cache.get(piece) or self.new_piece(piece)
            if hit is None or not isinstance(hit[0], _SIMPLE_VALUES):
                return None
            values.append(hit[0])
            gaps.append(hit[1])
        data = new_section_data(ty, tuple(values), tuple(gaps))
        self._section_lines[line] = data
        return data

    def _section_step(self, pos: int, stop: int) -> tuple[Node, int, bool] | None:
        """The fast path of section bodies at ``pos`` (a :data:`~._lines.Step`)."""
        m = FAST_SECTION_DATA.match(self.text, pos)
        if m is None:
            return None
        end = m.end()
        if end != stop:
            item = self._section_cache.get(m.group())
            if item is not None:
                return item, end, False
        data = self.fast_section_data(m.groups())
        if data is None:
            return None
        return data, end, True

    def fast_section_data(self, groups: tuple[Any, ...]) -> SectionData | None:
        """Build a one-line data directive of simple values, or return ``None``."""
        lead, name, segment, comment = groups
        ty = _SECTION_TYPES.get(name)
        if ty is None:
            return None
        gaps = [lead]
        values = []
        cache = self._piece_cache
        for piece in segment.split(","):
            hit = cache.get(piece) or self.new_piece(piece)
            if hit is None or not isinstance(hit[0], _SIMPLE_VALUES):
                return None
            values.append(hit[0])
            gaps.append(hit[1])
        if comment:
            gaps[-1] += comment
        return new_section_data(ty, tuple(values), tuple(gaps))

    def section_data(self, lead: str) -> SectionData:
        m = DIRECTIVE.match(self.text, self.pos)
        ty = PtxType.from_name(m.group()) if m else None
        if m is None or ty is None:
            self.expected("a data directive such as .b8 or .b32 in a .section")
        self.pos = m.end()
        gaps = [lead]
        values = [self.expr(self.ws(), 1, True)]
        while True:
            p0 = self.pos
            g = self.ws()
            if self.text[self.pos] != ",":
                self.pos = p0
                break
            gaps.append(g)
            self.pos += 1
            values.append(self.expr(self.ws(), 1, True))
        gaps.append(self.trailing())
        return SectionData(ty, tuple(values), tuple(gaps))

    def pragma(self, lead: str) -> Pragma:
        gaps = [lead]
        values: list[StringLiteral] = []
        g = self.ws()
        while True:
            if self.text[self.pos] != '"':
                self.expected("a quoted pragma string")
            values.append(self.string(g))
            g = self.ws()
            if self.text[self.pos] != ",":
                break
            gaps.append(g)
            self.pos += 1
            g = self.ws()
        gaps.append(g)
        self.expect(";", "';' after the .pragma strings")
        gaps.append(self.trailing())
        return Pragma(tuple(values), tuple(gaps))

    def alias(self, lead: str) -> Alias:
        gaps = [lead, self.ws()]
        a = self.ident("the alias name")
        gaps.append(self.ws())
        self.expect(",", "',' between the alias and the aliased function")
        gaps.append(self.ws())
        b = self.ident("the aliased function name")
        gaps.append(self.ws())
        self.expect(";", "';' after .alias")
        gaps.append(self.trailing())
        return Alias(a, b, tuple(gaps))

    # ----------------------------------------------------------------- declarations

    def label(self, lead: str) -> Label:
        m = LABEL.match(self.text, self.pos)
        if m is None:
            self.expected("a label ('name:') or a data directive")
        self.pos = m.end()
        name = m.group(1)
        if self.in_function:
            self.labels.add(name)
        return new_label(name, (lead, m.group(2), self.trailing()))

    def loc(self, lead: str) -> Loc:
        gaps = [lead]
        nums = []
        for _ in range(3):
            gaps.append(self.ws())
            nums.append(self.integer())
        attrs: list[Node] = []
        while True:
            p0 = self.pos
            g = self.ws()
            if self.text[self.pos] != ",":
                self.pos = p0
                break
            self.pos += 1
            g2 = self.ws()
            word = self.ident("function_name or inlined_at")
            if word == "function_name":
                attrs.append(LocFunctionName(self.unary(self.ws()), (g, g2)))
            elif word == "inlined_at":
                ig = [g, g2]
                inums = []
                for _ in range(3):
                    ig.append(self.ws())
                    inums.append(self.integer())
                attrs.append(LocInlinedAt(inums[0], inums[1], inums[2], tuple(ig)))
            else:
                self.error(
                    f"expected function_name or inlined_at in .loc, got {word!r}",
                    self.pos - len(word),
                    len(word),
                )
        gaps.append(self.trailing())
        return Loc(nums[0], nums[1], nums[2], tuple(attrs), tuple(gaps))  # type: ignore[arg-type]

    def _name_list(self, lead: str, opcode: str, what: str) -> tuple[list[Any], list[str]]:
        gaps = [lead]
        self.opcode = opcode
        items = [self.unary(self.ws())]
        while True:
            g = self.ws()
            c = self.text[self.pos]
            if c == ",":
                gaps.append(g)
                self.pos += 1
                items.append(self.unary(self.ws()))
            elif c == ";":
                gaps.append(g)
                self.pos += 1
                break
            else:
                self.expected(f"',' or ';' in {what}")
        self.opcode = ""
        gaps.append(self.trailing())
        return items, gaps

    def branch_targets(self, lead: str) -> BranchTargets:
        items, gaps = self._name_list(lead, "bra", ".branchtargets")
        return BranchTargets(tuple(items), tuple(gaps))

    def call_targets(self, lead: str) -> CallTargets:
        items, gaps = self._name_list(lead, "call", ".calltargets")
        return CallTargets(tuple(items), tuple(gaps))
