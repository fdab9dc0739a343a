"""Kept tiny on purpose: shared helpers live in tests/support, fixtures in each folder's conftest.py."""

# more_businesses: businesses beside the demo, for the tests that must not care which businesses exist.
pytest_plugins = ("tests.support.more_businesses",)
