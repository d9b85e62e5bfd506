"""``ptx.tensormap``: edit a TMA tensor map in memory and publish it to the tensor-map proxy.

``ptx.tensormap.replace.<field>(...)`` (``tensormap.replace.tile.<field>...``, sm_90a) and
``ptx.tensormap.cp_fenceproxy(...)`` (copy a tensor map from shared to global memory with a
release fence for the tensor-map proxy, sm_90). Every call emits exactly one instruction; the
consumer side is ``ptx.fence.proxy.tensormap_generic.acquire``.

Each field's type (``.b32``/``.b64``) comes from the ISA table's ``tensormap.replace`` forms.
"""

from __future__ import annotations

from ..dsl.operands import emit_inst
from ._memory import slot
from ._sync_operands import address, integer, pick

__all__ = ["tensormap"]

_DOC = """{summary}

        Emits ``tensormap.replace.tile.{field}.space.b1024.{ty} [tmap], {ops};``.

        Args:
            tmap: the tensor map in global or shared::cta memory (address register, ptx.addr or
                shared allocation).{args}
            space: ``"global"`` or ``"shared::cta"``.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-tensormap-replace
        """
_VALUE = "\n            value: the new value: a {bits}-bit register or int."


class _Field:
    """One field of ``ptx.tensormap.replace``: calling it emits ``tensormap.replace.tile``."""

    _ops, _args = "value", _VALUE

    def __init__(self, field: str, summary: str) -> None:
        self._field, self._type = field, slot("tensormap.replace", "type", ("field", field))[0]
        args = self._args.format(bits=self._type[1:])
        self.__doc__ = _DOC.format(
            summary=summary, field=field, ty=self._type, ops=self._ops, args=args
        )

    def _emit(self, tmap: object, ops: tuple[object, ...], space: object, pred: object) -> None:
        name = f"tensormap.replace.tile.{self._field}"
        sp = pick(f"{name} space", space, slot("tensormap.replace", "space"))
        a = address(f"{name} tensor map", tmap, space="global" if sp == "global" else "shared")
        mods = ("replace", "tile", self._field, sp, "b1024", self._type)
        emit_inst("tensormap", mods, (a, *ops), pred)

    def _value(self, value: object, reg: bool = True) -> object:
        return integer(f"tensormap.replace.tile.{self._field} value", value, reg=reg)


class _WholeField(_Field):
    def __call__(
        self, tmap: object, value: object, *, space: str = "global", pred: object = None
    ) -> None:
        self._emit(tmap, (self._value(value),), space, pred)


class _DimField(_Field):
    _ops, _args = "ord, value", "\n            ord: the dimension, a Python int 0..4." + _VALUE

    def __call__(
        self,
        tmap: object,
        ord: object,
        value: object,
        *,
        space: str = "global",
        pred: object = None,
    ) -> None:
        o = integer(f"tensormap.replace.tile.{self._field} ord", ord, reg=False)
        self._emit(tmap, (o, self._value(value)), space, pred)


class _EnumField(_Field):
    _args = "\n            value: the new value, a Python int (PTX takes an immediate)."

    def __call__(
        self, tmap: object, value: int, *, space: str = "global", pred: object = None
    ) -> None:
        self._emit(tmap, (self._value(value, reg=False),), space, pred)


class _Replace:
    """``ptx.tensormap.replace``: one callable per field of the 1024-bit tensor map."""

    global_address = _WholeField("global_address", "Replace the tensor's global base address.")
    rank = _WholeField("rank", "Replace the tensor's rank field (the rank minus one).")
    box_dim = _DimField("box_dim", "Replace the box size of dimension ``ord``.")
    global_dim = _DimField("global_dim", "Replace the tensor size of dimension ``ord``.")
    global_stride = _DimField(
        "global_stride", "Replace the byte stride of dimension ``ord`` (a 64-bit value)."
    )
    element_stride = _DimField(
        "element_stride", "Replace the element stride (traversal step) of dimension ``ord``."
    )
    elemtype = _EnumField("elemtype", "Replace the element type (an enumerated constant).")
    interleave_layout = _EnumField(
        "interleave_layout", "Replace the interleave layout (an enumerated constant)."
    )
    swizzle_mode = _EnumField("swizzle_mode", "Replace the swizzle mode (an enumerated constant).")
    swizzle_atomicity = _EnumField(
        "swizzle_atomicity",
        "Replace the swizzle atomicity (an enumerated constant; sm_100 family, PTX 8.6).",
    )
    fill_mode = _EnumField(
        "fill_mode", "Replace the out-of-bounds fill mode (an enumerated constant)."
    )


class Tensormap:
    """``ptx.tensormap``: ``replace.<field>(...)`` and ``cp_fenceproxy(...)``."""

    def __init__(self) -> None:
        self.replace = _Replace()

    def cp_fenceproxy(
        self, dst: object, src: object, size: int = 128, *, scope: str = "gpu", pred: object = None
    ) -> None:
        """Copy a tensor map from shared to global memory and release it to the TMA unit.

        Emits ``tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope
        .sync.aligned [dst], [src], size;`` (all threads of the warp execute it together).

        Args:
            dst: the tensor map's global address (64-bit register or ``ptx.addr``).
            src: the edited tensor map in shared memory.
            size: bytes; PTX requires 128.
            scope: ``"cta"``, ``"cluster"``, ``"gpu"`` or ``"sys"``.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-tensormap-cp-fenceproxy
        """
        name = "tensormap.cp_fenceproxy"
        sc = pick(f"{name} scope", scope, slot(name, "scope"))
        ops = (
            address(f"{name} destination", dst, space="global"),
            address(f"{name} source", src),
            integer(f"{name} size", size, reg=False),
        )
        mods = ("cp_fenceproxy", "global", "shared::cta", "tensormap::generic", "release", sc)
        emit_inst("tensormap", (*mods, "sync", "aligned"), ops, pred)


tensormap = Tensormap()
"""``ptx.tensormap.replace.box_dim(tmap, 0, 64)``, ``ptx.tensormap.cp_fenceproxy(g, s)``."""
