"""The vocabulary of the ISA table: gates, modifier groups, operands, forms and specs.

Everything here is a frozen dataclass, so the table is a value that the checker, the DSL's
generic builder and the docs read alike. The family modules (``_arith``, ``_memory``, ...)
only *declare* instructions with these classes; :mod:`._check` is the one place that
interprets them.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ..targets import TARGETS, TargetInfo, TargetVariant

__all__ = [
    "DOC_BASE",
    "Count",
    "Form",
    "Gate",
    "InstructionSpec",
    "ModifierGroup",
    "Modifiers",
    "OperandKind",
    "OperandSpec",
    "Requirements",
    "Values",
    "Width",
]

DOC_BASE = "https://docs.nvidia.com/cuda/parallel-thread-execution/index.html"
"""The PTX ISA page every spec's :attr:`InstructionSpec.doc` anchor belongs to."""

Modifiers = Mapping[str, tuple[str, ...]]
"""The modifiers of one instruction by group name (a repeatable group may hold several)."""

Count = int | str | Callable[[Modifiers], "int | None"]
"""How many elements a vector operand has: a fixed number; the name of a modifier group whose
value ends in the count (``.v4``, ``.x2``), the operand being a scalar when the group is
absent; or a function of the matched modifiers (``None``: any size)."""

Values = Callable[[Modifiers], "tuple[Sequence[int], ...] | None"]
"""The integers an immediate operand may be, as a function of the matched modifiers: one tuple
(or ``range``, for an interval) for a scalar operand, one per element for a vector (``None``:
any value)."""


class OperandKind(enum.Flag):
    """What an operand may syntactically be. Combine with ``|``."""

    REGISTER = enum.auto()
    """A register or special register (``%r1``, ``%tid.x``)."""
    PREDICATE = enum.auto()
    """A predicate register (``%p1``); ``!%p1`` too where the operand is negatable."""
    IMMEDIATE = enum.auto()
    """A number or constant expression (``16``, ``0f3F800000``, ``-1``)."""
    ADDRESS = enum.auto()
    """A bracketed address (``[%rd1+8]``, ``[tmap, {%r1, %r2}]``)."""
    VECTOR = enum.auto()
    """A brace-enclosed vector of registers (``{%f1, %f2}``)."""
    LABEL = enum.auto()
    """A label of the enclosing function (``$L__BB0_2``)."""
    SYMBOL = enum.auto()
    """A variable or function name (``smem``, ``vprintf``)."""
    SINK = enum.auto()
    """The sink ``_``."""
    PRED_PAIR = enum.auto()
    """A ``d|p`` destination pair; the second element is a predicate."""
    PARAM_LIST = enum.auto()
    """A parenthesised list (``call`` return values and arguments)."""


class Width(enum.Enum):
    """How a register's declared width must relate to the width the instruction implies."""

    EXACT = "exact"
    """Same number of bits (``.b32`` fits ``.u32``, ``.s32`` and ``.f32``)."""
    AT_LEAST = "at_least"
    """At least as wide: ``ld``, ``st`` and ``cvt`` accept wider data registers."""
    FRAGMENT = "fragment"
    """Matrix fragment registers: 32 bits for types up to 32 bits (``.f16`` pairs packed),
    64 bits for ``.f64``."""
    ANY = "any"
    """Not checked."""


_FAMILY_ALIAS = {101: 110}
"""``sm_101`` was renamed ``sm_110`` in PTX ISA 9.0; both belong to the 11x family."""


def _norm_sm(sm: int) -> int:
    return _FAMILY_ALIAS.get(sm, sm)


def family_targets(name: str) -> frozenset[str]:
    """Expand a family-specific target (``"sm_100f"``) to every target that has its features.

    Those are the ``a`` and ``f`` targets of the same family at the same or a higher
    architecture (``sm_100f`` -> ``sm_100a``, ``sm_100f``, ``sm_103a``, ``sm_103f``).

    Args:
        name: an ``sm_XXf`` target.

    Returns:
        The target names.

    Raises:
        ValueError: ``name`` is not a known family-specific target.
    """
    base = TARGETS.get(name)
    if base is None or base.variant is not TargetVariant.FAMILY_SPECIFIC:
        raise ValueError(f"{name!r} is not a family-specific target such as 'sm_100f'")
    low = _norm_sm(base.sm)
    return frozenset(
        t.name
        for t in TARGETS.values()
        if t.variant is not TargetVariant.BASE
        and _norm_sm(t.sm) // 10 == low // 10
        and _norm_sm(t.sm) >= low
    )


