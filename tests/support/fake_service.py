"""A fake downstream HTTP service on 127.0.0.1 for tests of `ctx.http` and the tools that use it: the public test
kit's (`routes`, scripted `statuses`, `latency_ms`, every request recorded in `seen`)."""

from mcp_lambda.testing import FakeService, fake_service
from mcp_lambda.testing import ServiceRequest as Seen

__all__ = ["FakeService", "Seen", "fake_service"]
