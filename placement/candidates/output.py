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
        self._uuid = trees.uuid
        self._names = class_names
        self._as_dict = version >= mv.ALLOCATIONS_DICT
        self._with_mappings = version >= mv.MAPPINGS
        self._allocations: dict[tuple, str] = {}
        self._mapping = _Pieces(lambda entry: json.dumps(entry[0]) + ": " + json.dumps(
            [self._uuid(p) for p in entry[1]]))
        self._last: tuple[tuple | None, str] = (None, "")

    def request(self, candidate: Candidate) -> str:
        allocations = self._allocations_text(candidate.allocations)
        if not self._with_mappings:
            return '{"allocations": ' + allocations + "}"
        mappings = ", ".join(map(self._mapping.__getitem__, candidate.mappings))
        return '{"allocations": ' + allocations + ', "mappings": {' + mappings + "}}"

    def _allocations_text(self, allocations: tuple) -> str:
        last, text = self._last
        if allocations is last:
            return text
        text = self._allocations.get(allocations)
        if text is None:
            by_provider: dict[str, dict[str, int]] = {}
            for provider, class_id, amount in allocations:
                by_provider.setdefault(self._uuid(provider), {})[self._names[class_id]] = amount
            if self._as_dict:
                text = json.dumps({u: {"resources": r} for u, r in by_provider.items()})
            else:
                text = json.dumps([{"resource_provider": {"uuid": u}, "resources": r}
                                   for u, r in by_provider.items()])
            self._allocations[allocations] = text
        self._last = (allocations, text)
        return text


def body(candidates: Iterable[Candidate], trees: Trees, class_names: dict[int, str],
         summaries: dict, version: mv.Version) -> bytes:
    """The whole ``GET /allocation_candidates`` response body."""
    writer = _Writer(trees, class_names, version)
    requests = ", ".join([writer.request(candidate) for candidate in candidates])
    return ('{"allocation_requests": [' + requests + '], "provider_summaries": '
            + json.dumps(summaries) + "}").encode()


EMPTY = body([], Trees(), {}, {}, mv.MAX_VERSION)
