"""The official-wire-type oracle now lives in the public test kit (`mcp_lambda.testing.wire`)."""

from mcp_lambda.testing.wire import check_error_shape, check_legacy, check_modern, check_task

__all__ = ["check_error_shape", "check_legacy", "check_modern", "check_task"]
