"""Where the per-caller quota counters live: the `QuotaStore` contract, memory and DynamoDB (the protection table).

The quotas themselves (which tool, which window, what a caller over it gets) are `mcp_lambda.calls.quotas`.
"""

from __future__ import annotations

from .base import QuotaStore, QuotaStoreUnavailable
from .memory import MemoryQuotaStore

__all__ = ["MemoryQuotaStore", "QuotaStore", "QuotaStoreUnavailable"]
