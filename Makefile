# Cutting the Graph: the two commands a learner needs are `make lab` and `make test`.
# Every target except clean/distclean first runs `setup`, which is a no-op (< 1 s) when
# nothing changed. Tools always run from .venv/bin, never from whatever is on PATH.

SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV := .venv
PY := $(VENV)/bin/python
JUPYTER := $(VENV)/bin/jupyter

# How notebooks run (scripts/course.py, which `make notebooks`, `make test` and `make check-rerun`
# use; a test keeps these equal): exported here for `make lab` too, so a learner's kernel hashes
# strings as the stored outputs were made.
export PYTHONHASHSEED := 0
export NB_CELL_TIMEOUT ?= 120
# Inside a venv, prefer its kernels and settings over ones in the user's home directory.
export JUPYTER_PREFER_ENV_PATH := 1
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

PORT ?= 8888
# how `make lab` and `make lab-zh` start JupyterLab: the course's notebooks, this machine only
LAB_ARGS = --ServerApp.root_dir=notebooks --ip=127.0.0.1 --port=$(PORT) --no-browser \
	$(if $(filter 0,$(shell id -u)),--allow-root,)
NB ?=
BENCH_ARGS ?=

.PHONY: help setup lab lab-zh test notebooks check-rerun figures bench bench-quick test-browser clean distclean
.PHONY: slides site student reset trust lite
.PHONY: lock upgrade

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-13s %s\n", $$1, $$2}'

setup:  ## create .venv, install requirements + minigrad, make sure Graphviz is there
	@bash scripts/setup.sh

# JupyterLab shows a notebook's stored pictures (SVG) and HTML only when the notebook is trusted,
# that is signed with this user's key in the Jupyter data folder; an untrusted notebook shows
# "<minigrad.viz ...>" text until its cells run. `make lab` (and `make notebooks`) sign the
# course's notebooks, only those that changed since the last time (the stamp in .venv).
TRUST_STAMP := $(VENV)/.notebooks-trusted
COURSE_NOTEBOOKS := $(wildcard notebooks/*.ipynb notebooks/*/*.ipynb)

$(TRUST_STAMP): $(COURSE_NOTEBOOKS) | setup
	@$(JUPYTER) trust $? >/dev/null
	@touch $@

trust: $(TRUST_STAMP)  ## mark the course's notebooks trusted, so Lab shows their pictures

lab: setup $(TRUST_STAMP)  ## open the course in JupyterLab on 127.0.0.1 (PORT=8888), no browser launched
	@echo "Starting JupyterLab on notebooks/ - open the http://127.0.0.1:... URL printed below."
	@echo "Stop it with Ctrl-C."
	$(JUPYTER) lab $(LAB_ARGS)

# The Chinese edition in JupyterLab's Chinese interface (the language pack in requirements.txt).
# Lab gives its page the language of its interface, so here the page is zh-CN and a screen
# reader reads the Chinese notebooks in a Chinese voice (under `make lab` the page is English).
# Its settings live apart from `make lab`'s; the first start chooses Chinese, later ones keep
# whatever the learner chose in Settings > Language.
ZH_SETTINGS ?= $(VENV)/lab-zh-settings
ZH_LOCALE_FILE := $(ZH_SETTINGS)/@jupyterlab/translation-extension/plugin.jupyterlab-settings

lab-zh: setup $(TRUST_STAMP)  ## the Chinese edition (notebooks/zh) in JupyterLab's Chinese interface
	@mkdir -p "$(dir $(ZH_LOCALE_FILE))"
	@test -f "$(ZH_LOCALE_FILE)" || echo '{"locale": "zh_CN"}' > "$(ZH_LOCALE_FILE)"
	@echo "正在启动 JupyterLab（中文界面）：打开下面打印的 http://127.0.0.1:... 地址；按 Ctrl-C 停止。"
	JUPYTERLAB_SETTINGS_DIR="$(ZH_SETTINGS)" $(JUPYTER) lab $(LAB_ARGS) --LabApp.default_url=/lab/tree/zh

test: setup  ## lint, unit tests, then every notebook through nbval
	@bash scripts/test.sh

