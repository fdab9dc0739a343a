"""Durations: a `timedelta` in the model, a whole number in the unit its variable's name says in the environment.

Every duration of `Settings` is a `timedelta`, whatever its variable counts in: `SESSION_TTL_SECONDS=3600` and
`TASK_TTL_MS=86400000` both arrive as a `timedelta`, so no reader converts by hand and mypy refuses a `timedelta`
where seconds or milliseconds (an `int`) are meant. A call site states the unit it hands on, once:
`seconds(settings.session_ttl)`, `milliseconds(settings.task_ttl)`, `settings.http_timeout.total_seconds()`. The variable names stay as deployed
(template.yaml sets them), and so do their units.

Why not one integer unit instead (every field in milliseconds, say): a field fed by `SESSION_TTL_SECONDS` would
then hide a factor of 1000 between the variable and the model, and a reader would again have to know which is which. A
`timedelta` is unit-free, so the only unit left is the one the variable's name says.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Annotated, Any

from pydantic import BeforeValidator

MILLISECOND = timedelta(milliseconds=1)


@dataclass(frozen=True)
class WrittenIn:
    """How a duration's environment variable writes it: a whole number of `unit` (`name`: its plural).

    Kept in the field's metadata: the generated configuration table reads it to write defaults and bounds as
    the variable takes them.
    """

    name: str
    unit: timedelta

    def parse(self, value: Any) -> Any:
        """A whole number (an int, or a string of digits as the environment has it) of this unit, as a timedelta.

        Args:
            value: What was given: a number of this unit, or already a `timedelta`.

        Returns:
            The `timedelta` (anything else is left to pydantic, which refuses it).

        Raises:
            ValueError: A string that is not a whole number.
        """
        if isinstance(value, str):
            if not value.strip().isdigit():
                raise ValueError(f"expected a whole number of {self.name}")
            return int(value) * self.unit
        if isinstance(value, int) and not isinstance(value, bool):
            return value * self.unit
        return value

    def count(self, duration: timedelta) -> int:
        """`duration` as its variable writes it (a whole number of this unit, rounded down)."""
        return duration // self.unit


SECONDS = WrittenIn("seconds", timedelta(seconds=1))
MILLISECONDS = WrittenIn("milliseconds", MILLISECOND)

# A duration whose variable is written in seconds (`..._SECONDS`); a number given in code counts in seconds too.
DurationSeconds = Annotated[timedelta, SECONDS, BeforeValidator(SECONDS.parse)]
# A duration whose variable is written in milliseconds (`..._MS`); a number given in code counts in milliseconds.
DurationMs = Annotated[timedelta, MILLISECONDS, BeforeValidator(MILLISECONDS.parse)]


def milliseconds(duration: timedelta) -> int:
    """`duration` in whole milliseconds, as the wire (`ttlMs`, `pollIntervalMs`) and Lambda's clock count.

    Args:
        duration: A duration.

    Returns:
        Its milliseconds, rounded down.
    """
    return duration // MILLISECOND


def seconds(duration: timedelta) -> int:
    """`duration` in whole seconds, as a DynamoDB TTL or a cache age counts.

    Args:
        duration: A duration.

    Returns:
        Its seconds, rounded down.
    """
    return duration // SECONDS.unit


def written_in(metadata: list[Any]) -> WrittenIn | None:
    """The unit a field's variable is written in, from the field's metadata; None when it is not a duration."""
    return next((item for item in metadata if isinstance(item, WrittenIn)), None)
