# raftlock: the two commands are `make serve` and `make test`.
SHELL := /bin/bash
export PATH := $(CURDIR)/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)
export CARGO_BUILD_JOBS ?= 2
export CHROMEDRIVER ?= /usr/bin/chromedriver

.PHONY: setup serve build test test-native test-wasm test-e2e size bench fuzz

setup:
	@scripts/setup.sh

## Build and serve the playground on http://127.0.0.1:8080
serve: setup
	trunk serve --release --address 127.0.0.1 --port 8080

## The static site in dist/ (relative URLs: it works under any sub-path)
build: setup
	trunk build --release

## Every test layer: native, wasm in headless Chromium, end to end with Playwright
test:
	@scripts/setup.sh browser
	$(MAKE) test-native
	$(MAKE) test-wasm
	$(MAKE) test-e2e

test-native:
	cargo test

test-wasm:
	cargo test --target wasm32-unknown-unknown --test web

test-e2e: build
	node --test --test-concurrency=1 --test-reporter=tap tests/e2e/

## Bundle sizes (raw and gzipped) against the 150 KB first-load budget
size: build
	@scripts/size.sh

## Simulator speed: 1 h of virtual time, 5 nodes, 10 clients (min and median of 3 runs)
bench: setup
	cargo run --release --bin raftlock -- bench --hours 1 --runs 3
