"""The command's entry point: every command registered, signals and environment errors turned into exit
codes and messages, never a traceback (HYPERPOD_TEAMS_DEBUG=1 shows it).
"""

from __future__ import annotations

import os
import re
import signal
import sys
import traceback

import click

from hyperpod_teams.bindings import MissingBindingsError
from hyperpod_teams.cli.common import DEBUG_ENV, EXIT_INTERNAL_ERROR, EXIT_INVALID_SPEC, phase_of_work, stderr
from hyperpod_teams.cli.group import cli
from hyperpod_teams.cli.synth import SYNTHESIZED, keep_the_runtime_index

#: The exit status after a signal, as a shell reports a process it ended: 128 + the signal's number.
EXIT_INTERRUPTED = 128 + signal.SIGINT  # 130


EXIT_TERMINATED = 128 + signal.SIGTERM  # 143


class Terminated(KeyboardInterrupt):
    """SIGTERM (a cancelled CI job): unwinds like Ctrl-C, so staging folders are cleaned."""


_TERMINATED: list[int] = []  # set by the SIGTERM handler: a library may re-raise KeyboardInterrupt as its own


def _terminated(signum, frame) -> None:
    _TERMINATED.append(signum)
    raise Terminated


def _ignore_signals() -> None:
    """Once the command has ended: a later Ctrl-C or SIGTERM would only interrupt the engine's exit
    (jsii stopping node), leaving a traceback."""
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_IGN)


#: The errors of a machine, not of hyperpod-teams: no space, no permission, a read-only file system,
#: a path through a file (errno names, as node and Python report them).
_ENVIRONMENT_ERRORS = re.compile(r"\b(ENOSPC|EACCES|EPERM|EROFS|ENOTDIR|EDQUOT|EMFILE)\b")


def _environment_problem(error: BaseException) -> str | None:
    """What to fix when `error` is the machine's (a full disk, an unwritable HOME, TMPDIR or cache),
    else None. The engine (node, through jsii) reports these as its own errors with the errno name."""
    import errno

    names = {errno.ENOSPC, errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOTDIR, errno.EDQUOT, errno.EMFILE}
    text = str(error)
    if not (isinstance(error, OSError) and error.errno in names) and not _ENVIRONMENT_ERRORS.search(text):
        return None
    return (
        f"could not write where it must: {text.strip()}. Free disk space, or make these writable (or point "
        "them elsewhere): the output folder and the folder beside it, TMPDIR (the engine's scratch files), "
        "and the jsii package cache (~/.cache/aws/jsii; JSII_RUNTIME_PACKAGE_CACHE_ROOT moves it, "
        "JSII_RUNTIME_PACKAGE_CACHE=disabled turns it off). Nothing was written."
    )


def main() -> None:
    signal.signal(signal.SIGTERM, _terminated)
    try:
        # Not standalone: click would turn Ctrl-C into "Aborted!" and exit 1.
        cli.main(standalone_mode=False)
        if SYNTHESIZED:
            keep_the_runtime_index(phase_of_work)
        _ignore_signals()
    except SystemExit:
        _ignore_signals()
        raise
    except click.exceptions.Exit as done:
        _ignore_signals()
        sys.exit(done.exit_code)
    except click.ClickException as error:  # usage errors: click's own message, exit 2
        error.show()
        sys.exit(error.exit_code)
    except (KeyboardInterrupt, click.Abort) as interrupt:
        _ignore_signals()
        # Not through rich: a signal that lands inside its print leaves the line in rich's buffer,
        # which the next print would write a second time.
        sys.stderr.write("interrupted\n")
        sys.stderr.flush()
        sys.exit(EXIT_TERMINATED if isinstance(interrupt, Terminated) or _TERMINATED else EXIT_INTERRUPTED)
    except MissingBindingsError as error:  # the environment lacks an extra: not a bug; the message says the fix
        stderr.print(f"error: {error}", markup=False)
        sys.exit(EXIT_INVALID_SPEC)
    except Exception as error:  # anything else is our bug, not the user's spec
        environment = _environment_problem(error)
        if environment is not None:  # a full disk, a folder that cannot be written: the user's to fix
            stderr.print(f"error: {environment}", markup=False)
            sys.exit(EXIT_INVALID_SPEC)
        if os.environ.get(DEBUG_ENV):
            traceback.print_exc()
        stderr.print(
            f"internal error: {type(error).__name__}: {error}\n"
            f"This is a bug in hyperpod-teams; set {DEBUG_ENV}=1 for the traceback and report it.",
            markup=False,
        )
        sys.exit(EXIT_INTERNAL_ERROR)
