# raftlock: the two commands are `make serve` and `make test`.
SHELL := /bin/bash
export PATH := $(CURDIR)/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)
export CARGO_BUILD_JOBS ?= 2
export CHROMEDRIVER ?= /usr/bin/chromedriver

.PHONY: setup serve build test lint test-native test-wasm test-e2e size bench bench-quick soak docs-check

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
	$(MAKE) lint
	$(MAKE) test-native
	$(MAKE) test-wasm
	$(MAKE) test-e2e
	$(MAKE) docs-check
	$(MAKE) bench-quick

## House style: rustfmt, and clippy with warnings as errors (native and the browser's build)
lint:
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo clippy --target wasm32-unknown-unknown --bin raftlock-web --bin raftlock-worker --lib --no-default-features -- -D warnings

test-native:
	cargo test --workspace
	# The page's build has no Russian texts until a reader asks: findings must have theirs built in.
	cargo test -p raftlock-core --no-default-features --features builtin-docs --test findings_in_russian

test-wasm:
	cargo test --target wasm32-unknown-unknown --test web

test-e2e: build
	cargo build --release --bin raftlock
	node --test --test-concurrency=1 --test-reporter=tap tests/e2e/

## The wide swarm on every core, every knob of the format over its whole range: until stopped
## (Ctrl-C), or `make soak SEEDS=100000` (and FROM=S for the first seed). Prints the rate every
## 10 s, and each failing seed with the command that replays it and its shrunk schedule.
soak:
	cargo build --release --bin raftlock
	target/release/raftlock soak $(if $(SEEDS),--seeds $(SEEDS)) $(if $(FROM),--from $(FROM))

## Bundle sizes (raw and gzipped); what the first frame needs against its 220 KB budget
size: build
	@scripts/size.sh

## One table: simulator speed native and in the browser, seek, load size, frame time, memory
bench: build
	cargo build --release --bin raftlock
	node scripts/bench.mjs

## The same, small (CI checks that the command works)
bench-quick: build
	cargo build --release --bin raftlock
	node scripts/bench.mjs --quick

## Every command the README and docs/ show, run as written (placeholders and long runs with the
## stand-ins scripts/docs-check.mjs lists)
docs-check:
	cargo build --release --bin raftlock
	node scripts/docs-check.mjs
