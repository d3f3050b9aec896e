# Two commands for a newcomer: `make run` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test bench clean
.DEFAULT_GOAL := run

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "paperdesk needs Python 3.11 or newer; set PYTHON=python3.11")'
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --editable '.[test]'
	@touch $(STAMP)

## run: set up .venv if needed and open paperdesk on the default library
run: $(STAMP)
	$(BIN)/paperdesk

## test: set up .venv if needed and run the whole test suite without a display
test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest

## bench: the search benchmark at 100,000 papers next to SQLite FTS5 (builds .bench/ once)
bench: $(STAMP)
	$(BIN)/python benchmarks/search_bench.py

clean:
	rm -rf $(VENV) build dist .pytest_cache
