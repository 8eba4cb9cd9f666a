"""Reading a file a user names as input: a regular file only (a FIFO with no writer would block,
a device such as /dev/zero never ends), and never more than a stated number of bytes. Ground
floor: imports nothing of the project; each command words the refusal for its own input."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

#: The longest line of a CSV file a command reads (a usage report, a cost export): none of AWS's or
#: HyperPod's is anywhere near it, and a longer one is refused rather than held in memory.
MAX_LINE_CHARS = 64 * 1024


class NotAFile(Exception):
    """The path is a folder, or a pipe or device."""

    def __init__(self, folder: bool) -> None:
        super().__init__("a folder" if folder else "not a regular file (a pipe or a device)")
        self.folder = folder


class TooLarge(Exception):
    """The file has more than the bytes allowed: `size` as stat gave it, or None when it grew while
    being read."""

    def __init__(self, size: int | None) -> None:
        super().__init__(size)
        self.size = size


def regular_file_size(path: Path) -> int:
    """The size of `path`; NotAFile for anything but a regular file (OSError as it comes)."""
    status = path.stat()
    if not stat.S_ISREG(status.st_mode):
        raise NotAFile(folder=stat.S_ISDIR(status.st_mode))
    return status.st_size


def read_at_most(path: Path, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most `max_bytes` (TooLarge past them, checked before
    reading and while reading); NotAFile and OSError as `regular_file_size`."""
    size = regular_file_size(path)
    if size > max_bytes:
        raise TooLarge(size)
    with path.open("rb") as handle:
        raw = handle.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise TooLarge(None)
    return raw


def read_json_file(path: Path, max_bytes: int, fix: str) -> Any:
    """The JSON of a regular file of at most `max_bytes`, UTF-8; else ValueError naming the file, what
    is wrong with it and `fix` (what to give instead). OSError as `regular_file_size`."""
    try:
        raw = read_at_most(path, max_bytes)
    except NotAFile as error:
        raise ValueError(f"{path} is {error}: {fix}") from None
    except TooLarge:
        raise ValueError(f"{path} has more than {max_bytes // 2**20} MiB: {fix}") from None
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not UTF-8 text: {fix}") from None
    except ValueError as error:
        raise ValueError(f"{path} is not JSON ({error}): {fix}") from None
