# weir: build, run, test, bench. Every target installs what it needs first.
NODE_MODULES := node_modules/.package-lock.json
GIT_HASH := $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
BUILD_PROFILE ?= release

.PHONY: build run test test-unit test-e2e fuzz bench fleet-sim soak schema clean packages stamp

$(NODE_MODULES): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

# tsc runs only when a source changed since the last build; the stamp follows the commit.
SOURCES := $(shell find actors streams http ipc cli spec -name '*.ts' 2>/dev/null)
COMPILED := dist/.compiled

$(COMPILED): $(NODE_MODULES) tsconfig.json $(SOURCES)
	npx tsc -p tsconfig.json
	@touch $@

# Rewritten only when it changes, so binary_sha256 stays that of the same tree.
stamp: $(COMPILED)
	@printf '{"git_hash":"%s","build_profile":"%s"}\n' "$(GIT_HASH)" "$(BUILD_PROFILE)" > dist/build-stamp.json.tmp
	@cmp -s dist/build-stamp.json.tmp dist/build-stamp.json && rm dist/build-stamp.json.tmp || mv dist/build-stamp.json.tmp dist/build-stamp.json

build: stamp

run: build
	bin/weir run $(ARGS)

# The Debian packages the specs need, before anything else starts (installed as root).
packages:
	@.ci/test-packages

# uvu also sees the .js.map files tsc writes beside the specs: match .spec.js only.
test: packages build
	npx uvu dist/spec '\.spec\.js$$'

test-unit: packages build
	npx uvu dist/spec/unit '\.spec\.js$$'

test-e2e: packages build
	npx uvu dist/spec/e2e '\.spec\.js$$'

# The property specs of spec/fuzz with 100,000 cases each (`make test` runs a few
# thousand). A failure prints its seed, path and shrunk counterexample; set
# WEIR_FUZZ_SEED and WEIR_FUZZ_PATH to those to replay it.
fuzz: build
	WEIR_FUZZ_RUNS=$${WEIR_FUZZ_RUNS:-100000} npx uvu dist/spec/fuzz '\.spec\.js$$'

bench: build
	node dist/spec/bench/run.js

# One Redis (FLEET_REDIS=cluster: a Redis Cluster of FLEET_SHARDS masters, 3, and a
# replica of each), FLEET_NODES nodes (20) with an external Webhook sink, two `weir
# deliver` workers and a receiver on loopback, loaded by the native client; prints the
# fleet's figures and its Redis per shard, kills two nodes, restarts them and fails
# unless every archived flow.completed is acknowledged or in a reported replay gap.
# FLEET_CONCURRENCY, FLEET_LOAD_MS, FLEET_IDLE_MS, FLEET_BACKLOG_MS tune it.
fleet-sim: build
	node dist/spec/bench/fleet-sim.js

# One node for SOAK_S seconds (600) under mixed load with a flapping Webhook receiver,
# Redis and the node killed and restarted, a slow SSE consumer and a reload; then the
# oracle (docs/soak.md). Prints one table; exits 1 when the oracle fails.
soak: build
	SOAK_S=$${SOAK_S:-600} node dist/spec/soak/soak.js

schema: build
	node dist/actors/config/emit-json-schema.js > schema/weir.schema.json

clean:
	rm -rf dist
