"""Resource fixtures (resources-*, sep-2164, caching)."""

from __future__ import annotations

import json

from mcp_lambda.tools import resource, resource_template

from .media import PNG_BYTES


@resource(
    "test://static-text", name="static-text", description="A static text resource.", mime_type="text/plain"
)
def static_text() -> str:
    return "This is the content of the static text resource."


@resource(
    "test://static-binary", name="static-binary", description="A static PNG image.", mime_type="image/png"
)
def static_binary() -> bytes:
    return PNG_BYTES


@resource(
    "test://watched-resource",
    name="watched-resource",
    description="A resource clients may subscribe to.",
    mime_type="text/plain",
)
def watched_resource() -> str:
    return "Watched resource content."


@resource_template(
    "test://template/{id}/data",
    name="template-data",
    description="Data for one id.",
    mime_type="application/json",
)
def template_data(id: str) -> str:
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


RESOURCES = [static_text, static_binary, watched_resource]
RESOURCE_TEMPLATES = [template_data]
