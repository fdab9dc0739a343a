"""The caller's token and `ctx.http`: sent only to a downstream declared as accepting it, refused elsewhere.

A tool's `ctx.http` is a `CallerHttp`: the container's HttpClient carrying the caller's bearer token. The client
attaches the token to a downstream declared `Egress(host, accepts_caller_token=True)` (an audience of the token)
unless the call sets its own `authorization`, and refuses (EgressRefused, `caller_token_not_accepted`) a request
that carries it in a header, the URL or the body to any other (token passthrough).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .egress import Destination
from .errors import EgressRefused

if TYPE_CHECKING:
    from .client import HttpClient, HttpResponse


class CallerHttp:
    """`ctx.http`: an HttpClient as one call's tool uses it, carrying the caller's token for the downstreams
    declared as accepting it (`Egress(..., accepts_caller_token=True)`) and refusing it everywhere else.

    Args:
        client: The container's client (pools, circuits, declarations).
        caller_token: The caller's bearer token; None when anonymous or in a task's run.
    """

    def __init__(self, client: HttpClient, caller_token: str | None) -> None:
        self.client = client
        self._caller_token = caller_token

    def get(self, url: str, **kwargs: Any) -> HttpResponse:
        """`request("GET", url, ...)`."""
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> HttpResponse:
        """`request("POST", url, ...)`."""
        return self.request("POST", url, **kwargs)

    def request(self, method: str, url: str, **kwargs: Any) -> HttpResponse:
        """`HttpClient.request` on behalf of the caller (its keyword arguments but `caller_token`).

        Raises:
            EgressRefused: The host is not declared, its address is never reached or not declared, or the
                caller's token would go to a downstream that does not accept it.
        """
        return self.client.request(method, url, caller_token=self._caller_token, **kwargs)


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


__all__ = ["CallerHttp", "credentials_for"]
