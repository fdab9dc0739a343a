"""The import-graph check of `make lint` (dev/mcp_lambda_tools/lint/import_graph.py): the real tree is clean, and the check
finds a cycle (TYPE_CHECKING imports included), an upward import and a sibling import in a tree made to have them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "dev" / "mcp_lambda_tools" / "lint" / "import_graph.py"


def _run(*roots: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *roots], capture_output=True, text=True, check=False)


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, source in files.items():
        path = tmp_path / "mcp_lambda" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    return tmp_path


def test_the_template_itself_has_no_cycle_and_no_upward_import() -> None:
    result = _run("src")
    assert result.returncode == 0, result.stdout
    assert result.stdout == ""


def test_a_cycle_hidden_under_type_checking_is_found(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "protocol/__init__.py": "",
            "protocol/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n",
            "protocol/b.py": "from .a import A\n",
        },
    )
    result = _run(str(root))
    assert result.returncode == 1
    assert "cycle: mcp_lambda.protocol.a <-> mcp_lambda.protocol.b" in result.stdout


def test_an_upward_and_a_sibling_import_are_found(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "tools/__init__.py": "",
            "tools/x.py": "from ..protocol import y\n",
            "protocol/__init__.py": "",
            "protocol/y.py": "",
            "secrets.py": "from .platform_api import Client\n",
            "platform_api.py": "Client = object\n",
        },
    )
    result = _run(str(root))
    assert result.returncode == 1
    assert "upward import: mcp_lambda.tools.x -> mcp_lambda.protocol" in result.stdout
    assert "sibling import: mcp_lambda.secrets -> mcp_lambda.platform_api" in result.stdout


def test_a_tool_module_loading_a_business_by_name_is_an_upward_import(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "tools/__init__.py": "",
            "tools/x.py": 'import importlib\n\ndef load():\n    return importlib.import_module("businesses")\n',
            "protocol/__init__.py": "",
            "protocol/y.py": 'def load(name):\n    return __import__(f"businesses.{name}")\n',
            "app.py": "from businesses.demo import BUSINESS\n",
        },
    )
    result = _run(str(root))
    assert result.returncode == 1
    assert "upward import: mcp_lambda.tools.x -> businesses (businesses is above every layer" in result.stdout
    assert "upward import: mcp_lambda.protocol.y -> businesses" in result.stdout
    assert "upward import: mcp_lambda.app -> businesses.demo" in result.stdout


def test_the_composition_root_may_load_a_business(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "composition.py": (
                "from importlib import import_module\n\n"
                'def load(name):\n    return import_module(f"businesses.{name}")\n'
            ),
            "tools/__init__.py": "",
            # Not a constant name: nothing the check can know, so nothing it reports.
            "tools/x.py": "import importlib\n\ndef load(name):\n    return importlib.import_module(name)\n",
        },
    )
    result = _run(str(root))
    assert result.returncode == 0, result.stdout
