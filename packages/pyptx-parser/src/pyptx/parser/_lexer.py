"""Token patterns of PTX, as compiled regular expressions.

The parser is scannerless: it matches these patterns at its current offset instead of
building a token list first, which keeps parsing in C-speed regex code for most of the text.
"""

from __future__ import annotations

import re


def _re(pattern: str) -> re.Pattern[str]:
    # ASCII classes: PTX names and numbers are ASCII, and ``\w`` then costs a table lookup
    # instead of a Unicode database query per character.
    return re.compile(pattern, re.ASCII)


# Whitespace and comments between tokens. NUL never matches: the parser appends one as an
# end-of-input sentinel.
TRIVIA = _re(r"(?:[ \t\r\n\f\v]+|//[^\n\0]*|/\*(?:[^*\0]|\*(?!/))*\*/)*")
# Trivia that stays on the current line after a statement's last token.
TRAILING = _re(r"[ \t\r\f\v]*(?://[^\n\0]*)?")

# An identifier (PTX allows [a-zA-Z][a-zA-Z0-9_$]* and [_$%][a-zA-Z0-9_$]+).
IDENT = _re(r"[A-Za-z_$%][\w$]*")
# A special-register component suffix (``%tid.x``).
COMPONENT = _re(r"\.[xyzw]\b")
# A directive or qualifier word (``.reg``, ``.shared::cta``, ``.b32``).
DIRECTIVE = _re(r"\.[A-Za-z_][\w:]*")
# An instruction mnemonic: opcode plus dot-separated modifiers.
MNEMONIC = _re(r"[A-Za-z_][\w]*(?:\.[\w:]+)*")
# A numeric literal (order matters: hex floats, hex, binary, decimal floats, integers).
NUMBER = _re(
    r"0[fF][0-9a-fA-F]{8}(?![\w.])"
    r"|0[dD][0-9a-fA-F]{16}(?![\w.])"
    r"|0[xX][0-9a-fA-F]+[uU]?(?![\w.])"
    r"|0[bB][01]+[uU]?(?![\w.])"
    r"|[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?(?![\w.])"
    r"|[0-9]+[eE][+-]?[0-9]+(?![\w.])"
    r"|[0-9]+[uU]?(?![\w.])"
)
INTEGER = _re(r"[0-9]+(?![\w.])")
VERSION = _re(r"([0-9]+)\.([0-9]+)(?![\w.])")
STRING = _re(r'"(?:[^"\\\n\0]|\\[^\n\0])*"')
# A label definition: identifier, optional trivia, one colon (not ``::``).
LABEL = _re(r"([A-Za-z_$%][\w$]*)([ \t]*):(?!:)")
# Binary operators of constant expressions, longest first.
BINOP = _re(r"\|\||&&|==|!=|<=|>=|<<|>>|[|^&<>+\-*/%]")

# Binding strength of binary operators (C precedence).
PRECEDENCE: dict[str, int] = {
    "||": 1,
    "&&": 2,
    "|": 3,
    "^": 4,
    "&": 5,
    "==": 6,
    "!=": 6,
    "<": 7,
    ">": 7,
    "<=": 7,
    ">=": 7,
    "<<": 8,
    ">>": 8,
    "+": 9,
    "-": 9,
    "*": 10,
    "/": 10,
    "%": 10,
}

# The operand segment of an instruction up to its ';' when it holds no characters that need
# the general parser (vectors, calls, strings, comments, pipes, negation, line breaks).
OPERAND_SEGMENT = _re(r"([^;\n{}()\"/|!@\\]*);")
_NUM = (
    r"0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16}|0[xX][0-9a-fA-F]+[uU]?|0[bB][01]+[uU]?"
    r"|[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|[0-9]+[uU]?"
)
# One comma-separated piece of such a segment that is a %register, a number or a bare name,
# with the spaces around it (addresses: ADDRESS_PIECE). Groups: lead, register, number,
# name, trailing spaces.
OPERAND_PIECE = _re(
    r"([ \t]*)(?:"
    r"(%[\w$]+(?:\.[xyzw])?)"
    r"|(-?(?:" + _NUM + r"))"
    r"|([A-Za-z_$][\w$]*)"
    r")([ \t]*)\Z"
)

