"""Turning a lost compare-and-swap into "run this action again"."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from placement.effects.base import RunAgain
from placement.objects import exceptions


@contextmanager
def run_again_on_race() -> Iterator[None]:
    """Re-raise a provider or consumer generation conflict as :class:`RunAgain`.

    A generation the action read earlier in its transaction and that has moved
    since (:class:`~placement.objects.exceptions.StaleGeneration`) is a lost
    race too. Writes made before the lost swap are still in the transaction,
    which is why the applier must roll it back rather than carry on.
    """
    try:
        yield
    except (exceptions.ConcurrentUpdate, exceptions.StaleGeneration) as exc:
        raise RunAgain(str(exc)) from exc
