"""The fast path for operands: one comma-separated piece of operand text at a time.

The fast paths cut an operand segment (the text between a mnemonic and its ``;``) at its
commas and hand each piece to :class:`Pieces`, which builds exactly the node the general
rules of :mod:`._expressions` build for it (a register, number, bare name, ``[base+offset]``
address or ``{...}`` vector of those) and the gap after it, or declines.
"""

from __future__ import annotations

from typing import Any

from pyptx.ir import SPECIAL_REGISTERS, Expr, Operand, Sink, VectorOperand

from ._build import new_address, new_immediate, new_register, new_special_register, new_vector
from ._cursor import Cursor
from ._expressions import bare_name
from ._lexer import ADDRESS_PIECE, OPERAND_PIECE, VECTOR_PIECE

_DIGITS = frozenset("0123456789")
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$")

Piece = tuple[Operand, str]
"""An operand and the gap after it."""


class Pieces:
    """Operand pieces, with a cache of those whose node does not depend on the context.

    Attributes:
        cache: piece text (spaces included) to its node and gap; pieces that hold a bare
            name are never cached (what a bare name is depends on the function).
    """

    __slots__ = ("cache", "cur")

    def __init__(self, cur: Cursor) -> None:
        self.cur = cur
        self.cache: dict[str, Piece] = {}

    def get(self, piece: str) -> Piece | None:
        """The node of one simple operand text and the gap after it, or ``None``.

        Gives exactly the node the general rules give. ``None`` means the text is not
        simple: the general rules must parse it (and report any error in it).
        """
        hit = self.cache.get(piece)
        if hit is not None:
            return hit
        return self.new(piece)

    def new(self, piece: str) -> Piece | None:
        """:meth:`get` for a piece that is not in the cache.

        The commonest pieces (a register, a decimal integer, a bare name or an address,
        each after spaces or tabs) are told apart by their first character and checked
        with string methods or one small pattern; anything else goes through
        :data:`~._lexer.OPERAND_PIECE`.
        """
        body = piece.lstrip(" \t")
        c = body[:1]
        out: Piece
        if c == "%":
            if body.isascii() and body[1:].isalnum():
                lead = piece[: len(piece) - len(body)]
                make = new_special_register if body in SPECIAL_REGISTERS else new_register
                out = (make(body, (lead,)), "")
                self.cache[piece] = out
                return out
        elif c in _DIGITS:
            if body.isdigit() and body.isascii():
                out = (new_immediate(body, (piece[: len(piece) - len(body)],)), "")
                self.cache[piece] = out
                return out
        elif c == "[":
            m = ADDRESS_PIECE.match(body)
            if m is not None:
                return self._address(piece[: len(piece) - len(body)], piece, m.groups())
        elif c in _NAME_START and body.isascii() and body.replace("$", "_").isidentifier():
            # [A-Za-z_$][A-Za-z0-9_$]* is an ASCII identifier once '$' reads as '_'.
            return self._name(piece[: len(piece) - len(body)], piece, body)
        elif c == "{":
            return self._vector(piece)  # OPERAND_PIECE never matches a '{'
        return self._pattern(piece)

    def _address(self, lead: str, piece: str, groups: tuple[Any, ...]) -> Piece | None:
        """The node of an :data:`~._lexer.ADDRESS_PIECE` match (see :meth:`new`)."""
        blead, breg, bbare, sgap, sign, olead, onum, cgap, trail = groups
        base: Expr
        if breg is not None:
            if breg in SPECIAL_REGISTERS:
                base = new_special_register(breg, (blead,))
            else:
                base = new_register(breg, (blead,))
        elif bbare == "generic":
            return None  # generic(...) reads past the piece: the general rules parse it
        else:
            base = bare_name(self.cur, bbare, blead)
        if sign is not None:
            node = new_address(base, new_immediate(onum, (olead,)), sign, (), (lead, sgap, cgap))
        else:
            node = new_address(base, None, "+", (), (lead, cgap))
        out = (node, trail)
        if breg is not None:
            self.cache[piece] = out
        return out

    def _name(self, lead: str, piece: str, name: str) -> Piece | None:
        """The node of a bare-name piece (see :meth:`new`)."""
        if name == "generic":
            return None  # generic(...) reads past the piece: the general rules parse it
        if name == "_":
            out: Piece = (Sink((lead,)), "")
            self.cache[piece] = out
            return out
        return bare_name(self.cur, name, lead), ""

    def _pattern(self, piece: str) -> Piece | None:
        """:meth:`new` for the pieces its first checks leave, by OPERAND_PIECE.

        Those are a register, number or name with spaces after it, ``%tid.x`` and the like,
        numbers other than plain decimals, and ``_``.
        """
        m = OPERAND_PIECE.match(piece)
        if m is None:
            return None
        lead, reg, num, bare, trail = m.groups()
        node: Operand
        if reg is not None:
            if reg in SPECIAL_REGISTERS:
                node = new_special_register(reg, (lead,))
            elif "." in reg:
                return None  # %name.x that is no special register: the general rules report it
            else:
                node = new_register(reg, (lead,))
        elif num is not None:
            node = new_immediate(num, (lead,))
        elif bare == "_":
            node = Sink((lead,))
        elif bare == "generic":
            return None  # generic(...) reads past the piece: the general rules parse it
        else:
            return bare_name(self.cur, bare, lead), trail  # depends on the context: not cached
        out = (node, trail)
        self.cache[piece] = out
        return out

    def _vector(self, piece: str) -> Piece | None:
        """``{a, b, ...}`` of simple operands as one piece (see :meth:`get`)."""
        m = VECTOR_PIECE.match(piece)
        if m is None:
            return None
        lead, inner, trail = m.groups()
        cache = self.cache
        elements: list[Operand] = []
        gaps = [lead]
        cacheable = True
        for element in inner.split(","):
            hit = cache.get(element)
            if hit is None:
                hit = self.get(element)
                if hit is None or isinstance(hit[0], VectorOperand):
                    return None
                cacheable = cacheable and element in cache
            elements.append(hit[0])
            gaps.append(hit[1])
        out = (new_vector(tuple(elements), tuple(gaps)), trail)
        if cacheable:
            cache[piece] = out
        return out
