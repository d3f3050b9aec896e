"""Parsing defects found on main (issue 11, point 7): the header rule, short files in
legacy encodings, files without blank lines, and file names that are not UTF-8."""

import json
import os
import subprocess
import sys

import pytest

from paperdesk.core.imports.daily_papers import (ParseError, decode, display_path, is_header,
                                                 parse_text, read_file)
from paperdesk.core.library import Library

LONG = ("We study the problem of learning compact representations of scientific abstracts "
        "for retrieval, and show that a small model trained with contrastive objectives "
        "matches much larger ones on three benchmarks while being four times faster.")


# -- the header rule -------------------------------------------------------------------
def test_first_abstract_of_one_short_line_is_kept_without_header():
    header, abstracts = parse_text("We propose a simple baseline.\n\n" + LONG + "\n",
                                   default_header="feed")
    assert header == "feed"
    assert abstracts == ["We propose a simple baseline.", LONG]


@pytest.mark.parametrize("line", ["Daily Papers", "cs.CV 2024-05-01", "My reading list: robotics",
                                  "Daily Papers — 1 May 2024"])
def test_titles_and_dates_are_headers(line):
    assert is_header(line)
    header, abstracts = parse_text(f"{line}\n\n{LONG}\n")
    assert header == line and abstracts == [LONG]


@pytest.mark.parametrize("line", ["We propose a simple baseline.", "Does scale help?",
                                  "It works!", "(We prove it.)",
                                  "one two three four five six seven eight nine ten eleven "
                                  "twelve thirteen", "x" * 201])
def test_sentences_and_long_lines_are_not_headers(line):
    assert not is_header(line)


def test_file_of_one_short_abstract_is_not_empty(tmp_path):
    path = tmp_path / "one.txt"
    path.write_text("A short abstract.\n", encoding="utf-8")
    pf = read_file(path)
    assert pf.header == "one" and [a.abstract for a in pf.abstracts] == ["A short abstract."]


def test_header_only_file_still_has_no_abstracts(tmp_path):
    path = tmp_path / "h.txt"
    path.write_text("Daily Papers\n\n", encoding="utf-8")
    with pytest.raises(ParseError, match="no abstracts"):
        read_file(path)


# -- encodings -------------------------------------------------------------------------
def _decoded(tmp_path, text: str, encoding: str, bom: bytes = b"") -> tuple[str, str]:
    data = bom + text.encode(encoding)
    return decode(tmp_path / "x.txt", data)


@pytest.mark.parametrize("text", [
    "Daily\n\nEle não sabia que o coração da questão era a função de perda.\n",
    "El niño comió piñas en la mañana.\n",
    "Größere Übungen für Schüler.\n",
    "Un résumé détaillé sur la modélisation, très court.\n",
])
def test_short_latin1_files_are_western(tmp_path, text):
    decoded, encoding = _decoded(tmp_path, text, "latin-1")
    assert decoded == text
    assert encoding in ("cp1252", "latin-1")


@pytest.mark.parametrize("text", [
    "Daily Papers\n\nA study of café culture in Zürich. Naïve Bayes for façade detection.\n",
    "Daily Papers\n\nüber Ørsted we network study Fläche data model déjà learning São.\n",
    "We fit the Ångström exponent; the señor's método is naïve.\n",
    "Films of 5 Å thickness were grown at 300 °C and measured with µ-Raman spectroscopy; "
    "½ of the samples varied by ±10 % over 2 m².\n",
])
def test_english_with_a_few_accented_words_is_western(tmp_path, text):
    """An English abstract with a few loanwords in Latin-1 was read as cp775 (Baltic):
    charset-normalizer's language fit is unreliable on so few letters (a tester's file
    came out as Big5-HKSCS)."""
    assert _decoded(tmp_path, text, "latin-1") == (text, "cp1252")


def test_cp1252_quotes_and_dashes(tmp_path):
    text = "Un résumé “détaillé” – très court.\n"
    assert _decoded(tmp_path, text, "cp1252") == (text, "cp1252")


