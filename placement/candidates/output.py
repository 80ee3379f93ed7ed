"""The response body, written straight as JSON text.

``allocation_requests`` take the shape of the requested microversion:

* 1.10–1.11: ``{"allocations": [{"resource_provider": {"uuid"}, "resources"}]}``
  (the body of a ``PUT /allocations`` of that era);
* from 1.12: ``{"allocations": {uuid: {"resources"}}}``;
* from 1.34 with ``"mappings": {suffix: [uuid, ...]}``.

An answer can hold tens of thousands of candidates that repeat the same
pieces (a provider's resources, a group's provider), so each piece is
rendered once and reused, and the body is joined from the pieces instead
of building a dict per candidate for ``json.dumps``. The text is what
``json.dumps`` would write for the same data.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from placement import microversion as mv
from placement.candidates.combine import Candidate
from placement.candidates.summaries import Trees


class _Pieces(dict):
    """Rendered text by key, rendered on first use."""

    def __init__(self, render) -> None:
        super().__init__()
        self._render = render

    def __missing__(self, key):
        text = self[key] = self._render(key)
        return text


class _Writer:
    """Renders candidates, remembering the pieces it has written."""

    def __init__(self, trees: Trees, class_names: dict[int, str], version: mv.Version) -> None:
        providers = trees.providers
        self._uuid = _Pieces(lambda provider: json.dumps(providers[provider].uuid))
        self._name = _Pieces(lambda class_id: json.dumps(class_names[class_id]))
        self._as_dict = version >= mv.ALLOCATIONS_DICT
        self._with_mappings = version >= mv.MAPPINGS
        self._mapping = _Pieces(lambda entry: json.dumps(entry[0]) + ": [" + ", ".join(
            [self._uuid[p] for p in entry[1]]) + "]")
        self._last: tuple[tuple | None, str] = (None, "")

    def request(self, candidate: Candidate) -> str:
        # Consecutive candidates often share their allocations (the same
        # providers mapped to identical groups in another order).
        last, allocations = self._last
        if candidate.allocations is not last:
            allocations = self._allocations_text(candidate.allocations)
            self._last = (candidate.allocations, allocations)
        if not self._with_mappings:
            return '{"allocations": ' + allocations + "}"
        mappings = ", ".join(map(self._mapping.__getitem__, candidate.mappings))
        return '{"allocations": ' + allocations + ', "mappings": {' + mappings + "}}"

    def _allocations_text(self, allocations: tuple) -> str:
        """Allocations are sorted by provider: each provider's run is one entry."""
        entries = []
        run: list[str] = []
        current = None
        for provider, class_id, amount in allocations:
            if provider != current:
                if run:
                    entries.append(self._entry(current, run))
                current, run = provider, []
            run.append(f"{self._name[class_id]}: {amount}")
        if run:
            entries.append(self._entry(current, run))
        if self._as_dict:
            return "{" + ", ".join(entries) + "}"
        return "[" + ", ".join(entries) + "]"

    def _entry(self, provider: int, resources: list[str]) -> str:
        resources_text = '{"resources": {' + ", ".join(resources) + "}}"
        if self._as_dict:
            return self._uuid[provider] + ": " + resources_text
        return ('{"resource_provider": {"uuid": ' + self._uuid[provider] + '}, "resources": {'
                + ", ".join(resources) + "}}")


def body(candidates: Iterable[Candidate], trees: Trees, class_names: dict[int, str],
         summaries: dict, version: mv.Version) -> bytes:
    """The whole ``GET /allocation_candidates`` response body."""
    writer = _Writer(trees, class_names, version)
    requests = ", ".join([writer.request(candidate) for candidate in candidates])
    return ('{"allocation_requests": [' + requests + '], "provider_summaries": '
            + json.dumps(summaries) + "}").encode()


EMPTY = body([], Trees(), {}, {}, mv.MAX_VERSION)
