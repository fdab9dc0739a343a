"""Kept tiny on purpose: shared helpers live in tests/support, fixtures in each folder's conftest.py."""
