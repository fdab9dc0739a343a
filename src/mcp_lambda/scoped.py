"""`Scoped`: a context variable set for the duration of a `with` block, and reset after it.

What `contextlib.contextmanager` would give around `var.set` / `var.reset`, as a plain class: every request enters
a few of these (its deadline, its credentials, its cancellation), and a generator-based context manager costs
several times more each (docs/performance.md has the figures).
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Scoped(Generic[T]):
    """`with Scoped(var, value):` sets `var` to `value` for the block (`as` gives `value`), then resets it.

    Args:
        var: The context variable.
        value: Its value inside the block.
    """

    __slots__ = ("_token", "_value", "_var")

    def __init__(self, var: ContextVar[T], value: T) -> None:
        self._var, self._value = var, value

    def __enter__(self) -> T:
        self._token: Token[T] = self._var.set(self._value)
        return self._value

    def __exit__(self, *exc: Any) -> None:
        self._var.reset(self._token)