notebooks: setup  ## re-execute notebooks in place (all, or NB=notebooks/02_detach.ipynb), zh too
	@$(PY) -m scripts.run_notebooks $(NB)
	@# Slide types depend on output lengths: refresh them after a run (speaker notes are not
	@# cells: they live in docs/speaker_notes/ and go into the slides only).
	@$(PY) -m scripts.slides_metadata $(NB)
	@# The metadata script may change cells, so the md/ twins are written again after it.
	@$(PY) -m scripts.notebook_pairs sync --from-notebooks $(NB)
	@# The Chinese edition last: notebooks/zh/ built from the finished English notebooks and
	@# translations/zh/*.md (their cells and metadata), then executed the same way.
	@$(PY) -m scripts.translations build --execute $(NB)
	@$(MAKE) --no-print-directory trust

check-rerun: setup  ## re-run cells as learners do (twice; from any cell; per section); slow
	$(PY) -m scripts.check_rerun $(NB)

# No setup first: setup installs from the lock, and a stale lock is what `make lock` repairs.
lock:  ## resolve requirements.txt afresh and write the exact versions to requirements.lock
	@$(if $(wildcard $(PY)),$(PY),python3) -m scripts.lock write

upgrade:  ## make lock, reinstall, re-execute the notebooks, show what changed
	@$(MAKE) --no-print-directory lock
	@$(MAKE) --no-print-directory notebooks
	@echo "upgrade: what changed (run 'make test' next, then commit):"
	@git diff --stat -- requirements.lock notebooks md || true

figures: setup  ## rebuild the pictures in figures/ and the cheat sheet (needs chromium)
	@command -v chromium >/dev/null 2>&1 || bash scripts/setup_browser.sh
	$(PY) figures/build.py

bench: setup  ## run the benchmarks (BENCH_ARGS="--readme --install-peers" to pass options)
	$(PY) -m benchmarks $(BENCH_ARGS)

bench-quick: setup  ## the benchmarks with fewer rounds (a few minutes; writes no results)
	$(PY) -m benchmarks --quick $(BENCH_ARGS)

test-browser: setup  ## drive JupyterLab, the slides, the site and the lite site in Chromium
	bash scripts/setup_browser.sh
	bash scripts/setup_classroom.sh
	@$(MAKE) --no-print-directory lite
	$(PY) -m pytest tests/browser -v

# ---- classroom edition (issue 14): slides, website, clean copies for students ----
# SOLUTIONS=1 puts the *_solutions notebooks into the site and the handout (off by default:
# the answers are for after the exercises).
SOLUTIONS ?=
WITH_SOLUTIONS = $(if $(filter 1 yes true,$(SOLUTIONS)),--with-solutions,)

slides: setup  ## reveal.js decks for a 1280x720 projector, offline -> build/slides/ (NB=... only those)
	@bash scripts/setup_classroom.sh
	$(PY) -m scripts.build_slides $(NB)

site: slides  ## the course website with the decks (offline; SOLUTIONS=1 adds answers) -> build/site/
	$(PY) -m scripts.build_site $(WITH_SOLUTIONS)

# ---- zero install (issue 27): the course in the browser; Open in Colab (scripts.colab) ----
lite: setup  ## the course in the browser, no install (JupyterLite, Pyodide) -> build/lite/
	@bash scripts/setup_lite.sh
	$(PY) -m scripts.build_lite $(LITE_OPTIONS)

student: setup  ## the handout: notebooks without outputs + minigrad (SOLUTIONS=1) -> build/student/
	$(PY) -m scripts.student_copies $(WITH_SOLUTIONS)

reset:  ## restore one notebook as committed: make reset NB=02_detach (or a path)
	@bash scripts/reset_notebook.sh "$(NB)"

clean:  ## remove build output and caches (keeps .venv)
	rm -rf build dist .pytest_cache .ruff_cache .hypothesis .jupyter-test *.egg-info
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -print0 | xargs -0 rm -rf

distclean: clean  ## clean, and remove .venv (and .venv-lite) too
	rm -rf $(VENV) .venv-lite
