"""One value per engine, made on first use and gone with the engine.

Tests and tools hold several engines in one process, each on its own
database, so what a process remembers about a database (``candidates``'
caches) is kept per engine, in a weak mapping: an engine's value goes when
the engine does.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

from sqlalchemy.engine import Engine

_Value = TypeVar("_Value")


class PerEngine(Generic[_Value]):
    """Each engine's value, made by ``make`` when first asked for."""

    def __init__(self, make: Callable[[], _Value]) -> None:
        self._make = make
        self._values: weakref.WeakKeyDictionary[Engine, _Value] = weakref.WeakKeyDictionary()

    def of(self, engine: Engine) -> _Value:
        value = self._values.get(engine)
        if value is None:
            value = self._values[engine] = self._make()
        return value

    def clear(self) -> None:
        """Forget every engine's value."""
        self._values.clear()
