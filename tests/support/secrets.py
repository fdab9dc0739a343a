"""A secret source of fixed values, for tests that run a business through the handler (`build_handler(secrets=)`):
the public test kit's."""

from mcp_lambda.testing import StaticSecrets

__all__ = ["StaticSecrets"]
