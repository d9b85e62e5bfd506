"""An Itanium C++ ABI demangler for the names nvcc, NVVM and CUTLASS put into PTX.

:func:`demangle` turns ``_Z10vector_addPKfS0_Pfi`` into
``vector_add(float const*, float const*, float*, int)`` (the spelling ``c++filt`` uses), and
:func:`readable_name` turns any PTX symbol into a short identifier that is valid in both
Python and PTX (``vector_add``, ``smem``, ``vector_add_param_2``).

The grammar covered is the part of the `Itanium C++ ABI
<https://itanium-cxx-abi.github.io/cxx-abi/abi.html#mangling>`_ that device code uses: nested
and local names, templates with type, literal and template-parameter arguments,
substitutions (``S_``, ``S0_``, ``St``, ``Sa`` ...), function, array, pointer-to-member and
qualified types, constructors, destructors, operators, ABI tags, lambdas and unnamed types,
and the ``TV``/``TI``/``GV`` special names. Anything else makes :func:`demangle` return
``None``; nothing here raises on bad input.
"""

from __future__ import annotations

import contextlib
import keyword
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

__all__ = ["demangle", "readable_name", "sanitize_identifier"]


class _Fail(Exception):
    """Raised inside the parser when the input is not a mangling it understands."""


@dataclass(frozen=True, slots=True)
class _Node:
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


