"""Make deploy and after: compose a business's stack, smoke-check and roll back a deployed endpoint, the
deploy matrix, server.json."""
