"""The Itanium C++ ABI vocabulary of :mod:`pyptx.codegen.demangle`.

The demangled-node type and the mangling tables (builtin types, operators, substitutions,
special names).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "BUILTIN_D_TYPES",
    "BUILTIN_TYPES",
    "CTOR_DTOR",
    "CV_LETTERS",
    "LITERAL_SUFFIX",
    "MAX_DEPTH",
    "MAX_TEXT",
    "OPERATORS",
    "POINTER_LIKE",
    "SPECIAL_NAME_NAMES",
    "SPECIAL_TYPE_NAMES",
    "STD_SUBSTITUTIONS",
    "Fail",
    "Node",
]


class Fail(Exception):
    """Raised inside the parser when the input is not a mangling it understands."""


@dataclass(frozen=True, slots=True)
class Node:
    """A demangled name or type, split around the place a declarator would go.

    Attributes:
        left: the text before the declarator position (``void (*`` of a function pointer).
        right: the text after it (``)(int)``, array bounds).
        grouped: ``left`` ends inside a ``(`` that ``right`` closes.
        leaf: a readable identifier for the last name component ("" for non-name types).
        cdtor: the name ends in a constructor, destructor or conversion operator (their
            template instances mangle no return type).
        ref: ``"&"`` or ``"&&"`` for a reference type (for reference collapsing).
    """

    left: str
    right: str = ""
    grouped: bool = False
    leaf: str = ""
    cdtor: bool = False
    ref: str = ""

    @property
    def text(self) -> str:
        """The full spelling."""
        if self.right and not self.grouped:
            return f"{self.left} {self.right}"
        return self.left + self.right


BUILTIN_TYPES: dict[str, str] = {
    "v": "void",
    "w": "wchar_t",
    "b": "bool",
    "c": "char",
    "a": "signed char",
    "h": "unsigned char",
    "s": "short",
    "t": "unsigned short",
    "i": "int",
    "j": "unsigned int",
    "l": "long",
    "m": "unsigned long",
    "x": "long long",
    "y": "unsigned long long",
    "n": "__int128",
    "o": "unsigned __int128",
    "f": "float",
    "d": "double",
    "e": "long double",
    "g": "__float128",
    "z": "...",
}
"""One-letter builtin types (Itanium ABI 5.1.5.1)."""

BUILTIN_D_TYPES: dict[str, str] = {
    "d": "decimal64",
    "e": "decimal128",
    "f": "decimal32",
    "h": "half",
    "i": "char32_t",
    "s": "char16_t",
    "u": "char8_t",
    "a": "auto",
    "c": "decltype(auto)",
    "n": "decltype(nullptr)",
}
"""Builtin types spelled ``D`` + one letter."""

LITERAL_SUFFIX: dict[str, str] = {
    "i": "",
    "j": "u",
    "l": "l",
    "m": "ul",
    "x": "ll",
    "y": "ull",
}
"""How ``c++filt`` spells integer literals of each builtin type (``Li32E`` is ``32``)."""

STD_SUBSTITUTIONS: dict[str, str] = {
    "a": "std::allocator",
    "b": "std::basic_string",
    "s": "std::string",
    "i": "std::istream",
    "o": "std::ostream",
    "d": "std::iostream",
}
"""The ``S<letter>`` abbreviations (``St`` is handled as the ``std::`` prefix)."""

OPERATORS: dict[str, tuple[str, str]] = {
    "nw": ("new", "new"),
    "na": ("new[]", "new_array"),
    "dl": ("delete", "delete"),
    "da": ("delete[]", "delete_array"),
    "ps": ("+", "pos"),
    "ng": ("-", "neg"),
    "ad": ("&", "addr"),
    "de": ("*", "deref"),
    "co": ("~", "compl"),
    "pl": ("+", "add"),
    "mi": ("-", "sub"),
    "ml": ("*", "mul"),
    "dv": ("/", "div"),
    "rm": ("%", "mod"),
    "an": ("&", "and"),
    "or": ("|", "or"),
    "eo": ("^", "xor"),
    "aS": ("=", "assign"),
    "pL": ("+=", "iadd"),
    "mI": ("-=", "isub"),
    "mL": ("*=", "imul"),
    "dV": ("/=", "idiv"),
    "rM": ("%=", "imod"),
    "aN": ("&=", "iand"),
    "oR": ("|=", "ior"),
    "eO": ("^=", "ixor"),
    "ls": ("<<", "lshift"),
    "rs": (">>", "rshift"),
    "lS": ("<<=", "ilshift"),
    "rS": (">>=", "irshift"),
    "eq": ("==", "eq"),
    "ne": ("!=", "ne"),
    "lt": ("<", "lt"),
    "gt": (">", "gt"),
    "le": ("<=", "le"),
    "ge": (">=", "ge"),
    "ss": ("<=>", "cmp"),
    "nt": ("!", "not"),
    "aa": ("&&", "land"),
    "oo": ("||", "lor"),
    "pp": ("++", "inc"),
    "mm": ("--", "dec"),
    "cm": (",", "comma"),
    "pm": ("->*", "arrow_star"),
    "pt": ("->", "arrow"),
    "cl": ("()", "call"),
    "ix": ("[]", "index"),
    "qu": ("?", "cond"),
}
"""Operator codes: (C++ spelling after ``operator``, readable word)."""

SPECIAL_TYPE_NAMES: dict[str, tuple[str, str]] = {
    "TV": ("vtable for ", "vtable"),
    "TT": ("VTT for ", "vtt"),
    "TI": ("typeinfo for ", "typeinfo"),
    "TS": ("typeinfo name for ", "typeinfo_name"),
}
"""Special names followed by a type: (prefix text, readable prefix)."""

SPECIAL_NAME_NAMES: dict[str, tuple[str, str]] = {
    "GV": ("guard variable for ", "guard"),
    "TH": ("TLS init function for ", "tls_init"),
    "TW": ("TLS wrapper function for ", "tls_wrapper"),
}
"""Special names followed by a name: (prefix text, readable prefix)."""

POINTER_LIKE: dict[str, str] = {"P": "*", "R": "&", "O": "&&"}
"""Type constructors that add a declarator symbol."""

CV_LETTERS: tuple[tuple[str, str], ...] = (("r", "restrict"), ("V", "volatile"), ("K", "const"))
"""CV-qualifier letters, in mangling order."""

CTOR_DTOR = frozenset({"C1", "C2", "C3", "CI", "D0", "D1", "D2"})
"""How constructor and destructor names start."""

MAX_DEPTH = 256
"""Recursion limit: deeper manglings are rejected rather than overflowing the stack."""

MAX_TEXT = 4096
"""Longest name or type spelled: substitutions can double the text per character of input,
so manglings that expand further are rejected rather than exhausting memory."""
