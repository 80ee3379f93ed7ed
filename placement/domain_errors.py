"""The base of typed domain errors (the object layer's and the action-plan subsystem's).

A domain error knows nothing of HTTP: it holds the facts of a failure as
attributes and ``message``, the text a user sees. A subclass says in
:attr:`~DomainError.facts` what it holds (also the order of its constructor's
arguments) and, unless callers give the message, in
:attr:`~DomainError.template` how it reads; a template may name properties
too. So each error is declared in a line or two, and handlers map the types
to HTTP errors (``placement.handlers.base.http_error``).
"""

from __future__ import annotations

from typing import Any, ClassVar


class _Fields(dict):
    """A template's fields: the error's attributes and properties."""

    def __init__(self, error: DomainError) -> None:
        super().__init__()
        self.error = error

    def __missing__(self, name: str) -> Any:
        return getattr(self.error, name)


class DomainError(Exception):
    """Base of every domain error; ``str()`` is ``message``."""

    #: The constructor's arguments, in order; each becomes an attribute.
    facts: ClassVar[tuple[str, ...]] = ("message",)
    #: The message, filled with the facts (the default repeats a given one).
    template: ClassVar[str] = "{message}"

    message: str

    def __init__(self, *values: Any) -> None:
        if len(values) != len(self.facts):
            raise TypeError(f"{type(self).__name__} takes {self.facts}, not {values!r}")
        for name, value in zip(self.facts, values, strict=True):
            setattr(self, name, value)
        self.message = self.template.format_map(_Fields(self))
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message