@pytest.mark.parametrize("text,encoding", [
    ("Zażółć gęślą jaźń. Łódź jest pięknym miastem w Polsce.\n", "cp1250"),
    ("Příliš žluťoučký kůň úpěl ďábelské ódy.\n", "cp1250"),
    ("Мы предлагаем новый метод обучения нейронных сетей.\n", "cp1251"),
    ("本論文では、大規模言語モデルを用いた新しい文書要約手法を提案する。実験の結果、従来手法と"
     "比較して高い精度が得られることを確認した。\n", "shift_jis"),
    ("我々はニューラルネットワークの新しい学習法を提案する。\n", "shift_jis"),
])
def test_other_code_pages_are_not_garbled(tmp_path, text, encoding):
    decoded, _found = _decoded(tmp_path, text, encoding)
    assert decoded == text


@pytest.mark.parametrize("text", [
    "Türkçe, ğüşıöç İstanbul\n",
    "Daily Papers\n\nTürkçe, ğüşıöç İstanbul\n",
    "Türkçe, ğüşıöç İstanbul.\n\nİkinci özet: ağ ve şehir.\n",
    "Daily Papers\n\nBu çalışmada İstanbul'daki öğrencilerin ağ kullanımı ölçüldü; "
    "sonuçlar şaşırtıcı değildir.\n",
    "Derin öğrenme ile görüntü sınıflandırma: ışığın az olduğu koşullarda doğruluk "
    "%12 arttı.\n",
])
def test_turkish_cp1254_is_read_as_turkish(tmp_path, text):
    """A tester's Turkish file in cp1254 was read as iso8859-10 or cp1252: "ğ ş ı" came
    out as "ð þ ý"."""
    assert _decoded(tmp_path, text, "cp1254") == (text, "cp1254")


@pytest.mark.parametrize("text", [
    "Það er ýmislegt sem Þórður sagði á fundinum.\n",       # Icelandic: ð þ ý with á ó
    "We thank Sigurðsson and Þór for the café data.\n",
])
def test_icelandic_letters_in_cp1252_stay_western(tmp_path, text):
    """The Turkish rule does not take a cp1252 text with Icelandic letters."""
    assert _decoded(tmp_path, text, "cp1252") == (text, "cp1252")


@pytest.mark.parametrize("encoding,bom,name", [
    ("utf-8", b"", "utf-8"), ("utf-8", b"\xef\xbb\xbf", "utf-8"),
    ("utf-16-le", b"\xff\xfe", "utf-16"), ("utf-16-be", b"\xfe\xff", "utf-16"),
])
def test_unicode_with_and_without_bom(tmp_path, encoding, bom, name):
    text = "Daily Papers\n\nNão, niño, Łódź, Москва, 東京: one abstract.\n"
    assert _decoded(tmp_path, text, encoding, bom) == (text, name)


def test_utf16_file_imports(tmp_path):
    path = tmp_path / "u16.txt"
    path.write_bytes(b"\xff\xfe" + f"Daily Papers\n\n{LONG} Não.\n".encode("utf-16-le"))
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path])
        assert report.added == 1 and not report.rejected
        assert lib.papers.get(report.added_ids[0]).abstract.endswith("Não.")


def test_latin1_file_imports_with_its_words(tmp_path):
    path = tmp_path / "pt.txt"
    path.write_bytes("Ele não sabia.\n\nO coração da questão.\n".encode("latin-1"))
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path])
        abstracts = sorted(lib.papers.abstracts(report.added_ids).values())
    assert abstracts == ["Ele não sabia.", "O coração da questão."]


# -- no blank lines --------------------------------------------------------------------
def test_long_lines_without_blank_lines_are_one_abstract_each(tmp_path):
    lines = [LONG, LONG.replace("three", "five"), LONG.replace("four", "two")]
    path = tmp_path / "lines.txt"
    path.write_text("Daily Papers\n" + "\n".join(lines) + "\n", encoding="utf-8")
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path])
    f = report.files[0]
    assert (f.added, f.header) == (3, "Daily Papers")
    assert f.warnings == ["no blank lines between abstracts: read as one abstract per line "
                          "(3 lines of long prose)"]


def test_hard_wrapped_text_without_blank_lines_is_one_abstract_and_says_so(tmp_path):
    wrapped = "We propose a method for image\nclassification that is trained on\n" \
              "few labels and works well in practice.\n"
    path = tmp_path / "wrapped.txt"
    path.write_text(wrapped, encoding="utf-8")
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path])
        f = report.files[0]
        assert f.added == 1 and f.header == "wrapped"
        assert lib.papers.abstracts(report.added_ids)[report.added_ids[0]].startswith(
            "We propose a method for image classification")
    assert f.warnings == ["no blank lines between abstracts: its 3 lines were read as one "
                          "abstract (separate abstracts with a blank line)"]


