"""Which businesses a developer's checkout has, and loading one by name with the known ones in its not-found error.

Discovery lists packages (pkgutil), which the deployed function never needs: it loads the one its settings name
(`mcp_lambda.composition.load_business`).
"""

from __future__ import annotations

import importlib
import pkgutil

from mcp_lambda.composition import BUSINESSES, BusinessNotFound
from mcp_lambda.composition import load_business as load_named
from mcp_lambda.tools import Business


def known_businesses() -> list[str]:
    """The business packages on the path, in path order (src/businesses/ first, then dev/businesses/ locally).

    Returns:
        Their names; empty when there is no `businesses` package at all.
    """
    try:
        package = importlib.import_module(BUSINESSES)
    except ModuleNotFoundError:
        return []
    names = [module.name for module in pkgutil.iter_modules(package.__path__) if module.ispkg]
    return list(dict.fromkeys(names))


def not_found(name: str) -> BusinessNotFound:
    """The not-found error for `name`, listing the businesses there are.

    Args:
        name: The business asked for.

    Returns:
        The error (to raise, or to print).
    """
    return BusinessNotFound(name, known_businesses())


def load_business(name: str) -> Business:
    """`mcp_lambda.composition.load_business`, whose not-found error also lists the known businesses.

    Args:
        name: The business's package name.

    Returns:
        The business.

    Raises:
        BusinessNotFound: There is no such package (the message names the known ones).
        BusinessDefinitionError: The package is malformed.
    """
    try:
        return load_named(name)
    except BusinessNotFound as exc:
        raise not_found(exc.name) from None
