"""Query-string filter syntax shared by provider lists and allocation candidates.

Pure parsing, no database: ``resources=VCPU:2,MEMORY_MB:1024``,
``required=T1,!T2`` / ``required=in:T1,T2`` and ``member_of=<agg>`` /
``in:<a>,<b>`` / ``!<agg>`` / ``!in:<a>,<b>`` become plain data. What each
microversion allows is a parameter of the parser, and every rejection is a
400 with upstream's exact text. Callers pass *all* values of a repeated key,
in order (``base.query_pairs``); the parsers apply upstream's rules about
repeats themselves.

The same two filter types carry names (``TraitFilter[str]``, aggregate
uuids) as parsed here and ids once the object layer has looked the names up
(``TraitFilter[int]``); ``placement.objects.conditions`` turns the latter
into SQL for provider listing and the candidates engine alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from oslo_utils import uuidutils

from placement import errors
from placement import microversion as mv

_BAD_RESOURCES = (
    "Badly formed resources parameter. Expected resources query string parameter "
    "in form: ?resources=VCPU:2,MEMORY_MB:1024. Got: {got}."
)
_QUERY_PREFIX = "Invalid query string parameters: "
#: An amount no inventory can provide: one more than the largest ``max_unit``
#: an inventory may have (2**31 - 1). A larger amount asked is asked as this
#: one, with the same answer (nothing fits), so that the database never
#: computes with integers beyond its columns' range (PostgreSQL refuses them).
BEYOND_ANY_INVENTORY = 2**31

#: What a filter names its traits or aggregates by: names/uuids or ids.
Key = TypeVar("Key", str, int)


@dataclass(frozen=True)
class TraitFilter(Generic[Key]):
    """Each set in ``required`` needs at least one of its traits (sets are
    ANDed); no trait of ``forbidden`` may be present."""

    required: tuple[frozenset[Key], ...] = ()
    forbidden: frozenset[Key] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.required or self.forbidden)


@dataclass(frozen=True)
class AggregateFilter(Generic[Key]):
    """Membership in at least one aggregate of each ``member_of`` set (sets
    ANDed) and in none of ``forbidden``."""

    member_of: tuple[frozenset[Key], ...] = ()
    forbidden: frozenset[Key] = frozenset()


def parse_resources(value: str) -> dict[str, int]:
    """``RC:N,RC:N`` → ``{RC: N}``; a class repeated in the value: last wins.

    ``N`` above :data:`BEYOND_ANY_INVENTORY` becomes it.
    """
    if value.strip() == "":
        raise errors.BadRequest(_BAD_RESOURCES.format(got="empty string"))
    amounts: dict[str, int] = {}
    for item in value.split(","):
        parts = item.split(":")
        if len(parts) != 2:
            raise errors.BadRequest(_BAD_RESOURCES.format(got=item))
        name, raw_amount = parts
        try:
            amount = int(raw_amount)
        except ValueError:
            raise errors.BadRequest(
                f"Requested resource {name} expected positive integer amount. Got: {raw_amount}."
            ) from None
        if amount < 1:
            raise errors.BadRequest(
                f"Requested resource {name} requires amount >= 1. Got: {amount}."
            )
        amounts[name] = min(amount, BEYOND_ANY_INVENTORY)
    return amounts


def parse_required(values: Sequence[str], version: mv.Version) -> TraitFilter[str]:
    """All values of one ``required<S>`` key, in request order.

    ``!T`` needs 1.22; ``in:`` and repeating the key need 1.39 (before that
    only the last value counts).
    """
    allow_forbidden = version >= mv.FORBIDDEN_TRAITS
    allow_any_of = version >= mv.ANY_OF_TRAITS
    if not allow_any_of:
        values = values[-1:]
    required: list[frozenset[str]] = []
    forbidden: set[str] = set()
    for value in values:
        sets, nots = _parse_traits(value, allow_forbidden, allow_any_of)
        required.extend(sets)
        forbidden |= nots
    return TraitFilter(tuple(required), frozenset(forbidden))


def _parse_traits(
    value: str, allow_forbidden: bool, allow_any_of: bool
) -> tuple[list[frozenset[str]], set[str]]:
    if value.startswith("in:"):
        if not allow_any_of:
            raise errors.BadRequest(
                f"{_QUERY_PREFIX}The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported "
                f"since microversion 1.39. Got: {value}"
            )
        any_of = {name.strip() for name in value[3:].split(",")}
        if not all(any_of):
            raise errors.BadRequest(
                f"{_QUERY_PREFIX}Expected 'required' parameter value of the form: "
                f"in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait in: {value}"
            )
        if any(name.startswith("!") for name in any_of):
            raise errors.BadRequest(
                f"{_QUERY_PREFIX}The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' does not support "
                f"forbidden traits. Got: {value}"
            )
        return [frozenset(any_of)], set()
    names = [name.strip() for name in value.split(",")]
    # Every leading "!" goes: "!!T" means "!T", as upstream parses it.
    forbidden = {name.lstrip("!") for name in names if name.startswith("!")}
    if not all(names) or not all(forbidden):
        form = "HW_CPU_X86_VMX,!CUSTOM_MAGIC" if allow_forbidden else "HW_CPU_X86_VMX,CUSTOM_MAGIC"
        raise errors.BadRequest(
            f"{_QUERY_PREFIX}Expected 'required' parameter value of the "
            f"form: {form}. Got an empty trait in: {value}"
        )
    if forbidden and not allow_forbidden:
        raise errors.BadRequest(
            f"{_QUERY_PREFIX}Expected 'required' parameter value of the "
            f"form: HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: {value}"
        )
    return [frozenset([name]) for name in names if not name.startswith("!")], forbidden


def parse_member_of(
    values: Sequence[str], version: mv.Version, suffix: str = ""
) -> AggregateFilter[str]:
    """All values of one ``member_of<S>`` key, in request order.

    Repeating the key needs 1.24, ``!`` needs 1.32.
    """
    if len(values) > 1 and version < mv.MEMBER_OF_REPEATED:
        raise errors.BadRequest(f"Multiple member_of{suffix} parameters are not supported")
    member_of: list[frozenset[str]] = []
    forbidden: set[str] = set()
    for value in values:
        wanted, unwanted = _parse_member_of_value(value)
        if wanted:
            member_of.append(wanted)
        if unwanted:
            if version < mv.FORBIDDEN_AGGREGATES:
                raise errors.BadRequest(
                    f"Forbidden member_of{suffix} parameters are not "
                    "supported in the specified microversion"
                )
            forbidden |= unwanted
    return AggregateFilter(tuple(member_of), frozenset(forbidden))


def _parse_member_of_value(value: str) -> tuple[frozenset[str], frozenset[str]]:
    if "," in value and not value.startswith(("in:", "!in:")):
        raise errors.BadRequest(
            "Multiple values for 'member_of' must be prefixed with the "
            "'in:' or '!in:' keyword using the valid microversion. "
            f"Got: {value}"
        )
    wanted: frozenset[str] = frozenset()
    unwanted: frozenset[str] = frozenset()
    if value.startswith("!in:"):
        unwanted = frozenset(value[4:].split(","))
    elif value.startswith("!"):
        unwanted = frozenset([value[1:]])
    elif value.startswith("in:"):
        wanted = frozenset(value[3:].split(","))
    else:
        wanted = frozenset([value])
    for uuid in sorted(wanted | unwanted):
        if not uuidutils.is_uuid_like(uuid):
            raise errors.BadRequest(
                f"{_QUERY_PREFIX}Expected 'member_of' parameter to contain "
                f"valid UUID(s). Got: {uuid}"
            )
    return wanted, unwanted
