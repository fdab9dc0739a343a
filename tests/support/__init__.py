"""Test helpers shared by the unit, replay and interop tests (no tests live here)."""