# A piece that is an address [base] or [base(+|-)offset] with a %register or bare name for
# a base, after its lead (from its '['). Groups: gap after '[', register, name, gap before
# the sign, sign, gap after it, offset, gap before ']', trailing spaces.
ADDRESS_PIECE = _re(
    r"\[([ \t]*)(?:(%[\w$]+)|([A-Za-z_$][\w$]*))"
    r"(?:([ \t]*)([+-])([ \t]*)(-?(?:" + _NUM + r")))?([ \t]*)\]([ \t]*)\Z"
)

# A brace initializer list of decimal integers, e.g. ``{72, 101, 108}`` (may span lines).
NUMBER_LIST = _re(r"\{([0-9 \t\r\n,]*)\}")

# A one-line brace vector of simple operands, e.g. ``{%f1, %f2, %f3, %f4}``.
VECTOR_BODY = _re(r"\{([^{}()\"/|!@;\n\\]*)\}")
# A whole operand piece that is such a vector, with the spaces around it.
VECTOR_PIECE = _re(r"([ \t]*)\{([^{}]*)\}([ \t]*)\Z")
# Comma-separated pieces of an operand segment, keeping each {...} vector whole.
SEGMENT_PIECES = _re(r"(?:[^,{}]|\{[^{}]*\})+")

# An instruction mnemonic and its operand segment, up to the ';' (used by FAST_STATEMENT and
# SIMPLE_INSTRUCTION, which must split an unguarded instruction the same way).
_INSTRUCTION = r"([A-Za-z_][\w]*(?:\.[\w:]+)*)((?:[ \t][^;\n()\"/|!@\\:]*)?);"
_TRAILING = r"([ \t\r\f\v]*(?://[^\n\0]*)?)"
# Leading trivia without block comments (the fast paths leave those to the general rules).
_LEAD = r"((?:[ \t\r\n]|//[^\n\0]*(?=[\n\0]))*)"

# One whole-line statement of a function body that needs none of the general rules: its
# leading trivia holds no block comment, and it is an instruction whose operands are all simple
# (see OPERAND_SEGMENT), a label, or a ``.loc`` without attributes. Groups:
# 1 lead | 2-6 guard (@ gap ! gap name gap) | 7 mnemonic | 8 operand segment |
# 9-10 label name, gap before ':' | 11-16 .loc gaps and numbers | 17 trailing trivia.
FAST_STATEMENT = _re(
    _LEAD + r"(?:"
    r"(?:@([ \t]*)(!?)([ \t]*)(%?[A-Za-z_$][\w$]*)([ \t]+))?"
    + _INSTRUCTION
    + r"|([A-Za-z_$][\w$]*)([ \t]*):(?!:)"
    r"|\.loc([ \t]+)([0-9]+)([ \t]+)([0-9]+)([ \t]+)([0-9]+)(?![\w,.])"
    r")" + _TRAILING
)

# The commonest case of FAST_STATEMENT, cheaper to match: an unguarded instruction on a line
# of its own after a line break, blank lines and indentation. Groups: lead, mnemonic, operand
# segment, trailing trivia. Its mnemonic pattern is looser (flat after the first dot): where
# the mnemonic has no empty component, FAST_STATEMENT matches the same text with the same
# groups, and where it has one, FAST_STATEMENT does not match at all.
SIMPLE_INSTRUCTION = _re(
    r"(\n[ \t\r\n]*)([A-Za-z_]\w*(?:\.[\w.:]*)?)([ \t][^;\n()\"/|!@\\:]*|);" + _TRAILING
)
# The head of a whole-line instruction, up to its operands: indentation, FAST_STATEMENT's
# guard on a %register (gap, '!', gap, name, gap before the mnemonic), the mnemonic of
# SIMPLE_INSTRUCTION, and the start of the gap after it: spaces then a tab (as nvcc writes
# it), or one space (as Triton does).
INSTRUCTION_HEAD = _re(
    r"([ \t]*)(?:@([ \t]*)(!?)([ \t]*)(%[A-Za-z_$][\w$]*)([ \t]+))?"
    r"([A-Za-z_]\w*(?:\.[\w.:]*)?)( *\t| )"
)

