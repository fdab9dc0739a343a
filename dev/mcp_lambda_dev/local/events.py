"""The API Gateway event builder the local server and the dev scripts use: the public test kit's own."""

from mcp_lambda.testing.apigateway import LocalContext, http_event, response_body

__all__ = ["LocalContext", "http_event", "response_body"]
