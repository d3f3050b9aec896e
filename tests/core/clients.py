"""The programs that read paperdesk's exports, for tests that hand an export to them.

Every finder returns what the test needs or calls ``pytest.skip`` with the reason, so
``make test`` runs without them; ``make clients`` installs them (docs/export.md: "Exports
and the tools that read them"). Nothing here writes outside the temporary folders it is given
(JabRef's preferences go to a private home folder).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"
NODE_MODULES = ROOT / ".clients" / "node_modules"
FIELDS_CSL = DATA / "fields.csl"
INSTALL = "`make clients` installs it (docs/export.md: Exports and the tools that read them)"


def program(name: str) -> str:
    """Return the path of program ``name``, or skip the test when it is not installed."""
    path = shutil.which(name)
    if path is None:
        how = ("install Node.js with npm, then `make clients` installs citation-js"
               if name == "node" else INSTALL)
        pytest.skip(f"{name} is not installed; {how}")
    return path


def latex_package(name: str) -> None:
    """Skip the test unless pdflatex and the LaTeX package ``name`` (e.g. ``biblatex``)
    are installed."""
    program("pdflatex")
    kpsewhich = program("kpsewhich")
    found = subprocess.run([kpsewhich, f"{name}.sty"], capture_output=True, text=True)
    if not found.stdout.strip():
        pytest.skip(f"the LaTeX package {name} is not installed; {INSTALL}")


def run(args: list[str], *, stdin: str | None = None, cwd: Path | None = None,
        env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run a program and return the completed process (text, stdout and stderr
    captured); never raises for a non-zero exit status (tests look at it)."""
    return subprocess.run(args, input=stdin, cwd=cwd, capture_output=True, text=True,
                          encoding="utf-8", errors="replace",
                          timeout=timeout, env=None if env is None else {**os.environ, **env})


# -- citation-js -------------------------------------------------------------------------
def citation_js(kind: str, text: str) -> dict:
    """Read an export with citation-js (``tests/core/data/citation_js.js``).

    Args:
        kind: ``"bibtex"``, ``"ris"`` or ``"csl"``.
        text: the export.
    Returns:
        ``{"items": [CSL-JSON items], "log": [[level, scope, message], ...]}``.
    Raises:
        AssertionError: citation-js failed (its message included).
    """
    node = program("node")
    if not (NODE_MODULES / "@citation-js" / "plugin-bibtex").is_dir():
        pytest.skip(f"citation-js is not installed in {NODE_MODULES}; {INSTALL}")
    done = run([node, str(DATA / "citation_js.js"), kind], stdin=text,
               env={"NODE_PATH": str(NODE_MODULES)})
    assert done.returncode == 0, f"citation-js failed:\n{done.stderr[-3000:]}"
    return json.loads(done.stdout)


# -- pandoc ------------------------------------------------------------------------------
def pandoc_render(bibliography: Path, keys: list[str], folder: Path) -> list[dict[str, str]]:
    """Render a bibliography with ``pandoc --citeproc`` and the test style
    ``fields.csl`` (every variable verbatim, after a marker) to plain text, citing
    ``keys`` in order.

    Args:
        bibliography: a ``.bib`` or CSL-JSON ``.json`` file.
        keys: citation keys, in the order wanted.
        folder: where to write the small Markdown document.
    Returns:
        One dict per key, in order: variable name -> rendered text (white space runs
        made single spaces), e.g. ``{"n": "1", "title": "…", "note": "…"}``.
    Raises:
        AssertionError: pandoc failed or warned (its message included).
    """
    pandoc = program("pandoc")
    doc = folder / "cite.md"
    doc.write_text("Cited: " + "; ".join(f"[@{k}]" for k in keys) + "\n", encoding="utf-8")
    done = run([pandoc, str(doc), "--citeproc", "--bibliography", str(bibliography),
                "--csl", str(FIELDS_CSL), "-t", "plain", "--wrap=none"], cwd=folder)
    assert done.returncode == 0, f"pandoc failed:\n{done.stderr[-3000:]}"
    assert done.stderr.strip() == "", f"pandoc warned:\n{done.stderr[-3000:]}"
    entries = []
    for block in done.stdout.split("⟦n⟧")[1:]:
        fields = {"n": block.split("⟦", 1)[0].strip()}
        for part in block.split("⟦")[1:]:
            name, _, value = part.partition("⟧")
            fields[name] = " ".join(value.split())
        entries.append(fields)
    assert [e["n"] for e in entries] == [str(i) for i in range(1, len(keys) + 1)], \
        done.stdout[:2000]
    return entries


def pandoc_version() -> tuple[int, ...]:
    """Return pandoc's version as numbers, e.g. ``(2, 17, 1, 1)`` (skips without it)."""
    out = run([program("pandoc"), "--version"]).stdout
    return tuple(int(x) for x in re.search(r"pandoc\S* ([\d.]+)", out).group(1).split("."))


