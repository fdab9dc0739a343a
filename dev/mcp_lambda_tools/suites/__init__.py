"""The suites and local services: the official conformance suite, the Node tools, make fleet, make token,
make events."""
