"""`hyp` for the journey tier and the walks: the HyperPod CLI imported once in the journey venv and
forked for each command (tests/programs/hyp_forks.py says what a fork gives back of a fresh
process, and what it refuses). `run_cli` runs a member's command, `hyp` through the forks, the rest
(`aws`, `python`) as processes; both answer as `subprocess.run` does. A test process starts one
server for its life.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import subprocess
import tempfile
import threading
from pathlib import Path

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "hyp_forks.py"
#: The server's HOME: a folder no member has, so every value the import derived from it can be found.
SENTINEL_HOME = "/nonexistent/hyp-forks-home"
_servers: dict[Path, HypForks] = {}
_lock = threading.Lock()


class HypForks:
    """The server of one journey venv (its `bin` folder)."""

    def __init__(self, cli_bin: Path) -> None:
        # A Unix socket's path holds at most 107 bytes: under a long TMPDIR, /tmp.
        self._folder = tempfile.mkdtemp(prefix="hyp-forks-")
        if len(self._folder) > 90:
            os.rmdir(self._folder)
            self._folder = tempfile.mkdtemp(prefix="hyp-forks-", dir="/tmp")
        self.socket = os.path.join(self._folder, "hyp.sock")
        env = {
            "PATH": f"{cli_bin}:/usr/bin:/bin",
            "HOME": SENTINEL_HOME,
            "KUBECONFIG": f"{SENTINEL_HOME}/.kube/config",
            "PYTHONWARNINGS": "ignore",
        }
        self.process = subprocess.Popen(
            [str(cli_bin / "python"), str(PROGRAM), self.socket],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self.process.stdout.readline() if self.process.stdout else ""
        if not line:
            raise RuntimeError(f"hyp_forks did not start: {self.process.stderr.read() if self.process.stderr else ''}")
        if "ready" not in json.loads(line):  # it lists the module attributes each fork rewrites
            raise RuntimeError(f"hyp_forks answered {line!r} before it was ready")

    def run(self, argv: list[str], *, env: dict[str, str], cwd: str, timeout: float) -> subprocess.CompletedProcess:
        """`hyp ARGV` with `env` in `cwd`, as `subprocess.run(capture_output=True, text=True)` answers."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(timeout)
            connection.connect(self.socket)
            connection.sendall(json.dumps({"argv": argv, "env": env, "cwd": cwd}).encode() + b"\n")
            with connection.makefile("rb") as answers:
                pid = json.loads(answers.readline())["pid"]
                try:
                    answer = json.loads(answers.readline())
                except TimeoutError:
                    os.kill(pid, signal.SIGKILL)
                    raise subprocess.TimeoutExpired(["hyp", *argv], timeout) from None
        return subprocess.CompletedProcess(["hyp", *argv], answer["returncode"], answer["stdout"], answer["stderr"])

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        if os.path.exists(self.socket):
            os.unlink(self.socket)
        os.rmdir(self._folder)


def hyp_forks(cli_bin: Path) -> HypForks:
    """The test process's server for `cli_bin`, started on first use and stopped at its exit."""
    with _lock:
        if cli_bin not in _servers:
            server = _servers[cli_bin] = HypForks(cli_bin)
            atexit.register(server.stop)
        return _servers[cli_bin]


def run_cli(cli_bin: Path, command: tuple[str, ...], *, env: dict[str, str], cwd: str) -> subprocess.CompletedProcess:
    """A member's command from the journey venv's `cli_bin`: `hyp` forked from the server, anything
    else in a process of its own; three minutes at most."""
    if command[0] == "hyp":
        return hyp_forks(cli_bin).run(list(command[1:]), env=env, cwd=cwd, timeout=180)
    return subprocess.run(
        [str(cli_bin / command[0]), *command[1:]], env=env, capture_output=True, text=True, timeout=180, cwd=cwd
    )
