"""A Docker daemon and a Lambda Python 3.13 image for `make sam-local` (scripts/sam_local.py drives SAM with them).

- The daemon: the one already answering `docker info`, else (Debian, as root) Debian's `docker.io`, installed when
  absent and started here (`dockerd --iptables=false`, in its own session, stopped by its PID afterwards).
- The image: AWS's public `public.ecr.aws/lambda/python:3.13-<arch>` when it is present or can be pulled; else a
  local stand-in built once and kept in Docker's image store (the tag names a hash of its recipe): a Debian trixie
  root filesystem from `debootstrap` (Python 3.13 from Debian), `awslambdaric` from PyPI in /var/runtime and a
  /var/runtime/bootstrap that starts it. SAM CLI adds its own emulator (aws-lambda-rie) on top of either image.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

PUBLIC_IMAGE = "public.ecr.aws/lambda/python:3.13-{arch}"
STANDIN_REPOSITORY = "mcp-lambda/python3.13-standin"
DEBIAN_SUITE = "trixie"  # the Debian release whose python3 is 3.13 (bookworm's is 3.11)
DEBIAN_MIRROR = "http://deb.debian.org/debian"
AWSLAMBDARIC = "awslambdaric==4.2.2"
DEBIAN_ARCH = {"x86_64": "amd64", "arm64": "arm64"}
WHEEL_PLATFORM = {"x86_64": "manylinux2014_x86_64", "arm64": "manylinux2014_aarch64"}
DAEMON_START_SECONDS = 60.0
PULL_TIMEOUT_SECONDS = 120.0
# What the public image's /var/runtime/bootstrap does, for a Debian python3.13.
BOOTSTRAP = """#!/bin/sh
# Started by SAM CLI's aws-lambda-rie: the runtime interface client runs the handler SAM names.
export PYTHONPATH="/var/runtime:${LAMBDA_TASK_ROOT:-/var/task}"
cd "${LAMBDA_TASK_ROOT:-/var/task}" || exit 1
exec /usr/bin/python3.13 -m awslambdaric "${_HANDLER:-$AWS_LAMBDA_FUNCTION_HANDLER}"
"""
IMAGE_ENV = (
    "LAMBDA_TASK_ROOT=/var/task",
    "LAMBDA_RUNTIME_DIR=/var/runtime",
    "LANG=C.UTF-8",
    "TZ=:UTC",
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
)
# Docs, manuals and package caches: not needed to run a function.
ROOTFS_PRUNE = ("usr/share/doc", "usr/share/man", "usr/share/info", "var/cache/apt", "var/lib/apt/lists")


class DockerUnavailable(Exception):
    """No Docker daemon can run here; the message says what is missing."""


class ImageBuildFailed(Exception):
    """The stand-in image could not be built on a machine where it should be; the message says which step."""


def host_arch() -> str:
    """The Lambda architecture name of this machine (x86_64 or arm64)."""
    machine = platform.machine().lower()
    return "arm64" if machine in ("aarch64", "arm64") else "x86_64"


def docker(*args: str, timeout: float | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run the docker client; its output is returned as text."""
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout, check=check)


def daemon_answers() -> bool:
    """Whether `docker info` reaches a daemon."""
    if shutil.which("docker") is None:
        return False
    try:
        return docker("info", "--format", "{{.ServerVersion}}", timeout=20, check=False).returncode == 0
    except subprocess.TimeoutExpired:
        return False


@dataclass
class DockerDaemon:
    """The daemon sam local uses; `started_pid` is set when this module started it (and so stops it)."""

    started_pid: int | None = None

    def stop(self) -> None:
        """Stop the daemon this module started (by its PID); one that was already running is left alone."""
        pid, self.started_pid = self.started_pid, None
        if pid is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.2)
        with contextlib.suppress(ProcessLookupError):
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A stopped child of ours stays a zombie until reaped.
    with contextlib.suppress(ChildProcessError):
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    return True


def debian_root() -> bool:
    """Whether this is Debian and we are root: where docker.io and debootstrap can be installed and run."""
    return Path("/etc/debian_version").is_file() and os.geteuid() == 0