@dataclass(frozen=True, slots=True)
class Gate:
    """The PTX ISA version and targets a feature needs.

    Attributes:
        ptx: lowest PTX ISA version, ``(major, minor)``.
        sm: lowest architecture (``90`` for ``sm_90``); with ``targets`` it is informational.
        targets: ``None`` when every target from ``sm`` on has the feature; otherwise the
            feature is architecture- or family-specific and exists only on these ``.target``
            names (already expanded: ``sm_100f`` listed with the ``a``/``f`` targets that
            include it). An empty set means no target has it (conflicting requirements).
    """

    ptx: tuple[int, int] = (1, 0)
    sm: int = 0
    targets: frozenset[str] | None = None

    def combine(self, other: Gate) -> Gate:
        """Return the gate of a feature that needs both ``self`` and ``other``."""
        ptx = max(self.ptx, other.ptx)
        sm = max(self.sm, other.sm)
        if self.targets is not None and other.targets is not None:
            targets: frozenset[str] | None = self.targets & other.targets
        else:
            targets = self.targets if self.targets is not None else other.targets
        if targets is not None:
            targets = frozenset(t for t in targets if TARGETS[t].sm >= sm)
        return Gate(ptx, sm, targets)

    def allows(self, target: TargetInfo) -> bool:
        """Whether ``target`` provides the feature (the PTX version aside)."""
        if self.targets is not None:
            return target.name in self.targets
        return target.sm >= self.sm

    def suggest(self) -> str | None:
        """The lowest target that provides the feature (``a`` before ``f``), if any."""
        if self.targets is None:
            return f"sm_{self.sm}" if self.sm else None
        if not self.targets:
            return None
        order = {TargetVariant.ARCH_SPECIFIC: 0, TargetVariant.FAMILY_SPECIFIC: 1}
        best = min(
            (TARGETS[t] for t in self.targets),
            key=lambda t: (_norm_sm(t.sm), order.get(t.variant, 2)),
        )
        return best.name

    def describe_targets(self) -> str:
        """The targets in words: ``"sm_90 or newer"``, ``"sm_90a"`` or ``"one of ..."``."""
        if self.targets is None:
            return f"sm_{self.sm} or newer"
        if not self.targets:
            return "a target that has all of its features (none does)"
        names = sorted(self.targets, key=lambda t: (_norm_sm(TARGETS[t].sm), t))
        if len(names) == 1:
            return names[0]
        return "one of " + ", ".join(names)


NO_GATE = Gate()
"""The gate of a feature every PTX version and target has."""


@dataclass(frozen=True, slots=True)
class ModifierGroup:
    """One slot of an instruction's dotted modifiers, e.g. the ``.type`` of ``add.s32``.

    Attributes:
        name: the slot's name as the PTX ISA writes it (``"type"``, ``"rnd"``, ``"shape"``).
        values: the spellings it accepts, without dots.
        patterns: regular expressions (full match) for spellings too many to list.
        required: whether the instruction needs one of them.
        repeat: whether the slot may take several values.
        gates: a newer PTX version or target that a particular value needs, by value.
        doc: what the slot means.
    """

    name: str
    values: tuple[str, ...]
    patterns: tuple[str, ...] = ()
    required: bool = False
    repeat: bool = False
    gates: Mapping[str, Gate] = field(default_factory=dict)
    doc: str = ""

    def accepts(self, value: str) -> bool:
        """Whether ``value`` (without dot) fits this slot."""
        if value in self.values:
            return True
        return any(re.fullmatch(p, value) for p in self.patterns)

    def spelling(self) -> str:
        """The slot as written in a syntax line: ``.f32`` if fixed, else ``.name``."""
        if len(self.values) == 1 and not self.patterns:
            return "." + self.values[0]
        return "." + self.name

    def choices(self) -> tuple[str, ...]:
        """The accepted spellings with dots (patterns shown as written)."""
        return tuple("." + v for v in self.values) + tuple("." + p for p in self.patterns)


@dataclass(frozen=True, slots=True)
class OperandSpec:
    """One operand of a form.

    Attributes:
        name: the PTX ISA's name for it (``"d"``, ``"a"``, ``"mbar"``, ``"cache-policy"``).
        kinds: what it may syntactically be.
        type_group: the modifier group whose type the operand has (``"type"``).
        type: a fixed type instead (``"pred"``, ``"b64"``, ``"u32"``); for an address-only
            operand, the type of its base register (a 32-bit Tensor Memory address).
        width: how a declared register's width must relate to that type.
        scale: the register holds ``scale`` times the type's width (``mul.wide``).
        optional: may be left out.
        variadic: takes all the remaining operands (last operand only).
        when: present only when one of these modifiers is (``"L2::cache_hint"``, or
            ``"group=value"`` to name a group's value).
        count: the element count when the operand is a vector (see :data:`Count`).
        negatable: may be written ``!p``.
        gate: what the operand needs when it is present (``mbarrier.arrive``'s count).
        doc: what it is.
        values: the integers it may be when spelled as immediates (see :data:`Values`).
    """

    name: str
    kinds: OperandKind
    type_group: str | None = None
    type: str | None = None
    width: Width = Width.EXACT
    scale: int = 1
    optional: bool = False
    variadic: bool = False
    when: tuple[str, ...] = ()
    count: Count | None = None
    negatable: bool = False
    gate: Gate | None = None
    doc: str = ""
    values: Values | None = None


