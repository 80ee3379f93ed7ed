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

from collections.abc import Callable, Iterable
from itertools import groupby
from json.encoder import encode_basestring_ascii
from operator import itemgetter
from typing import TypeVar

from placement import microversion as mv
from placement.candidates.model import Candidate, Provider, Trees

Key = TypeVar("Key")


class _Pieces(dict[Key, str]):
    """Rendered text by key, rendered on first use."""

    def __init__(self, render: Callable[[Key], str]) -> None:
        super().__init__()
        self._render = render

    def __missing__(self, key: Key) -> str:
        text = self[key] = self._render(key)
        return text


class _Writer:
    """Renders candidates, remembering the pieces it has written."""

    def __init__(self, trees: Trees, class_names: dict[int, str], version: mv.Version) -> None:
        providers = trees.providers
        self._uuid: _Pieces[int] = _Pieces(
            lambda provider: encode_basestring_ascii(providers[provider].uuid)
        )
        self._names = {
            class_id: encode_basestring_ascii(name) for class_id, name in class_names.items()
        }
        self._suffix: _Pieces[str] = _Pieces(encode_basestring_ascii)
        self._as_dict = version >= mv.ALLOCATIONS_DICT
        self._with_mappings = version >= mv.MAPPINGS
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
        uuid, suffix = self._uuid, self._suffix
        mappings = ", ".join(
            [
                suffix[name]
                + ": ["
                + (
                    uuid[providers[0]]
                    if len(providers) == 1
                    else ", ".join([uuid[p] for p in providers])
                )
                + "]"
                for name, providers in candidate.mappings
            ]
        )
        return '{"allocations": ' + allocations + ', "mappings": {' + mappings + "}}"

    def _allocations_text(self, allocations: tuple) -> str:
        """Allocations are sorted by provider: each provider's run is one entry."""
        names, uuid = self._names, self._uuid
        entries = []
        for provider, run in groupby(allocations, itemgetter(0)):
            resources = ", ".join([f"{names[class_id]}: {amount}" for _, class_id, amount in run])
            if self._as_dict:
                entries.append(f'{uuid[provider]}: {{"resources": {{{resources}}}}}')
            else:
                entries.append(
                    f'{{"resource_provider": {{"uuid": {uuid[provider]}}}, '
                    f'"resources": {{{resources}}}}}'
                )
        if self._as_dict:
            return "{" + ", ".join(entries) + "}"
        return "[" + ", ".join(entries) + "]"


def body(
    candidates: Iterable[Candidate],
    trees: Trees,
    class_names: dict[int, str],
    summaries: str,
    version: mv.Version,
) -> bytes:
    """The whole ``GET /allocation_candidates`` response body; ``summaries``
    is the JSON text of ``provider_summaries`` (see ``summaries.text``)."""
    writer = _Writer(trees, class_names, version)
    requests = ", ".join([writer.request(candidate) for candidate in candidates])
    return (
        '{"allocation_requests": [' + requests + '], "provider_summaries": ' + summaries + "}"
    ).encode()


def one_provider_body(
    providers: Iterable[int],
    trees: Trees,
    class_names: dict[int, str],
    group: tuple[str, tuple[tuple[int, int], ...]],
    summaries: str,
    version: mv.Version,
) -> bytes:
    """:func:`body` when every candidate is one provider serving the one
    ``group`` (suffix, amounts) alone: one candidate is written with a
    stand-in uuid, and the others are that text with their own uuid."""
    suffix, amounts = group
    stand_in = Trees({-1: Provider("\0stand-in\0", None, -1)})
    template = _Writer(stand_in, class_names, version).request(
        Candidate(
            tuple([(-1, class_id, amount) for class_id, amount in sorted(amounts)]),
            ((suffix, (-1,)),),
            (-1,) * len(amounts),
        )
    )
    pieces = template.split(encode_basestring_ascii("\0stand-in\0"))
    uuids = trees.providers
    requests = ", ".join([encode_basestring_ascii(uuids[p].uuid).join(pieces) for p in providers])
    return (
        '{"allocation_requests": [' + requests + '], "provider_summaries": ' + summaries + "}"
    ).encode()


EMPTY = body([], Trees(), {}, "{}", mv.MAX_VERSION)
