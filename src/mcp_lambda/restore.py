"""What must not outlive a SnapStart restore: every component that creates an AWS client or a connection pool
registers a method that forgets it, and the after-restore hook (`snapshot.py`) calls them all.

A forgotten client is created again on its next use, in the restored environment: its own connections, and
credentials resolved there instead of the snapshot's. Components given a client by their caller keep it (they
did not make it, so they cannot make another).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable

_HOOKS: list[weakref.WeakMethod[Callable[[], None]]] = []
_LOCK = threading.Lock()
_PRUNE_AT = [64]  # drop the hooks of discarded components whenever the list has doubled since the last time


def on_restore(forget: Callable[[], None]) -> None:
    """Call the bound method `forget` after a restore (held weakly: a discarded component is skipped)."""
    with _LOCK:
        _HOOKS.append(weakref.WeakMethod(forget))
        if len(_HOOKS) >= _PRUNE_AT[0]:
            _HOOKS[:] = [ref for ref in _HOOKS if ref() is not None]
            _PRUNE_AT[0] = max(64, 2 * len(_HOOKS))


def renew() -> int:
    """Run every live hook once; how many ran."""
    with _LOCK:
        _HOOKS[:] = [ref for ref in _HOOKS if ref() is not None]
        hooks = [ref() for ref in _HOOKS]
    for hook in hooks:
        if hook is not None:
            hook()
    return len(hooks)
