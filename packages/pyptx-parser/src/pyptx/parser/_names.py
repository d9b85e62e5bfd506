"""What the parser knows of names while it reads a function: how to classify a bare name.

PTX writes labels, registers declared without ``%`` and symbols alike (``bra done;``,
``mov.b32 x, y;``, ``mov.u64 %rd1, buf;``). :class:`Names` records what the current
function declares so far, classifies each bare name from it, and once the function's labels
are all known reclassifies the forward references it had to guess
(:meth:`Names.fix_forward_references`).
"""

from __future__ import annotations

from pyptx.ir import Block, LabelRef, Node, Rewriter, Symbol

_BRANCH_OPCODES = frozenset({"bra", "brx"})


class _FixSymbols(Rewriter):
    """Reclassifies forward references once a function's labels are all known."""

    def __init__(self, to_label: set[str], to_symbol: set[str]) -> None:
        self.to_label = to_label
        self.to_symbol = to_symbol

    def rewrite_Symbol(self, node: Symbol) -> Node:
        if node.name in self.to_label:
            return LabelRef(node.name, node.trivia)
        return node

    def rewrite_LabelRef(self, node: LabelRef) -> Node:
        if node.name in self.to_symbol:
            return Symbol(node.name, node.trivia)
        return node


class Names:
    """The naming context of the statement being parsed.

    Attributes:
        opcode: the opcode of the instruction whose operands are being read, else ``""``
            (a bare name after ``bra`` is a label, ``(`` after ``call`` opens a list).
        in_section: whether a ``.section`` body is being read.
        in_function: whether a function (signature or body) is being read.
        labels: the labels the current function defines so far.
        bare_regs: registers the current function declares without ``%`` (``.reg .b32 x;``).
        reg_ranges: the same declared as ranges (``.reg .b32 x<4>;`` declares ``x0`` .. ``x3``).
        guessed_labels: bare names read as labels before they were defined.
        guessed_symbols: bare names read as symbols that a later label may turn into labels.
        bare_names_seen: how many bare names were classified so far. A fast path compares it
            before and after a statement: a statement that read none means the same wherever
            it appears, so its node may stand for every repeat of its text.
    """

    __slots__ = (
        "bare_names_seen",
        "bare_regs",
        "guessed_labels",
        "guessed_symbols",
        "in_function",
        "in_section",
        "labels",
        "opcode",
        "reg_ranges",
    )

    def __init__(self) -> None:
        self.opcode = ""
        self.in_section = False
        self.in_function = False
        self.labels: set[str] = set()
        self.bare_regs: set[str] = set()
        self.reg_ranges: dict[str, int] = {}
        self.guessed_labels: set[str] = set()
        self.guessed_symbols: set[str] = set()
        self.bare_names_seen = 0

    def begin_function(self) -> None:
        """Forget the names of the previous function."""
        self.in_function = True
        self.labels = set()
        self.bare_regs = set()
        self.reg_ranges = {}
        self.guessed_labels = set()
        self.guessed_symbols = set()

    def declare_register(self, name: str, range_count: int | None) -> None:
        """Record a register the current function declares without ``%``."""
        if range_count is None:
            self.bare_regs.add(name)
        else:
            self.reg_ranges[name] = range_count

    def is_declared_register(self, name: str) -> bool:
        """Whether a bare ``name`` was declared with ``.reg`` in the current function."""
        if name in self.bare_regs:
            return True
        stem = name.rstrip("0123456789")
        if stem != name and stem in self.reg_ranges:
            return int(name[len(stem) :]) < self.reg_ranges[stem]
        return False

    def fix_forward_references(self, body: Block) -> Block:
        """``body`` with the bare names guessed wrong before the labels were known fixed."""
        to_label = self.guessed_symbols & self.labels
        to_symbol = self.guessed_labels - self.labels
        if to_label or to_symbol:
            fixed: Block = _FixSymbols(to_label, to_symbol).rewrite(body)
            return fixed
        return body

    def is_branch(self) -> bool:
        """Whether the operands being read are a branch's (a bare name is then a label)."""
        return self.opcode in _BRANCH_OPCODES
