"""Source spans for a parsed module's instructions (``parse(..., spans=True)``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from pyptx.emitter import instruction_positions
from pyptx.ir import Block, Function, Instruction, Module, Node, Span

__all__ = ["with_spans"]


def with_spans(module: Module, filename: str) -> Module:
    """``module`` with every instruction's :attr:`~pyptx.ir.Instruction.span` set.

    A parsed module emits its source text exactly, so where the emitter writes each
    instruction is where it was in the source. The parser shares one node between
    identical lines; with spans each occurrence becomes its own node.
    """
    spans = iter([Span(filename, line, column) for line, column in instruction_positions(module)])
    out = []
    for s in module.statements:
        if isinstance(s, Function) and s.body is not None:
            s = replace(s, body=_block(s.body, spans))
        out.append(s)
    return replace(module, statements=tuple(out))


def _block(block: Block, spans: Iterator[Span]) -> Block:
    out: list[Node] = []
    for s in block.statements:
        if isinstance(s, Instruction):
            s = replace(s, span=next(spans))
        elif isinstance(s, Block):
            s = _block(s, spans)
        out.append(s)
    return replace(block, statements=tuple(out))
