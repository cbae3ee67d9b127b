"""Writing artefacts safely: atomically, deterministically, never over user edits.

A build tree is produced in memory (relative path -> bytes) and written by
`write_tree`: into a fresh sibling folder first, then swapped into place, so an
error leaves either the old tree or the new one, never half of each. A manifest
of content hashes (`.partition/manifest.json`) lets the next run tell files the
user changed (refused without --force) from files it wrote itself.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from partition.errors import PartitionError

MANIFEST = ".partition/manifest.json"


def write_text_atomic(path: Path, text: str) -> None:
    write_bytes_atomic(path, text.encode())


def write_bytes_atomic(path: Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# a build tree of the examples is 1-4 MB, one with recorded calls of 16 MB (the cap) a few
# tens: below this much free space, writing it would fail half-way
MIN_FREE_BYTES = 64 * 1024 * 1024


def check_out(out: Path, app: Path) -> None:
    """That a build tree can go to `out`, checked before the app runs: not the working folder
    or a folder holding the app (writing the tree replaces the whole folder), not inside a
    file, in a folder this user can write to, on a file system with room for a tree."""
    target = Path(out).resolve()
    held = Path(app).resolve()
    cwd = Path.cwd().resolve()
    what = (
        f"holds {held.name}"
        if target in held.parents
        else "is the working folder"
        if target == cwd
        else "holds the working folder"
        if target in cwd.parents
        else None
    )
    if what:
        raise PartitionError(
            f"--out {out}: the build tree replaces that whole folder, which {what}; give a folder of its "
            f"own, e.g. --out build/{held.stem}"
        )
    parent = target.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise PartitionError(f"--out {out}: {parent} is a file, not a folder; give another --out")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise PartitionError(
            f"--out {out}: cannot write in {parent} (no permission, or a read-only file system); "
            "give a folder you can write to"
        )
    try:
        free = shutil.disk_usage(parent).free
    except OSError:
        return
    if free < MIN_FREE_BYTES:
        raise PartitionError(
            f"--out {out}: {free / 1e6:.0f} MB free on its file system; a build tree needs at least "
            f"{MIN_FREE_BYTES / 1e6:.0f} MB (more with large recorded calls): free some space or give "
            "--out on another file system"
        )


def check_user_changes(out: Path, force: bool) -> list[str]:
    """Files under `out` that a user changed since we wrote them.

    Raises PartitionError unless `force`. A non-empty folder we never wrote
    (no manifest) counts as entirely the user's.
    """
    out = Path(out)
    if not out.exists():
        return []
    if not out.is_dir():
        raise PartitionError(f"{out}: exists and is not a folder; choose another --out")
    manifest_path = out / MANIFEST
    if not manifest_path.exists():
        if any(out.iterdir()) and not force:
            raise PartitionError(
                f"{out}: folder exists and was not written by partition; "
                "choose another --out or pass --force to replace it"
            )
        return []
    try:
        manifest = json.loads(manifest_path.read_text())["files"]
    except (OSError, ValueError, KeyError):
        manifest = {}
    changed = []
    for rel, digest in sorted(manifest.items()):
        p = out / rel
        if p.exists() and _sha(p.read_bytes()) != digest:
            changed.append(rel)
    if changed and not force:
        shown = ", ".join(changed[:5]) + (" …" if len(changed) > 5 else "")
        raise PartitionError(
            f"{out}: {len(changed)} generated file(s) were changed since the last run ({shown}); "
            "move your changes away or pass --force to overwrite them"
        )
    return changed


@contextlib.contextmanager
def out_lock(out: Path) -> Iterator[None]:
    """Hold `out` for one run: a second run on the same folder fails at once with a clear message
    instead of both reporting success while one replaces the other's tree. While held, what a
    killed run left beside `out` (its `.OUT.new.*` stage, its `.OUT.old.*` previous tree) is
    removed. The lock is the hidden file `.OUT.lock` beside `out` (flock: released when the
    process ends, however it ends)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    path = out.parent / f".{out.name}.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            raise PartitionError(
                f"--out {out}: another partition run (process {holder}) is writing this folder; wait for it "
                "to end or choose another --out"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        for kind in ("new", "old"):
            for stale in sorted(out.parent.glob(f".{glob.escape(out.name)}.{kind}.*")):
                if stale.is_dir():
                    shutil.rmtree(stale, ignore_errors=True)
        yield
    finally:
        os.close(fd)


def write_tree(out: Path, files: dict[str, bytes], executable: set[str] | None = None) -> None:
    """Replace the generated files under `out` with `files`, atomically.

    Files in `out` that we did not generate (build products, the user's own
    notes) are carried over unchanged.
    """
    out = Path(out)
    executable = executable or set()
    manifest = {"files": {rel: _sha(data) for rel, data in sorted(files.items())}}
    all_files = dict(files)
    all_files[MANIFEST] = (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode()
    out.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.new."))
    os.chmod(stage, 0o755)
    try:
        old_generated: set[str] = set()
        if (out / MANIFEST).exists():
            try:
                old_generated = set(json.loads((out / MANIFEST).read_text())["files"])
            except (OSError, ValueError, KeyError):
                old_generated = set()
        if out.exists():
            # carry over what is not ours (build products, user files)
            for p in sorted(out.rglob("*")):
                rel = p.relative_to(out).as_posix()
                if rel in all_files or rel in old_generated or p.is_dir():
                    continue
                dst = stage / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                if p.is_symlink():
                    os.symlink(os.readlink(p), dst)
                else:
                    shutil.copy2(p, dst)
        for rel, data in sorted(all_files.items()):
            dst = stage / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(data)
            os.chmod(dst, 0o755 if rel in executable else 0o644)
        trash = None
        if out.exists():
            trash = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.old."))
            os.rmdir(trash)
            os.replace(out, trash)
        os.replace(stage, out)
        if trash is not None:
            shutil.rmtree(trash, ignore_errors=True)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise


SCRATCH_KINDS = ("profile", "replay")  # partition-<kind>-<pid>-* folders in the system's temp folder


def scratch_dir(kind: str) -> tempfile.TemporaryDirectory:
    """A temporary folder named for this process, so that a later run can tell one left by a
    process that was killed (`sweep_scratch`) from one in use."""
    return tempfile.TemporaryDirectory(prefix=f"partition-{kind}-{os.getpid()}-")


def sweep_scratch() -> None:
    """Remove the temporary folders of partition processes that no longer exist (a SIGKILL
    leaves them: nothing runs to remove them)."""
    for kind in SCRATCH_KINDS:
        for d in Path(tempfile.gettempdir()).glob(f"partition-{kind}-*-*"):
            pid = d.name.split("-")[2]
            if not pid.isdigit() or not d.is_dir():
                continue
            try:
                os.kill(int(pid), 0)
            except ProcessLookupError:
                shutil.rmtree(d, ignore_errors=True)
            except OSError:  # alive, another user's
                continue
