# weir: build, run, test, bench. Every target installs what it needs first.
NODE_MODULES := node_modules/.package-lock.json
GIT_HASH := $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
BUILD_PROFILE ?= release

.PHONY: build run test test-unit test-e2e fuzz bench schema clean

$(NODE_MODULES): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

build: $(NODE_MODULES)
	npx tsc -p tsconfig.json
	@printf '{"git_hash":"%s","build_profile":"%s"}\n' "$(GIT_HASH)" "$(BUILD_PROFILE)" > dist/build-stamp.json

run: build
	node dist/cli/weir.js run $(ARGS)

# uvu also sees the .js.map files tsc writes beside the specs: match .spec.js only.
test: build
	npx uvu dist/spec '\.spec\.js$$'

test-unit: build
	npx uvu dist/spec/unit '\.spec\.js$$'

test-e2e: build
	npx uvu dist/spec/e2e '\.spec\.js$$'

# The property specs of spec/fuzz with 100,000 cases each (`make test` runs a few
# thousand). A failure prints its seed, path and shrunk counterexample; set
# WEIR_FUZZ_SEED and WEIR_FUZZ_PATH to those to replay it.
fuzz: build
	WEIR_FUZZ_RUNS=$${WEIR_FUZZ_RUNS:-100000} npx uvu dist/spec/fuzz '\.spec\.js$$'

bench: build
	node dist/spec/bench/run.js

schema: build
	node dist/actors/config/emit-json-schema.js > schema/weir.schema.json

clean:
	rm -rf dist
