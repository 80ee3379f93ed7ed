"""The URL map: each path, the resource serving it, its ``Allow`` header.

Resources for areas not written yet are simply absent; adding an area means
adding its rows here.
"""

from __future__ import annotations

from placement.handlers import root

# (path template, resource class, methods in upstream's ``Allow`` order)
ROUTES: list[tuple[str, type, str]] = [
    ("/", root.Root, "GET"),
]
