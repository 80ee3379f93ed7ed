"""Turning a lost compare-and-swap into "run this action again"."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from placement import errors
from placement.objects.actionplans.effects.base import RunAgain


@contextmanager
def run_again_on_race() -> Iterator[None]:
    """Re-raise a provider or consumer generation conflict as :class:`RunAgain`.

    Writes made before the lost swap are still in the transaction, which is
    why the applier must roll it back rather than carry on.
    """
    try:
        yield
    except errors.Conflict as exc:
        if exc.code != errors.CONCURRENT_UPDATE:
            raise
        raise RunAgain(str(exc)) from exc
