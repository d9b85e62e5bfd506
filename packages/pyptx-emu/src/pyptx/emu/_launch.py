"""``launch``: run one kernel of a module over a grid, on numpy arrays."""

from __future__ import annotations

import os
import struct
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pyptx.ir import FunctionDirective, FunctionDirectiveKind, Module, PtxType
from pyptx.parser import parse

from ._errors import LaunchError
from ._initializers import fill_constants, fill_globals
from ._machine import Executor, LaunchConfig, Machine, Wave
from ._memory import GLOBAL_BASE, SEGMENT_ALIGN, Memory, Segment
from ._program import Func, Program, Var, align_up
from ._races import RaceChecker
from ._registry import compile_program
from ._tensor_map import TENSOR_MAP_BYTES, TensorMap, encode_tag

__all__ = ["LaunchStats", "launch"]

Dim = int | Sequence[int]

WAVE_THREADS = int(os.environ.get("PYPTX_EMU_WAVE_THREADS", "16384"))
"""Threads the emulator runs together at most (whole clusters; at least one)."""

_SMEM_LIMIT = {8: 166_912, 9: 232_448, 10: 232_448, 11: 232_448, 12: 101_376}
"""Shared memory per CTA by architecture generation (sm_80, sm_90, sm_100, ...)."""

_CACHE_SIZE = 16


@dataclass
class LaunchStats:
    """What a launch executed.

    Attributes:
        warp_instructions: instructions issued, counted once per warp that issued them.
        by_mnemonic: the same, by full mnemonic
            (``"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"``).
        ctas: CTAs run.
        waves: how many groups of CTAs the emulator ran one after the other.
    """

    warp_instructions: int = 0
    by_mnemonic: Counter[str] = field(default_factory=Counter)
    ctas: int = 0
    waves: int = 0


class _Compiled:
    def __init__(self, module: Module) -> None:
        self.module = module
        self.program = Program(module)
        self.executors: list[Executor] = compile_program(self.program)


_compiled: OrderedDict[str | int, _Compiled] = OrderedDict()
"""Recently launched programs, by PTX text or by the identity of the module object (a
module is immutable, and the entry keeps it alive, so its id cannot be reused)."""


def _compile(ptx: str | Module) -> _Compiled:
    if not isinstance(ptx, (str, Module)):
        raise LaunchError(f"launch() takes PTX text or a pyptx.ir.Module, got {type(ptx).__name__}")
    key: str | int = ptx if isinstance(ptx, str) else id(ptx)
    found = _compiled.get(key)
    if found is not None and (isinstance(ptx, str) or found.module is ptx):
        _compiled.move_to_end(key)
        return found
    compiled = _Compiled(parse(ptx, "<ptx>") if isinstance(ptx, str) else ptx)
    _compiled[key] = compiled
    while len(_compiled) > _CACHE_SIZE:
        _compiled.popitem(last=False)
    return compiled


def _dim3(value: Dim, what: str) -> tuple[int, int, int]:
    dims: tuple[int, ...]
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        dims = (int(value),)
    elif isinstance(value, (tuple, list)) and 1 <= len(value) <= 3:
        dims = tuple(int(v) for v in value)
    else:
        raise LaunchError(f"{what} must be an int or a tuple of 1 to 3 ints, got {value!r}")
    full = dims + (1,) * (3 - len(dims))
    if any(d < 1 for d in full):
        raise LaunchError(f"{what} must be positive in every dimension, got {value!r}")
    return full[0], full[1], full[2]


