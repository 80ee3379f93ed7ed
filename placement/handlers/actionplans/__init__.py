"""Watcher's ``/v1`` API (service type ``infra-optim``) as Falcon resources.

Each responder declares its preamble once with :func:`.preamble.responder`
(policy rule, microversion minimum, lookup before authorization, JSON body
schema), calls one function of :mod:`placement.objects.actionplans` with the
engine (the object layer opens its transactions, as Placement's does), and
renders the row it gets with :mod:`.render`.
"""
