"""Smoke test of a built bundle: start it offscreen on a temporary library, let it import
the sample papers, render the window and quit; then ask it for the library's counts.

    python packaging/smoke_test.py dist/paperdesk

Uses only the standard library and runs the bundle's own ``paperdesk`` program with a
clean environment (no PYTHONPATH / PYTHONHOME, a temporary HOME), so it shows that the
folder works without the Python it was built with. Exit status 0 when every check passes.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: Distinct sample papers in seeds/ (the two files share 15).
#: Papers of the batch that the index writes in child processes (over PROCESS_BATCH_MIN).
BATCH_PAPERS = 600
SEED_PAPERS = 225
SIZE = (1024, 700)


def _program(folder: Path) -> Path:
    for name in ("paperdesk", "paperdesk.exe"):
        if (folder / name).is_file():
            return folder / name
    raise SystemExit(f"smoke test: no paperdesk program in {folder} (run make bundle)")


def png_size(path: Path) -> tuple[int, int]:
    """Return the width and height stored in a PNG file's header."""
    data = path.read_bytes()[:24]
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError(f"{path} is not a PNG file")
    return struct.unpack(">II", data[16:24])


def run_smoke_test(folder: Path, timeout: float = 180.0) -> list[str]:
    """Run the checks on the bundle in ``folder``.

    Returns:
        Lines describing what passed.
    Raises:
        AssertionError: a check failed (with the program's output).
    """
    program = _program(folder)
    done = []
    with tempfile.TemporaryDirectory(prefix="paperdesk-smoke-") as tmp:
        tmp = Path(tmp)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PAPERDESK", "XDG_", "QT_"))}
        env.update(HOME=str(tmp / "home"), XDG_CONFIG_HOME=str(tmp / "config"),
                   XDG_DATA_HOME=str(tmp / "data"), QT_QPA_PLATFORM="offscreen",
                   PATH="/usr/bin:/bin")
        library, shot = tmp / "library", tmp / "window.png"
        start = time.monotonic()
        out = subprocess.run([str(program), "--library", str(library), "--screenshot",
                              str(shot), "--size", f"{SIZE[0]}x{SIZE[1]}"],
                             env=env, capture_output=True, text=True, timeout=timeout)
        took = time.monotonic() - start
        assert out.returncode == 0, f"exit status {out.returncode}\n{out.stdout}\n{out.stderr}"
        assert "Traceback" not in out.stderr, out.stderr
        assert png_size(shot) == SIZE, png_size(shot)
        done.append(f"window started offscreen, imported the seeds, rendered {SIZE[0]}x"
                    f"{SIZE[1]} and quit with status 0 in {took:.1f} s")
        out = subprocess.run([str(program), "--library", str(library), "stats", "--json"],
                             env=env, capture_output=True, text=True, timeout=timeout)
        assert out.returncode == 0, out.stderr
        stats = json.loads(out.stdout)
        assert stats["papers"] == stats["indexed"] == SEED_PAPERS, stats
        assert not (library / "library.lock").exists(), "the lock was not released"
        done.append(f"the library holds {stats['papers']} papers, all indexed; lock released")
        out = subprocess.run([str(program), "--library", str(library), "search",
                              '"Depth Delusion"', "--json"], env=env, capture_output=True,
                             text=True, timeout=timeout)
        assert out.returncode == 0 and json.loads(out.stdout)["total"] == 1, out.stderr
        done.append("search works in the bundle")
        # 600 papers: indexed by the segment-writing child processes, which in a frozen
        # app are the bundle's own program again (multiprocessing.freeze_support()).
        batch = tmp / "batch.txt"
        batch.write_text("Daily Papers\n\n" + "".join(
            f"We measure the okapi number {i} with a method of our own. It works on "
            f"test {i} and on the others.\n\n" for i in range(BATCH_PAPERS)),
            encoding="utf-8")
        out = subprocess.run([str(program), "--library", str(library), "import", str(batch)],
                             env=env, capture_output=True, text=True, timeout=timeout)
        assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
        out = subprocess.run([str(program), "--library", str(library), "search", "okapi",
                              "--json"], env=env, capture_output=True, text=True,
                             timeout=timeout)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["total"] == BATCH_PAPERS, out.stdout[:300]
        done.append(f"{BATCH_PAPERS} imported papers indexed by the bundle's child processes")
    return done


def main(argv: list[str]) -> int:
    """Command line: ``smoke_test.py DIST_FOLDER``; returns the exit status."""
    folder = Path(argv[1] if len(argv) > 1 else "dist/paperdesk")
    try:
        for line in run_smoke_test(folder):
            print(f"smoke test: {line}")
    except (AssertionError, ValueError, OSError, subprocess.TimeoutExpired) as exc:
        print(f"smoke test FAILED: {exc}", file=sys.stderr)
        return 1
    size = sum(p.stat().st_size for p in folder.rglob("*")
               if p.is_file() and not p.is_symlink())
    print(f"smoke test: passed ({folder}, {size / 2**20:.0f} MiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
