"""``ptx.tensormap``: edit a TMA tensor map in memory and publish it to the tensor-map proxy.

``ptx.tensormap.replace.<field>(...)`` (``tensormap.replace.tile.<field>...``, sm_90a) and
``ptx.tensormap.cp_fenceproxy(...)`` (copy a tensor map from shared to global memory with a
release fence for the tensor-map proxy, sm_90). Every call emits exactly one instruction; the
consumer side is ``ptx.fence.proxy.tensormap_generic.acquire``.
"""

from __future__ import annotations

from ..dsl.operands import emit_inst
from ._sync_operands import address, int_operand, pick

__all__ = ["tensormap"]

_SPACES = ("global", "shared::cta")
_SCOPES = ("cta", "cluster", "gpu", "sys")


def _tm(space: object, tmap: object, name: str) -> tuple[str, object]:
    sp = pick(f"{name} space", space, _SPACES)
    return sp, address(f"{name} tensor map", tmap, space="global" if sp == "global" else "shared")


class _Replace:
    """``ptx.tensormap.replace``: one method per field of the 1024-bit tensor map."""

    def _whole(
        self, field: str, ty: str, tmap: object, value: object, space: object, pred: object
    ) -> None:
        name = f"tensormap.replace.tile.{field}"
        sp, a = _tm(space, tmap, name)
        bits = 64 if ty == "b64" else 32
        v = int_operand(f"{name} value", value, bits=(bits,), low=None, high=None)
        emit_inst("tensormap", ("replace", "tile", field, sp, "b1024", ty), (a, v), pred)

    def _dim(
        self,
        field: str,
        ty: str,
        tmap: object,
        ord: object,
        value: object,
        space: object,
        pred: object,
    ) -> None:
        name = f"tensormap.replace.tile.{field}"
        sp, a = _tm(space, tmap, name)
        o = int_operand(f"{name} ord", ord, high=4, reg=False)
        bits = 64 if ty == "b64" else 32
        v = int_operand(f"{name} value", value, bits=(bits,), low=None, high=None)
        emit_inst("tensormap", ("replace", "tile", field, sp, "b1024", ty), (a, o, v), pred)

    def _enum(self, field: str, tmap: object, value: object, space: object, pred: object) -> None:
        name = f"tensormap.replace.tile.{field}"
        sp, a = _tm(space, tmap, name)
        v = int_operand(f"{name} value", value, reg=False)
        emit_inst("tensormap", ("replace", "tile", field, sp, "b1024", "b32"), (a, v), pred)

    def global_address(
        self, tmap: object, value: object, *, space: str = "global", pred: object = None
    ) -> None:
        """Replace the tensor's global base address.

        Emits ``tensormap.replace.tile.global_address.space.b1024.b64 [tmap], value;``.

        Args:
            tmap: the tensor map in global or shared::cta memory (address register, ptx.addr or
                shared allocation).
            value: the new 64-bit address (register or int).
            space: ``"global"`` or ``"shared::cta"``.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-tensormap-replace
        """
        self._whole("global_address", "b64", tmap, value, space, pred)

    def rank(
        self, tmap: object, value: object, *, space: str = "global", pred: object = None
    ) -> None:
        """Replace the tensor's rank field (the rank minus one).

        Emits ``tensormap.replace.tile.rank.space.b1024.b32 [tmap], value;``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-tensormap-replace
        """
        self._whole("rank", "b32", tmap, value, space, pred)

    def box_dim(
        self,
        tmap: object,
        ord: object,
        value: object,
        *,
        space: str = "global",
        pred: object = None,
    ) -> None:
        """Replace the box size of dimension ``ord``.

        Emits ``tensormap.replace.tile.box_dim.space.b1024.b32 [tmap], ord, value;``.

        Args:
            tmap: the tensor map.
            ord: the dimension, a Python int 0..4.
            value: the new value (32-bit register or int).
            space: ``"global"`` or ``"shared::cta"``.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-tensormap-replace
        """
        self._dim("box_dim", "b32", tmap, ord, value, space, pred)

    def global_dim(
        self,
        tmap: object,
        ord: object,
        value: object,
        *,
        space: str = "global",
        pred: object = None,
    ) -> None:
        """Replace the tensor size of dimension ``ord``.

        Emits ``tensormap.replace.tile.global_dim.space.b1024.b32 [tmap], ord, value;``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-tensormap-replace
        """
        self._dim("global_dim", "b32", tmap, ord, value, space, pred)

    def global_stride(
        self,
        tmap: object,
        ord: object,
        value: object,
        *,
        space: str = "global",
        pred: object = None,
    ) -> None:
        """Replace the byte stride of dimension ``ord`` (a 64-bit value).

        Emits ``tensormap.replace.tile.global_stride.space.b1024.b64 [tmap], ord, value;``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-tensormap-replace
        """
        self._dim("global_stride", "b64", tmap, ord, value, space, pred)

    def element_stride(
        self,
        tmap: object,
        ord: object,
        value: object,
        *,
        space: str = "global",
        pred: object = None,
    ) -> None:
        """Replace the element stride (traversal step) of dimension ``ord``.

        Emits ``tensormap.replace.tile.element_stride.space.b1024.b32 [tmap], ord, value;``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-tensormap-replace
        """
        self._dim("element_stride", "b32", tmap, ord, value, space, pred)

    def elemtype(
        self, tmap: object, value: int, *, space: str = "global", pred: object = None
    ) -> None:
        """Replace the element type (an enumerated constant).

        Emits ``tensormap.replace.tile.elemtype.space.b1024.b32 [tmap], value;``; ``value``
        must be a Python int (PTX takes an immediate).

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-tensormap-replace
        """
        self._enum("elemtype", tmap, value, space, pred)

    def interleave_layout(
        self, tmap: object, value: int, *, space: str = "global", pred: object = None
    ) -> None:
        """Replace the interleave layout (an enumerated constant).

        Emits ``tensormap.replace.tile.interleave_layout.space.b1024.b32 [tmap], value;``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-tensormap-replace
        """
        self._enum("interleave_layout", tmap, value, space, pred)

    def swizzle_mode(
        self, tmap: object, value: int, *, space: str = "global", pred: object = None
    ) -> None:
        """Replace the swizzle mode (an enumerated constant).

        Emits ``tensormap.replace.tile.swizzle_mode.space.b1024.b32 [tmap], value;``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-tensormap-replace
        """
        self._enum("swizzle_mode", tmap, value, space, pred)

    def swizzle_atomicity(
        self, tmap: object, value: int, *, space: str = "global", pred: object = None
    ) -> None:
        """Replace the swizzle atomicity (an enumerated constant; sm_100 family, PTX 8.6).

        Emits ``tensormap.replace.tile.swizzle_atomicity.space.b1024.b32 [tmap], value;``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-tensormap-replace
        """
        self._enum("swizzle_atomicity", tmap, value, space, pred)

    def fill_mode(
        self, tmap: object, value: int, *, space: str = "global", pred: object = None
    ) -> None:
        """Replace the out-of-bounds fill mode (an enumerated constant).

        Emits ``tensormap.replace.tile.fill_mode.space.b1024.b32 [tmap], value;``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-tensormap-replace
        """
        self._enum("fill_mode", tmap, value, space, pred)


class Tensormap:
    """``ptx.tensormap``: ``replace.<field>(...)`` and ``cp_fenceproxy(...)``."""

    def __init__(self) -> None:
        self.replace = _Replace()

    def cp_fenceproxy(
        self,
        dst: object,
        src: object,
        size: int = 128,
        *,
        scope: str = "gpu",
        pred: object = None,
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
        sc = pick(f"{name} scope", scope, _SCOPES)
        ops = (
            address(f"{name} destination", dst, space="global"),
            address(f"{name} source", src),
            int_operand(f"{name} size", size, low=128, high=128, reg=False),
        )
        mods = ("cp_fenceproxy", "global", "shared::cta", "tensormap::generic", "release", sc)
        emit_inst("tensormap", (*mods, "sync", "aligned"), ops, pred)


tensormap = Tensormap()
"""``ptx.tensormap.replace.box_dim(tmap, 0, 64)``, ``ptx.tensormap.cp_fenceproxy(g, s)``."""