def apt_install(*packages: str) -> None:
    """apt-get install Debian packages (updating the lists once when a package is not found)."""
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    command = ["apt-get", "install", "-y", "--no-install-recommends", *packages]
    if subprocess.run(command, env=env, capture_output=True, check=False).returncode != 0:
        subprocess.run(["apt-get", "update"], env=env, capture_output=True, check=False)
        result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise DockerUnavailable(
                f"apt-get install {' '.join(packages)} failed: {result.stderr.strip()[-300:]}"
            )


def ensure_daemon(log_path: Path) -> DockerDaemon:
    """A Docker daemon that answers, started here when none does.

    Args:
        log_path: Where a daemon started here writes its log.

    Returns:
        The daemon; `started_pid` is set when it was started here.

    Raises:
        DockerUnavailable: There is none and this machine is not one where it can be installed and started
            (Debian, as root); the message says what is missing.
    """
    if daemon_answers():
        return DockerDaemon()
    if not debian_root():
        raise DockerUnavailable(
            "no Docker daemon answers `docker info`; start Docker (Docker Desktop, or `sudo systemctl start docker`)"
            " - this machine is not Debian-as-root, where make sam-local installs docker.io and starts dockerd itself"
        )
    if shutil.which("dockerd") is None or shutil.which("docker") is None:
        print("sam-local: installing Debian's docker.io", flush=True)
        apt_install("docker.io")
    with log_path.open("ab") as log:
        # Its own session: it outlives no one but is stopped by its PID, never by name.
        process = subprocess.Popen(
            ["dockerd", "--iptables=false"],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    daemon = DockerDaemon(process.pid)
    deadline = time.monotonic() + DAEMON_START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        if daemon_answers():
            print(f"sam-local: started dockerd (pid {process.pid}, log {log_path})", flush=True)
            return daemon
        time.sleep(0.5)
    daemon.stop()
    tail = log_path.read_text(errors="replace").splitlines()[-5:]
    raise DockerUnavailable("dockerd did not start: " + " | ".join(tail))


def gateway_address() -> str:
    """The address containers reach the host at: host-gateway, the address of Docker's default bridge."""
    inspect = '{{range .IPAM.Config}}{{.Gateway}}{{end}} {{index .Options "com.docker.network.bridge.name"}}'
    gateway, _, interface = (
        docker("network", "inspect", "bridge", "--format", inspect).stdout.strip().rpartition(" ")
    )
    if gateway.strip():
        return gateway.strip()
    # dockerd 20.10 (Debian's docker.io) leaves the gateway out of IPAM: the bridge interface holds it.
    shown = subprocess.run(
        ["ip", "-4", "-o", "addr", "show", "dev", interface or "docker0"],
        capture_output=True,
        text=True,
        check=False,
    )
    for word in shown.stdout.split():
        if "/" in word and word.split("/")[0].count(".") == 3:
            return word.split("/")[0]
    raise DockerUnavailable("Docker's default bridge has no address; sam local needs the bridge network")


def listen_address(gateway: str) -> str:
    """Where a host service for the containers listens: the bridge's address on Linux; 127.0.0.1 with Docker
    Desktop, whose bridge lives in its VM and which forwards host.docker.internal to the host's loopback."""
    with socket.socket() as probe:
        try:
            probe.bind((gateway, 0))
        except OSError:
            return "127.0.0.1"
    return gateway


def image_exists(name: str) -> bool:
    """Whether Docker's image store holds `name`."""
    return docker("image", "inspect", name, check=False).returncode == 0


def public_image(arch: str) -> str | None:
    """AWS's public Lambda Python 3.13 image for `arch`, when present or pullable; None when not."""
    name = PUBLIC_IMAGE.format(arch=arch)
    if image_exists(name):
        return name
    try:
        pulled = docker("pull", name, timeout=PULL_TIMEOUT_SECONDS, check=False).returncode == 0
    except subprocess.TimeoutExpired:
        pulled = False
    return name if pulled else None


def standin_tag(arch: str) -> str:
    """The stand-in image's name: its recipe's hash, so a changed recipe builds a new one."""
    recipe = "\n".join((DEBIAN_SUITE, DEBIAN_ARCH[arch], AWSLAMBDARIC, BOOTSTRAP, *IMAGE_ENV, *ROOTFS_PRUNE))
    return f"{STANDIN_REPOSITORY}:{arch}-{hashlib.sha256(recipe.encode()).hexdigest()[:12]}"


def build_standin(arch: str) -> str:
    """The stand-in image for `arch`, built unless Docker's image store already holds it.

    Raises:
        DockerUnavailable: It cannot be built here (not Debian as root, or a step failed).
    """
    tag = standin_tag(arch)
    if image_exists(tag):
        return tag
    if not debian_root():
        raise DockerUnavailable(
            f"the public Lambda image cannot be pulled and the stand-in {tag} is built on Debian as root"
        )
    if arch != host_arch():
        foreign_binaries(arch)
    if shutil.which("debootstrap") is None:
        apt_install("debootstrap")
    started = time.monotonic()
    print(f"sam-local: building the stand-in image {tag} (debootstrap {DEBIAN_SUITE}, once)", flush=True)
    with tempfile.TemporaryDirectory(prefix="sam-local-rootfs-") as work:
        rootfs = Path(work) / "rootfs"
        _run(
            "debootstrap", f"--arch={DEBIAN_ARCH[arch]}", "--variant=minbase", "--include=python3,ca-certificates",
            DEBIAN_SUITE, str(rootfs), DEBIAN_MIRROR,
        )  # fmt: skip
        _run(
            sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--target",
            str(rootfs / "var" / "runtime"), "--platform", WHEEL_PLATFORM[arch], "--implementation", "cp",
            "--python-version", "3.13", "--only-binary=:all:", AWSLAMBDARIC,
        )  # fmt: skip
        bootstrap = rootfs / "var" / "runtime" / "bootstrap"
        bootstrap.write_text(BOOTSTRAP)
        bootstrap.chmod(0o755)
        (rootfs / "var" / "task").mkdir(parents=True, exist_ok=True)
        for relative in ROOTFS_PRUNE:
            shutil.rmtree(rootfs / relative, ignore_errors=True)
        changes = [f"--change=ENV {variable}" for variable in IMAGE_ENV] + ["--change=WORKDIR /var/task"]
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        imported = subprocess.run(
            ["docker", "import", f"--platform=linux/{DEBIAN_ARCH[arch]}", *changes, "-", tag],
            stdin=tar.stdout,
            capture_output=True,
            text=True,
            check=False,
        )
        tar.wait()
        if imported.returncode != 0 or tar.returncode != 0:
            raise ImageBuildFailed(f"docker import of the stand-in failed: {imported.stderr.strip()}")
    print(f"sam-local: built {tag} in {time.monotonic() - started:.0f} s", flush=True)
    return tag


def foreign_binaries(arch: str) -> None:
    """QEMU registered with the kernel's binfmt_misc, so that `arch`'s programs run here (debootstrap's second
    stage in the root filesystem, then the function in its container).

    Raises:
        DockerUnavailable: The kernel has no binfmt_misc to register QEMU with.
    """
    qemu = "qemu-aarch64" if arch == "arm64" else "qemu-x86_64"
    registered = Path("/proc/sys/fs/binfmt_misc") / qemu
    if registered.exists():
        return
    apt_install("qemu-user-static", "binfmt-support")
    if not Path("/proc/sys/fs/binfmt_misc/register").exists():
        subprocess.run(["mount", "-t", "binfmt_misc", "binfmt_misc", "/proc/sys/fs/binfmt_misc"], check=False)
    subprocess.run(["update-binfmts", "--enable", qemu], capture_output=True, check=False)
    if not registered.exists():
        raise DockerUnavailable(f"{arch} programs cannot run here: {qemu} is not registered with binfmt_misc")


def _run(*command: str) -> None:
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise ImageBuildFailed(f"{command[0]} failed: {(result.stderr or result.stdout).strip()[-500:]}")


def lambda_image(arch: str) -> tuple[str, bool]:
    """The image sam local runs the function in, and whether it is AWS's public one."""
    public = public_image(arch)
    if public is not None:
        return public, True
    return build_standin(arch), False
