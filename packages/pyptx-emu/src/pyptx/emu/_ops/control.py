"""Control flow: ``bra``, ``brx.idx``, ``call``, ``ret``, ``exit``, ``trap`` and hints.

Branches return the target program counter when every lane takes them (the common, uniform
case) and split the group otherwise. Calls keep a return stack per thread and pass
parameters through per-thread call frames in param space: arguments are copied into the
callee's formal parameters on the call, return values back into the caller's ``retval``
variables when it returns.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyptx.ir import BranchTargets, Label, LabelRef, ParenList, PtxType, Symbol

from .._errors import EmuError, NotEmulated
from .._lanes import Lanes
from .._machine import EXIT, YIELD, Executor, refusal
from .._program import FRAME_BASE, Func, Var
from .._site import Site
from .._syscalls import SYSCALLS

__all__ = ["OWN_GUARD", "SEMANTICS"]


def _label(site: Site, name: str = "tgt") -> int:
    op = site.require(name)
    if not isinstance(op, LabelRef | Symbol):
        raise NotEmulated(f"{site.mnemonic}: the branch target must be a label")
    pc = site.scope.resolve(op.name)
    if not isinstance(pc, int):
        raise NotEmulated(f"{site.mnemonic}: label {op.name} is not defined in this function")
    return pc


def bra(site: Site) -> Executor:
    """``bra tgt``: jump; a guarded branch splits lanes that take it from those that don't."""
    target = _label(site)
    guard = site.guard()
    if guard is None:

        def jump(m: Any, lanes: Lanes) -> Any:
            return target

        return jump

    def branch(m: Any, lanes: Lanes) -> Any:
        p = guard(m, lanes)
        if p.all():
            return target
        if not p.any():
            return None
        m.move(lanes.idx[p], target)
        return YIELD

    return branch


def brx_idx(site: Site) -> Executor:
    """``brx.idx index, tlist``: jump to the ``index``-th label of a ``.branchtargets`` list."""
    tlist = site.require("tlist")
    targets = site.scope.resolve(getattr(tlist, "name", ""))
    table = _branch_table(site, targets)
    index = site.src("index")
    executing = site.active()
    pcs = np.array(table, dtype=np.int64)

    def run(m: Any, lanes: Lanes) -> Any:
        active = executing(m, lanes)
        if active is None:
            return None
        i = index(m, active).astype(np.int64)
        if ((i < 0) | (i >= pcs.size)).any():
            bad = int(np.argmax((i < 0) | (i >= pcs.size)))
            raise EmuError(f"brx.idx index {int(i[bad])} is outside its {pcs.size} targets")
        dest = pcs[i]
        first = int(dest[0])
        if active is lanes and bool((dest == first).all()):
            return first
        for pc in np.unique(dest):
            m.move(active.idx[dest == pc], int(pc))
        return YIELD

    return run


def _branch_table(site: Site, targets: object) -> list[int]:
    """The program counters of a ``.branchtargets`` list (a label naming the directive)."""
    fn = site.stmt.function
    if fn is None or fn.function.body is None:
        raise NotEmulated("brx.idx outside a function")
    body = list(fn.function.body.walk_statements())
    name = getattr(site.require("tlist"), "name", "")
    for i, stmt in enumerate(body):
        if isinstance(stmt, Label) and stmt.name == name:
            for follow in body[i + 1 :]:
                if isinstance(follow, BranchTargets):
                    out = []
                    for label in follow.labels:
                        pc = site.scope.resolve(getattr(label, "name", ""))
                        if not isinstance(pc, int):
                            raise NotEmulated(f"brx.idx target {label} is not a label")
                        out.append(pc)
                    return out
                if isinstance(follow, Label):
                    continue
                break
    raise NotEmulated(f"brx.idx: no .branchtargets list named {name}")


def exit_(site: Site) -> Executor:
    """``exit``: the lanes end."""

    def run(m: Any, lanes: Lanes) -> Any:
        m.move(lanes.idx, EXIT)
        return YIELD

    return run


def ret(site: Site) -> Executor:
    """``ret``: back to the caller (return values copied), or end the thread in a kernel."""
    fn = site.stmt.function
    returns = fn.returns if fn is not None else ()

    def run(m: Any, lanes: Lanes) -> Any:
        depth = m.depth[lanes.idx]
        done = depth == 0
        if done.any():
            m.move(lanes.idx[done], EXIT)
        back = lanes.idx[~done]
        if back.size:
            d = m.depth[back] - 1
            m.depth[back] = d
            targets = m.stack[back, d]
            calls = m.program.call_returns
            active: dict[str, np.ndarray] = m.ext.setdefault("active", {})
            if fn is not None and fn.function.name in active:
                active[fn.function.name][back] = False
            for pc in np.unique(targets):
                group = back[targets == pc]
                caller_rets = calls.get(int(pc) - 1, ())
                _copy_frames(m, group, returns, caller_rets)
                m.move(group, int(pc))
        return YIELD

    return run


