"""The URL maps: each path, the resource serving it, its ``Allow`` header.

:data:`ROUTES` is Placement's port (Placement's API, Watcher's beside it
under ``/v1``), :data:`WATCHER_ROUTES` Watcher's own endpoint
(``placement/wsgi/endpoint.py``): its version document at ``/``, then the
same ``/v1`` rows. Adding an area means adding its rows here. A Placement
path with an empty segment matches no route (:func:`has_empty_segment`).
"""

from __future__ import annotations

from placement.handlers import (
    aggregate,
    allocation,
    allocation_candidate,
    console,
    diagnostics,
    inventory,
    reshaper,
    resource_class,
    resource_provider,
    root,
    trait,
    usage,
)
from placement.handlers.actionplans import action_plans as ap_plans
from placement.handlers.actionplans import actions as ap_actions
from placement.handlers.actionplans import audit_templates as ap_templates
from placement.handlers.actionplans import audits as ap_audits
from placement.handlers.actionplans import catalog as ap_catalog
from placement.handlers.actionplans import data_model as ap_data_model
from placement.handlers.actionplans import root as ap_root
from placement.handlers.actionplans import scoring_engines as ap_scoring
from placement.handlers.actionplans import services as ap_services
from placement.handlers.actionplans import webhooks as ap_webhooks

#: (path template, resource class, methods in upstream's ``Allow`` order)
Table = list[tuple[str, type, str]]

PLACEMENT_ROUTES: Table = [
    ("/", root.Root, "GET"),
    ("/resource_classes", resource_class.ResourceClasses, "GET, POST"),
    ("/resource_classes/{name}", resource_class.ResourceClass, "GET, PUT, DELETE"),
    ("/traits", trait.Traits, "GET"),
    ("/traits/{name}", trait.Trait, "GET, PUT, DELETE"),
    ("/resource_providers/{uuid}/traits", trait.ProviderTraits, "GET, PUT, DELETE"),
    ("/resource_providers", resource_provider.ResourceProviders, "GET, POST"),
    ("/resource_providers/{uuid}", resource_provider.ResourceProvider, "GET, DELETE, PUT"),
    ("/resource_providers/{uuid}/inventories", inventory.Inventories, "GET, POST, PUT, DELETE"),
    (
        "/resource_providers/{uuid}/inventories/{resource_class}",
        inventory.Inventory,
        "GET, PUT, DELETE",
    ),
    ("/resource_providers/{uuid}/aggregates", aggregate.Aggregates, "GET, PUT"),
    ("/resource_providers/{uuid}/usages", usage.ProviderUsages, "GET"),
    ("/usages", usage.Usages, "GET"),
    ("/resource_providers/{uuid}/allocations", allocation.ProviderAllocations, "GET"),
    ("/allocations", allocation.Allocations, "POST"),
    ("/allocations/{consumer_uuid}", allocation.ConsumerAllocations, "GET, PUT, DELETE"),
    ("/reshaper", reshaper.Reshaper, "POST"),
    ("/allocation_candidates", allocation_candidate.AllocationCandidates, "GET"),
    # The console's JSON routes (its pages are served before auth: placement/console/).
    ("/console/api/capacity", console.Capacity, "GET"),
    # Our addition, outside the Placement namespace (the console's "why?" and scripts).
    ("/diagnostics/allocation_candidates", diagnostics.CandidateDiagnostics, "GET"),
]

#: Watcher's API (infra-optim), under /v1 wherever it is served.
INFRA_OPTIM_ROUTES: Table = [
    ("/v1", ap_root.V1Root, "GET"),
    ("/v1/goals", ap_catalog.Goals, "GET"),
    ("/v1/goals/detail", ap_catalog.GoalsDetail, "GET"),
    ("/v1/goals/{ident}", ap_catalog.Goal, "GET"),
    ("/v1/strategies", ap_catalog.Strategies, "GET"),
    ("/v1/strategies/detail", ap_catalog.StrategiesDetail, "GET"),
    ("/v1/strategies/{ident}", ap_catalog.Strategy, "GET"),
    ("/v1/strategies/{ident}/state", ap_catalog.StrategyState, "GET"),
    ("/v1/audit_templates", ap_templates.AuditTemplates, "GET, POST"),
    ("/v1/audit_templates/detail", ap_templates.AuditTemplatesDetail, "GET"),
    ("/v1/audit_templates/{ident}", ap_templates.AuditTemplate, "GET, PATCH, DELETE"),
    ("/v1/audits", ap_audits.Audits, "GET, POST"),
    ("/v1/audits/detail", ap_audits.AuditsDetail, "GET"),
    ("/v1/audits/{ident}", ap_audits.Audit, "GET, PATCH, DELETE"),
    ("/v1/action_plans", ap_plans.ActionPlans, "GET"),
    ("/v1/action_plans/detail", ap_plans.ActionPlansDetail, "GET"),
    ("/v1/action_plans/{ident}", ap_plans.ActionPlan, "GET, PATCH, DELETE"),
    ("/v1/action_plans/{ident}/start", ap_plans.ActionPlanStart, "POST"),
    ("/v1/actions", ap_actions.Actions, "GET"),
    ("/v1/actions/detail", ap_actions.ActionsDetail, "GET"),
    ("/v1/actions/{ident}", ap_actions.Action, "GET, PATCH"),
    ("/v1/scoring_engines", ap_scoring.ScoringEngines, "GET"),
    ("/v1/scoring_engines/detail", ap_scoring.ScoringEnginesDetail, "GET"),
    ("/v1/scoring_engines/{ident}", ap_scoring.ScoringEngine, "GET"),
    ("/v1/services", ap_services.Services, "GET"),
    ("/v1/services/detail", ap_services.ServicesDetail, "GET"),
    ("/v1/services/{ident}", ap_services.Service, "GET"),
    ("/v1/data_model", ap_data_model.DataModel, "GET"),
    ("/v1/webhooks/{ident}", ap_webhooks.Webhook, "POST"),
]

#: Placement's port.
ROUTES: Table = [*PLACEMENT_ROUTES, *INFRA_OPTIM_ROUTES]
#: Watcher's own endpoint: no Placement route there.
WATCHER_ROUTES: Table = [("/", ap_root.Versions, "GET"), *INFRA_OPTIM_ROUTES]


def has_empty_segment(path: str) -> bool:
    """Whether ``path`` has an empty segment: ``/traits/``, ``//``, ``/a//b``.

    Upstream's router never matches such a path (its fields are never empty
    and no template ends in ``/``), so they answer its plain 404. Falcon's
    would route them (``/traits/`` as the trait ``""``, ``//`` as ``/``), so
    the middleware turns them away before routing. ``/`` itself is the root.
    """
    return path != "/" and "" in path.split("/")[1:]