# Two more cases of FAST_STATEMENT, with fewer groups: a label at the start of its line,
# after a line break and blank lines (groups: lead, name, gap before ':', trailing trivia),
# and a ``.loc`` without attributes after one line break and indentation (groups: lead,
# gap, file, gap, line, gap, column, trailing trivia).
LABEL_LINE = _re(r"(\n[\r\n]*)([A-Za-z_$][\w$]*)([ \t]*):(?!:)" + _TRAILING)
LOC_LINE = _re(
    r"(\n[ \t]*)\.loc([ \t]+)([0-9]+)([ \t]+)([0-9]+)([ \t]+)([0-9]+)(?![\w,.]|[ \t]+,)" + _TRAILING
)

# A ``call`` statement (possibly over several lines) after one line break and indentation,
# whose operand segment holds only names, registers, parentheses, commas and whitespace.
# Groups: lead, mnemonic, operand segment, trailing trivia.
CALL_STATEMENT = _re(r"(\n[ \t]*)(call(?:\.[\w:]+)*)([ \t\r\n][ \t\r\n(),%$\w]*|);" + _TRAILING)
# The tokens of such a segment for ``findall``: (gap, token) pairs, the last token empty.
# Every character of the segment is in a gap or a token (a word may start with a digit).
CALL_TOKENS = _re(r"([ \t\r\n]*)([(),]|[\w$%][\w$]*|\Z)")

# A one-line declaration of one name with at most a register range or one array size
# (``.reg .b32 %r<12>;``, ``.local .align 8 .b8 depot[16];``), after a lead as in
# FAST_STATEMENT. Groups: lead | the qualifiers, each with the gap after it | name | before
# '<', after '<', count, before '>' | before '[', after '[', size, before ']' | before ';' |
# trailing trivia.
FAST_DECLARATION = _re(
    _LEAD + r"((?:\.[A-Za-z_][\w:]*[ \t]+(?:[0-9]+[ \t]+)?)+)([A-Za-z_$%][\w$]*)"
    r"(?:([ \t]*)<([ \t]*)([0-9]+)([ \t]*)>|([ \t]*)\[([ \t]*)([0-9]+)([ \t]*)\])?"
    r"([ \t]*);" + _TRAILING
)
# One simple parameter of a parameter list, after its lead: qualifiers (as in FAST_DECLARATION),
# name, and at most one array size (before '[', after '[', size, before ']'), followed by ','
# or ')' (not consumed).
FAST_PARAM = _re(
    r"((?:\.[A-Za-z_][\w:]*[ \t]+(?:[0-9]+[ \t]+)?)+)([A-Za-z_$%][\w$]*)"
    r"(?:([ \t]*)\[([ \t]*)([0-9]+)([ \t]*)\])?(?=[ \t\r\n]*[,)])"
)
# One qualifier of FAST_DECLARATION: word, gap, and for ``.align`` its number and gap.
QUALIFIER_PART = _re(r"(\.[A-Za-z_][\w:]*)([ \t]+)(?:([0-9]+)([ \t]+))?")

# A one-line ``.section`` data directive with simple values: lead (no block comments), type,
# values segment, comment; the line must end right after.
FAST_SECTION_DATA = _re(
    r"((?:[ \t\r\n]|//[^\n\0]*(?=[\n\0]))*)"
    r"\.([a-z0-9]+)([ \t][^\n/;{}()\"|!@\\]*)(//[^\n\0]*)?(?=[\n\0])"
)
# A data directive that another one follows on the same line, as the transpiler packs
# section data (``.b8 1 .b8 2``). Groups: lead, type, values (no dot), the gap before the next.
PACKED_SECTION_DATA = _re(
    r"((?:[ \t\r\n]|//[^\n\0]*(?=[\n\0]))*)"
    r"\.([a-z0-9]+)([ \t][^\n/;{}()\"|!@\\.]*?)([ \t]+)(?=\.[a-z])"
)
