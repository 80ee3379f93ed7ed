"""What this process has read of each provider's inventories and traits,
kept while the provider's generation stands.

Every write that changes a provider's inventories or traits bumps its
generation in the same transaction (upstream's rule as much as ours: its
clients must send the generation they saw), so the inventories and traits
read together with generation ``g`` are the provider's for as long as its
generation is ``g``. The summaries of an answer then need only the
providers' generations and their usage, which is never kept: freeing
allocations leaves the generation where it was (as upstream). Class names
are not kept either (a custom class can be renamed at 1.2–1.6 without any
generation moving): an entry holds class ids.

An entry is keyed by provider id and checked against the uuid, the
generation and the incarnation just read: SQLite gives the highest id again
once its provider is deleted, and a provider made again under the same uuid
reaches the same generation after as many writes, so there the creation
time tells them apart (PostgreSQL's sequences and InnoDB's counters, kept
across restarts since MariaDB 10.2.4 and MySQL 8.0, never give an id twice:
no incarnation is read). What no generation can tell is a database restored
from a backup and written on afterwards while this process runs: restart
the API after restoring one (see ``api-ref/source/allocation_candidates.rst``).

One cache per engine (tests and tools hold several in one process), plain
dictionaries (a gunicorn worker answers one request at a time; under
threads each operation is atomic), emptied whole when full.
"""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy.engine import Engine

from placement.db.per_engine import PerEngine

#: Providers kept per engine: about 200 bytes each, so some 20 MB at most.
LIMIT = 100_000


class Details(NamedTuple):
    """A provider's inventories and traits at one generation."""

    uuid: str
    generation: int
    #: The provider's creation time where ids are given again (SQLite), else None.
    incarnation: str | None
    #: (class id, capacity) per inventory, by class id.
    inventories: tuple[tuple[int, int], ...]
    #: Trait names in trait id order.
    traits: tuple[str, ...]


class Known:
    """Details by provider id, and one shared copy of each distinct value
    (the providers of one model have the same inventories and traits)."""

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self._details: dict[int, Details] = {}
        self._shared: dict[tuple, tuple] = {}

    def get(
        self, provider: int, uuid: str, generation: int, incarnation: str | None = None
    ) -> Details | None:
        """The details of ``provider`` if read at this uuid, generation and incarnation."""
        details = self._details.get(provider)
        if (
            details is None
            or details.generation != generation
            or details.uuid != uuid
            or details.incarnation != incarnation
        ):
            return None
        return details

    def put(self, provider: int, details: Details) -> Details:
        """Keep ``details`` (with shared copies of its values); returns what is kept."""
        if len(self._details) >= self.limit:
            self._details.clear()
            self._shared.clear()
        kept = details._replace(
            inventories=self._shared.setdefault(details.inventories, details.inventories),
            traits=self._shared.setdefault(details.traits, details.traits),
        )
        self._details[provider] = kept
        return kept

    def __len__(self) -> int:
        return len(self._details)


_BY_ENGINE = PerEngine(Known)


def of(engine: Engine) -> Known:
    """The cache of ``engine``'s database in this process."""
    return _BY_ENGINE.of(engine)
