"""Where a consumer's resources could go: allocation candidates, as a scheduler sees them.

The search is ``GET /allocation_candidates`` for exactly the resources to move,
restricted to enabled trees (root without ``COMPUTE_STATUS_DISABLED``) and,
when the plan names one, to the destination's tree. It reads in a transaction
of its own: a candidate is only a proposal, the allocation write that follows
checks capacity again under the providers' locks.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from oslo_config import cfg
from sqlalchemy.engine import Engine

from placement import filters
from placement import microversion as mv
from placement.candidates import engine as candidates
from placement.candidates.request import CandidateRequest, RequestGroup
from placement.effects.holdings import Allocations
from placement.effects.nodes import DISABLED_TRAIT


def candidates_for(
    engine: Engine,
    conf: cfg.ConfigOpts,
    resources: dict[str, int],
    *,
    excluded_root: str,
    in_tree: str | None = None,
) -> Iterator[Allocations]:
    """Allocations that could hold ``resources``, best first, none touching ``excluded_root``."""
    request = CandidateRequest(
        groups=(
            RequestGroup(
                "", dict(resources), filters.TraitFilter(), filters.AggregateFilter(), in_tree
            ),
        ),
        version=mv.MAX_VERSION,
        root_traits=filters.TraitFilter(forbidden=frozenset({DISABLED_TRAIT})),
    )
    body = json.loads(candidates.find(engine, request, candidates.Settings.from_conf(conf)))
    summaries = body["provider_summaries"]
    for candidate in body["allocation_requests"]:
        chosen = candidate["allocations"]
        if all(summaries[p]["root_provider_uuid"] != excluded_root for p in chosen):
            yield {p: dict(share["resources"]) for p, share in chosen.items()}
