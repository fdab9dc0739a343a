"""The local web simulator (our `dbx dev`): a page at `make run`'s `/` that calls `/mcp` like any MCP client and
shows what the platform will make of each result — model view, card candidates, narrowable lists — with the
projection computed by `mcp_lambda_dev.projection`. Local only: it lives in dev/, never in the Lambda package."""

from .routes import SimulatorRoutes, with_simulator

__all__ = ["SimulatorRoutes", "with_simulator"]
