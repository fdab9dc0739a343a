"""The `conformance` test business: exactly the tools, resources and prompts the official MCP conformance suite
expects (scenario texts in @modelcontextprotocol/conformance). Served by `make run BUSINESS=conformance`; never
deployed by default and never mixed into a real business."""

from pathlib import Path

from mcp_lambda.tools import Business

from .content import CONTENT_TOOLS
from .mrtr import MRTR_TOOLS
from .prompts import PROMPTS, complete
from .resources import RESOURCE_TEMPLATES, RESOURCES
from .tasks import TASK_TOOLS

BUSINESS = Business(
    name="conformance",
    title="MCP conformance fixtures",
    version="1.0.0",
    instructions="Fixtures for the official MCP conformance suite.",
    tools=[*CONTENT_TOOLS, *MRTR_TOOLS, *TASK_TOOLS],
    resources=RESOURCES,
    resource_templates=RESOURCE_TEMPLATES,
    prompts=PROMPTS,
    completer=complete,
    skills=Path(__file__).with_name("skills"),  # the sep-2640 scenarios' fixture skill
)
