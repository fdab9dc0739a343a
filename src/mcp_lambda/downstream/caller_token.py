"""The caller's token and `ctx.http`: sent only to a downstream declared as accepting it, refused elsewhere.

A tool's `ctx.http` is a `client.CallerHttp`: the container's HttpClient carrying the caller's bearer token. It
attaches the token to a downstream declared `Egress(host, accepts_caller_token=True)` (an audience of the token)
unless the call sets its own `authorization`, and refuses (EgressRefused, `caller_token_not_accepted`) a request
that carries it in a header, the URL or the body to any other (token passthrough).
"""

from __future__ import annotations

from .egress import Destination
from .errors import EgressRefused


def credentials_for(
    destination: Destination, headers: dict[str, str], data: bytes | None, caller_token: str | None
) -> dict[str, str]:
    """`headers` with the caller's token added for a downstream that accepts it; refused anywhere else."""
    if not caller_token:
        return headers
    if destination.accepts_caller_token:
        if not any(name.lower() == "authorization" for name in headers):
            return {**headers, "authorization": f"Bearer {caller_token}"}
        return headers
    carried = (
        caller_token in destination.url
        or any(caller_token in value for value in headers.values())
        or (data is not None and caller_token.encode("utf-8", "surrogatepass") in data)
    )
    if carried:
        raise EgressRefused("caller_token_not_accepted", destination.origin)
    return headers


__all__ = ["credentials_for"]
