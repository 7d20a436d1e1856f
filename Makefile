# make demo: set everything up and play one Charuma game between random players.
# make test: set everything up and run the test suite.
# make wheel-check: build the sdist and the wheel, install the wheel in a fresh venv outside the
# checkout and play, check, load, document and serve the shipped games by name from there.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test check bench wheel-check clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,openspiel,pettingzoo,lsp,web]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/rulespec play charuma --players 3 --seed 7

test: $(STAMP)
	$(BIN)/python -m pytest -q

check: $(STAMP)
	$(BIN)/rulespec check games/*.rules

bench: $(STAMP)
	$(BIN)/rulespec bench games/charuma.rules --players 4 --games 200

wheel-check:
	PYTHON=$(PYTHON) bash .ci/wheel-check

clean:
	rm -rf $(VENV) build dist *.egg-info