def test_cli_prints_the_warning_with_the_file_name(tmp_path):
    path = tmp_path / "wrapped.txt"
    path.write_text("First line of prose\nsecond line of prose.\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(tmp_path / "l"),
                          "import", str(path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0
    assert (f"paperdesk: note: {path}: no blank lines between abstracts: its 2 lines were "
            "read as one abstract") in out.stderr


# -- file names and arguments that are not UTF-8 ---------------------------------------
needs_bytes_names = pytest.mark.skipif(
    sys.platform in ("win32", "darwin"), reason="the file system must take any bytes in names")


def _bad_named(folder) -> str:
    """A file whose name has the byte 0xff (not UTF-8), holding one abstract."""
    folder.mkdir(exist_ok=True)
    path = os.fsdecode(os.fsencode(str(folder)) + b"/bad\xff.txt")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("Daily Papers\n\nAn abstract in a file whose name is not UTF-8, about "
                 "graphs.\n")
    return path


def test_display_path_escapes_bytes_that_are_not_utf8():
    assert display_path(os.fsdecode(b"/x/bad\xff.txt")) == "/x/bad\\xff.txt"
    assert display_path("/x/ok é.txt") == "/x/ok é.txt"


@needs_bytes_names
def test_folder_import_goes_on_past_a_name_that_is_not_utf8(tmp_path):
    folder = tmp_path / "in"
    bad = _bad_named(folder)
    (folder / "a-binary.txt").write_bytes(b"\x00\x01\x02")
    (folder / "z-good.txt").write_text("Daily Papers\n\nA second abstract about trees.\n",
                                       encoding="utf-8")
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([folder])
        assert report.added == 2
        assert [r["path"] for r in report.rejected] == [str(folder / "a-binary.txt")]
        assert display_path(bad) in {s.path for s in lib.removal.sources()}
        assert json.dumps(report.to_dict(), ensure_ascii=False).encode("utf-8")
    assert {f.path for f in report.files} == {display_path(bad), str(folder / "a-binary.txt"),
                                              str(folder / "z-good.txt")}


@needs_bytes_names
def test_cli_with_names_and_arguments_that_are_not_utf8(tmp_path):
    folder = tmp_path / "in"
    _bad_named(folder)
    lib = os.fsencode(str(tmp_path / "lib"))

    def run(*args: bytes):
        return subprocess.run([sys.executable.encode(), b"-m", b"paperdesk", b"--library", lib,
                               *args], capture_output=True, timeout=120)

    out = run(b"import", os.fsencode(str(folder)))
    assert out.returncode == 0, out.stderr
    assert b"bad\\xff.txt: 1 added" in out.stdout and b"Traceback" not in out.stderr
    out = run(b"import", os.fsencode(str(folder)) + b"/missing\xfe.txt", b"--json")
    assert out.returncode == 1 and b"Traceback" not in out.stderr
    assert json.loads(out.stdout)["rejected"][0]["path"].endswith("missing\\xfe.txt")
    for args in ([b"tag", b"add", b"t\xff", b"1"], [b"search", b"graphs\xff"],
                 [b"note", b"1", b"n\xffte"], [b"saved-search", b"add", b"s\xff", b"q\xff"]):
        out = run(*args)
        assert out.returncode == 0, (args, out.stderr)
        assert b"Traceback" not in out.stderr
    out = run(b"tags", b"--json")
    assert json.loads(out.stdout)[0]["name"] == "t\ufffd"


# -- a JSON file is parsed once ------------------------------------------------------
@pytest.mark.parametrize("fmt", ["json", "csl-json"])
def test_json_files_are_parsed_once(tmp_path, seed_files, monkeypatch, fmt):
    with Library.open(tmp_path / "a") as lib:
        lib.imports.run([seed_files[0]])
        lib.exports.to_file(lib.papers.ids()[:5], fmt, tmp_path / "x.json")
    calls = []
    real = json.loads

    def counting(text, *args, **kw):
        if isinstance(text, str) and len(text) > 1000:
            calls.append(len(text))
        return real(text, *args, **kw)

    monkeypatch.setattr(json, "loads", counting)
    with Library.open(tmp_path / "b") as lib:
        report = lib.imports.run([tmp_path / "x.json"])
    assert report.added == 5 and len(calls) == 1


# -- mostly UTF-8: a few stray bytes (found by the tester: read whole as cp1252) ------
MOSTLY = ("Daily Papers\n\nThe Schrödinger equation and Gödel’s theorem — a naïve "
          "approach to “quantum” logic with µ-calculus.\n\nA second abstract about "
          "Zürich, Kraków and São Paulo, with an é pasted from a Latin-1 page: caf")


def test_a_utf8_file_with_stray_latin1_bytes_keeps_its_utf8_text(tmp_path):
    data = MOSTLY.encode("utf-8") + "é!\n".encode("latin-1") + "\n".encode()
    path = tmp_path / "mostly.txt"
    path.write_bytes(data)
    pf = read_file(path)
    assert pf.encoding == "utf-8"
    text = " ".join(a.abstract for a in pf.abstracts)
    assert "Schrödinger" in text and "Gödel’s" in text and "São Paulo" in text
    assert text.endswith("caf\u00e9!")                  # the stray byte, as cp1252 reads it
    assert pf.warnings[0] == ("1 byte is not UTF-8 (the first on line 5); each was read "
                              "as a Windows-1252 character")


def test_stray_bytes_are_noted_in_the_import_report(tmp_path):
    data = (MOSTLY + "\u00e9").encode("utf-8") + b"\x81\xe9\xe8.\n"
    path = tmp_path / "mostly.txt"
    path.write_bytes(data)
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path], sync=False)
        assert report.added == 2
        assert report.files[0].warnings[0].startswith("3 bytes are not UTF-8 (the first "
                                                      "on line 5)")
        stored = [lib.papers.get(i).abstract for i in lib.papers.ids()]
        assert any(a.endswith("caf\u00e9\ufffd\u00e9\u00e8.") for a in stored), stored
        assert any("Gödel’s" in a for a in stored)


