"""pyptx.emitter: PTX text from the IR.

:func:`emit` rebuilds text from the tree, never from a stored copy of the source. A parsed,
unedited module emits byte for byte as it was read; an edited one differs exactly where it
was edited; ``canonical=True`` drops all trivia and writes one fixed layout (tabs for
indentation, one space after the mnemonic, ``", "`` between operands), which re-parses to an
equal tree and assembles to the same machine code.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import TypeVar

from pyptx.ir import Module, Node, qualifier_tokens

from ._emit import emit_node
from ._emit import instruction_lines as _instruction_lines
from ._emit import instruction_positions as _instruction_positions

__all__ = ["emit", "instruction_lines", "instruction_positions", "qualifier_tokens"]

_N = TypeVar("_N", bound=Node)
_T = TypeVar("_T")


def _without_gc(fn: Callable[[_N, bool], _T], node: _N, canonical: bool) -> _T:
    """``fn(node, canonical)`` with the cyclic garbage collector paused (resumed even on error).

    Emission allocates only short-lived objects; pausing the collector keeps it from rescanning
    large trees that are alive anyway. (A plain call, not a context manager: :func:`emit` is
    called once per statement by some tools.)
    """
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        return fn(node, canonical)
    finally:
        if paused:
            gc.enable()


def emit(node: Node, *, canonical: bool = False) -> str:
    """Write a module (or any IR node) as PTX text.

    Args:
        node: a :class:`pyptx.ir.Module`, a statement, or an operand.
        canonical: ignore trivia and use the canonical layout.

    Returns:
        The PTX text.

    Raises:
        TypeError: ``node`` (or something inside it) is not a PTX IR node.
    """
    return _without_gc(emit_node, node, canonical)


def instruction_lines(module: Module, *, canonical: bool = False) -> list[int]:
    """Where each instruction of ``module`` is in ``emit(module, canonical=canonical)``.

    Tools that report on instructions (the emulator's errors, diagnostics) use it to name the
    PTX line of an instruction: for a parsed module that is its line in the source file, for
    a traced kernel its line in ``kernel.ptx()``.

    Args:
        module: the module.
        canonical: lines in the canonical layout instead of the module's own.

    Returns:
        The 1-based line of each instruction, in :meth:`pyptx.ir.Module.instructions` order.
    """
    return _without_gc(_instruction_lines, module, canonical)


def instruction_positions(module: Module, *, canonical: bool = False) -> list[tuple[int, int]]:
    """The 1-based ``(line, column)`` of each instruction in ``emit(module, canonical=...)``.

    As :func:`instruction_lines`, with the column of the instruction's first character (its
    ``@`` when guarded). For a parsed module these are its positions in the source.
    """
    return _without_gc(_instruction_positions, module, canonical)
