"""Action plans, the pure part: planners, action types, states, catalog, strategies.

Nothing here touches a database, HTTP or configuration: the object layer feeds it
plain values (a strategy's parameters, planner options, a current-host lookup) and
stores what it returns. Errors are the typed ones of :mod:`.errors`.
"""