# -- LaTeX -------------------------------------------------------------------------------
def compile_latex(folder: Path, bib: Path, backend: str, engine: str = "pdflatex",
                  preamble: str = "", keys: list[str] | None = None,
                  passes_after: int = 2) -> dict:
    """Compile a document that cites every entry of ``bib`` (``\\nocite{*}``), or
    ``\\cite{key}`` each of ``keys``, with ``engine`` and ``backend``: ``"bibtex"``
    (style ``plain``) or ``"biber"`` (biblatex, default style): LaTeX, the backend,
    LaTeX twice more (``passes_after``).

    Args:
        folder: an empty folder to work in (``bib`` is copied there).
        bib: the BibTeX file.
        backend: ``"bibtex"`` or ``"biber"``.
        engine: ``"pdflatex"`` (or ``"lualatex"``).
        preamble: LaTeX put first in the preamble (e.g. ``\\usepackage[T1]{fontenc}``);
            nothing by default, i.e. LaTeX's defaults (OT1 fonts, UTF-8 input).
        keys: citation keys to ``\\cite`` one by one instead of ``\\nocite{*}`` (a key
            no entry has leaves "Citation ... undefined" in the log).
        passes_after: LaTeX runs after the backend: 2 resolves every reference; 1 is
            enough to see whether the bibliography typesets without an error.
    Returns:
        ``{"latex_errors": [lines starting with "!" and what follows], "backend":
        backend's output and log, "bbl": the .bbl text, "log": the last LaTeX log}``.
    """
    program(engine)
    latex_package("biblatex" if backend == "biber" else "url")
    tool = program(backend)
    shutil.copy(bib, folder / "refs.bib")
    cite = "\\nocite{*}\n" if keys is None else "".join(f"\\cite{{{k}}}\n" for k in keys)
    if backend == "biber":
        preamble += "\\usepackage[backend=biber]{biblatex}\n\\addbibresource{refs.bib}\n"
        body = cite + "\\printbibliography\n"
    else:
        preamble += "\\usepackage{url}\n"
        body = cite + "\\bibliographystyle{plain}\n\\bibliography{refs}\n"
    (folder / "doc.tex").write_text(
        "\\documentclass{article}\n" + preamble + "\\begin{document}\n" + body
        + "\\end{document}\n", encoding="utf-8")
    latex = [program(engine), "-interaction=nonstopmode", "-halt-on-error", "doc.tex"]
    first = run(latex, cwd=folder)
    backend_run = run([tool, "doc"], cwd=folder)
    for _ in range(passes_after):
        last = run(latex, cwd=folder)
    log = (folder / "doc.log").read_text(encoding="utf-8", errors="replace")
    errors = [m.group(0) for m in re.finditer(r"^!.*(?:\n.*){0,2}", log, re.MULTILINE)]
    if first.returncode and not errors:
        errors.append(first.stdout[-2000:])
    if last.returncode and not errors:
        errors.append(last.stdout[-2000:])
    blg = folder / "doc.blg"
    return {"latex_errors": errors,
            "backend": backend_run.stdout + backend_run.stderr
            + (blg.read_text(encoding="utf-8", errors="replace") if blg.exists() else ""),
            "backend_status": backend_run.returncode,
            "bbl": (folder / "doc.bbl").read_text(encoding="utf-8", errors="replace")
            if (folder / "doc.bbl").exists() else "",
            "log": log}


# -- JabRef ------------------------------------------------------------------------------
#: JabRef's key pattern that makes an imported RIS record's ``ID`` (JabRef keeps it as the
#: field ``refid``) its citation key.
JABREF_KEY_FROM_REFID = "[refid]"


def _jabref_prefs(path: Path, key_pattern: str) -> Path:
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
        '<!DOCTYPE preferences SYSTEM "http://java.sun.com/dtd/preferences.dtd">\n'
        '<preferences EXTERNAL_XML_VERSION="1.0"><root type="user"><map/>'
        '<node name="net"><map/><node name="sf"><map/><node name="jabref"><map>'
        f'<entry key="defaultBibtexKeyPattern" value="{key_pattern}"/>'
        "</map></node></node></node></root></preferences>\n", encoding="utf-8")
    return path


def jabref_convert(source: Path, fmt: str, folder: Path,
                   key_pattern: str | None = None) -> tuple[str, str]:
    """Import ``source`` with JabRef's command line and save it as BibTeX
    (``jabref -n -i FILE,FMT -o out.bib``), with preferences in a private home folder.

    Args:
        source: the file to import.
        fmt: JabRef's import format name: ``"ris"`` or ``"bibtex"``.
        folder: a folder to work in (the private home folder goes there).
        key_pattern: when given, JabRef's citation key pattern is set to it and keys are
            generated (``-g``), e.g. :data:`JABREF_KEY_FROM_REFID`.
    Returns:
        ``(bibtex text JabRef saved, JabRef's output)``.
    Raises:
        AssertionError: JabRef failed, saved nothing or did not finish in 90 s.
    """
    jabref = program("jabref")
    home = folder / "home"
    home.mkdir(exist_ok=True)
    java_opts = (f"--add-opens=java.desktop/java.awt=ALL-UNNAMED -Duser.home={home} "
                 "-Djava.awt.headless=true")
    out = folder / "jabref-out.bib"
    args = [jabref, "-n"]
    if key_pattern is not None:
        args += ["-p", str(_jabref_prefs(folder / "prefs.xml", key_pattern))]
    args += ["-i", f"{source},{fmt}"]
    if key_pattern is not None:
        args.append("-g")
    args += ["-o", str(out)]
    try:
        done = run(args, cwd=folder, env={"JABREF_JAVA_OPTS": java_opts, "HOME": str(home)},
                   timeout=90)
    except subprocess.TimeoutExpired as exc:   # JabRef 3.8 hangs after an uncaught error
        raise AssertionError(f"JabRef did not finish in 90 s (it hangs after an uncaught "
                             f"exception, e.g. saving a field whose braces do not pair "
                             f"up): {args}") from exc
    output = done.stdout + done.stderr
    assert done.returncode == 0 and out.exists(), f"JabRef failed:\n{output[-3000:]}"
    return out.read_text(encoding="utf-8"), output
