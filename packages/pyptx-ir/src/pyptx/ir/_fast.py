"""The IR's fast-construction hook: :func:`fast_constructor`.

IR nodes are frozen, slotted dataclasses. Their generated ``__init__`` assigns every field
through ``object.__setattr__``, and filling the slots through their descriptors' ``__set__``
is not much cheaper: either way most of the time of building a small node goes into calls.
Code that builds very many nodes (the parser) asks this hook for a cheaper constructor
instead of reaching into the frozen objects itself.

How the default one works: it builds the node as an instance of a *building twin*, a
subclass that adds no slots (so it has exactly the node's memory layout) and restores plain
attribute assignment, which the interpreter turns into direct slot stores. Once every field
is set, the instance's class is switched to the IR class itself, which the identical layouts
allow. The result is exactly the object the dataclass constructor makes (same type, same
field values, nothing else), frozen from then on, at about half the cost of the dataclass
``__init__``. This module is the only place in pyptx that switches ``__class__`` on a node.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

from .node import Node

__all__ = ["fast_constructor"]

_N = TypeVar("_N", bound=Node)


def fast_constructor(cls: type[_N]) -> Callable[..., _N]:
    """A constructor for ``cls`` that is cheaper to call than ``cls(...)``, with its result.

    Contract of the returned callable ``make``:

    * it takes every field of ``cls`` positionally, in declaration order, ``trivia``
      included; it has no keywords and applies no defaults;
    * ``make(*values)`` returns an object of type exactly ``cls`` whose fields are
      ``values``: equal to, hashing like and as frozen as ``cls(*values)``;
    * if ``cls`` (or a base) defines ``__post_init__``, it runs on the finished, frozen
      object, as in the dataclass ``__init__``: validation added to an IR class later keeps
      running for nodes built this way, and may raise the same way.

    An IR class overrides the mechanism by defining a classmethod ``_fast_constructor()``
    that returns the callable to use (keeping the contract above); returning ``cls`` itself
    opts the class out. Call this once per class, when the caller's module is imported, and
    keep the result: each call generates a new function.

    Args:
        cls: a frozen, slotted dataclass deriving from :class:`~pyptx.ir.Node`.

    Returns:
        The constructor described above.

    Raises:
        TypeError: ``cls`` is not such a class, or one of its fields is not set by
            ``__init__`` (``init=False``).
    """
    override = getattr(cls, "_fast_constructor", None)
    if override is not None:
        made: Callable[..., _N] = override()
        return made
    if not (isinstance(cls, type) and issubclass(cls, Node) and dataclasses.is_dataclass(cls)):
        raise TypeError(f"fast_constructor() needs an IR dataclass, got {cls!r}")
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"fast_constructor() needs a frozen, slotted dataclass, got {cls!r}")
    fields = dataclasses.fields(cls)
    if not all(f.init for f in fields):
        raise TypeError(f"fast_constructor(): {cls.__name__} has fields __init__ does not set")
    names = [f.name for f in fields]
    twin = type(
        f"_Building{cls.__name__}",
        (cls,),
        {
            "__slots__": (),
            "__setattr__": object.__setattr__,
            "__delattr__": object.__delattr__,
        },
    )
    post_init = getattr(cls, "__post_init__", None) is not None
    # The code is generated from the field names (identifiers of our own IR classes), so that
    # each store names its slot, like the dataclass __init__ it stands in for.
    source = (
        f"def new_{cls.__name__}({', '.join(names)}):\n"
        "    node = new(twin)\n"
        + "".join(f"    node.{name} = {name}\n" for name in names)
        + "    node.__class__ = cls\n"
        + ("    node.__post_init__()\n" if post_init else "")
        + "    return node\n"
    )
    namespace: dict[str, Any] = {"new": object.__new__, "twin": twin, "cls": cls}
    exec(source, namespace)
    make: Callable[..., _N] = namespace[f"new_{cls.__name__}"]
    make.__doc__ = f"``{cls.__name__}({', '.join(names)})``, built fast (see fast_constructor)."
    make.__qualname__ = make.__name__
    return make
