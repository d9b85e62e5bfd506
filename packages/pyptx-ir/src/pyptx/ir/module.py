"""A whole PTX module: header directives, globals, functions, debug sections."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar

from .declarations import VariableDecl
from .directives import AddressSize, Target, Version
from .functions import Block, Function
from .instructions import Instruction
from .node import Node, Trivia

__all__ = ["Module"]


@dataclass(frozen=True, slots=True)
class Module(Node):
    """The root of a PTX program.

    Attributes:
        statements: top-level statements in source order (``.version``, ``.target``,
            ``.address_size``, variable declarations, functions, ``.file``, ``.section``,
            ``.pragma``, ``.alias``).

    Gaps: ``end``, the trivia after the last statement up to the end of the file.
    """

    GAPS: ClassVar[tuple[str, ...]] = ("end",)

    statements: tuple[Node, ...] = ()
    trivia: Trivia = field(default=None, compare=False, repr=False)

    def _first(self, kind: type) -> Node | None:
        return next((s for s in self.statements if isinstance(s, kind)), None)

    @property
    def version(self) -> tuple[int, int] | None:
        """The ``.version`` as ``(major, minor)``, if present."""
        v = self._first(Version)
        return (v.major, v.minor) if isinstance(v, Version) else None

    @property
    def targets(self) -> tuple[str, ...]:
        """The ``.target`` entries (architecture and options)."""
        t = self._first(Target)
        return t.targets if isinstance(t, Target) else ()

    @property
    def address_size(self) -> int | None:
        """The ``.address_size``, if present."""
        a = self._first(AddressSize)
        return a.bits if isinstance(a, AddressSize) else None

    @property
    def functions(self) -> tuple[Function, ...]:
        """All functions, kernels and device functions, defined or declared."""
        return tuple(s for s in self.statements if isinstance(s, Function))

    @property
    def kernels(self) -> tuple[Function, ...]:
        """The ``.entry`` functions."""
        return tuple(f for f in self.functions if f.is_kernel)

    @property
    def globals(self) -> tuple[VariableDecl, ...]:
        """Module-scope variable declarations."""
        return tuple(s for s in self.statements if isinstance(s, VariableDecl))

    def function(self, name: str) -> Function:
        """Return the function called ``name``.

        Raises:
            KeyError: no function has that name; the message lists the names there are.
        """
        for f in self.functions:
            if f.name == name:
                return f
        names = ", ".join(f.name for f in self.functions) or "none"
        raise KeyError(f"no function named {name!r} in this module (functions: {names})")

    def instructions(self) -> Iterator[Instruction]:
        """Yield every instruction of every function body, in source order."""
        for f in self.functions:
            if f.body is not None:
                for s in f.body.walk_statements():
                    if isinstance(s, Instruction):
                        yield s

    def walk_statements(self) -> Iterator[Node]:
        """Yield every statement at any depth (top level, function bodies, nested blocks)."""
        for s in self.statements:
            yield s
            if isinstance(s, Function) and s.body is not None:
                yield s.body
                yield from s.body.walk_statements()
            elif isinstance(s, Block):
                yield from s.walk_statements()
