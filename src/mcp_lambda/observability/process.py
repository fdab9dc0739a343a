"""The process-wide settings logging and metrics want, applied once by the composition root (never at import).

What they change belongs to the whole process (the stdlib `logging` module's flags, library loggers' levels, a
warning filter), so a library importing this package must not get them as a side effect: the code that owns the
process (the Lambda handler's composition root, `make run`, `make stdio`) asks for them.
"""

from __future__ import annotations

import logging
import warnings

_CONFIGURED = False


def configure_process() -> None:
    """Apply the framework's process-wide logging settings; calling it again changes nothing.

    - Records skip computing thread, process and asyncio task fields: our lines never show them (and from 3.12,
      `taskName` would otherwise be on every line).
    - Third-party loggers are quiet below WARNING (`quiet_libraries`).
    - Powertools' "No application metrics to publish" warning is ignored: an invocation that only touches
      sessions publishes no application metric, which is normal.
    """
    global _CONFIGURED
    quiet_libraries()
    if _CONFIGURED:
        return
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    logging.logAsyncioTasks = False  # type: ignore[attr-defined]  # 3.12+
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    _CONFIGURED = True


def quiet_libraries() -> None:
    """Keep third-party debug chatter (and any bodies it might print) out of the logs."""
    for name in ("botocore", "boto3", "urllib3", "mangum", "aws_xray_sdk"):
        logging.getLogger(name).setLevel(logging.WARNING)
    # urllib3 warns on each retry with the request path and query, which may carry user data: our one
    # platform_api_call line already reports attempts.
    logging.getLogger("urllib3.connectionpool").setLevel(logging.ERROR)
