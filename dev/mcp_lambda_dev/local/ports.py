"""Which port to suggest when the one asked for is taken: one that was just checked to be free."""

from __future__ import annotations

import socket

NEARBY = 100  # ports after the one asked for that are tried before any the system picks


def free_port_after(host: str, port: int) -> int:
    """The first port after `port` that `host` can listen on now (else one the system picks).

    Checked the way the server binds (IPv4, address reuse on), so a port the server could not take is never
    suggested; it may of course be taken again before the user runs the command.

    Args:
        host: The address the server listens on.
        port: The port that was taken.

    Returns:
        A free port.
    """
    for candidate in [*range(port + 1, min(port + NEARBY, 65535) + 1), 0]:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((host, candidate))
            except OSError:
                continue
            return int(probe.getsockname()[1])
    raise OSError(f"no free port on {host}")
