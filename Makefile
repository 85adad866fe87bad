# siGit Code workspace. `make setup` once per machine, then `make test`.
SHELL := /bin/bash
UV := $(shell command -v uv 2>/dev/null)
ifeq ($(UV),)
UV := python3 -m uv
endif
PY := .venv/bin/python
TORCH_WHEEL := $(firstword $(wildcard /opt/wheels/torch-2.13.0+cpu-cp311-*.whl))

.PHONY: setup test pytest lint fmt bench test-fast dist docs

setup:
	@$(UV) --version >/dev/null 2>&1 || python3 -m pip install --user uv || python3 -m pip install --user --break-system-packages uv || python3 -m pip install uv
	# llama-cpp-python compiles llama.cpp (~15 min on 2 cores) the first time; uv caches the wheel.
	# --compile-bytecode: installers (and this image: PYTHONDONTWRITEBYTECODE=1) leave no .pyc, so every
	# process, each `sigit -p` a test starts among them, compiled torch, transformers and textual again
	CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) $(UV) sync --all-packages --locked --compile-bytecode
	# torch is an optional extra; the CPU build lies on this machine's disk (uv would fetch CUDA).
	@if [ -n "$(TORCH_WHEEL)" ]; then $(UV) pip install --compile-bytecode --python $(PY) "$(TORCH_WHEEL)"; \
	else $(UV) pip install --python $(PY) pip && $(PY) -m pip install torch==2.13.0; fi

# ruff reads our code by location: packages' src/ trees, tests, bench, examples. What lies elsewhere is
# data (packages/sigit/eval_packs: `sigit eval`'s task repositories, broken code on purpose), never linted.
lint:
	$(PY) -m ruff check packages/*/src tests bench examples
	$(PY) -m mypy packages/qwen_runtime/src packages/onde/src packages/sigit/src
	# layer contracts (pyproject's [tool.importlinter]): nothing imports upwards, no import circles
	.venv/bin/lint-imports --no-cache
	# the manual: a strict build fails on a broken link or anchor
	NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet

# the manual (docs/) as a site in build/site
docs:
	NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict

# lint beside the suite: ruff, mypy and import-linter run one process at a time on one core (a minute on
# a clean clone, with no mypy cache), while the suite keeps both busy; side by side the minute fits into
# the suite's run instead of leaving a core idle first. Lines from both are kept whole; either failing
# fails `make test`.
test:
	@$(MAKE) --no-print-directory -j2 --output-sync=line lint pytest

# one worker per core plus one: the suite waits on subprocesses and llama.cpp. Bytecode is written
# (PYTHONDONTWRITEBYTECODE emptied): our sources and pytest's rewritten test modules compile once per
# run instead of once per worker and per `sigit` subprocess. loadgroup: the tests that import torch run
# on one worker, those on Gemma on one (tests/conftest.py groups them), so each is loaded once.
pytest:
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -q -n $$(( $$(nproc) + 1 )) --dist loadgroup tests

test-fast:
	$(PY) -m pytest -q tests -m "not slow"

# wheels and sdists of qwen-runtime, onde-sdk and sigit-agent (versions: each package's __init__.py)
dist:
	rm -rf dist
	$(UV) build --all-packages --out-dir dist

fmt:
	$(PY) -m ruff check --fix packages/*/src tests bench examples
	$(PY) -m ruff format packages/*/src tests bench examples

bench:
	$(PY) bench/run.py
