"""CUDA system calls a kernel may call without defining them: ``vprintf``, ``__assertfail``.

They are what device-side ``printf`` and ``assert`` compile to.

``vprintf(format, args)`` prints, for each calling thread in CTA and thread order, the C
format string with the arguments packed in the buffer ``args`` (each aligned to its size;
``float`` promoted to ``double``, as nvcc lays them out). ``__assertfail(message, file,
line, function, char_size)`` raises an :class:`EmuError` with the failed assertion, as a GPU
would abort the kernel.
"""

from __future__ import annotations

import re
import struct
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ._errors import EmuError, Fault
from ._lanes import Lanes
from ._memory import Space
from ._program import FRAME_BASE, Var

__all__ = ["SYSCALLS"]

_SPEC = re.compile(
    r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+|\*))?(hh|h|ll|l|L|z|j|t)?([diouxXeEfFgGaAcspn%])"
)

_MAX_STRING = 4096


def _param(m: Any, lanes: Lanes, var: Var, fmt: str) -> np.ndarray:
    """The value of a call-frame parameter for each lane (struct format ``fmt``)."""
    size = struct.calcsize(fmt)
    rows = m.mem.frames.reshape(m.n, m.mem.frame_row)
    start = var.offset - FRAME_BASE
    raw = np.ascontiguousarray(rows[lanes.idx, start : start + size])
    dtype = np.dtype("<" + fmt)
    return raw.view(dtype).reshape(lanes.n)


def _string(m: Any, lane: int, address: int) -> str:
    """The NUL-terminated string at a generic address, as a lane sees it."""
    out = bytearray()
    lanes = np.array([lane], dtype=np.int64)
    while len(out) < _MAX_STRING:
        byte = m.mem.load_bytes(
            Space.GENERIC, np.array([address + len(out)], dtype=np.uint64), lanes, 1, 1
        )
        if byte[0, 0] == 0:
            break
        out.append(int(byte[0, 0]))
    return out.decode("utf-8", errors="replace")


def _arg_size(length: str | None, conversion: str) -> tuple[int, str]:
    """(bytes, struct format) of one vprintf argument."""
    if conversion in "eEfFgGaA":
        return 8, "d"
    if conversion in "sp":
        return 8, "Q"
    wide = length in ("l", "ll", "z", "j", "t")
    signed = conversion in "di"
    if wide:
        return 8, "q" if signed else "Q"
    return 4, "i" if signed else "I"


def _format(m: Any, lane: int, fmt: str, args: int) -> tuple[str, int]:
    """Format ``fmt`` for one lane with its argument buffer at ``args``; also the count."""
    lanes = np.array([lane], dtype=np.int64)
    offset = 0
    count = 0

    def take(size: int, code: str) -> Any:
        nonlocal offset, count
        offset = (offset + size - 1) // size * size
        raw = m.mem.load_bytes(
            Space.GENERIC, np.array([args + offset], dtype=np.uint64), lanes, size, size
        )
        offset += size
        count += 1
        return struct.unpack("<" + code, raw.tobytes())[0]

    def one(match: re.Match[str]) -> str:
        flags, width, precision, length, conversion = match.groups()
        if conversion == "%":
            return "%"
        if width == "*":
            width = str(take(4, "i"))
        if precision == "*":
            precision = str(take(4, "i"))
        size, code = _arg_size(length, conversion)
        value = take(size, code)
        spec = "%" + flags + (width or "") + (f".{precision}" if precision is not None else "")
        if conversion == "s":
            return (spec + "s") % _string(m, lane, int(value))
        if conversion == "p":
            return (spec + "s") % f"0x{int(value):x}"
        if conversion == "c":
            return (spec + "c") % chr(int(value) & 0xFF)
        if conversion == "n":
            return ""
        if conversion in "aA":
            return (spec + "s") % float(value).hex()
        if conversion == "u":
            conversion = "d"
        return (spec + conversion) % value

    return _SPEC.sub(one, fmt), count


def vprintf(m: Any, lanes: Lanes, args: tuple[Var, ...], rets: tuple[Var, ...]) -> None:
    """``vprintf(format, args)``: print one line per calling thread, in thread order."""
    if len(args) != 2:
        raise Fault(EmuError, "vprintf takes 2 parameters (format, argument buffer)")
    fmts = _param(m, lanes, args[0], "Q")
    bufs = _param(m, lanes, args[1], "Q")
    cache: dict[int, str] = {}
    counts = np.zeros(lanes.n, dtype=np.int32)
    pieces = []
    for i, lane in enumerate(lanes.idx):
        address = int(fmts[i])
        fmt = cache.get(address)
        if fmt is None:
            fmt = cache[address] = _string(m, int(lane), address)
        text, counts[i] = _format(m, int(lane), fmt, int(bufs[i]))
        pieces.append(text)
    sys.stdout.write("".join(pieces))
    if rets:
        rows = m.mem.frames.reshape(m.n, m.mem.frame_row)
        start = rets[0].offset - FRAME_BASE
        rows[lanes.idx, start : start + 4] = counts.view(np.uint8).reshape(lanes.n, 4)


def assertfail(m: Any, lanes: Lanes, args: tuple[Var, ...], rets: tuple[Var, ...]) -> None:
    """``__assertfail(message, file, line, function, char_size)``: the kernel aborts."""
    lane = int(lanes.idx[0])
    message = _string(m, lane, int(_param(m, lanes, args[0], "Q")[0]))
    file = _string(m, lane, int(_param(m, lanes, args[1], "Q")[0]))
    line = int(_param(m, lanes, args[2], "I")[0])
    function = _string(m, lane, int(_param(m, lanes, args[3], "Q")[0]))
    raise Fault(
        EmuError,
        f"device-side assertion failed: {message} ({file}:{line}, in {function})",
        lane=lane,
    )


SYSCALLS: dict[str, Callable[[Any, Lanes, tuple[Var, ...], tuple[Var, ...]], None]] = {
    "vprintf": vprintf,
    "__assertfail": assertfail,
}
"""System calls by name: what a call to an undefined function of that name does."""
