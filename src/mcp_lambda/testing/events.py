"""Record a business's conversations as saved API Gateway events with their answers, and replay them in tests.

On disk, one folder per conversation: `events/<business>/<conversation>/NN_name.json` (the API Gateway HTTP API
payload-2.0 event, or the task worker's internal event) and `NN_name.expected.json` (the answer: `statusCode`,
the headers that matter, the parsed body; or a worker's `result`), minted values written as `{{placeholders}}`.

Both sides run the real `mcp_lambda.handler.handler`, built fresh for each conversation from the default settings
with `BUSINESS=<business>`; the task workers a request queues go to a recording `LocalLambda` and are delivered to
the handler as steps of their own. In a test module, one line replays every conversation of a business:

    test_conversations = replay_conversations("demo")
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from .apigateway import LocalContext, http_event
from .conversation import Request
from .invoke_api import LocalLambda
from .replay import (
    Mismatch,
    check_saved_shape,
    check_step,
    check_wire,
    generalize,
    generalize_task_times,
    load_conversation,
    observed,
    substitute,
)

LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]
EVENTS_DIR = Path(__file__).resolve().parents[3] / "events"
HOST = "abc123def4.execute-api.us-east-1.amazonaws.com"
SOURCE_IP = "203.0.113.10"
# What the framework mints in every tools/call answer (`_meta`: the execution id, a replay's first finish time),
# recorded as placeholders like a business's MINTED values: a replay must answer the first call's execution id.
FRAMEWORK_MINTED = {
    "execution_id": r"exe_[0-9a-f]{16}",
    "first_finished_at": r'"firstFinishedAt": "([^"]+)"',
}
EPOCH_MS = 1785196800000  # 2026-07-28T00:00:00Z: fixed so recording again gives the same files
POST_HEADERS = {
    "host": HOST,
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
}


@contextmanager
def lambda_handler(business: str, environment: Mapping[str, str] | None = None) -> Iterator[LambdaHandler]:
    """The real Lambda entry point for `business`, built fresh (a cold start) from the default settings.

    Every settings variable of the process is cleared for the duration, then `BUSINESS` and `environment` set;
    on exit the process environment and a handler built from it are put back.

    Args:
        business: The business package name (`businesses.<business>`).
        environment: Further variables (settings, `AWS_ENDPOINT_URL_LAMBDA`, ...).

    Yields:
        `mcp_lambda.handler.handler`, to call with `(event, context)`.
    """
    from mcp_lambda.settings import Settings, get_settings

    wanted = {"BUSINESS": business, **(environment or {})}
    names = set(Settings.variables()) | set(wanted)
    module = importlib.import_module("mcp_lambda.handler")
    try:
        with mock.patch.dict(os.environ):  # the process environment as it was, on the way out
            for name in names:
                os.environ.pop(name, None)
            os.environ.update(wanted)
            get_settings.cache_clear()
            yield importlib.reload(module).handler
    finally:
        get_settings.cache_clear()
        importlib.reload(module)  # later tests see a handler built from the untouched environment


def build_event(conversation: str, index: int, step: Request) -> dict[str, Any]:
    """The saved API Gateway event of step `index` (from 1): fixed host, source, request id and time."""
    base = POST_HEADERS if step.method == "POST" else {"host": HOST}
    headers = {k: v for k, v in {**base, **step.headers}.items() if v is not None}
    body = step.raw if step.raw is not None else (json.dumps(step.body) if step.body is not None else None)
    return http_event(
        step.method,
        "/mcp",
        headers,
        body,
        request_id=f"replay-{conversation}-{index:02d}",
        source_ip=SOURCE_IP,
        time_epoch_ms=EPOCH_MS + index * 1000,
    )


def record_conversations(
    business: str,
    conversations: Mapping[str, Sequence[Request]],
    *,
    events_dir: Path | None = None,
    minted: Mapping[str, str] | None = None,
    environment: Mapping[str, str] | None = None,
) -> list[Path]:
    """Record every conversation of `business` to `events_dir/<business>/`, replacing what was there.

    Args:
        business: The business package name.
        conversations: Conversation name -> its scripted steps, in order.
        events_dir: Where business folders live; the repository's `events/` by default.
        minted: Placeholder name -> regular expression of a value the business mints in answers (an order id,
            say): each new value found binds `{{name}}`, then `{{name_2}}`, ... and is written back as such.
        environment: Settings variables the business needs (the replay must be given the same).

    Returns:
        The event files written, in order.

    Raises:
        AssertionError: A step captures a value its answer did not mint, or a queued worker is left undelivered.
    """
    folder = (events_dir or EVENTS_DIR) / business
    if folder.exists():
        shutil.rmtree(folder)
    written: list[Path] = []
    patterns = {name: re.compile(pattern) for name, pattern in {**FRAMEWORK_MINTED, **(minted or {})}.items()}
    for name, steps in conversations.items():
        written += _record(business, name, steps, folder / name, patterns, environment)
    return written


def _record(
    business: str,
    conversation: str,
    steps: Sequence[Request],
    folder: Path,
    minted: Mapping[str, re.Pattern[str]],
    environment: Mapping[str, str] | None,
) -> list[Path]:
    folder.mkdir(parents=True)
    written = []
    bindings: dict[str, str] = {}
    with (
        _invoke_api(business) as invoke_api,
        lambda_handler(business, _with(invoke_api, environment)) as handler,
    ):
        for index, step in enumerate(steps, start=1):
            stem = f"{index:02d}_{step.name}"
            if step.worker:
                assert invoke_api.invocations, f"{conversation}/{stem}: no task worker was queued"
                queued = invoke_api.invocations.pop(0)  # what Lambda would deliver
                event = generalize(queued, bindings)
                answered = handler(queued, LocalContext())
                _bind_minted(answered, bindings, minted)
                expected: dict[str, Any] = {"result": generalize(answered, bindings)}
            else:
                event = build_event(conversation, index, step)
                seen = observed(handler(substitute(event, bindings), LocalContext()))
                _bind(step, seen, bindings, minted, f"{conversation}/{stem}")
                expected = {
                    "statusCode": seen["statusCode"],
                    "headers": generalize(seen["headers"], bindings),
                    "body": generalize_task_times(generalize(seen["body"], bindings), index),
                }
            written.append(_write(folder, stem, event, expected))
        assert not invoke_api.invocations, (
            f"{conversation}: task workers left undelivered: {invoke_api.invocations}"
        )
    return written


def _bind(
    step: Request,
    seen: dict[str, Any],
    bindings: dict[str, str],
    minted: Mapping[str, re.Pattern[str]],
    where: str,
) -> None:
    """Bind the values this answer minted, so the saved files hold placeholders instead."""
    if step.capture_session:
        session_id = seen["headers"]["mcp-session-id"]
        assert session_id, f"{where}: no session id minted"
        bindings[step.capture_session] = session_id
    _bind_minted(seen["body"], bindings, minted)
    if step.capture_task:  # a task's taskId, or the job_id of a job a session call started
        result = seen["body"]["result"]
        structured = result.get("structuredContent")
        job_id = structured.get("job_id") if isinstance(structured, dict) else None
        captured = result.get("taskId") or job_id
        assert isinstance(captured, str), f"{where}: no taskId or job_id to capture"
        bindings[step.capture_task] = captured


def _bind_minted(body: Any, bindings: dict[str, str], minted: Mapping[str, re.Pattern[str]]) -> None:
    """Bind each new value `minted` finds in an answer: `{{name}}`, then `{{name_2}}`, ..."""
    text = json.dumps(body)
    for name, pattern in minted.items():
        for value in pattern.findall(text):
            if value not in bindings.values():
                count = sum(bound.startswith(name) for bound in bindings)
                bindings[name + (f"_{count + 1}" if count else "")] = value


def _write(folder: Path, stem: str, event: dict[str, Any], expected: dict[str, Any]) -> Path:
    event_path = folder / f"{stem}.json"
    event_path.write_text(json.dumps(event, indent=2, ensure_ascii=False) + "\n", "utf-8")
    (folder / f"{stem}.expected.json").write_text(
        json.dumps(expected, indent=2, ensure_ascii=False) + "\n", "utf-8"
    )
    return event_path


def replay_conversation(business: str, folder: Path, *, environment: Mapping[str, str] | None = None) -> None:
    """Send one recorded conversation through the handler, in order, and compare every answer with its recording.

    A worker step first checks that the earlier steps really queued its event, then delivers it. Every answer is
    also validated against the official wire types when `mcp_types` is installed.

    Args:
        business: The business package name.
        folder: `events/<business>/<conversation>/`.
        environment: The settings variables the recording was made with.

    Raises:
        Mismatch: An answer differs from its recording; the message names the conversation and the step.
    """
    steps = load_conversation(folder)
    if not steps:
        raise Mismatch(f"no recorded steps in {folder}: record them with `make events BUSINESS={business}`")
    where = f"{business}/{folder.name}"
    with (
        _invoke_api(business) as invoke_api,
        lambda_handler(business, _with(invoke_api, environment)) as handler,
    ):
        bindings: dict[str, str] = {}
        for step in steps:
            try:
                check_saved_shape(step)
                event = substitute(step.event, bindings)
                if step.worker:
                    queued = invoke_api.invocations.pop(0) if invoke_api.invocations else None
                    if queued != event:
                        raise Mismatch(f"{step.name}: the handler queued {queued}, the recording {event}")
                seen = check_step(step, handler(event, LocalContext()), bindings)
                check_wire(step, seen)
            except Mismatch as exc:  # its message starts with the step's name
                raise Mismatch(f"{where}/{exc}") from None
            except AssertionError as exc:  # a saved event's shape, or the wire check
                raise Mismatch(f"{where}/{step.name}: {exc}") from exc
            except ValueError as exc:  # a pydantic ValidationError of the wire check
                raise Mismatch(f"{where}/{step.name}: not the official wire shape: {exc}") from exc
        if invoke_api.invocations:
            raise Mismatch(f"{where}: task workers queued that no step delivers: {invoke_api.invocations}")


def replay_conversations(
    business: str | None = None,
    *,
    events_dir: Path | None = None,
    environment: Mapping[str, str] | None = None,
) -> Callable[..., None]:
    """A pytest test, parametrized with one case per recorded conversation: `test_x = replay_conversations("x")`.

    Args:
        business: Replay `events_dir/<business>/`; None replays every business folder there.
        events_dir: Where business folders live; the repository's `events/` by default.
        environment: The settings variables the recording was made with.

    Returns:
        The test function; assign it to a `test_...` name at module level for pytest to collect it. A business
        with no recordings gets one failing case that says how to record them.
    """
    import pytest

    root = events_dir or EVENTS_DIR
    if business:
        names = [business]
    else:
        names = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    cases = []
    for name in names:
        folders = sorted(p for p in (root / name).glob("*") if p.is_dir())
        cases += [(name, folder) for folder in folders or [root / name]]

    @pytest.mark.parametrize(("business", "folder"), cases, ids=[f"{b}/{f.name}" for b, f in cases])
    def test_conversation_replays_as_recorded(business: str, folder: Path) -> None:
        replay_conversation(business, folder, environment=environment)

    return test_conversation_replays_as_recorded


def _invoke_api(business: str) -> LocalLambda:
    return LocalLambda(f"mcp-replay-{business}")


def _with(invoke_api: LocalLambda, environment: Mapping[str, str] | None) -> dict[str, str]:
    return {**invoke_api.environment(), **(environment or {})}
