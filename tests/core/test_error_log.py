"""An unexpected error's traceback goes to the error log; the terminal gets one line."""

import os

from paperdesk.core.error_log import MAX_LOG_BYTES, error_log_path, log_unexpected


def _raised(exc: BaseException) -> BaseException:
    try:
        raise exc
    except BaseException as caught:       # noqa: BLE001 - the test wants the traceback
        return caught


def test_the_traceback_goes_to_the_log_and_one_line_to_stderr(tmp_path, monkeypatch,
                                                              capsys):
    monkeypatch.setenv("PAPERDESK_LOG_DIR", str(tmp_path / "log"))
    path = log_unexpected("export", _raised(ValueError("bad\nvalue")))
    err = capsys.readouterr().err
    assert path == tmp_path / "log" / "errors.log" == error_log_path()
    assert err == f"paperdesk: export failed: ValueError: bad value (details in {path})\n"
    logged = path.read_text()
    assert "Traceback (most recent call last)" in logged and "ValueError: bad" in logged
    log_unexpected("export", _raised(KeyError("k")))          # appended, not replaced
    assert path.read_text().count("Traceback") == 2


def test_an_unwritable_log_still_gives_one_line(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("PAPERDESK_LOG_DIR", str(blocker / "log"))
    assert log_unexpected("import", _raised(RuntimeError("boom"))) is None
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("paperdesk: import failed: RuntimeError: boom (the error log ")


def test_a_large_log_keeps_its_newest_half(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PAPERDESK_LOG_DIR", str(tmp_path))
    log = tmp_path / "errors.log"
    log.write_text("old\n" * (MAX_LOG_BYTES // 4 + 10))
    log_unexpected("search", _raised(OSError("disk")))
    assert MAX_LOG_BYTES // 2 < os.path.getsize(log) < MAX_LOG_BYTES
    assert log.read_text().rstrip().endswith("OSError: disk")
