"""A launcher that serves with every dev-only package made unimportable: what `make run` and `make stdio` may
load is the runtime dependencies only (they install nothing else)."""

from __future__ import annotations

DEV_ONLY = ("mcp", "mcp_types", "moto", "hypothesis", "pytest", "httpx", "mypy", "watchfiles", "coverage")


def blocking_launcher(module: str, program: str) -> str:
    """Python source for `python -c` that runs `module` as `__main__` (argv[0] `program`) with `DEV_ONLY` blocked."""
    return f"""
import importlib.abc, runpy, sys
class DevOnly(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {DEV_ONLY!r}:
            raise ImportError(f"{{name}} is a dev-only dependency")
        return None
sys.meta_path.insert(0, DevOnly())
sys.argv[0] = {program!r}
runpy.run_module({module!r}, run_name="__main__")
"""