def launch(
    ptx: str | Module,
    kernel_name: str | None = None,
    *,
    grid: Dim,
    block: Dim,
    args: Sequence[Any],
    cluster: Dim = (1, 1, 1),
    smem: int = 0,
    check_races: bool = False,
) -> LaunchStats:
    """Run a kernel on the CPU.

    Args:
        ptx: PTX text, or a :class:`pyptx.ir.Module` (a traced kernel's ``.module(...)``).
        kernel_name: the ``.entry`` to run; optional when the module has one.
        grid: CTAs per dimension (an int or a 1-3 tuple; counts CTAs, not clusters).
        block: threads per CTA per dimension.
        args: one per kernel parameter, in order: a numpy array for a pointer parameter
            (it gets a device address; the kernel's stores land in it in place), a Python
            int or float for a scalar parameter, a :class:`TensorMap` for a tensor-map
            parameter (``.param .align 64 .b8 name[128]``, or a 64-bit parameter holding a
            pointer to one), ``bytes`` for any other byte-array parameter, or a tuple of
            numpy arrays for a byte array that holds their addresses, 8 bytes each (how
            CuTe DSL passes a tensor with a static layout: ``.param .align 8 .b8 t[8]``).
        cluster: CTAs per cluster per dimension (must divide ``grid``).
        smem: bytes of dynamic shared memory per CTA (the ``.extern .shared`` array).
        check_races: also check shared memory for data races between barriers.

    Returns:
        What was executed.

    Raises:
        LaunchError: a wrong launch (grid, block, cluster, arguments, shared memory size).
        OutOfBounds, Misaligned, UninitializedRead, DataRace, Deadlock, NotEmulated: what
            the kernel did, naming the instruction, its PTX line and the thread.
    """
    compiled = _compile(ptx)
    program = compiled.program
    func = program.kernel(kernel_name)
    config = _config(program, func, grid, block, cluster, smem, check_races)
    maps: list[TensorMap] = []
    segments = _global_segments(program)
    param_buffer = _parameters(func, args, segments, maps)
    const = np.zeros(max(8, align_up(program.consts_size, 8)), dtype=np.uint8)
    fill_constants(program, const, segments)
    stats = LaunchStats()
    counts = [0] * len(compiled.executors)
    for wave in _waves(config):
        mem = Memory(
            segments,
            param_buffer,
            const,
            ctas=int(wave.ctaid.shape[0]),
            shared_size=config.shared_bytes,
            padded=config.padded,
            local_size=program.local_size,
            frame_size=program.frame_size,
            cluster_first=wave.cluster_first,
            cluster_size=config.cluster_size,
        )
        machine = Machine(program, compiled.executors, config, wave, mem, func.entry)
        machine.tensor_maps = tuple(maps)
        if check_races:
            RaceChecker.attach(machine)
        machine.run()
        for pc, c in enumerate(machine.counts):
            counts[pc] += c
        stats.waves += 1
        stats.ctas += int(wave.ctaid.shape[0])
    for pc, c in enumerate(counts):
        if c:
            stats.by_mnemonic[program.code[pc].insn.mnemonic] += c
    stats.warp_instructions = sum(counts)
    return stats


def _config(
    program: Program,
    func: Func,
    grid: Dim,
    block: Dim,
    cluster: Dim,
    smem: int,
    check_races: bool,
) -> LaunchConfig:
    g = _dim3(grid, "grid")
    b = _dim3(block, "block")
    c = _dim3(cluster, "cluster")
    threads = b[0] * b[1] * b[2]
    if threads > 1024:
        raise LaunchError(f"a CTA has at most 1024 threads; block {b} has {threads}")
    if b[2] > 64:
        raise LaunchError(f"block z is at most 64, got {b[2]}")
    declared = _directive(func, FunctionDirectiveKind.REQNCTAPERCLUSTER)
    if declared is not None:
        if c == (1, 1, 1):
            c = declared
        elif c != declared:
            raise LaunchError(
                f"the kernel declares .reqnctapercluster {declared}, but the launch asks for"
                f" cluster {c}"
            )
    for kind in (FunctionDirectiveKind.REQNTID,):
        want = _directive(func, kind)
        if want is not None and want != b:
            raise LaunchError(f"the kernel declares .reqntid {want}, but block is {b}")
    max_ntid = _directive(func, FunctionDirectiveKind.MAXNTID)
    if max_ntid is not None and threads > max_ntid[0] * max_ntid[1] * max_ntid[2]:
        raise LaunchError(f"the kernel declares .maxntid {max_ntid}, but block {b} is larger")
    size = c[0] * c[1] * c[2]
    if size > 16:
        raise LaunchError(f"a cluster has at most 16 CTAs, cluster {c} has {size}")
    if any(gd % cd for gd, cd in zip(g, c, strict=True)):
        raise LaunchError(f"cluster {c} must divide grid {g} in every dimension")
    if not isinstance(smem, (int, np.integer)) or smem < 0:
        raise LaunchError(f"smem must be a non-negative number of bytes, got {smem!r}")
    total = (program.dynamic_base + int(smem)) if smem else program.shared_static
    limit = _SMEM_LIMIT.get(_generation(program.target), 232_448)
    if total > limit:
        raise LaunchError(
            f"the kernel needs {total} bytes of shared memory per CTA ({program.shared_static}"
            f" static + {int(smem)} dynamic); {program.target or 'the GPU'} has {limit}"
        )
    return LaunchConfig(g, b, c, int(smem), total, check_races)


