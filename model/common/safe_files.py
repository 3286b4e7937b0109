"""Files from outside, read and written without surprises.

Every input is checked to be a regular file before it is opened (a FIFO blocks forever, /dev/zero
never ends, a folder is not a file) and read with a size limit that fits what it is. Every output
target is checked to be a regular file, or nothing yet, before anything is written; writes go
through one atomic, fsynced rename.

The limits, and why they are what they are (each refusal names the limit it hit):

- workbook .json, 64 MB: the largest workbook the app still works with (2,000 tiers x 100 classes)
  is 43 MB.
- price list CSV, 32 MB: about 300,000 rows of a wide price list, three times the row limit the
  importer applies anyway.
- spreadsheet .xlsx, 64 MB on disk, and its unpacked parts bounded separately (see
  XLSX_UNPACKED_LIMIT), since a zip of 444 KB can unpack to 400 MB.
- prompt file .jsonl, 16 MB: thousands of long prompts; acceptance is measured on dozens.
- model config / tokenizer .json, 16 MB and 64 MB: the largest published tokenizer.json files are
  a few tens of MB; config.json is a few KB.
"""
from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable

MB = 1024 * 1024

LIMIT_WORKBOOK_JSON = 64 * MB
LIMIT_PRICE_LIST_CSV = 32 * MB
LIMIT_SPREADSHEET = 64 * MB
XLSX_UNPACKED_LIMIT = 256 * MB
XLSX_PART_LIMIT = 128 * MB
LIMIT_PROMPT_FILE = 16 * MB
LIMIT_MODEL_CONFIG = 16 * MB
LIMIT_TOKENIZER = 64 * MB

TEMP_SUFFIX = ".specledger-tmp"


class FileRefused(ValueError):
    """A file SpecLedger will not read or write; the message is one line naming the file and why.

    `path` and `reason` are kept apart for callers that put the path in front themselves.
    """

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        self.path = os.fspath(path)
        self.reason = reason
        super().__init__(_line(path, reason))


def size_text(n: int) -> str:
    """Sizes as refusals state them: whole MB for the limits, bytes for small files (exact)."""
    if n >= MB:
        return f"{n // MB:,} MB" if n % MB == 0 else f"{n / MB:,.1f} MB"
    return f"{n:,} bytes"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _not_regular(mode: int, what: str) -> str:
    return f"is {_kind(mode)}, not {_a(what)} (only regular files are read); nothing was read"


def _a(what: str) -> str:
    return f"an {what}" if what[:1].lower() in "aeiou" else f"a {what}"


def _os_reason(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, PermissionError):
        return "permission denied"
    if exc.errno == errno.ELOOP:
        return "a symlink loop"
    return f"cannot be read ({exc.strerror or exc.__class__.__name__})"


def _line(path: str | os.PathLike[str], reason: str) -> str:
    # a path typed by a user may hold a newline; the refusal stays one line
    shown = os.fspath(path)
    if not shown:
        return reason
    shown = shown if len(shown) <= 200 else shown[:100] + "…" + shown[-99:]
    return f"{shown!r}: {reason}" if any(ch in shown for ch in "\n\r\t") else f"{shown}: {reason}"


def check_regular_input(path: str | os.PathLike[str], what: str) -> os.stat_result:
    """The stat of `path` if it is a regular file (a symlink to one is fine); FileRefused otherwise.

    For inputs that another library opens itself (onnxruntime, openpyxl): call this first.
    """
    try:
        st = os.stat(path)
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        reason = _os_reason(exc) if isinstance(exc, OSError) else "not a usable file name"
        raise FileRefused(path, f"{reason} (the {what})") from None
    if not stat.S_ISREG(st.st_mode):
        raise FileRefused(path, _not_regular(st.st_mode, what))
    return st


