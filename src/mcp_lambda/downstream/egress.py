"""Egress by declaration: which hosts `ctx.http` may reach, checked before any connection is made.

A business declares what it reaches (`Business(egress=[...])`, and its stack through `EGRESS_ALLOW`); the test
kit and `make run` declare their own stand-ins. An entry is a host name (`api.example.com`), a wildcard of its
subdomains (`*.example.com`), an address or a network (`10.0.3.7`, `10.0.0.0/16`), or a URL (its host and port),
each optionally with a port (`api.example.com:8443`).

What a call may reach:
- a URL's host must be declared (a name, or an address inside a declared network); http and https only;
- a declared name is resolved once; every address it resolves to must be public, or inside a declared network,
  and the connection goes to the address that was checked (no second lookup: no DNS-rebinding window);
- link-local addresses (169.254.0.0/16, fe80::/10), the instance metadata services (fd00:ec2::/32,
  100.100.100.200, 168.63.129.16) and unroutable ones are never reached, whatever is declared (declaring one
  stops the start);
- a redirect is a new call to check, hop by hop.

Anything else raises `EgressRefused` before a packet leaves: the tool's error result is 40310.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import StartupError
from .errors import EgressRefused

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# Never reached, whatever a business declares: link-local (the AWS/GCP/Azure/OCI metadata at 169.254.169.254),
# the metadata services elsewhere (AWS IPv6, Alibaba, Azure's wire server), "this network", broadcast, multicast.
NEVER_REACHED: tuple[IpNetwork, ...] = tuple(
    ipaddress.ip_network(network)
    for network in (
        "169.254.0.0/16",
        "fe80::/10",
        "fd00:ec2::/32",
        "100.100.100.200/32",
        "168.63.129.16/32",
        "0.0.0.0/8",
        "255.255.255.255/32",
        "224.0.0.0/4",
        "::/128",
        "ff00::/8",
    )
)
# Names of metadata services: never declarable (they resolve to a never-reached address anyway).
METADATA_NAMES = frozenset(
    {"metadata.google.internal", "metadata", "instance-data", "instance-data.ec2.internal"}
)
DEFAULT_PORTS = {"http": 80, "https": 443}
_HOST_NAME = re.compile(r"^(\*\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class EgressDeclarationError(StartupError, ValueError):
    """An egress entry (`Business(egress=...)`, `EGRESS_ALLOW`) is malformed or names a never-reached address."""


@dataclass(frozen=True)
class Egress:
    """A downstream a business reaches with `ctx.http`.

    Args:
        host: `api.example.com`, `*.example.com`, `10.0.3.7`, `10.0.0.0/16` or a URL, optionally with `:port`.
        accepts_caller_token: The downstream is an audience of the caller's token (its issuer lists it in the
            token's `aud`): `ctx.http` then sends it `Authorization: Bearer <the caller's token>` unless the call
            sets its own. Never set it for a downstream the token was not issued for (token passthrough).
    """

    host: str
    accepts_caller_token: bool = False


@dataclass(frozen=True)
class Destination:
    """Where one hop of a call goes, once declared: the URL's parts and the entry that allows it."""

    url: str
    scheme: str
    host: str  # lower-case, without brackets
    port: int
    target: str  # path and query, what the request line carries
    host_header: str
    accepts_caller_token: bool
    address: IpAddress | None  # the host itself when it is an address literal

    @property
    def origin(self) -> str:
        return f"{self.scheme}://{self.host_header}"


@dataclass(frozen=True)
class _Rule:
    entry: Egress
    port: int | None
    name: str | None = None  # an exact host name
    suffix: str | None = None  # `.example.com` of `*.example.com`
    network: IpNetwork | None = None


class EgressPolicy:
    """The declared downstreams, and the checks every hop of `ctx.http` passes before it connects.

    Args:
        entries: What is declared: strings (see the module) or `Egress` entries.
        resolver: A stand-in for `socket.getaddrinfo` (its signature); None looks `socket.getaddrinfo` up per call.

    Raises:
        EgressDeclarationError: An entry is malformed or names a never-reached address.
    """

    def __init__(self, entries: Iterable[str | Egress] = (), resolver: object = None) -> None:
        self.rules = tuple(_rule(entry if isinstance(entry, Egress) else Egress(entry)) for entry in entries)
        self._resolver = resolver

    def destination(self, url: str) -> Destination:
        """Check `url` against the declarations, without any lookup or connection.

        Args:
            url: The URL a hop asks for.

        Returns:
            Where it goes.

        Raises:
            EgressRefused: Not http(s), no host, a never-reached address, or a host nobody declared.
        """
        try:
            split = urllib.parse.urlsplit(url)
            port = split.port
            host = (split.hostname or "").lower()
        except ValueError:
            raise EgressRefused("not_a_url", "") from None
        scheme = split.scheme.lower()
        if scheme not in DEFAULT_PORTS or not host:
            raise EgressRefused("not_http", f"{scheme}://{host}" if host else scheme or "")
        port = port or DEFAULT_PORTS[scheme]
        netloc = split.netloc.rpartition("@")[2]
        address = _address(host)
        origin = f"{scheme}://{netloc}"
        if address is not None and _never_reached(address):
            raise EgressRefused("link_local", origin, str(address))
        rule = self._rule_for(host, port, address)
        if rule is None:
            reason = "undeclared_address" if address is not None else "undeclared_host"
            raise EgressRefused(reason, origin, str(address) if address is not None else None)
        target = urllib.parse.urlunsplit(("", "", split.path or "/", split.query, ""))
        return Destination(url, scheme, host, port, target, netloc, rule.entry.accepts_caller_token, address)

    def resolve(self, destination: Destination) -> str:
        """The one address to connect to: every address the host resolves to checked, the first one returned.

        Args:
            destination: A destination `destination()` allowed.

        Returns:
            The address to connect to (a literal host is itself).

        Raises:
            EgressRefused: An address is never reached, or private and outside every declared network.
            OSError: The name does not resolve (`socket.gaierror`).
        """
        if destination.address is not None:
            return str(destination.address)
        resolver: Any = self._resolver or socket.getaddrinfo
        answers = resolver(destination.host, destination.port, 0, socket.SOCK_STREAM)
        addresses = list(dict.fromkeys(str(answer[4][0]).split("%", 1)[0] for answer in answers))
        if not addresses:
            raise OSError(f"{destination.host} resolves to no address")
        for text in addresses:
            address = ipaddress.ip_address(text)
            if _never_reached(address):
                raise EgressRefused("resolves_to_link_local", destination.origin, text)
            if not _public(address) and not self._in_declared_network(address, destination.port):
                raise EgressRefused("resolves_to_private", destination.origin, text)
        return addresses[0]

    def _rule_for(self, host: str, port: int, address: IpAddress | None) -> _Rule | None:
        for rule in self.rules:
            if rule.port is not None and rule.port != port:
                continue
            if address is not None:
                if rule.network is not None and _embedded(address) in rule.network:
                    return rule
            elif rule.name == host or (rule.suffix is not None and host.endswith(rule.suffix)):
                return rule
        return None

    def _in_declared_network(self, address: IpAddress, port: int) -> bool:
        return any(
            rule.network is not None
            and (rule.port is None or rule.port == port)
            and _embedded(address) in rule.network
            for rule in self.rules
        )


def _rule(entry: Egress) -> _Rule:
    text = entry.host.strip().lower()
    if not text:
        raise EgressDeclarationError("an egress entry is empty")
    if "://" in text:
        try:
            split = urllib.parse.urlsplit(text)
            host, port = split.hostname or "", split.port or DEFAULT_PORTS.get(split.scheme)
        except ValueError:
            raise EgressDeclarationError(f"egress entry {entry.host!r} is not a URL") from None
        if split.scheme not in DEFAULT_PORTS or not host:
            raise EgressDeclarationError(f"egress entry {entry.host!r}: only http(s) URLs with a host")
        return _host_rule(entry, host, port)
    if "/" in text:
        try:
            network = ipaddress.ip_network(text, strict=False)
        except ValueError:
            raise EgressDeclarationError(f"egress entry {entry.host!r} is not a network") from None
        return _network_rule(entry, network, None)
    host, port = _split_port(entry.host, text)
    return _host_rule(entry, host, port)


def _split_port(raw: str, text: str) -> tuple[str, int | None]:
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port_text = rest.removeprefix(":") if rest else ""
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    else:
        host, port_text = text, ""
    if not port_text:
        return host, None
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise EgressDeclarationError(f"egress entry {raw!r}: the port must be a number from 1 to 65535")
    return host, int(port_text)


def _host_rule(entry: Egress, host: str, port: int | None) -> _Rule:
    address = _address(host)
    if address is not None:
        return _network_rule(entry, ipaddress.ip_network(address), port)
    if not _HOST_NAME.match(host):
        raise EgressDeclarationError(f"egress entry {entry.host!r} is not a host name, address or network")
    host = host.rstrip(".")
    if host in METADATA_NAMES:
        raise EgressDeclarationError(f"egress entry {entry.host!r} names a metadata service: never reachable")
    if host.startswith("*."):
        return _Rule(entry, port, suffix=host[1:])
    return _Rule(entry, port, name=host)


def _network_rule(entry: Egress, network: IpNetwork, port: int | None) -> _Rule:
    for never in NEVER_REACHED:
        if network.version == never.version and network.overlaps(never):
            raise EgressDeclarationError(
                f"egress entry {entry.host!r} overlaps {never}, which is never reachable (link-local, metadata "
                "or unroutable)"
            )
    return _Rule(entry, port, network=network)


def _address(host: str) -> IpAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None


def _embedded(address: IpAddress) -> IpAddress:
    """The IPv4 address an IPv6 one carries (mapped, NAT64, 6to4), else the address itself."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address in _NAT64:
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if address.sixtofour is not None:
            return address.sixtofour
    return address


def _never_reached(address: IpAddress) -> bool:
    for candidate in {address, _embedded(address)}:
        if any(candidate.version == network.version and candidate in network for network in NEVER_REACHED):
            return True
    return False


def _public(address: IpAddress) -> bool:
    return _embedded(address).is_global


__all__ = ["NEVER_REACHED", "Destination", "Egress", "EgressDeclarationError", "EgressPolicy"]