def call(site: Site) -> Executor:
    """``call (ret), func, (args)``: push the return address, pass the arguments, jump."""
    program = site.program
    ret_list = site.operand("ret")
    args_list = site.operand("args")
    func_op = site.require("func")
    rets = _frame_vars(site, ret_list)
    args = _frame_vars(site, args_list)
    direct: Func | None = None
    reader = None
    if isinstance(func_op, Symbol) and not isinstance(site.scope.resolve(func_op.name), Var):
        bound = site.scope.resolve(func_op.name)
        if bound is None or isinstance(bound, int):
            direct = program.functions.get(func_op.name)
            if direct is None:
                name = func_op.name
                syscall = SYSCALLS.get(name)
                if syscall is None:
                    return refusal(
                        f"call to {name}, which has no body in the module, is not emulated"
                    )
                return _system_call(site, syscall, args, rets)
    if direct is None:
        reader = site.reader(func_op, PtxType.U64)
    by_address = {f.address: f for f in program.functions.values()}
    return_pc = site.pc + 1
    program.call_returns[site.pc] = rets
    executing = site.active()

    def run(m: Any, lanes: Lanes) -> Any:
        active_lanes = executing(m, lanes)
        if active_lanes is None:
            return None
        if direct is not None:
            _enter(m, active_lanes.idx, direct, args, return_pc)
            return YIELD
        assert reader is not None
        addresses = reader(m, active_lanes)
        for a in np.unique(addresses):
            callee = by_address.get(int(a))
            if callee is None:
                raise EmuError(
                    f"an indirect call to {int(a):#x}, an address that holds no function of"
                    " the module"
                )
            _enter(m, active_lanes.idx[addresses == a], callee, args, return_pc)
        return YIELD

    return run


def _system_call(
    site: Site, syscall: Any, args: tuple[Var, ...], rets: tuple[Var, ...]
) -> Executor:
    """A call of a CUDA system call (``vprintf``, ``__assertfail``): done in place."""
    executing = site.active()

    def run(m: Any, lanes: Lanes) -> Any:
        active = executing(m, lanes)
        if active is None:
            return None
        syscall(m, active, args, rets)
        m.touch()
        return None

    return run


def _enter(m: Any, idx: np.ndarray, callee: Func, args: tuple[Var, ...], return_pc: int) -> None:
    active: dict[str, np.ndarray] = m.ext.setdefault("active", {})
    on = active.setdefault(callee.function.name, np.zeros(m.n, dtype=bool))
    if on[idx].any():
        raise NotEmulated(f"a recursive call of {callee.function.name}")
    on[idx] = True
    depth = m.depth[idx]
    need = int(depth.max()) + 1
    if m.stack.shape[1] < need:
        grown = np.zeros((m.n, max(need, 2 * m.stack.shape[1])), dtype=np.int64)
        grown[:, : m.stack.shape[1]] = m.stack
        m.stack = grown
    m.stack[idx, depth] = return_pc
    m.depth[idx] = depth + 1
    _copy_frames(m, idx, args, callee.params)
    m.move(idx, callee.entry)


def _copy_frames(m: Any, idx: np.ndarray, src: tuple[Var, ...], dst: tuple[Var, ...]) -> None:
    """Copy call-frame parameters ``src[i]`` into ``dst[i]`` for lanes ``idx``."""
    frames = m.mem.frames
    row = m.mem.frame_row
    base = FRAME_BASE
    for s, d in zip(src, dst, strict=False):
        size = min(s.size, d.size)
        if size <= 0:
            continue
        cols = np.arange(size)
        src_flat = idx[:, None] * row + (s.offset - base) + cols
        dst_flat = idx[:, None] * row + (d.offset - base) + cols
        frames[dst_flat] = frames[src_flat]
    if src or dst:
        m.touch()


def _frame_vars(site: Site, op: object) -> tuple[Var, ...]:
    if op is None:
        return ()
    items = op.items if isinstance(op, ParenList) else (op,)
    out = []
    for item in items:
        bound = site.scope.resolve(getattr(item, "name", ""))
        if not isinstance(bound, Var) or not bound.per_thread_param:
            raise NotEmulated(
                f"{site.mnemonic}: call arguments other than .param variables ({item})"
            )
        out.append(bound)
    return tuple(out)


def trap(site: Site) -> Executor:
    """``trap``: the kernel aborts; the emulator raises."""

    def run(m: Any, lanes: Lanes) -> Any:
        raise EmuError("the kernel executed trap (an abort, e.g. a failed device assert)")

    return run


def brkpt(site: Site) -> Executor:
    """``brkpt``: a breakpoint; without a debugger attached the emulator raises."""

    def run(m: Any, lanes: Lanes) -> Any:
        raise EmuError("the kernel executed brkpt (a breakpoint)")

    return run


def no_op(site: Site) -> Executor:
    """Hints with no effect on results (``nanosleep``, ``pmevent``)."""

    def run(m: Any, lanes: Lanes) -> Any:
        return None

    return run


SEMANTICS = {
    "bra": bra,
    "brx.idx": brx_idx,
    "call": call,
    "ret": ret,
    "exit": exit_,
    "trap": trap,
    "brkpt": brkpt,
    "nanosleep": no_op,
    "pmevent": no_op,
}

OWN_GUARD = frozenset({"bra", "brx.idx", "call"})
