"""The environment as one typed settings object, read once per container; and the base of a business's own.

model.py holds `Settings` and how it reads the environment; sections/ its fields, in groups of related ones
with the rules that tie them; durations.py why every duration is a `timedelta`; environment.py the reader;
business.py `EnvironmentSettings`, the base of a business's settings (the toolkit exports it too).
"""

from __future__ import annotations

from .business import EnvironmentSettings
from .durations import milliseconds, seconds
from .model import Settings, SettingsError, get_settings
from .sections import DEFAULT_ALLOWED_ORIGINS, SECTIONS, STORE_FIELDS

__all__ = [
    "DEFAULT_ALLOWED_ORIGINS",
    "SECTIONS",
    "STORE_FIELDS",
    "EnvironmentSettings",
    "Settings",
    "SettingsError",
    "get_settings",
    "milliseconds",
    "seconds",
]
