# policy-engine developer commands.  `make demo` and `make test` each install
# what they need into .venv first: the engine extra, dev tools, Ray, the service and the LangChain and LlamaIndex adapters (torch's
# CPU build is pinned first so pip never pulls a multi-GB CUDA build).  The
# base install without extras is the slim linter (see README, Set up).

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install demo test bench schemas lint-policies clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e '.[engine,dev,ray,service,langchain,llamaindex]'
	touch $(STAMP)

install: $(STAMP)

## demo: lint the example policies, then run the main job on the bundled clinic example
demo: install
	$(BIN)/policy-engine lint policies/
	bash examples/demo.sh $(BIN)

## test: install, lint the code with ruff (pyproject.toml [tool.ruff]) and run the whole test suite
test: install
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q

## bench: run the benchmarks (writes bench/results/)
bench: install
	$(BIN)/python -m pip install -q -e '.[bench]'
	$(BIN)/python bench/lint_bench.py

schemas: install
	$(BIN)/policy-engine schema export

lint-policies: install
	$(BIN)/policy-engine lint policies/ --fail-level warning

clean:
	rm -rf $(VENV) bundles .policy-engine .pytest_cache .hypothesis
