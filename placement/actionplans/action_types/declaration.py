"""What an action type declares about itself, in one frozen value.

Every fact the rest of the subsystem needs about a type lives here, so nothing
keeps a parallel dict of type names: the validator reads ``input_schema``, the
planners read ``resource_kind`` and the default weights, the configuration
takes its option defaults from the built-in declarations, and the applier finds
each installed type's declaration on its effect (``effect.declaration``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from jsonschema import Draft4Validator, ValidationError

#: ``resource_id`` names an instance (a consumer uuid).
CONSUMER: Literal["consumer"] = "consumer"
#: ``resource_id`` names a node (a provider uuid or name).
PROVIDER: Literal["provider"] = "provider"

ResourceKind = Literal["consumer", "provider"]


@dataclass(frozen=True)
class ActionTypeDeclaration:
    """One action type, as the validator, the planners and the options see it.

    ``weight`` and ``parallelization`` are its defaults for the ``weight``
    planner; ``stabilization_weight`` its default for the
    ``workload_stabilization`` planner, None when that planner cannot place it.
    ``resource_kind`` says what ``resource_id`` designates (None: it has none).
    """

    name: str
    input_schema: Mapping[str, Any]
    weight: int
    parallelization: int
    resource_kind: ResourceKind | None = None
    stabilization_weight: int | None = None

    @property
    def acts_on_instance(self) -> bool:
        """Whether it acts on one instance: ``workload_stabilization`` runs those one at a
        time per instance, in processing order."""
        return self.resource_kind == CONSUMER

    def errors(self, input_parameters: Any) -> list[ValidationError]:
        """Every schema violation of ``input_parameters``, in the validator's order."""
        return list(Draft4Validator(self.input_schema).iter_errors(input_parameters))
