# Two commands for a newcomer: `make run` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
BUNDLE_STAMP := $(VENV)/.bundle-tools
BENCH_STAMP := $(VENV)/.bench-tools
# The program install-desktop runs (default: the one in .venv, set up first).
PAPERDESK ?= $(BIN)/paperdesk
ifeq ($(PAPERDESK),$(BIN)/paperdesk)
DESKTOP_DEPS := $(STAMP)
endif

.PHONY: run test clients bench bench-snippets bench-salvage evaluate evaluate-interest evaluate-tags evaluate-related evaluate-styles bundle install-desktop uninstall-desktop icons clean
.DEFAULT_GOAL := run

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "paperdesk needs Python 3.11 or newer; set PYTHON=python3.11")'
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --editable '.[test,embeddings]'
	@touch $(STAMP)

## run: set up .venv if needed and open paperdesk on the default library. On X11, first
## install the system libraries Qt's xcb plugin needs when some are missing (with apt-get
## or dnf, as root or through sudo without a password); otherwise print the one command
## that installs them and stop (paperdesk.core.window_libs). make test never needs them.
run: $(STAMP)
	@$(BIN)/python -m paperdesk.core.window_libs --install
	$(BIN)/paperdesk

## test: set up .venv if needed and run the whole test suite without a display:
## the core's tests first, in processes where Qt cannot be imported, then the GUI's;
## each suite on one worker per core (pytest-xdist; a test file stays on one worker, so
## its module fixtures are built once), naming the 15 slowest. TEST_WORKERS=0: one process.
## The sources are compiled to bytecode first: the suite runs `python -m paperdesk` some
## thousand times, and where PYTHONDONTWRITEBYTECODE is set (as on this project's CI
## machines) each run compiled every module again (0.45 of its 1.5 s).
TEST_WORKERS ?= auto
test: $(STAMP)
	$(BIN)/python -m compileall -q -j 0 src/paperdesk
	$(BIN)/python -m pytest -p no:pytest-qt -n $(TEST_WORKERS) --dist loadfile --durations=15 tests/core
	QT_QPA_PLATFORM=offscreen PYTEST_QT_API=pyside6 $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --durations=15 tests/ui

# The programs that read paperdesk's exports (docs/export.md: "Exports and the tools that
# read them"); the tests that hand exports to them are skipped when they are missing.
CLIENT_PACKAGES := pandoc biber texlive-latex-base texlive-latex-recommended \
                   texlive-latex-extra texlive-bibtex-extra jabref
CLIENT_NPM := @citation-js/core@^0.8 @citation-js/plugin-bibtex@^0.8 \
              @citation-js/plugin-csl@^0.8 @citation-js/plugin-ris@^0.8 citeproc@^2.4

## clients: install the readers of the exports for the tests that use them (make test
## skips those tests without them): pandoc, bibtex, biber, pdflatex/lualatex with
## biblatex and JabRef with apt-get (as root, or through sudo), and citation-js with npm
## into .clients/ (git-ignored). Elsewhere it names the packages to install.
clients:
	@if command -v apt-get >/dev/null 2>&1; then \
	    if [ "$$(id -u)" = 0 ]; then sudo=; \
	    elif command -v sudo >/dev/null 2>&1; then sudo=sudo; \
	    else echo "make clients: apt-get needs root; run it as root or install sudo"; exit 1; fi; \
	    $$sudo apt-get update && $$sudo apt-get install -y $(CLIENT_PACKAGES); \
	else \
	    echo "make clients: no apt-get here; install with your package manager: pandoc," \
	         "biber, a TeX distribution with biblatex (TeX Live, MiKTeX, MacTeX), JabRef"; \
	fi
	@command -v npm >/dev/null 2>&1 || { echo "make clients: npm (Node.js) is needed for citation-js"; exit 1; }
	npm install --prefix .clients --no-audit --no-fund $(CLIENT_NPM)

## bench: import, search and window figures on two synthetic corpora and an arXiv-shaped
## metadata file, next to SQLite FTS5 and tantivy (the [search-reference] extra), against issue 28's
## targets (benchmarks/bench.py; docs/figures.md). Size from the command line:
##   make bench                            100,000 papers (default)
##   make bench N=1000000                  one other size
##   make bench SIZES="100000 300000 1000000"  the growth series
##   make bench BENCH_ARGS="--corpora zipf --no-ui"   any other bench.py option
## Files, libraries and reports (report-<sizes>.json / .md) go to .bench/run/.
## UI_IMPORT=30000 also times edits in the window during a 30,000-abstract import.
N ?= 100000
SIZES ?= $(N)
UI_IMPORT ?= 0
BENCH_ARGS ?=
$(BENCH_STAMP): pyproject.toml | $(STAMP)
	$(BIN)/python -m pip install --quiet --editable '.[test,search-reference]'
	@touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python benchmarks/bench.py --sizes "$(SIZES)" \
		--ui-import $(UI_IMPORT) $(BENCH_ARGS)

## bench-snippets: snippet and detail-pane figures on a 2.4 MB abstract and 20,000
## matching papers (benchmarks/snippet_bench.py; docs/figures.md)
bench-snippets: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python benchmarks/snippet_bench.py

