# partition — top-level targets. Each one sets up what it needs first.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.partition-setup
EXAMPLE ?= fir_pipeline

.PHONY: help setup demo test lint bench clean

help:
	@echo "make demo    set up, plan examples/$(EXAMPLE).py for pynq-z2, run its C-simulation"
	@echo "make test    set up, then run the whole test suite"
	@echo "make lint    ruff format --check and ruff check"
	@echo "make bench   benchmarks; figures go to benchmarks/results/"
	@echo "make clean   remove build/ (the virtualenv stays)"

$(STAMP): pyproject.toml scripts/setup.sh
	bash scripts/setup.sh $(VENV) $(PYTHON)
	@touch $@

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/partition plan examples/$(EXAMPLE).py --board pynq-z2 --out build/$(EXAMPLE) --force
	$(MAKE) -C build/$(EXAMPLE) csim

test: $(STAMP)
	PARTITION_REQUIRE_TOOLS=1 $(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python -m benchmarks.run

clean:
	rm -rf build

# differential fuzzing: N random kernels through Python, C simulation and (a share) RTL simulation
N ?= 2000
SEED ?= 1
RTL_FRACTION ?= 0.35
.PHONY: fuzz
fuzz: $(STAMP)
	$(BIN)/python -m partition.fuzz --cases $(N) --seed $(SEED) --rtl-fraction $(RTL_FRACTION) --report benchmarks/results/fuzz.md
