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
import re
from collections.abc import Callable
from dataclasses import replace

from ._itanium import (
    BUILTIN_D_TYPES,
    BUILTIN_TYPES,
    CTOR_DTOR,
    CV_LETTERS,
    LITERAL_SUFFIX,
    MAX_DEPTH,
    MAX_TEXT,
    OPERATORS,
    POINTER_LIKE,
    SPECIAL_NAME_NAMES,
    SPECIAL_TYPE_NAMES,
    STD_SUBSTITUTIONS,
    Fail,
    Node,
)
from ._literals import sanitize_identifier

__all__ = ["demangle", "readable_name", "sanitize_identifier"]


class _Demangler:
    """Recursive-descent parser over one mangled name."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.pos = 0
        self.depth = 0
        self.subs: list[Node] = []
        self.tparams: list[Node] = []
        self.top_leaf: str | None = None
        self._type_rules: dict[str, Callable[[], Node]] = {
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
            raise Fail(f"expected {prefix!r} at {self.pos}")

    def number(self) -> int:
        """``[n] <decimal>``."""
        neg = self.eat("n")
        start = self.pos
        while self.peek().isdigit():
            self.pos += 1
        if start == self.pos:
            raise Fail(f"expected a number at {self.pos}")
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
        if self.depth > MAX_DEPTH:
            raise Fail("mangling nested too deeply")

    def leave(self, node: Node) -> Node:
        """Close one level of recursion, failing if ``node`` is implausibly long."""
        self.depth -= 1
        if len(node.left) + len(node.right) > MAX_TEXT:
            raise Fail("demangled text too long")
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
            raise Fail(f"unexpected {self.s[self.pos :]!r}")
        return text

    def encoding(self, top: bool = False) -> Node:
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
        return Node(f"{returns}{name.text}({params}){const_suffix}", leaf=name.leaf)

    def special_name(self) -> Node:
        """``TV``/``TT``/``TI``/``TS`` + type, ``GV``/``TH``/``TW`` + name."""
        code = self.s[self.pos : self.pos + 2]
        self.pos += 2
        if code in SPECIAL_TYPE_NAMES:
            prefix, word = SPECIAL_TYPE_NAMES[code]
            inner = self.type()
        else:
            prefix, word = SPECIAL_NAME_NAMES[code]
            inner, _, _ = self.name()
        leaf = f"{word}_{inner.leaf}" if inner.leaf else word
        return Node(prefix + inner.text, leaf=leaf)

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

    def name(self) -> tuple[Node, list[Node] | None, str]:
        """A ``<name>``.

        Returns:
            The name, its template arguments (if it ends with some), and a method's
            CV/ref-qualifier suffix (`` const``).
        """
        self.enter()
        rule = _NAME_RULES.get(self.peek(), _Demangler.unscoped_name)
        node, args, suffix = rule(self)
        return self.leave(node), args, suffix

    def unscoped_name(self) -> tuple[Node, list[Node] | None, str]:
        """``[St] <unqualified-name> [<template-args>]`` or ``<substitution> <template-args>``."""
        if self.peek() == "S" and self.peek(1) != "t":
            base = self.substitution()
            if self.peek() != "I":
                raise Fail("a substituted name must be followed by template arguments")
            args = self.template_args()
            return self._with_args(base, args), args, ""
        std = self.eat("St")
        self.eat("L")
        node = self.unqualified_name(None)
        if std:
            node = Node("std::" + node.left, leaf=node.leaf)
        if self.peek() == "I":
            self.subs.append(node)
            args = self.template_args()
            return self._with_args(node, args), args, ""
        return node, None, ""

    def nested_name(self) -> tuple[Node, list[Node] | None, str]:
        """``N [CV] [ref] <prefix>... E``, pushing each prefix as a substitution candidate."""
        self.need("N")
        suffix = self.cv_suffix()
        if self.eat("R"):
            suffix += " &"
        elif self.eat("O"):
            suffix += " &&"
        so_far: Node | None = None
        args: list[Node] | None = None
        pushed = 0
        while not self.eat("E"):
            args = None
            if self.peek() == "S":
                if so_far is not None:
                    raise Fail("a substitution in the middle of a nested name")
                so_far = self._std_prefix() if self.peek(1) == "t" else self.substitution()
                continue
            if self.peek() == "I":
                if so_far is None:
                    raise Fail("template arguments without a template name")
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
            raise Fail("empty nested name")
        self.subs.pop()
        return so_far, args, suffix

    def _std_prefix(self) -> Node:
        self.pos += 2
        return Node("std")

    @staticmethod
    def _qualify(scope: Node | None, part: Node) -> Node:
        if scope is None:
            return part
        return Node(f"{scope.text}::{part.left}", leaf=part.leaf, cdtor=part.cdtor)

    @staticmethod
    def _with_args(base: Node, args: list[Node]) -> Node:
        inner = ", ".join(a.text for a in args)
        close = " >" if inner.endswith(">") else ">"
        return Node(f"{base.text}<{inner}{close}", leaf=base.leaf, cdtor=base.cdtor)

    def local_name(self) -> tuple[Node, list[Node] | None, str]:
        """``Z <encoding> E <entity> [<discriminator>]`` or ``... E s`` (a string literal)."""
        self.need("Z")
        outer = self.encoding()
        self.need("E")
        if self.eat("s"):
            self.discriminator()
            return Node(f"{outer.text}::string literal", leaf="string_literal"), None, ""
        entity, args, suffix = self.name()
        self.discriminator()
        node = Node(f"{outer.text}::{entity.text}", leaf=entity.leaf, cdtor=entity.cdtor)
        return node, args, suffix

    def discriminator(self) -> None:
        """``_ <digit>`` or ``__ <number> _`` (skipped: it does not change the spelling)."""
        if self.peek() == "_" and self.peek(1).isdigit():
            self.pos += 2
        elif self.peek() == "_" and self.peek(1) == "_" and self.peek(2).isdigit():
            self.pos += 2
            self.number()
            self.need("_")

    def unqualified_name(self, scope: Node | None) -> Node:
        """A source name, operator, constructor/destructor, unnamed type or lambda."""
        c = self.peek()
        if c.isdigit():
            node = self.source_name()
        elif self.s[self.pos : self.pos + 2] in CTOR_DTOR:
            node = self.ctor_dtor(scope)
        elif c == "D" and self.peek(1) == "C":
            node = self.structured_binding()
        elif c == "U":
            node = self.unnamed_type()
        elif c.islower():
            node = self.operator_name(scope)
        else:
            raise Fail(f"unexpected {c!r} in a name")
        return self.abi_tags(node)

    def source_name(self) -> Node:
        """``<length> <identifier>``."""
        length = self.number()
        if length <= 0 or self.pos + length > len(self.s):
            raise Fail("bad source-name length")
        ident = self.s[self.pos : self.pos + length]
        self.pos += length
        if ident.startswith("_GLOBAL__N"):
            return Node("(anonymous namespace)", leaf="")
        return Node(ident, leaf=ident)

    def ctor_dtor(self, scope: Node | None) -> Node:
        """``C1``..``C3``, ``CI1 <type>``, ``D0``..``D2``."""
        if scope is None:
            raise Fail("a constructor needs an enclosing class")
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
        return Node(spelling, leaf=f"{scope.leaf}_{word}", cdtor=True)

    def structured_binding(self) -> Node:
        """``DC <source-name>+ E``."""
        self.pos += 2
        names = [self.source_name().left]
        while not self.eat("E"):
            names.append(self.source_name().left)
        return Node("[" + ", ".join(names) + "]", leaf="_".join(names))

    def unnamed_type(self) -> Node:
        """``Ut [n] _`` or a lambda ``Ul <params> E [n] _``."""
        if self.eat("Ut"):
            n = self.seq_id()
            return Node(f"{{unnamed type#{n + 1}}}", leaf="unnamed")
        if self.eat("Ul"):
            params = self.bare_function_params()
            self.need("E")
            n = self.seq_id()
            return Node(f"{{lambda({params})#{n + 1}}}", leaf="lambda")
        raise Fail("unknown unnamed-type name")

    def operator_name(self, scope: Node | None) -> Node:
        """``<operator-name>``: a two-letter code, ``cv <type>`` or ``li <source-name>``."""
        code = self.s[self.pos : self.pos + 2]
        self.pos += 2
        owner = f"{scope.leaf}_" if scope is not None and scope.leaf else "operator_"
        if code == "cv":
            target = self.type()
            leaf = f"{owner}to_{target.leaf or 'value'}"
            return Node(f"operator {target.text}", leaf=leaf, cdtor=True)
        if code == "li":
            suffix = self.source_name().left
            return Node(f'operator"" {suffix}', leaf=f"operator_literal{suffix}")
        if code not in OPERATORS:
            raise Fail(f"unknown operator {code!r}")
        spelling, word = OPERATORS[code]
        sep = " " if spelling[0].isalpha() else ""
        return Node(f"operator{sep}{spelling}", leaf=owner + word)

    def abi_tags(self, node: Node) -> Node:
        """``B <source-name>`` ABI tags after a name."""
        while self.peek() == "B" and self.peek(1).isdigit():
            self.pos += 1
            tag = self.source_name().left
            node = Node(f"{node.left}[abi:{tag}]", leaf=node.leaf, cdtor=node.cdtor)
        return node

    # ------------------------------------------------------------------ templates

    def template_args(self) -> list[Node]:
        """``I <template-arg>+ E``."""
        self.need("I")
        args: list[Node] = []
        while not self.eat("E"):
            if self.pos >= len(self.s):
                raise Fail("unterminated template arguments")
            args.append(self.template_arg())
        return args

    def template_arg(self) -> Node:
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
            items: list[Node] = []
            while not self.eat("E"):
                items.append(self.template_arg())
            return Node(", ".join(i.text for i in items))
        return self.type()

    def expression(self) -> Node:
        """The expressions device manglings use: template parameters and literals."""
        if self.peek() == "T":
            return self.template_param()
        if self.peek() == "L":
            return self.literal()
        raise Fail("unsupported expression")

    def literal(self) -> Node:
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
        return Node(self._literal_text(ty.text, value))

    @staticmethod
    def _literal_text(ty: str, value: str) -> str:
        code = next((k for k, v in BUILTIN_TYPES.items() if v == ty), None)
        if value.startswith("n"):
            value = "-" + value[1:]
        if code == "b" and value in ("0", "1"):
            return "true" if value == "1" else "false"
        if code in LITERAL_SUFFIX:
            return value + LITERAL_SUFFIX[code]
        if ty == "decltype(nullptr)" and not value:
            return "nullptr"
        return f"({ty}){value}"

    def template_param(self) -> Node:
        """``T_`` or ``T <n> _``: an argument of the enclosing template."""
        self.need("T")
        index = self.seq_id()
        if index >= len(self.tparams):
            raise Fail(f"template parameter {index} out of range")
        return self.tparams[index]

    # ------------------------------------------------------------------ types

    def type(self) -> Node:
        """A ``<type>``, pushing it as a substitution candidate when the ABI says so."""
        self.enter()
        c = self.peek()
        if c in BUILTIN_TYPES:
            self.pos += 1
            text = BUILTIN_TYPES[c]
            return self.leave(Node(text, leaf=text.replace(" ", "_")))
        rule = self._type_rules.get(c)
        if rule is not None:
            return self.leave(rule())
        if c.isdigit() or c in ("N", "Z"):
            node, _, _ = self.name()
            self.subs.append(node)
            return self.leave(node)
        raise Fail(f"unexpected {c!r} in a type")

    def _pointer_like(self) -> Node:
        symbol = POINTER_LIKE[self.peek()]
        self.pos += 1
        inner = self.type()
        if symbol != "*" and inner.ref and not inner.right:
            ref = "&" if "&" in (symbol, inner.ref) else "&&"
            node = Node(inner.left[: -len(inner.ref)] + ref, leaf=inner.leaf, ref=ref)
        else:
            node = replace(self._declarate(inner, symbol), ref="" if symbol == "*" else symbol)
        self.subs.append(node)
        return node

    @staticmethod
    def _declarate(inner: Node, symbol: str) -> Node:
        """Apply ``*``/``&``/``&&``/`` const`` to ``inner`` at its declarator position."""
        if not inner.right:
            return Node(inner.left + symbol, leaf=inner.leaf)
        if inner.grouped:
            return Node(inner.left + symbol, inner.right, True, inner.leaf)
        gap = " " if inner.right.startswith("[") else ""
        return Node(f"{inner.left} ({symbol.strip()}", ")" + gap + inner.right, True, inner.leaf)

    def cv_suffix(self) -> str:
        """``[r] [V] [K]`` as `` restrict volatile const`` (in c++filt order)."""
        words = [word for letter, word in CV_LETTERS if self.eat(letter)]
        return "".join(" " + w for w in reversed(words)) if words else ""

    def _qualified(self) -> Node:
        suffix = self.cv_suffix()
        inner = self.type()
        if inner.right and not inner.grouped:  # a cv-qualified function type
            node = Node(inner.left, inner.right + suffix, False, inner.leaf)
        else:
            node = Node(inner.left + suffix, inner.right, inner.grouped, inner.leaf)
        self.subs.append(node)
        return node

    def _function_type(self) -> Node:
        self.need("F")
        self.eat("Y")
        ret = self.type().text
        params = self.bare_function_params()
        ref = " &" if self.eat("R") else " &&" if self.eat("O") else ""
        self.need("E")
        node = Node(ret, f"({params}){ref}")
        self.subs.append(node)
        return node

    def _array_type(self) -> Node:
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
            node = Node(inner.left, bounds + inner.right, False, inner.leaf)
        else:
            node = Node(inner.left, bounds if not inner.right else inner.right + bounds)
        self.subs.append(node)
        return node

    def _member_pointer(self) -> Node:
        self.need("M")
        cls = self.type()
        member = self.type()
        if member.right and not member.grouped:
            node = Node(f"{member.left} ({cls.text}::*", ")" + member.right, True)
        else:
            node = Node(f"{member.text} {cls.text}::*")
        self.subs.append(node)
        return node

    def _template_param_type(self) -> Node:
        node = self.template_param()
        self.subs.append(node)
        if self.peek() == "I":
            args = self.template_args()
            node = self._with_args(node, args)
            self.subs.append(node)
        return node

    def _substitution_type(self) -> Node:
        if self.peek(1) == "t":
            node, _, _ = self.name()
            self.subs.append(node)
            return node
        node = self.substitution()
        if self.peek() == "I":
            node = self._with_args(node, self.template_args())
            self.subs.append(node)
        return node

    def substitution(self) -> Node:
        """``S_``, ``S <seq-id> _`` or ``Sa``/``Sb``/``Ss``/``Si``/``So``/``Sd``."""
        self.need("S")
        letter = self.peek()
        if letter in STD_SUBSTITUTIONS:
            self.pos += 1
            text = STD_SUBSTITUTIONS[letter]
            return Node(text, leaf=text.rsplit("::", 1)[-1])
        index = self.seq_id()
        if index >= len(self.subs):
            raise Fail(f"substitution {index} out of range")
        return self.subs[index]

    def _d_type(self) -> Node:
        code = self.peek(1)
        if code in BUILTIN_D_TYPES:
            self.pos += 2
            text = BUILTIN_D_TYPES[code]
            return Node(text, leaf=re.sub(r"\W+", "_", text).strip("_"))
        if code == "F":
            self.pos += 2
            if self.eat("16b"):
                return Node("std::bfloat16_t", leaf="bfloat16_t")
            bits = self.number()
            self.need("_")
            return Node(f"_Float{bits}", leaf=f"_Float{bits}")
        if code == "p":
            self.pos += 2
            inner = self.type()
            node = Node(inner.text + "...", leaf=inner.leaf)
            self.subs.append(node)
            return node
        if code == "v":
            self.pos += 2
            lanes = self.number()
            self.need("_")
            inner = self.type()
            node = Node(f"{inner.text} __vector({lanes})", leaf=inner.leaf)
            self.subs.append(node)
            return node
        raise Fail(f"unsupported type D{code}")

    def _vendor_type(self) -> Node:
        self.need("u")
        node = self.source_name()
        self.subs.append(node)
        return node

    def _complex_type(self) -> Node:
        word = "_Complex" if self.peek() == "C" else "_Imaginary"
        self.pos += 1
        inner = self.type()
        node = Node(f"{inner.text} {word}", leaf=inner.leaf)
        self.subs.append(node)
        return node


_ERRORS = (Fail, ValueError, IndexError, KeyError, RecursionError)
"""What a malformed mangling can raise inside the parser (never seen by callers)."""

_SPECIAL_ALL = frozenset(SPECIAL_TYPE_NAMES) | frozenset(SPECIAL_NAME_NAMES)

_NAME_RULES: dict[str, Callable[[_Demangler], tuple[Node, list[Node] | None, str]]] = {
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
