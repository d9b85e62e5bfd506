"""Small kernels the runtime tests launch (written with the DSL, traced at call time)."""

from __future__ import annotations

from pyptx import Kernel, Layout, Tile, kernel, ptx, reg
from pyptx.types import f32, u32, u64

BLOCK = 128


def _index() -> tuple[object, object]:
    """(i, byte offset of element i) for i = ctaid.x * BLOCK + tid.x."""
    tid = reg.from_(ptx.special.tid.x(), u32)
    cta = reg.from_(ptx.special.ctaid.x(), u32)
    i = reg.scalar(u32)
    ptx.mad(i, cta, BLOCK, tid, mode="lo")
    offset = reg.scalar(u64)
    ptx.mul(offset, i, 4, mode="wide")
    return i, offset


def _grid(N: int) -> tuple[int, int, int]:
    return ((N + BLOCK - 1) // BLOCK, 1, 1)


def _square_kernel(name: str, *, zero_outputs: bool) -> Kernel:
    """A kernel ``name``: y = x * x (no bounds check: N is a multiple of BLOCK in the tests)."""

    def body(x, y):  # type: ignore[no-untyped-def]
        _, off = _index()
        v = reg.scalar(f32)
        ptx.ld(v, ptx.addr(x.ptr() + off), space="global")
        ptx.st(ptx.addr(y.ptr() + off), v * v, space="global")

    body.__name__ = body.__qualname__ = name
    return kernel(
        in_specs=(Tile("N", f32),),
        out_specs=(Tile("N", f32),),
        grid=_grid,
        block=(BLOCK, 1, 1),
        arch="sm_80",
        zero_outputs=zero_outputs,
    )(body)


square = _square_kernel("square", zero_outputs=True)
"""y = x * x, the output zero-filled first (the default)."""
square_every = _square_kernel("square_every", zero_outputs=False)
"""y = x * x, every element written: the output may start uninitialized."""


@kernel(
    in_specs=(Tile("N", f32),),
    out_specs=(Tile("N", f32),),
    mutates=("x",),
    grid=_grid,
    block=(BLOCK, 1, 1),
    arch="sm_80",
    zero_outputs=False,
)
def square_then_double(x, y):  # type: ignore[no-untyped-def]
    """y = x * x (every element), then x *= 2 in place: an uninitialized output and a
    mutated input in one call."""
    _, off = _index()
    v = reg.scalar(f32)
    p = ptx.addr(x.ptr() + off)
    ptx.ld(v, p, space="global")
    ptx.st(ptx.addr(y.ptr() + off), v * v, space="global")
    ptx.st(p, v + v, space="global")


@kernel(
    in_specs=(Tile("N", f32), Tile("N", f32)),
    out_specs=(Tile("N", f32),),
    grid=_grid,
    block=(BLOCK, 1, 1),
    arch="sm_80",
)
def square_grad(gy, x, gx):  # type: ignore[no-untyped-def]
    """gx = 2 * x * gy: the gradient of :func:`square`."""
    _, off = _index()
    g, v = reg.scalar(f32), reg.scalar(f32)
    ptx.ld(g, ptx.addr(gy.ptr() + off), space="global")
    ptx.ld(v, ptx.addr(x.ptr() + off), space="global")
    t = reg.scalar(f32)
    ptx.mul(t, v, 2.0)
    ptx.st(ptx.addr(gx.ptr() + off), t * g, space="global")


@kernel(
    in_specs=(Tile("N", f32),),
    raw_params=[("f32", "a")],
    mutates=("x",),
    grid=_grid,
    block=(BLOCK, 1, 1),
    arch="sm_80",
)
def scale_in_place(x):  # type: ignore[no-untyped-def]
    """x *= a, in place."""
    _, off = _index()
    v = reg.scalar(f32)
    p = ptx.addr(x.ptr() + off)
    ptx.ld(v, p, space="global")
    ptx.st(p, v * ptx.param("a"), space="global")


@kernel(
    in_specs=(Tile("N", f32),),
    out_specs=(Tile("N", f32), Tile("N", f32)),
    grid=_grid,
    block=(BLOCK, 1, 1),
    arch="sm_80",
)
def accumulate_twice(x, total, count):  # type: ignore[no-untyped-def]
    """total += x twice (reads the output: it must start at zero), count += 1."""
    _, off = _index()
    v, t, c = reg.scalar(f32), reg.scalar(f32), reg.scalar(f32)
    ptx.ld(v, ptx.addr(x.ptr() + off), space="global")
    for _ in range(2):
        ptx.ld(t, ptx.addr(total.ptr() + off), space="global")
        ptx.st(ptx.addr(total.ptr() + off), t + v, space="global")
    ptx.ld(c, ptx.addr(count.ptr() + off), space="global")
    ptx.st(ptx.addr(count.ptr() + off), c + 1.0, space="global")


@kernel(
    in_specs=(Tile("M", "K", f32),),
    out_specs=(Tile("M", "P", f32),),
    grid=lambda M: (M, 1, 1),
    block=(1, 1, 1),
    arch="sm_80",
)
def first_column(x, y, *, SCALE=1):  # type: ignore[no-untyped-def]
    """y[m, :] = SCALE * x[m, 0]: P is fixed by nobody but the caller (an output-only dim)."""
    cta = reg.from_(ptx.special.ctaid.x(), u32)
    row = reg.scalar(u64)
    ptx.mul(row, cta, 4, mode="wide")
    v = reg.scalar(f32)
    # x is M x K with K fixed to 1 in the tests, y is M x 1.
    ptx.ld(v, ptx.addr(x.ptr() + row), space="global")
    ptx.st(ptx.addr(y.ptr() + row), v * float(SCALE), space="global")


def _column_copy(name: str, threads: int, zero_outputs: bool) -> object:
    """Kernel ``name``: y = x for the first ``threads`` elements of a 4x3 column-major tile
    (element (i, j) sits at i + 4 * j); with fewer than 12 threads the rest of y is never
    written."""

    def copy(x, y):  # type: ignore[no-untyped-def]
        tid = reg.from_(ptx.special.tid.x(), u32)
        off = reg.scalar(u64)
        ptx.mul(off, tid, 4, mode="wide")
        v = reg.scalar(f32)
        ptx.ld(v, ptx.addr(x.ptr() + off), space="global")
        ptx.st(ptx.addr(y.ptr() + off), v, space="global")

    copy.__name__ = copy.__qualname__ = name  # the kernel's PTX name
    return kernel(
        in_specs=(Tile(4, 3, f32, layout=Layout.COL),),
        out_specs=(Tile(4, 3, f32, layout=Layout.COL),),
        block=(threads, 1, 1),
        arch="sm_80",
        zero_outputs=zero_outputs,
    )(copy)


copy_column_major = _column_copy("copy_column_major", 12, zero_outputs=True)
"""y = x for a 4x3 column-major tile."""

copy_column_major_first_columns = _column_copy(
    "copy_column_major_first_columns", 8, zero_outputs=False
)
"""y[:, :2] = x[:, :2] for a 4x3 column-major tile; y[:, 2] stays unwritten."""


def vector_add_u32() -> object:
    """A fresh kernel object (its own plans and records): out = x + y for i < n (.u32)."""

    @kernel(
        in_specs=(Tile("N", f32), Tile("N", f32)),
        out_specs=(Tile("N", f32),),
        raw_params=[("u32", "n")],
        grid=_grid,
        block=(BLOCK, 1, 1),
        arch="sm_80",
    )
    def add_u32(x, y, out):  # type: ignore[no-untyped-def]
        _, off = _index()  # no bounds check: the tests never launch it past n
        a, b = reg.scalar(f32), reg.scalar(f32)
        ptx.ld(a, ptx.addr(x.ptr() + off), space="global")
        ptx.ld(b, ptx.addr(y.ptr() + off), space="global")
        ptx.st(ptx.addr(out.ptr() + off), a + b, space="global")

    return add_u32


def square_first_half(*, zero_outputs: bool) -> object:
    """A fresh kernel: y = x * x in the first half of each block only (the rest unwritten,
    which breaks the promise of ``zero_outputs=False``)."""

    @kernel(
        in_specs=(Tile("N", f32),),
        out_specs=(Tile("N", f32),),
        grid=_grid,
        block=(BLOCK, 1, 1),
        arch="sm_80",
        zero_outputs=zero_outputs,
    )
    def half_square(x, y):  # type: ignore[no-untyped-def]
        _, off = _index()
        tid = reg.from_(ptx.special.tid.x(), u32)
        with ptx.if_(tid < BLOCK // 2):
            v = reg.scalar(f32)
            ptx.ld(v, ptx.addr(x.ptr() + off), space="global")
            ptx.st(ptx.addr(y.ptr() + off), v * v, space="global")

    return half_square


def output_only() -> object:
    """A fresh kernel with no inputs: fills its output with 1.0."""

    @kernel(out_specs=(Tile("N", f32),), grid=_grid, block=(BLOCK, 1, 1), arch="sm_80")
    def ones(y):  # type: ignore[no-untyped-def]
        _, off = _index()
        ptx.st(ptx.addr(y.ptr() + off), 1.0, space="global", ty=f32)

    return ones