_BUILTIN_TYPES: dict[str, str] = {
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

_BUILTIN_D_TYPES: dict[str, str] = {
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

_LITERAL_SUFFIX: dict[str, str] = {
    "i": "",
    "j": "u",
    "l": "l",
    "m": "ul",
    "x": "ll",
    "y": "ull",
}
"""How ``c++filt`` spells integer literals of each builtin type (``Li32E`` is ``32``)."""

_STD_SUBSTITUTIONS: dict[str, str] = {
    "a": "std::allocator",
    "b": "std::basic_string",
    "s": "std::string",
    "i": "std::istream",
    "o": "std::ostream",
    "d": "std::iostream",
}
"""The ``S<letter>`` abbreviations (``St`` is handled as the ``std::`` prefix)."""

_OPERATORS: dict[str, tuple[str, str]] = {
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

_SPECIAL_TYPE_NAMES: dict[str, tuple[str, str]] = {
    "TV": ("vtable for ", "vtable"),
    "TT": ("VTT for ", "vtt"),
    "TI": ("typeinfo for ", "typeinfo"),
    "TS": ("typeinfo name for ", "typeinfo_name"),
}
"""Special names followed by a type: (prefix text, readable prefix)."""

_SPECIAL_NAME_NAMES: dict[str, tuple[str, str]] = {
    "GV": ("guard variable for ", "guard"),
    "TH": ("TLS init function for ", "tls_init"),
    "TW": ("TLS wrapper function for ", "tls_wrapper"),
}
"""Special names followed by a name: (prefix text, readable prefix)."""

_POINTER_LIKE: dict[str, str] = {"P": "*", "R": "&", "O": "&&"}
"""Type constructors that add a declarator symbol."""

_CV_LETTERS: tuple[tuple[str, str], ...] = (("r", "restrict"), ("V", "volatile"), ("K", "const"))
"""CV-qualifier letters, in mangling order."""

_CTOR_DTOR = frozenset({"C1", "C2", "C3", "CI", "D0", "D1", "D2"})
"""How constructor and destructor names start."""

_MAX_DEPTH = 256
"""Recursion limit: deeper manglings are rejected rather than overflowing the stack."""

_MAX_TEXT = 4096
"""Longest name or type spelled: substitutions can double the text per character of input,
so manglings that expand further are rejected rather than exhausting memory."""


class _Demangler:
    """Recursive-descent parser over one mangled name."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.pos = 0
        self.depth = 0
        self.subs: list[_Node] = []
        self.tparams: list[_Node] = []
        self.top_leaf: str | None = None
        self._type_rules: dict[str, Callable[[], _Node]] = {
            "P": self._pointer_like,
            "R": self._pointer_like,
            "O": self._pointer_like,
            "r": self._qualified,
            "V": self._qualified,
            "K": self._qualified,
            "F": self._function_type,
            "A": self._array_type,
            "M": self._member_pointer,
            "T": self._template_param_type,
            "S": self._substitution_type,
            "D": self._d_type,
            "u": self._vendor_type,
            "C": self._complex_type,
            "G": self._complex_type,
        }

    # ------------------------------------------------------------------ primitives

    def peek(self, k: int = 0) -> str:
        """The character ``k`` places ahead ("" past the end)."""
        i = self.pos + k
        return self.s[i] if i < len(self.s) else ""

    def eat(self, prefix: str) -> bool:
        """Consume ``prefix`` if the input continues with it."""
        if self.s.startswith(prefix, self.pos):
            self.pos += len(prefix)
            return True
        return False

    def need(self, prefix: str) -> None:
        """Consume ``prefix`` or fail."""
        if not self.eat(prefix):
            raise _Fail(f"expected {prefix!r} at {self.pos}")

    def number(self) -> int:
        """``[n] <decimal>``."""
        neg = self.eat("n")
        start = self.pos
        while self.peek().isdigit():
            self.pos += 1
        if start == self.pos:
            raise _Fail(f"expected a number at {self.pos}")
        value = int(self.s[start : self.pos])
        return -value if neg else value

    def seq_id(self, terminator: str = "_") -> int:
        """A base-36 sequence id (digits and upper-case letters) followed by ``_``."""
        start = self.pos
        while self.peek().isdigit() or self.peek().isupper():
            self.pos += 1
        digits = self.s[start : self.pos]
        self.need(terminator)
        return int(digits, 36) + 1 if digits else 0

    def enter(self) -> None:
        """Count one level of recursion, failing past the limit."""
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise _Fail("mangling nested too deeply")

    def leave(self, node: _Node) -> _Node:
        """Close one level of recursion, failing if ``node`` is implausibly long."""
        self.depth -= 1
        if len(node.left) + len(node.right) > _MAX_TEXT:
            raise _Fail("demangled text too long")
        return node

    # ------------------------------------------------------------------ top level

    def mangled_name(self) -> str:
        """``_Z <encoding> [.<vendor suffix>]``, consuming the whole input."""
        self.need("_Z")
        text = self.encoding(top=True).text
        if self.peek() == ".":
            text += f" [clone {self.s[self.pos :]}]"
            self.pos = len(self.s)
        if self.pos != len(self.s):
            raise _Fail(f"unexpected {self.s[self.pos :]!r}")
        return text

    def encoding(self, top: bool = False) -> _Node:
        """A function or data name, or a special name."""
        if self.s[self.pos : self.pos + 2] in _SPECIAL_ALL:
            node = self.special_name()
            if top:
                self.top_leaf = node.leaf
            return node
        saved = self.tparams
        name, tparams, const_suffix = self.name()
        if top:
            self.top_leaf = name.leaf
        if self.peek() in ("", "E", ".", "_"):
            self.tparams = saved
            return name
        self.tparams = tparams if tparams is not None else saved
        returns = ""
        if tparams is not None and not name.cdtor:
            returns = self.type().text + " "
        params = self.bare_function_params()
        self.tparams = saved
        return _Node(f"{returns}{name.text}({params}){const_suffix}", leaf=name.leaf)

    def special_name(self) -> _Node:
        """``TV``/``TT``/``TI``/``TS`` + type, ``GV``/``TH``/``TW`` + name."""
        code = self.s[self.pos : self.pos + 2]
        self.pos += 2
        if code in _SPECIAL_TYPE_NAMES:
            prefix, word = _SPECIAL_TYPE_NAMES[code]
            inner = self.type()
        else:
            prefix, word = _SPECIAL_NAME_NAMES[code]
            inner, _, _ = self.name()
        leaf = f"{word}_{inner.leaf}" if inner.leaf else word
        return _Node(prefix + inner.text, leaf=leaf)

    def bare_function_params(self) -> str:
        """One or more parameter types; a lone ``v`` means no parameters."""
        if self.peek() == "v" and self.peek(1) in ("", "E", "."):
            self.pos += 1
            return ""
        types = [self.type().text]
        while self.peek() not in ("", "E", "."):
            types.append(self.type().text)
        return ", ".join(types)

    # ------------------------------------------------------------------ names

    def name(self) -> tuple[_Node, list[_Node] | None, str]:
        """A ``<name>``.

        Returns:
            The name, its template arguments (if it ends with some), and a method's
            CV/ref-qualifier suffix (`` const``).
        """
        self.enter()
        rule = _NAME_RULES.get(self.peek(), _Demangler.unscoped_name)
        node, args, suffix = rule(self)
        return self.leave(node), args, suffix

    def unscoped_name(self) -> tuple[_Node, list[_Node] | None, str]:
        """``[St] <unqualified-name> [<template-args>]`` or ``<substitution> <template-args>``."""
        if self.peek() == "S" and self.peek(1) != "t":
            base = self.substitution()
            if self.peek() != "I":
                raise _Fail("a substituted name must be followed by template arguments")
            args = self.template_args()
            return self._with_args(base, args), args, ""
        std = self.eat("St")
        self.eat("L")
        node = self.unqualified_name(None)
        if std:
            node = _Node("std::" + node.left, leaf=node.leaf)
        if self.peek() == "I":
            self.subs.append(node)
            args = self.template_args()
            return self._with_args(node, args), args, ""
        return node, None, ""

    def nested_name(self) -> tuple[_Node, list[_Node] | None, str]:
        """``N [CV] [ref] <prefix>... E``, pushing each prefix as a substitution candidate."""
        self.need("N")
        suffix = self.cv_suffix()
        if self.eat("R"):
            suffix += " &"
        elif self.eat("O"):
            suffix += " &&"
        so_far: _Node | None = None
        args: list[_Node] | None = None
        pushed = 0
        while not self.eat("E"):
            args = None
            if self.peek() == "S":
                if so_far is not None:
                    raise _Fail("a substitution in the middle of a nested name")
                so_far = self._std_prefix() if self.peek(1) == "t" else self.substitution()
                continue
            if self.peek() == "I":
                if so_far is None:
                    raise _Fail("template arguments without a template name")
                args = self.template_args()
                so_far = self._with_args(so_far, args)
            elif self.peek() == "T":
                so_far = self.template_param()
            else:
                self.eat("L")
                part = self.unqualified_name(so_far)
                so_far = self._qualify(so_far, part)
            self.subs.append(so_far)
            pushed += 1
        if so_far is None or pushed == 0:
            raise _Fail("empty nested name")
        self.subs.pop()
        return so_far, args, suffix

    def _std_prefix(self) -> _Node:
        self.pos += 2
        return _Node("std")

    @staticmethod
    def _qualify(scope: _Node | None, part: _Node) -> _Node:
        if scope is None:
            return part
        return _Node(f"{scope.text}::{part.left}", leaf=part.leaf, cdtor=part.cdtor)

    @staticmethod
    def _with_args(base: _Node, args: list[_Node]) -> _Node:
        inner = ", ".join(a.text for a in args)
        close = " >" if inner.endswith(">") else ">"
        return _Node(f"{base.text}<{inner}{close}", leaf=base.leaf, cdtor=base.cdtor)

    def local_name(self) -> tuple[_Node, list[_Node] | None, str]:
        """``Z <encoding> E <entity> [<discriminator>]`` or ``... E s`` (a string literal)."""
        self.need("Z")
        outer = self.encoding()
        self.need("E")
        if self.eat("s"):
            self.discriminator()
            return _Node(f"{outer.text}::string literal", leaf="string_literal"), None, ""
        entity, args, suffix = self.name()
        self.discriminator()
        node = _Node(f"{outer.text}::{entity.text}", leaf=entity.leaf, cdtor=entity.cdtor)
        return node, args, suffix

    def discriminator(self) -> None:
        """``_ <digit>`` or ``__ <number> _`` (skipped: it does not change the spelling)."""
        if self.peek() == "_" and self.peek(1).isdigit():
            self.pos += 2
        elif self.peek() == "_" and self.peek(1) == "_" and self.peek(2).isdigit():
            self.pos += 2
            self.number()
            self.need("_")

    def unqualified_name(self, scope: _Node | None) -> _Node:
        """A source name, operator, constructor/destructor, unnamed type or lambda."""
        c = self.peek()
        if c.isdigit():
            node = self.source_name()
        elif self.s[self.pos : self.pos + 2] in _CTOR_DTOR:
            node = self.ctor_dtor(scope)
        elif c == "D" and self.peek(1) == "C":
            node = self.structured_binding()
        elif c == "U":
            node = self.unnamed_type()
        elif c.islower():
            node = self.operator_name(scope)
        else:
            raise _Fail(f"unexpected {c!r} in a name")
        return self.abi_tags(node)

    def source_name(self) -> _Node:
        """``<length> <identifier>``."""
        length = self.number()
        if length <= 0 or self.pos + length > len(self.s):
            raise _Fail("bad source-name length")
        ident = self.s[self.pos : self.pos + length]
        self.pos += length
        if ident.startswith("_GLOBAL__N"):
            return _Node("(anonymous namespace)", leaf="")
        return _Node(ident, leaf=ident)

    def ctor_dtor(self, scope: _Node | None) -> _Node:
        """``C1``..``C3``, ``CI1 <type>``, ``D0``..``D2``."""
        if scope is None:
            raise _Fail("a constructor needs an enclosing class")
        kind = self.peek()
        self.pos += 1
        if self.eat("I"):
            self.pos += 1
            self.type()
        else:
            self.pos += 1
        cls = scope.leaf
        word = "ctor" if kind == "C" else "dtor"
        spelling = cls if kind == "C" else "~" + cls
        return _Node(spelling, leaf=f"{scope.leaf}_{word}", cdtor=True)

    def structured_binding(self) -> _Node:
        """``DC <source-name>+ E``."""
        self.pos += 2
        names = [self.source_name().left]
        while not self.eat("E"):
            names.append(self.source_name().left)
        return _Node("[" + ", ".join(names) + "]", leaf="_".join(names))

    def unnamed_type(self) -> _Node:
        """``Ut [n] _`` or a lambda ``Ul <params> E [n] _``."""
        if self.eat("Ut"):
            n = self.seq_id()
            return _Node(f"{{unnamed type#{n + 1}}}", leaf="unnamed")
        if self.eat("Ul"):
            params = self.bare_function_params()
            self.need("E")
            n = self.seq_id()
            return _Node(f"{{lambda({params})#{n + 1}}}", leaf="lambda")
        raise _Fail("unknown unnamed-type name")

    def operator_name(self, scope: _Node | None) -> _Node:
        """``<operator-name>``: a two-letter code, ``cv <type>`` or ``li <source-name>``."""
        code = self.s[self.pos : self.pos + 2]
        self.pos += 2
        owner = f"{scope.leaf}_" if scope is not None and scope.leaf else "operator_"
        if code == "cv":
            target = self.type()
            leaf = f"{owner}to_{target.leaf or 'value'}"
            return _Node(f"operator {target.text}", leaf=leaf, cdtor=True)
        if code == "li":
            suffix = self.source_name().left
            return _Node(f'operator"" {suffix}', leaf=f"operator_literal{suffix}")
        if code not in _OPERATORS:
            raise _Fail(f"unknown operator {code!r}")
        spelling, word = _OPERATORS[code]
        sep = " " if spelling[0].isalpha() else ""
        return _Node(f"operator{sep}{spelling}", leaf=owner + word)

    def abi_tags(self, node: _Node) -> _Node:
        """``B <source-name>`` ABI tags after a name."""
        while self.peek() == "B" and self.peek(1).isdigit():
            self.pos += 1
            tag = self.source_name().left
            node = _Node(f"{node.left}[abi:{tag}]", leaf=node.leaf, cdtor=node.cdtor)
        return node

    # ------------------------------------------------------------------ templates

    def template_args(self) -> list[_Node]:
        """``I <template-arg>+ E``."""
        self.need("I")
        args: list[_Node] = []
        while not self.eat("E"):
            if self.pos >= len(self.s):
                raise _Fail("unterminated template arguments")
            args.append(self.template_arg())
        return args

    def template_arg(self) -> _Node:
        """A type, literal, ``X expr E`` or ``J pack E``."""
        c = self.peek()
        if c == "L":
            return self.literal()
        if c == "X":
            self.pos += 1
            node = self.expression()
            self.need("E")
            return node
        if c == "J":
            self.pos += 1
            items: list[_Node] = []
            while not self.eat("E"):
                items.append(self.template_arg())
            return _Node(", ".join(i.text for i in items))
        return self.type()

    def expression(self) -> _Node:
        """The expressions device manglings use: template parameters and literals."""
        if self.peek() == "T":
            return self.template_param()
        if self.peek() == "L":
            return self.literal()
        raise _Fail("unsupported expression")

    def literal(self) -> _Node:
        """``L <type> <value> E``, ``L _Z <encoding> E`` or ``LDnE``."""
        self.need("L")
        if self.eat("_Z"):
            node = self.encoding()
            self.need("E")
            return node
        ty = self.type()
        start = self.pos
        while self.peek() not in ("E", ""):
            self.pos += 1
        value = self.s[start : self.pos]
        self.need("E")
        return _Node(self._literal_text(ty.text, value))

    @staticmethod
    def _literal_text(ty: str, value: str) -> str:
        code = next((k for k, v in _BUILTIN_TYPES.items() if v == ty), None)
        if value.startswith("n"):
            value = "-" + value[1:]
        if code == "b" and value in ("0", "1"):
            return "true" if value == "1" else "false"
        if code in _LITERAL_SUFFIX:
            return value + _LITERAL_SUFFIX[code]
        if ty == "decltype(nullptr)" and not value:
            return "nullptr"
        return f"({ty}){value}"

    def template_param(self) -> _Node:
        """``T_`` or ``T <n> _``: an argument of the enclosing template."""
        self.need("T")
        index = self.seq_id()
        if index >= len(self.tparams):
            raise _Fail(f"template parameter {index} out of range")
        return self.tparams[index]

    # ------------------------------------------------------------------ types

    def type(self) -> _Node:
        """A ``<type>``, pushing it as a substitution candidate when the ABI says so."""
        self.enter()
        c = self.peek()
        if c in _BUILTIN_TYPES:
            self.pos += 1
            text = _BUILTIN_TYPES[c]
            return self.leave(_Node(text, leaf=text.replace(" ", "_")))
        rule = self._type_rules.get(c)
        if rule is not None:
            return self.leave(rule())
        if c.isdigit() or c in ("N", "Z"):
            node, _, _ = self.name()
            self.subs.append(node)
            return self.leave(node)
        raise _Fail(f"unexpected {c!r} in a type")

    def _pointer_like(self) -> _Node:
        symbol = _POINTER_LIKE[self.peek()]
        self.pos += 1
        inner = self.type()
        if symbol != "*" and inner.ref and not inner.right:
            ref = "&" if "&" in (symbol, inner.ref) else "&&"
            node = _Node(inner.left[: -len(inner.ref)] + ref, leaf=inner.leaf, ref=ref)
        else:
            node = replace(self._declarate(inner, symbol), ref="" if symbol == "*" else symbol)
        self.subs.append(node)
        return node

    @staticmethod
    def _declarate(inner: _Node, symbol: str) -> _Node:
        """Apply ``*``/``&``/``&&``/`` const`` to ``inner`` at its declarator position."""
        if not inner.right:
            return _Node(inner.left + symbol, leaf=inner.leaf)
        if inner.grouped:
            return _Node(inner.left + symbol, inner.right, True, inner.leaf)
        gap = " " if inner.right.startswith("[") else ""
        return _Node(f"{inner.left} ({symbol.strip()}", ")" + gap + inner.right, True, inner.leaf)

    def cv_suffix(self) -> str:
        """``[r] [V] [K]`` as `` restrict volatile const`` (in c++filt order)."""
        words = [word for letter, word in _CV_LETTERS if self.eat(letter)]
        return "".join(" " + w for w in reversed(words)) if words else ""

    def _qualified(self) -> _Node:
        suffix = self.cv_suffix()
        inner = self.type()
        if inner.right and not inner.grouped:  # a cv-qualified function type
            node = _Node(inner.left, inner.right + suffix, False, inner.leaf)
        else:
            node = _Node(inner.left + suffix, inner.right, inner.grouped, inner.leaf)
        self.subs.append(node)
        return node

    def _function_type(self) -> _Node:
        self.need("F")
        self.eat("Y")
        ret = self.type().text
        params = self.bare_function_params()
        ref = " &" if self.eat("R") else " &&" if self.eat("O") else ""
        self.need("E")
        node = _Node(ret, f"({params}){ref}")
        self.subs.append(node)
        return node

    def _array_type(self) -> _Node:
        self.need("A")
        size = ""
        if self.peek().isdigit():
            size = str(self.number())
        elif self.peek() != "_":
            size = self.expression().text
        self.need("_")
        inner = self.type()
        bounds = f"[{size}]"
        if inner.right and not inner.grouped:
            node = _Node(inner.left, bounds + inner.right, False, inner.leaf)
        else:
            node = _Node(inner.left, bounds if not inner.right else inner.right + bounds)
        self.subs.append(node)
        return node

    def _member_pointer(self) -> _Node:
        self.need("M")
        cls = self.type()
        member = self.type()
        if member.right and not member.grouped:
            node = _Node(f"{member.left} ({cls.text}::*", ")" + member.right, True)
        else:
            node = _Node(f"{member.text} {cls.text}::*")
        self.subs.append(node)
        return node

    def _template_param_type(self) -> _Node:
        node = self.template_param()
        self.subs.append(node)
        if self.peek() == "I":
            args = self.template_args()
            node = self._with_args(node, args)
            self.subs.append(node)
        return node

    def _substitution_type(self) -> _Node:
        if self.peek(1) == "t":
            node, _, _ = self.name()
            self.subs.append(node)
            return node
        node = self.substitution()
        if self.peek() == "I":
            node = self._with_args(node, self.template_args())
            self.subs.append(node)
        return node

    def substitution(self) -> _Node:
        """``S_``, ``S <seq-id> _`` or ``Sa``/``Sb``/``Ss``/``Si``/``So``/``Sd``."""
        self.need("S")
        letter = self.peek()
        if letter in _STD_SUBSTITUTIONS:
            self.pos += 1
            text = _STD_SUBSTITUTIONS[letter]
            return _Node(text, leaf=text.rsplit("::", 1)[-1])
        index = self.seq_id()
        if index >= len(self.subs):
            raise _Fail(f"substitution {index} out of range")
        return self.subs[index]

    def _d_type(self) -> _Node:
        code = self.peek(1)
        if code in _BUILTIN_D_TYPES:
            self.pos += 2
            text = _BUILTIN_D_TYPES[code]
            return _Node(text, leaf=re.sub(r"\W+", "_", text).strip("_"))
        if code == "F":
            self.pos += 2
            if self.eat("16b"):
                return _Node("std::bfloat16_t", leaf="bfloat16_t")
            bits = self.number()
            self.need("_")
            return _Node(f"_Float{bits}", leaf=f"_Float{bits}")
        if code == "p":
            self.pos += 2
            inner = self.type()
            node = _Node(inner.text + "...", leaf=inner.leaf)
            self.subs.append(node)
            return node
        if code == "v":
            self.pos += 2
            lanes = self.number()
            self.need("_")
            inner = self.type()
            node = _Node(f"{inner.text} __vector({lanes})", leaf=inner.leaf)
            self.subs.append(node)
            return node
        raise _Fail(f"unsupported type D{code}")

    def _vendor_type(self) -> _Node:
        self.need("u")
        node = self.source_name()
        self.subs.append(node)
        return node

    def _complex_type(self) -> _Node:
        word = "_Complex" if self.peek() == "C" else "_Imaginary"
        self.pos += 1
        inner = self.type()
        node = _Node(f"{inner.text} {word}", leaf=inner.leaf)
        self.subs.append(node)
        return node


_ERRORS = (_Fail, ValueError, IndexError, KeyError, RecursionError)
"""What a malformed mangling can raise inside the parser (never seen by callers)."""

_SPECIAL_ALL = frozenset(_SPECIAL_TYPE_NAMES) | frozenset(_SPECIAL_NAME_NAMES)

_NAME_RULES: dict[str, Callable[[_Demangler], tuple[_Node, list[_Node] | None, str]]] = {
    "N": _Demangler.nested_name,
    "Z": _Demangler.local_name,
}
"""How a ``<name>`` starting with each letter is parsed (others are unscoped names)."""


def demangle(symbol: str) -> str | None:
    """Demangle an Itanium C++ ABI symbol.

    Args:
        symbol: a name such as ``_Z10vector_addPKfS0_Pfi``.

    Returns:
        The C++ spelling (``vector_add(float const*, float const*, float*, int)``), or
        ``None`` when ``symbol`` is not a mangled name this demangler understands.
    """
    if not symbol.startswith("_Z"):
        return None
    try:
        return _Demangler(symbol).mangled_name()
    except _ERRORS:
        return None


_PARAM_SUFFIX = re.compile(r"(.+?)(_param_\d+)\Z")
"""NVVM's parameter names: the function's symbol followed by ``_param_<index>``."""

_INVALID = re.compile(r"[^A-Za-z0-9_]+")


def sanitize_identifier(text: str) -> str:
    """Make ``text`` a Python and PTX identifier: ``[A-Za-z_][A-Za-z0-9_]*``.

    Runs of other characters become one ``_``; a leading digit, a lone ``_`` (the PTX sink)
    and Python keywords get an extra ``_``; an empty result becomes ``_anon``.

    Args:
        text: any string.

    Returns:
        A non-empty identifier.
    """
    out = _INVALID.sub("_", text)
    if not out:
        return "_anon"
    if out[0].isdigit():
        out = "_" + out
    if out == "_" or keyword.iskeyword(out) or keyword.issoftkeyword(out):
        out += "_"
    return out


def _leaf(symbol: str) -> str | None:
    """The readable leaf of a mangled symbol, also when only its name could be parsed."""
    parser = _Demangler(symbol)
    with contextlib.suppress(*_ERRORS):
        parser.mangled_name()
    return parser.top_leaf or None


def readable_name(symbol: str) -> str:
    """A short identifier for a PTX symbol, valid in both Python and PTX.

    Mangled names become their innermost unqualified name: ``_ZN3M124smemE`` gives ``smem``,
    ``_Z10vector_addPKfS0_Pfi`` gives ``vector_add``, a constructor ``Rect_ctor``, an
    operator ``plus_call``; NVVM parameter names keep their suffix
    (``_Z10vector_addPKfS0_Pfi_param_2`` gives ``vector_add_param_2``). Other names are only
    sanitized (see :func:`sanitize_identifier`). Never raises.

    Args:
        symbol: a function, variable or parameter name as written in PTX.

    Returns:
        The identifier (not necessarily unique: ``M1::smem`` and ``M2::smem`` both give
        ``smem``).
    """
    if symbol.startswith("_Z"):
        leaf = _leaf(symbol) if demangle(symbol) is not None else None
        if leaf is None:
            m = _PARAM_SUFFIX.match(symbol)
            if m is not None and demangle(m.group(1)) is not None:
                return sanitize_identifier(readable_name(m.group(1)) + m.group(2))
            leaf = _leaf(symbol)
        if leaf:
            return sanitize_identifier(leaf)
    return sanitize_identifier(symbol)