@dataclass(frozen=True, slots=True)
class Form:
    """One syntax of an instruction: its modifier slots and operand list.

    An instruction whose ISA section shows several syntax blocks (``add`` on integers, on
    floats, on halves) has one form per block; a spelled instruction is checked against the
    first form its modifiers fit.

    Attributes:
        groups: the modifier slots, in the order the ISA writes them. Types that appear
            several times (``mma``'s ``.dtype.atype.btype.ctype``) are separate groups filled
            in spelling order.
        operands: the operands, in order.
        gate: what this form needs beyond the instruction's own gate.
        note: a line for the docs (what the form is for).
        names: the spellings (the spec's name or aliases) that have this form; empty: all.
        in_order: slots whose modifiers must be spelled in slot order (``mma``'s
            ``.alayout.blayout``, which take the same words).
    """

    groups: tuple[ModifierGroup, ...]
    operands: tuple[OperandSpec, ...]
    gate: Gate = NO_GATE
    note: str = ""
    names: tuple[str, ...] = ()
    in_order: tuple[str, ...] = ()
    _taking: dict[str, tuple[int, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def slots_taking(self, value: str) -> tuple[int, ...]:
        """The positions in :attr:`groups` of the slots that accept ``value``, in order.

        Remembered per value: matching a spelled mnemonic asks this of every form its
        compound name has.
        """
        found = self._taking.get(value)
        if found is None:
            found = tuple(i for i, g in enumerate(self.groups) if g.accepts(value))
            self._taking[value] = found
        return found

    def group(self, name: str) -> ModifierGroup | None:
        """The slot called ``name``, if this form has one."""
        for g in self.groups:
            if g.name == name:
                return g
        return None


@dataclass(frozen=True, slots=True)
class InstructionSpec:
    """One PTX instruction (or instruction family sharing a compound name).

    Attributes:
        name: the dotted name looked up by longest prefix (``"cp.async.bulk.tensor"``).
        forms: its syntaxes.
        gate: the PTX version and targets every form needs.
        doc: the anchor of its section in the PTX ISA (see :attr:`url`).
        summary: one line on what it does.
        family: the ISA chapter it belongs to (``"integer arithmetic"``).
        aliases: other dotted names for the same instruction (``"bar.cta.sync"``).
        alias_gates: what an alias needs beyond the instruction's gate, by alias.
        examples: instructions as a kernel would spell them, for docs and tests.
    """

    name: str
    forms: tuple[Form, ...]
    gate: Gate
    doc: str
    summary: str
    family: str
    aliases: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    alias_gates: Mapping[str, Gate] = field(default_factory=dict)

    @property
    def url(self) -> str:
        """The full PTX ISA URL of this instruction's section."""
        return f"{DOC_BASE}#{self.doc}"

    def syntax(self) -> tuple[str, ...]:
        """One syntax line per form, in the PTX ISA's notation.

        Optional slots and operands are in braces, addresses in brackets:
        ``"ld{.sem}...{.vec}.type d, [a]{, cache-policy}"``.
        """
        lines = []
        for form in self.forms:
            mods = "".join(
                g.spelling() if g.required else "{" + g.spelling() + "}" for g in form.groups
            )
            ops = ""
            for op in form.operands:
                name = f"[{op.name}]" if op.kinds == OperandKind.ADDRESS else op.name
                sep = ", " if ops else ""
                ops += f"{{{sep}{name}}}" if op.optional or op.when else f"{sep}{name}"
            lines.append(f"{self.name}{mods} {ops}".rstrip())
        return tuple(lines)


@dataclass(frozen=True, slots=True)
class Requirements:
    """What an instruction needs from a kernel's ``.version`` and ``.target``.

    Attributes:
        min_ptx: lowest PTX ISA version.
        min_sm: lowest architecture number (``90``).
        needs_arch_specific: whether only ``a``/``f`` targets have it (``wgmma``, ``tcgen05``).
        families: when ``needs_arch_specific``, the ``a``/``f`` targets that have it
            (``{"sm_90a"}``); empty otherwise.
    """

    min_ptx: tuple[int, int]
    min_sm: int
    needs_arch_specific: bool
    families: frozenset[str]

    def allows(self, target: str) -> bool:
        """Whether ``.target target`` provides the instruction (the version aside).

        Raises:
            ValueError: ``target`` is not a known ``sm_XX`` target.
        """
        info = TARGETS.get(target)
        if info is None:
            raise ValueError(f"unknown PTX target {target!r}")
        return self.gate().allows(info)

    def combine(self, other: Requirements) -> Requirements:
        """The requirements of a kernel using both instructions.

        ``families`` becomes the targets both allow; an empty result with
        ``needs_arch_specific`` set means no single target has both.
        """
        return Requirements.of(self.gate().combine(other.gate()))

    def suggest_target(self) -> str:
        """The lowest target providing the instruction (``"sm_90a"``, ``"sm_80"``)."""
        return self.gate().suggest() or "sm_50"

    def gate(self) -> Gate:
        """The same requirements as a :class:`Gate`."""
        return Gate(self.min_ptx, self.min_sm, self.families if self.needs_arch_specific else None)

    @classmethod
    def of(cls, gate: Gate) -> Requirements:
        """The requirements a :class:`Gate` states."""
        arch = gate.targets is not None
        return cls(gate.ptx, gate.sm, arch, gate.targets or frozenset())