def open_regular(path: str | os.PathLike[str], what: str, *, limit_bytes: int) -> BinaryIO:
    """A binary file object on `path`, known to be a regular file within `limit_bytes`.

    Checked before opening, opened non-blocking (a FIFO swapped in after the check cannot block the
    open), and checked again on the open descriptor (a swap between the check and the open is
    caught). The caller still reads at most limit_bytes + 1: a file can grow while being read.
    """
    check_regular_input(path, what)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise FileRefused(path, f"{_os_reason(exc)} (the {what})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileRefused(path, _not_regular(st.st_mode, what))
        if st.st_size > limit_bytes:
            raise FileRefused(path, f"is {size_text(st.st_size)}, over the {size_text(limit_bytes)} limit for "
                                    f"{_a(what)}; nothing was read")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes_limited(path: str | os.PathLike[str], *, limit_bytes: int, what: str) -> bytes:
    """The bytes of a regular file of at most `limit_bytes`; FileRefused (one line) otherwise."""
    with open_regular(path, what, limit_bytes=limit_bytes) as fh:
        try:
            data = fh.read(limit_bytes + 1)
        except OSError as exc:
            raise FileRefused(path, f"{_os_reason(exc)} (the {what})") from None
    if len(data) > limit_bytes:  # it grew after the size check
        raise FileRefused(path, f"is over the {size_text(limit_bytes)} limit for {_a(what)}; nothing was read")
    return data


def read_text_limited(path: str | os.PathLike[str], *, limit_bytes: int, what: str,
                      encoding: str = "utf-8") -> str:
    """The text of a regular file of at most `limit_bytes`; a file that is not `encoding` is refused
    naming the line where the first bad byte sits."""
    data = read_bytes_limited(path, limit_bytes=limit_bytes, what=what)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FileRefused(path, f"is not {encoding.upper().replace('-SIG', '')} text (a bad byte at line {line}); "
                                f"{_a(what)} must be") from None


def check_output_target(path: str | os.PathLike[str], what: str) -> Path:
    """Where to write `path`: itself when it does not exist yet or is a regular file; the file a symlink
    points at when that is a regular file (see symlink_note); FileRefused when it is anything else
    (a FIFO, a device, a folder, a dangling symlink, a symlink loop) or its folder does not exist.

    The write replaces the returned path by rename, so a symlink given as -o stays a symlink.
    """
    p = Path(path)
    if not os.fspath(p):
        raise FileRefused("", f"no file name given for the {what}")
    try:
        lst = os.lstat(p)
    except FileNotFoundError:
        lst = None
    except (OSError, ValueError) as exc:
        reason = _os_reason(exc) if isinstance(exc, OSError) else "not a usable file name"
        raise FileRefused(p, f"{reason} (the {what}); nothing was written") from None
    if lst is None:
        parent = p.parent if os.fspath(p.parent) else Path(".")
        if not parent.is_dir():
            raise FileRefused(p, f"the folder {parent} does not exist (the {what}); nothing was written")
        return p
    if stat.S_ISLNK(lst.st_mode):
        try:
            real = p.resolve(strict=True)
        except (OSError, RuntimeError) as exc:  # RuntimeError: a loop, before Python 3.13
            reason = ("a symlink loop" if isinstance(exc, RuntimeError) or getattr(exc, "errno", 0) == errno.ELOOP
                      else "a symlink to nothing (its target does not exist)")
            raise FileRefused(p, f"is {reason}; the {what} was not written") from None
        st = os.stat(real)
        if not stat.S_ISREG(st.st_mode):
            raise FileRefused(p, f"is a symlink to {real}, which is {_kind(st.st_mode)}, not a regular file; "
                                 f"the {what} was not written")
        return real
    if not stat.S_ISREG(lst.st_mode):
        raise FileRefused(p, f"is {_kind(lst.st_mode)}, not a regular file; the {what} was not written")
    return p


def symlink_note(requested: str | os.PathLike[str], target: Path) -> str | None:
    """The line to tell the user when check_output_target followed a symlink, else None."""
    if Path(requested) == target:
        return None
    return f"{os.fspath(requested)} is a symlink; wrote its target {target}"


def atomic_write(path: str | os.PathLike[str], write: Callable[[str], None]) -> None:
    """Write through `write(tmp_path)` to a temporary file beside `path`, fsync it, rename it over
    `path`, and fsync the folder, so that after a crash the file is either the old or the new one.

    The temporary file's name carries this process's id; one left by a killed save (whose process
    is gone) is removed the next time anything is saved in that folder under the same name.
    """
    target = Path(path)
    directory = target.parent if os.fspath(target.parent) else Path(".")
    remove_stale_temp_files(target)
    fd, tmp = tempfile.mkstemp(prefix=f"{_temp_prefix(target.name)}{os.getpid()}-", suffix=TEMP_SUFFIX, dir=directory)
    os.close(fd)
    try:
        # mkstemp makes the file private (0600); give it the mode a plain open() would,
        # or keep the mode of the file it replaces
        try:
            mode = os.stat(target).st_mode & 0o7777
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        write(tmp)
        _fsync_path(tmp, directory=False)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_path(directory, directory=True)


def write_text_atomic(path: str | os.PathLike[str], text: str, what: str) -> Path:
    """check_output_target, then atomic_write of `text` as UTF-8; the path written (a symlink's target)."""
    target = check_output_target(path, what)

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)

    atomic_write(target, write)
    return target


def _fsync_path(path: str | os.PathLike[str], *, directory: bool) -> None:
    flags = os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if directory else 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        if directory:  # a folder cannot be opened for fsync on some systems (Windows): the rename stands
            return
        raise
    try:
        os.fsync(fd)
    except OSError:
        if not directory:
            raise
    finally:
        os.close(fd)


# a file name may be 255 bytes; the temporary name adds the dots, a process id, mkstemp's 8 characters and the suffix
_TEMP_EXTRA = 2 + 10 + 1 + 8 + len(TEMP_SUFFIX)


def _temp_prefix(name: str) -> str:
    """The start of a temporary file's name beside `name`: '.name.' where that leaves room for the rest within
    255 bytes; else a short '.~' + a digest of the name + '.', so a legal name of 222-255 bytes can be saved."""
    if len(name.encode("utf-8", "surrogateescape")) + _TEMP_EXTRA <= 255:
        return f".{name}."
    import hashlib  # only for names this long: start-up does without it

    return f".~{hashlib.sha256(name.encode('utf-8', 'surrogateescape')).hexdigest()[:24]}."


def remove_stale_temp_files(target: str | os.PathLike[str]) -> list[Path]:
    """Remove temporary files that a killed save of `target` left beside it; the removed paths.

    Only files of atomic_write's own naming whose process no longer runs: a save in progress in
    another SpecLedger keeps its file.
    """
    t = Path(target)
    directory = t.parent if os.fspath(t.parent) else Path(".")
    prefix = _temp_prefix(t.name)
    removed = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        if not (name.startswith(prefix) and name.endswith(TEMP_SUFFIX)):
            continue
        pid_text = name[len(prefix):].split("-", 1)[0]
        if not pid_text.isdigit() or _process_alive(int(pid_text)):
            continue
        try:
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            pass
    return removed


def _process_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    if sys.platform == "win32":  # os.kill there terminates the process: never probe, never remove
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # someone else's process: leave its file alone
    return True