def _generation(target: str | None) -> int:
    if not target or not target.startswith("sm_"):
        return 9
    digits = "".join(ch for ch in target[3:] if ch.isdigit())
    return int(digits) // 10 if digits else 9


def _directive(func: Func, kind: FunctionDirectiveKind) -> tuple[int, int, int] | None:
    for d in func.function.directives:
        if isinstance(d, FunctionDirective) and d.kind is kind:
            vals = [int(v.value) for v in d.values]
            vals += [1] * (3 - len(vals))
            return vals[0], vals[1], vals[2]
    return None


def _waves(config: LaunchConfig) -> list[Wave]:
    gx, gy, gz = config.grid
    cx, cy, cz = config.cluster
    size = config.cluster_size
    # CTAs cluster by cluster, each in rank order (x fastest).
    coords: list[tuple[int, int, int]] = []
    ranks: list[int] = []
    for kz in range(gz // cz):
        for ky in range(gy // cy):
            for kx in range(gx // cx):
                for r in range(size):
                    x, y, z = r % cx, (r // cx) % cy, r // (cx * cy)
                    coords.append((kx * cx + x, ky * cy + y, kz * cz + z))
                    ranks.append(r)
    padded = config.padded
    per_wave = max(size, WAVE_THREADS // padded // size * size)
    waves = []
    for start in range(0, len(coords), per_wave):
        chunk = np.array(coords[start : start + per_wave], dtype=np.int64)
        rank = np.array(ranks[start : start + per_wave], dtype=np.int64)
        first = np.arange(chunk.shape[0], dtype=np.int64) - rank
        waves.append(Wave(chunk, rank, first))
    return waves


def _global_segments(program: Program) -> list[Segment]:
    segments: list[Segment] = []
    if program.globals_size:
        data = np.zeros(align_up(program.globals_size, 8), dtype=np.uint8)
        segments.append(Segment(GLOBAL_BASE, data, "the module's .global variables"))
        fill_globals(program, data, segments)
    return segments


def _allocate(segments: list[Segment], data: np.ndarray, label: str, writable: bool) -> int:
    end = max((s.end for s in segments), default=GLOBAL_BASE)
    base = align_up(max(end, GLOBAL_BASE), SEGMENT_ALIGN)
    if segments and base == segments[-1].end:
        base += SEGMENT_ALIGN  # keep a gap, so running off one array is never the next one
    segments.append(Segment(base, data, label, writable))
    return base


_SCALAR_FORMATS = {
    PtxType.F32: "<f",
    PtxType.F64: "<d",
}


def _parameters(
    func: Func, args: Sequence[Any], segments: list[Segment], maps: list[TensorMap]
) -> np.ndarray:
    params = func.params
    if isinstance(args, (str, bytes)) or not isinstance(args, Sequence):
        raise LaunchError(f"args must be a list or tuple, got {type(args).__name__}")
    if len(args) != len(params):
        names = ", ".join(p.name for p in params) or "none"
        raise LaunchError(
            f"{func.function.name} takes {len(params)} parameters ({names}), but"
            f" {len(args)} arguments were given"
        )
    buffer = np.zeros(max(8, align_up(func.param_size, 8)), dtype=np.uint8)
    by_buffer: dict[tuple[int, int], int] = {}
    for i, (param, arg) in enumerate(zip(params, args, strict=True)):
        label = f"argument {i} ({param.name})"
        raw = _argument(param, arg, label, segments, maps, by_buffer)
        buffer[param.offset : param.offset + len(raw)] = np.frombuffer(raw, dtype=np.uint8)
    return buffer


def _argument(
    param: Var,
    arg: Any,
    label: str,
    segments: list[Segment],
    maps: list[TensorMap],
    by_buffer: dict[tuple[int, int], int],
) -> bytes:
    ty = param.type
    array_param = param.declarator is not None and bool(param.declarator.dims)
    if isinstance(arg, TensorMap):
        maps.append(arg)
        tag = encode_tag(len(maps) - 1)
        _map_segment(arg, segments, by_buffer)
        if array_param and param.size >= TENSOR_MAP_BYTES:
            return tag + bytes(param.size - TENSOR_MAP_BYTES)
        if param.size == 8:
            data = np.frombuffer(tag, dtype=np.uint8).copy()
            return struct.pack("<Q", _allocate(segments, data, f"tensor map of {label}", False))
        raise LaunchError(
            f"{label} is a .{ty.value} parameter of {param.size} bytes; a tensor map needs a"
            " .b8 [128] (align 64) parameter or a 64-bit pointer parameter"
        )
    if array_param:
        if isinstance(arg, tuple) and arg and all(isinstance(a, np.ndarray) for a in arg):
            # The addresses of these arrays, 8 bytes each: a struct of pointers, as CuTe DSL
            # passes a tensor with a static layout (``.param .align 8 .b8 name[8]``).
            if 8 * len(arg) != param.size:
                raise LaunchError(
                    f"{label} is a byte array of {param.size} bytes; the addresses of a"
                    f" tuple of {len(arg)} arrays fill {8 * len(arg)}"
                )
            addresses = [_array_segment(a, label, segments, by_buffer) for a in arg]
            return struct.pack(f"<{len(arg)}Q", *addresses)
        if isinstance(arg, (bytes, bytearray, np.ndarray)):
            raw = bytes(arg) if not isinstance(arg, np.ndarray) else arg.tobytes()
            if len(raw) != param.size:
                raise LaunchError(f"{label} takes {param.size} bytes, got {len(raw)}")
            return raw
        raise LaunchError(
            f"{label} is a byte array of {param.size} bytes; pass bytes, a TensorMap or a"
            " tuple of numpy arrays (their addresses),"
            f" not {type(arg).__name__}"
        )
    if isinstance(arg, np.ndarray):
        if param.size != 8:
            raise LaunchError(
                f"{label} is a .{ty.value} parameter; a numpy array goes to a 64-bit pointer"
                " parameter"
            )
        return struct.pack("<Q", _array_segment(arg, label, segments, by_buffer))
    return _scalar(ty, arg, label)


def _array_segment(
    arg: np.ndarray, label: str, segments: list[Segment], by_buffer: dict[tuple[int, int], int]
) -> int:
    if not arg.flags.c_contiguous:
        raise LaunchError(
            f"{label}: the kernel sees memory as bytes, so the array must be C-contiguous"
            " (np.ascontiguousarray)"
        )
    key = (arg.__array_interface__["data"][0], arg.nbytes)
    found = by_buffer.get(key)
    if found is not None:
        return found
    data = arg.reshape(-1).view(np.uint8)
    base = _allocate(
        segments, data, label + f" ({arg.dtype}{list(arg.shape)})", arg.flags.writeable
    )
    by_buffer[key] = base
    return base


def _map_segment(
    tmap: TensorMap, segments: list[Segment], by_buffer: dict[tuple[int, int], int]
) -> None:
    _array_segment(tmap.array, "the array of a tensor map", segments, by_buffer)


def _scalar(ty: PtxType, arg: Any, label: str) -> bytes:
    if isinstance(arg, (bool, np.bool_)):
        arg = int(arg)
    fmt = _SCALAR_FORMATS.get(ty)
    if fmt is not None:
        if not isinstance(arg, (int, float, np.integer, np.floating)):
            raise LaunchError(f"{label} is .{ty.value}; pass a number, not {type(arg).__name__}")
        return struct.pack(fmt, float(arg))
    if ty.kind.value == "float":
        raise LaunchError(f"{label}: .{ty.value} scalar parameters are not supported")
    if isinstance(arg, (float, np.floating)):
        raise LaunchError(f"{label} is .{ty.value}; pass an int, not a float")
    if not isinstance(arg, (int, np.integer)):
        raise LaunchError(f"{label} is .{ty.value}; pass an int, not {type(arg).__name__}")
    value = int(arg)
    bits = ty.bits
    # Both signed and unsigned spellings of a value fit: -1 is 0xFFFFFFFF for .u32 too.
    lo = -(1 << (bits - 1))
    hi = (1 << bits) - 1
    if not lo <= value <= hi:
        raise LaunchError(f"{label}: {value} does not fit in .{ty.value}")
    return (value & ((1 << bits) - 1)).to_bytes(bits // 8, "little")