def test_a_latin1_file_without_utf8_characters_is_still_latin1(tmp_path):
    text = "Daily\n\nUn résumé détaillé, naïve et très court, à Zürich.\n"
    decoded, encoding = _decoded(tmp_path, text, "latin-1")
    assert decoded == text and encoding in ("cp1252", "latin-1")


def test_a_cjk_utf8_file_with_a_stray_byte_stays_utf8(tmp_path):
    text = "Daily\n\n我々はニューラルネットワークの新しい学習法を提案する。実験で確かめた。\n"
    data = text.encode("utf-8").replace("確".encode("utf-8"), b"\xe9", 1)
    path = tmp_path / "ja.txt"
    path.write_bytes(data)
    pf = read_file(path)
    assert pf.encoding == "utf-8" and "ニューラルネットワーク" in pf.abstracts[0].abstract
    assert pf.warnings[0].startswith("1 byte is not UTF-8 (the first on line 3)")


def test_a_few_stray_bytes_in_a_mostly_ascii_utf8_file_keep_its_utf8(tmp_path):
    """The tester's typical file: three abstracts, three UTF-8 characters and one
    Latin-1 byte (a rule asking four UTF-8 characters a stray byte read it as cp1250)."""
    text = ("Daily Papers\n\nWe study depth estimation \u2014 fast and robust \u2014 on "
            "phones.\n\nA na\u00efve baseline does well.\n\nThe caf").encode("utf-8")
    path = tmp_path / "typical.txt"
    path.write_bytes(text + b"\xe9 is open.\n")
    pf = read_file(path)
    assert pf.encoding == "utf-8"
    assert [a.abstract for a in pf.abstracts] == [
        "We study depth estimation \u2014 fast and robust \u2014 on phones.",
        "A na\u00efve baseline does well.", "The caf\u00e9 is open."]
    assert pf.warnings[0].startswith("1 byte is not UTF-8")


def test_a_byte_order_mark_and_a_stray_byte_are_read_as_mostly_utf8(tmp_path):
    """Notepad's UTF-8 with a byte-order mark and one stray byte was refused whole."""
    data = "\ufeffDaily\n\nUn r\u00e9sum\u00e9 na\u00eff: caf".encode("utf-8") + b"\xe9.\n"
    path = tmp_path / "bom.txt"
    path.write_bytes(data)
    pf = read_file(path)
    assert pf.abstracts[0].abstract == "Un r\u00e9sum\u00e9 na\u00eff: caf\u00e9."
    assert pf.warnings[0].startswith("1 byte is not UTF-8")
