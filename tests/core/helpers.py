"""Helpers for tests that write their own abstract files."""

from pathlib import Path


def write_daily(path: Path, abstracts: list[str], header: str = "Daily Papers",
                newline: str = "\n", encoding: str = "utf-8", bom: bool = False) -> Path:
    """Write a Daily Papers file (header, blank line, one abstract per paragraph)."""
    text = newline.join([header, ""] + [a + newline for a in abstracts])
    data = text.encode(encoding)
    if bom:
        data = b"\xef\xbb\xbf" + data
    path.write_bytes(data)
    return path
