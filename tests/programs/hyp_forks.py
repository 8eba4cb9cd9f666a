"""The HyperPod CLI (`hyp`) loaded once, forked for each command (tests/emulator/hyp.py starts it
with the journey venv's Python: `python hyp_forks.py SOCKET`).

A fresh `hyp` spends 2.5 CPU seconds importing before it does anything (kubernetes' models and
sagemaker-core's shapes); the journey tier and the walks run it about sixty times. Here the CLI is
imported once and each command runs in a fork of this process, with the member's environment,
working folder and arguments, exactly what the console script `hyp` runs (`cli()`), its exit status
as the process's.

What a fork cannot give back by itself is what the import read from the environment. The server is
started with a sentinel HOME and KUBECONFIG; after the import it finds every module-level string
that holds one of them (kubernetes' default kubeconfig location and the CLI's two copies of it) and
the fork writes the member's values there. It refuses to serve when the import started a thread (a
fork would hold a half-copied lock) or when no copy was found (the CLI changed: see
tests/journey-requirements.txt). The cluster context `hyp set-cluster-context` writes goes to the
member's HOME, not the machine's /tmp (GENERATED_LAUNCHER_CONFIG_FILE_PATH).

The server ends itself when the test process that started it is gone.

Protocol: one JSON line per connection, {"argv": [...], "env": {...}, "cwd": "..."}; the answer, one
JSON line: {"pid": n} as soon as the fork runs, then {"returncode", "stdout", "stderr"}.
"""

from __future__ import annotations

import json
import os
import socketserver
import sys
import tempfile
import threading
import traceback
from types import ModuleType
from typing import Any

#: A HOME no member has (tests/emulator/hyp.py sets it), so what the import derived from it is found.
SENTINEL_HOME = os.environ["HOME"]


def _copies_of_the_environment() -> list[tuple[ModuleType, str, str]]:
    """(module, attribute, value) of every module-level string holding the sentinel HOME."""
    found = []
    for module in list(sys.modules.values()):
        if module is sys.modules[__name__]:
            continue
        for name, value in list(getattr(module, "__dict__", {}).items()):
            if isinstance(value, str) and SENTINEL_HOME in value:
                found.append((module, name, value))
    return found


def _load() -> tuple[Any, list[tuple[ModuleType, str, str]], Any]:
    # The journey venv's packages (this program runs there, mypy checks it from the test venv).
    import sagemaker.hyperpod.cli.utils as cli_utils  # type: ignore[import-not-found]
    from sagemaker.hyperpod.cli.hyp_cli import cli  # type: ignore[import-not-found]

    copies = _copies_of_the_environment()
    if not copies:
        raise SystemExit("hyp_forks: no module holds the kubeconfig location read at import; the CLI changed")
    if threading.active_count() != 1:
        started = threading.active_count() - 1
        raise SystemExit(f"hyp_forks: importing the CLI started {started} threads; a fork is unsafe")
    return cli, copies, cli_utils


CLI, COPIES, CLI_UTILS = _load()


def _run(request: dict) -> int:
    """In the fork: the member's process, then the command as the console script runs it."""
    env = request["env"]
    os.environ.clear()
    os.environ.update(env)
    os.chdir(request["cwd"])
    home, kubeconfig = env.get("HOME", ""), env.get("KUBECONFIG", "~/.kube/config")
    for module, name, value in COPIES:
        replaced = value.replace(f"{SENTINEL_HOME}/.kube/config", kubeconfig).replace(SENTINEL_HOME, home)
        setattr(module, name, os.path.expanduser(replaced))
    CLI_UTILS.GENERATED_LAUNCHER_CONFIG_FILE_PATH = home.rstrip("/") + "/"
    sys.argv = ["hyp", *request["argv"]]
    try:
        CLI.main(args=request["argv"], prog_name="hyp")
        return 0
    except SystemExit as exit:
        if exit.code is None or isinstance(exit.code, int):
            return exit.code or 0
        print(exit.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1


class Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:  # runs in the fork (ForkingMixIn)
        request = json.loads(self.rfile.readline())
        self.wfile.write(json.dumps({"pid": os.getpid()}).encode() + b"\n")
        self.wfile.flush()
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            code = _run(request)
            sys.stdout.flush()
            sys.stderr.flush()
            answer: dict[str, int | str] = {"returncode": code}
            for name, file in (("stdout", out), ("stderr", err)):
                file.seek(0)
                answer[name] = file.read().decode(errors="replace")
        self.wfile.write(json.dumps(answer).encode() + b"\n")
        self.wfile.flush()


class Server(socketserver.ForkingMixIn, socketserver.UnixStreamServer):
    max_children = 64
    #: The test process that started the server: when it is gone, so is the server.
    parent = os.getppid()

    def service_actions(self) -> None:  # every poll of serve_forever (half a second)
        super().service_actions()
        if os.getppid() != self.parent:
            os._exit(0)


def main() -> None:
    server = Server(sys.argv[1], Handler)
    print(json.dumps({"ready": sorted(f"{m.__name__}.{n}" for m, n, _ in COPIES)}), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
