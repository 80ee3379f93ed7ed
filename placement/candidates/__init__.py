"""The allocation-candidates engine behind ``GET /allocation_candidates``.

A pipeline of steps, each usable and testable alone, passing the values of
``model`` (plain data: the pure steps import no SQL module):

``request``    query string → :class:`~placement.candidates.request.CandidateRequest`
``deployment`` the deployment's shape (sharing, nesting, id range) and the ids
               of the traits and aggregates the request names, one statement (SQL)
``resolve``    names (classes, traits, aggregates, in_tree) → database ids
``query``      per request group, the providers that can serve it (SQL)
``trees``      sharing-provider anchors and ancestry of the survivors (SQL)
``slots``      each group's options per anchor, from the rows of one window
``combine``    one choice per group per anchor, pruned as it goes (pure)
``summaries``  provider summaries of the trees that made it (SQL + JSON text),
               inventories and traits from ``known`` while generations stand
``output``     the response body, written as JSON text
``engine``     runs the steps, window by window, until the answer is complete
``verdicts``   per request group, the first rule each provider fails (SQL)
``explain``    why each tree has no candidate: the steps above over every tree
"""
