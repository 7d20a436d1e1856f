# make demo: set everything up and play one Charuma game between random players.
# make test: set everything up and run the test suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test check bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,openspiel,pettingzoo,lsp,web]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/rulespec play games/charuma.rules --players 3 --seed 7

test: $(STAMP)
	$(BIN)/python -m pytest -q

check: $(STAMP)
	$(BIN)/rulespec check games/*.rules

bench: $(STAMP)
	$(BIN)/rulespec bench games/charuma.rules --players 4 --games 200

clean:
	rm -rf $(VENV) build *.egg-info