## bench-salvage: what `paperdesk repair --salvage` brings back from a 10,000-paper library
## cut short or with pages overwritten, and how long it takes (benchmarks/salvage_bench.py;
## docs/checking.md). SALVAGE_PAPERS=100000 for another size.
SALVAGE_PAPERS ?= 10000
bench-salvage: $(STAMP)
	$(BIN)/python benchmarks/salvage_bench.py --papers $(SALVAGE_PAPERS)

## evaluate: the screening simulation (issue 26): each review of $(SYNERGY) replayed with
## 10 seeds, paperdesk's order next to ASReview's default model ELAS u4 (installed here
## from the [bench] extra), a random and a date order: WSS@95, recall at 10 %, ATD, the
## time per retrain and when the stopping estimate stops (paperdesk.core.screening.simulation;
## the table in docs/screening.md, "How well it works", and the README).
## EVALUATE_ARGS="--seeds 2 --reviews Sep_2021" for a quick run.
## It runs in its own .venv-bench: asreview pins rispy 0.9, whose RIS output differs from
## the rispy paperdesk is tested with, so the [bench] extra stays out of .venv.
EVALUATE_ARGS ?=
EVALUATE_VENV := .venv-bench
EVALUATE_STAMP := $(EVALUATE_VENV)/.installed
$(EVALUATE_STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "paperdesk needs Python 3.11 or newer; set PYTHON=python3.11")'
	$(PYTHON) -m venv $(EVALUATE_VENV)
	$(EVALUATE_VENV)/bin/python -m pip install --quiet --editable '.[bench,embeddings]'
	@touch $(EVALUATE_STAMP)

evaluate: $(EVALUATE_STAMP)
	$(EVALUATE_VENV)/bin/python -m paperdesk.core.screening.simulation --data $(SYNERGY) $(EVALUATE_ARGS)

## evaluate-interest: the scripted-user evaluation of "worth reading first" on the sample
## papers (paperdesk.core.discover.evaluation; the table in docs/discover.md, "Worth
## reading first")
evaluate-interest: $(STAMP)
	$(BIN)/python -m paperdesk.core.discover.evaluation

## evaluate-tags: the held-out evaluation of tag suggestions on the sample library (its
## topics as tags) and on the SYNERGY reviews in $(SYNERGY) ("included" as a tag; any
## folder of NAME.csl.json with NAME.labels.csv): precision and recall per tag and at
## several shares of the votes (paperdesk.core.discover.tag_evaluation; the tables in
## docs/discover.md, "How good the suggestions are")
SYNERGY ?= ../shared/synergy
evaluate-tags: $(STAMP)
	$(BIN)/python -m paperdesk.core.discover.tag_evaluation \
		$(if $(wildcard $(SYNERGY)/*.csl.json),--synergy $(SYNERGY))

## evaluate-related: related papers judged against what the papers cite (issue 27):
## nDCG@10 and recall@20 of tf-idf, BM25 "more like this", the static embedding and the
## hybrid on each SYNERGY review in $(SYNERGY) (any folder of NAME.csl.json with
## NAME.labels.csv; paperdesk.core.discover.related_evaluation; the table in README.md
## and docs/discover.md, "How related papers are judged")
evaluate-related: $(STAMP)
	$(BIN)/python -m paperdesk.core.discover.related_evaluation --data $(SYNERGY)

## evaluate-styles: formatted bibliographies (issue 33): citeproc-py and pandoc's citeproc
## against citeproc-js (Zotero's processor; `make clients`) for APA, IEEE, Chicago
## author-date, Nature and Vancouver on the sample library plus $(REALWORLD), and pandoc's
## time for 1,000 references (tools/evaluate_styles.py; the table in docs/bibliography.md)
REALWORLD ?= ../shared/realworld
evaluate-styles: $(STAMP)
	$(BIN)/python tools/evaluate_styles.py --realworld $(REALWORLD)

## install-desktop: put paperdesk (with its icon) in this user's application menu
install-desktop: $(DESKTOP_DEPS)
	$(PAPERDESK) install-desktop

## uninstall-desktop: remove what install-desktop added
uninstall-desktop: $(DESKTOP_DEPS)
	$(PAPERDESK) uninstall-desktop

$(BUNDLE_STAMP): pyproject.toml | $(STAMP)
	$(BIN)/python -m pip install --quiet --editable '.[test,bundle]'
	@touch $(BUNDLE_STAMP)

## bundle: build the stand-alone app in dist/paperdesk/ (PyInstaller), then smoke-test it
bundle: $(BUNDLE_STAMP)
	$(BIN)/pyinstaller --noconfirm --clean --log-level WARN \
		--distpath dist --workpath build/pyinstaller packaging/paperdesk.spec
	$(BIN)/python packaging/smoke_test.py dist/paperdesk

## icons: render resources/paperdesk.svg into the PNG sizes (after editing the SVG)
icons: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python tools/render_icons.py

clean:
	rm -rf $(VENV) $(EVALUATE_VENV) build dist .pytest_cache
