"""Local development: API Gateway HTTP API (payload 2.0) events and a server that feeds them to the handler."""
