"""``GET /v1/data_model`` (1.3): the compute model the strategies plan on (``datamodel list``)."""

from __future__ import annotations

import falcon

from placement import errors, policy
from placement import microversion as mv
from placement.handlers import base
from placement.handlers.actionplans.preamble import Query, responder
from placement.objects.actionplans import audits, data_model
from placement.schemas.actionplans import query, responses

#: The only model here (upstream also knows ``storage`` and ``baremetal``, none of which
#: Placement holds: they are unknown types, as upstream answers for a type it lacks).
COMPUTE = "compute"


class DataModel(base.Resource):
    """The model's rows under ``context``; ``audit_uuid`` must name a live audit (its
    scope is not applied: see the api-ref's differences)."""

    @responder(
        policy.DATA_MODEL_GET_ALL,
        query=Query(query.DATA_MODEL),
        returns={200: responses.DATA_MODEL},
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, params: dict) -> None:
        version = base.version(req)
        if version < mv.DATA_MODEL:
            raise errors.NotAcceptable("Request not acceptable.")
        kind = params.get("data_model_type", COMPUTE)
        if kind != COMPUTE:
            raise errors.NotFound(f"The {kind} data model could not be found")
        if "audit_uuid" in params:
            audits.get_audit(self.deps.engine, params["audit_uuid"])
        rows = data_model.compute_model(self.deps.engine, version >= mv.EXTENDED_DATA_MODEL)
        base.send_json(resp, {"context": rows})
