"""The JSON log line: Powertools' `LambdaPowertoolsFormatter`, extended only through its documented doors.

A `BasePowertoolsFormatter` is a `logging.Formatter`: its `format(record)` is the door Powertools documents for
bringing your own formatter. Ours builds the same line as `LambdaPowertoolsFormatter.format` (same keys, order,
templates, message decoding) in one pass over public state (`log_format`, `thread_safe_get_current_keys()`), and
hands a record with an exception, or a key it does not build itself (`xray_trace_id`), to Powertools' own
`format`. We also give it:
- `serialize()` overridden: orjson through `json_serializer`, then our redaction and single-line safety;
- a `json_deserializer` that skips the JSON attempt on messages that cannot be JSON (most are words);
- `formatTime` (the stdlib formatter's hook) formatting the date and time once per second;
- other defaults: RFC 3339 UTC timestamps, no `location`, no `xray_trace_id` (the REPORT line has it).
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Mapping
from typing import Any, NamedTuple

import orjson
from aws_lambda_powertools.logging.formatter import RESERVED_LOG_ATTRS, LambdaPowertoolsFormatter

from .redaction import redact

# RFC 3339 in UTC, milliseconds (Powertools' %F): 2026-07-28T18:20:01.234Z, shorter than its default.
TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S.%FZ"
# Datetimes and dataclasses through `default=str`, as json.dumps writes them. Keys that are not strings need
# OPT_NON_STR_KEYS, which slows the encoding of every dict: asked for only when a line has such a key.
_ORJSON_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
_ORJSON_NON_STR_KEYS = _ORJSON_OPTIONS | orjson.OPT_NON_STR_KEYS
# How a JSON value (or NaN/Infinity, which json.loads takes) can start, leading whitespace included.
_JSON_STARTS = frozenset('{["-0123456789tfnNI \t\n\r')
# What JSON leaves raw that a line reader may split a line on (U+0085 NEL, U+2028, U+2029: Python's
# `str.splitlines`, JavaScript), with the rest of C1 (terminal controls).
_LINE_BREAKERS = re.compile("[\x80-\x9f\u2028\u2029]")
# The LogRecord attributes Powertools keeps off a line's extras (looked up for every key of every line).
RESERVED_ATTRIBUTES = frozenset(RESERVED_LOG_ATTRS)
_NONE_TYPE = type(None)
_SET = object()  # a key's stand-in value when it is not on the line


def dumps(value: Any) -> str:
    """Compact JSON text for a log line: orjson (faster than json.dumps), with json.dumps' choices
    (`default=str`, datetimes and dataclasses through it); json.dumps itself for what orjson refuses (a lone
    surrogate, an integer beyond 64 bits)."""
    try:
        return orjson.dumps(value, default=str, option=_ORJSON_OPTIONS).decode()
    except TypeError:  # orjson.JSONEncodeError: a key that is not a string, or what orjson refuses
        pass
    try:
        return orjson.dumps(value, default=str, option=_ORJSON_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(value, default=str, separators=(",", ":"), ensure_ascii=False)


def loads_message(text: str) -> Any:
    """Powertools' message decoding (`json.loads`), skipped for a text that cannot be JSON (most messages are
    words): that text is the message as it is, which is what Powertools keeps when decoding fails.

    Raises:
        ValueError: `text` looks like JSON but is not (Powertools then keeps the message as it is).
    """
    if text[:1] not in _JSON_STARTS:
        return text
    return json.loads(text)


class RedactingFormatter(LambdaPowertoolsFormatter):
    """Powertools' JSON lines, with any secret a tool has read masked: a last guard behind the summaries.

    Every Powertools option and `append_keys`/`remove_keys` still apply. Its defaults differ from Powertools' in
    three keys: no `location` (on the framework's lines it only ever named the framework's own function), no
    `xray_trace_id` (the invocation's REPORT line has it), RFC 3339 UTC timestamps.

    A line is always one line writable as UTF-8: a lone surrogate from the client (`"\\ud800"` in an argument or
    a tool_call_id) is written as its JSON escape instead of failing the write, which would lose the whole line,
    and so are U+2028, U+2029 and the C1 controls, which JSON allows raw but a line reader may split on.
    """

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("json_serializer", dumps)
        kwargs.setdefault("json_deserializer", loads_message)
        kwargs.setdefault("datefmt", TIMESTAMP_FORMAT)
        kwargs.setdefault("utc", True)
        kwargs.setdefault("location", None)
        kwargs.setdefault("xray_trace_id", None)  # the REPORT line has it
        super().__init__(**kwargs)
        # The second last formatted, its format, and its text split where the milliseconds go (one tuple: threads
        # swap it whole).
        self._seconds: tuple[int, str, tuple[str, ...]] = (-1, "", ("",))
        # Which keys take the level name and the timestamp, for the keys it was made for (one tuple too).
        self._key_fills = _KeyFills((), (), (), {}, None)

    def format(self, record: logging.LogRecord) -> str:
        """The line `LambdaPowertoolsFormatter.format` builds for `record`, built in one pass.

        The keys in Powertools' order (its `log_format`, then the thread-safe keys, then the record's extras),
        reserved-attribute templates filled from the record (`%(levelname)s`, `%(asctime)s` without copying it),
        the message decoded as Powertools decodes it, keys that are None dropped. A record with an exception
        (stack trace, exception fields) or a line that wants `xray_trace_id` goes to Powertools' own `format`.
        """
        if record.exc_info or self.log_format.get("xray_trace_id", "") is not None:
            return super().format(record)
        attributes = record.__dict__
        asctime = self.formatTime(record)
        line = self._head(record.levelname, asctime)
        if line is None:  # a key templated on another record attribute (such as `location`)
            line = self._templated_head(attributes, asctime)
            if line is None:  # Powertools' own error for a template that is not a string
                return super().format(record)
        for key, value in attributes.items():
            if key not in RESERVED_ATTRIBUTES:
                line[key] = value
        return self._finish(line, self._message(record))

    def format_event(
        self, levelname: str, message: str, fields: Mapping[str, Any], created_ns: int
    ) -> str | None:
        """The line `format` builds for a record of `message` (no %-arguments, no exception) whose extras are
        `fields`, made at `created_ns` (`time.time_ns()`), built without the record: `log_event`'s direct path.

        None when the line needs what only a record made at the call site has: a key templated on a record
        attribute other than `%(levelname)s` and `%(asctime)s` (such as `location`), an `xray_trace_id` key, or
        Powertools' own timestamp formats (`use_rfc3339`, `%F`-less datetime directives). The caller then logs
        the ordinary way.
        """
        if (
            self.log_format.get("xray_trace_id", "") is not None
            or self.use_rfc3339_iso8601
            or self.use_datetime_directive
            or not self.datefmt
        ):
            return None
        seconds, nanoseconds = divmod(created_ns, 1_000_000_000)
        stamp = self._stamp(seconds, nanoseconds // 1_000_000, self.datefmt)
        line = self._head(levelname, stamp)
        if line is None:
            return None
        if RESERVED_ATTRIBUTES.isdisjoint(fields):  # as always for the framework's lines: one update
            unset = self._key_fills.unset
            if unset.isdisjoint(fields):  # else a field takes an unset key's place: `_finish` drops the Nones
                for key in unset:  # dropped now, as `_finish` would drop them (the rest keep their order)
                    if line.get(key, _SET) is None:
                        del line[key]
            line.update(fields)
        else:
            for key, value in fields.items():
                if key not in RESERVED_ATTRIBUTES:
                    line[key] = value
        if self.json_deserializer is loads_message and message[:1] not in _JSON_STARTS:
            return self._finish(line, message)  # words (an event name): what loads_message returns, unasked
        return self._finish(line, self._decoded(message))

    def _head(self, levelname: str, asctime: str) -> dict[str, Any] | None:
        """The formatter's keys in Powertools' order (`log_format`, then the thread-safe keys) with their values,
        the `%(levelname)s` and `%(asctime)s` templates filled; None when a key is templated on another record
        attribute (or on something that is not a string): `_templated_head` then.

        Which keys take the level name and the timestamp is decided once for the key names, the reserved keys'
        values and the context keys, and again when one changes: a new correlation id (every request) changes a
        value the line copies as it is.
        """
        keys, context = self.log_format, self.thread_safe_get_current_keys()
        names = tuple(keys)
        known_names, reserved, values, known_context, fills, _ = self._key_fills  # unpacked: cheaper
        if (
            known_names != names
            or known_context != context
            or tuple(map(keys.__getitem__, reserved)) != values
        ):
            reserved = tuple(name for name in names if name in RESERVED_ATTRIBUTES)
            fills = _fills(keys, context)
            unset = frozenset(k for k, v in {**keys, **context}.items() if v is None and k != "message")
            self._key_fills = _KeyFills(
                names, reserved, tuple(map(keys.__getitem__, reserved)), dict(context), fills, unset
            )
        if fills is None:
            return None
        level_keys, time_keys = fills
        line = {**keys, **context} if context else dict(keys)
        for key in level_keys:
            line[key] = levelname
        for key in time_keys:
            line[key] = asctime
        return line

    def _templated_head(self, attributes: Mapping[str, Any], asctime: str) -> dict[str, Any] | None:
        """`_head` for keys templated on any record attribute, each filled from `attributes` (a record's); None
        for a template that is not a string."""
        line: dict[str, Any] = {}
        for source in (self.log_format, self.thread_safe_get_current_keys()):
            for key, value in source.items():
                if value and key in RESERVED_ATTRIBUTES:
                    if not isinstance(value, str):
                        return None
                    value = value % {**attributes, "asctime": asctime}
                line[key] = value
        return line

    def _finish(self, line: dict[str, Any], message: Any) -> str:
        """The message in its place, then the line as Powertools writes it: keys that are None dropped."""
        line["message"] = message
        # Powertools sets these two from the record's exception and the X-Ray variable, over any key so named:
        # here, with neither, they are None, so gone.
        line.pop("xray_trace_id", None)
        if self.serialize_stacktrace:
            line.pop("stack_trace", None)
        if _NONE_TYPE in map(type, line.values()):  # by type: a value's own `==` is never asked
            line = {key: value for key, value in line.items() if value is not None}
        return self.serialize(line)

    def _message(self, record: logging.LogRecord) -> Any:
        """The message as Powertools extracts it: a dict as it is, %-arguments applied, else JSON-decoded if it
        decodes."""
        message = record.msg
        if isinstance(message, dict):
            return message
        if record.args:
            return record.getMessage()
        if isinstance(message, str):
            return self._decoded(message)
        return message

    def _decoded(self, message: str) -> Any:
        try:
            return self.json_deserializer(message)
        except (TypeError, ValueError):  # json.JSONDecodeError is a ValueError
            return message

    def serialize(self, log: Any) -> str:
        """The line Powertools built, as JSON text, redacted and made one writable line."""
        text = redact(self.json_serializer(log))
        return text if text.isascii() else writable(text)  # most lines are ASCII: nothing for writable to do

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        """Powertools' timestamp; for a plain `time.strftime` format, the seconds formatted once per second."""
        datefmt = datefmt or self.datefmt
        if self.use_rfc3339_iso8601 or self.use_datetime_directive or not datefmt:
            return super().formatTime(record, datefmt)
        return self._stamp(record.created, int(record.msecs), datefmt)

    def _stamp(self, created: float, msecs: int, datefmt: str) -> str:
        """`datefmt` at `created` (seconds since the epoch) with `msecs` where Powertools' `%F` is: the text around
        the milliseconds is made once per second."""
        second = int(created)
        known_second, known_format, parts = self._seconds
        if known_second != second or known_format != datefmt:
            marker = datefmt.replace(self.custom_ms_time_directive, "\ue000")
            parts = tuple(time.strftime(marker, self.converter(created)).split("\ue000"))
            self._seconds = (second, datefmt, parts)
        return ("%03d" % msecs).join(parts)  # noqa: UP031 (Powertools' own)


# The keys of a line `RedactingFormatter._head` fills: with the level name, and with the timestamp.
_Fills = tuple[tuple[str, ...], tuple[str, ...]]


class _KeyFills(NamedTuple):
    """`_fills` of the formatter's keys, with what they were made for (the key names, the reserved keys among them
    and their values, the context keys), and the keys whose value was None."""

    names: tuple[str, ...]
    reserved: tuple[str, ...]
    values: tuple[Any, ...]
    context: dict[str, Any]
    fills: _Fills | None
    # The keys that were None then, but the message's (its place is kept): the keys a line most likely drops.
    unset: frozenset[str] = frozenset()


def _fills(keys: Mapping[str, Any], context: Mapping[str, Any]) -> _Fills | None:
    """Which of the formatter's keys (`log_format`, then the context keys) take the level name and which the
    timestamp; None when one is templated on another record attribute (or on something that is not a string).
    Every other key's value goes on the line as it is."""
    fills: dict[str, str | None] = {}
    for source in (keys, context):
        for key, value in source.items():
            fill = None
            if value and key in RESERVED_ATTRIBUTES:
                if value == "%(levelname)s":
                    fill = "level"
                elif value == "%(asctime)s":
                    fill = "time"
                else:
                    return None
            fills[key] = fill
    level = tuple(key for key, fill in fills.items() if fill == "level")
    time_keys = tuple(key for key, fill in fills.items() if fill == "time")
    return level, time_keys


def writable(line: str) -> str:
    """`line`, always one line writable as UTF-8.

    A lone surrogate becomes its JSON escape (`\\udXXX` is a valid escape inside a JSON string, so the line stays
    valid JSON) instead of failing the write and losing the line, and so does a C1 control or a Unicode line
    separator (a second line to a reader that splits on them). Every non-ASCII character of a JSON line is inside
    a string and never part of an escape, so both are safe there.
    """
    if line.isascii():
        return line
    line = _LINE_BREAKERS.sub(_unicode_escape, line)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = line.encode("utf-8", "backslashreplace").decode("utf-8")
    return line


def _unicode_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"
