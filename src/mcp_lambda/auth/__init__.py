"""The OAuth 2.1 resource server: who is calling (AUTH_MODE none | jwt | apigateway), bearer JWT validation and
Protected Resource Metadata (RFC 9728)."""

from .authenticator import Authenticator, authorizer_caller, bearer_token
from .errors import AuthFailure
from .metadata import CACHE_CONTROL, METADATA_PATHS, metadata_url, resource_url
from .tokens import JwtVerifier

__all__ = [
    "CACHE_CONTROL",
    "METADATA_PATHS",
    "AuthFailure",
    "Authenticator",
    "JwtVerifier",
    "authorizer_caller",
    "bearer_token",
    "metadata_url",
    "resource_url",
]
