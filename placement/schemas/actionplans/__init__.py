"""JSON schemas of Watcher's ``/v1`` bodies and list queries.

Two keywords of ours ride along (JSON Schema ignores unknown keywords):
``readOnly: true`` marks a body attribute a client may not send, and
``invalid`` is the reason shown when a value breaks its property's schema
(``{value}`` is replaced by the value), in upstream's words.
"""
