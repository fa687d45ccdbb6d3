# weir: build, run, test, bench. Every target installs what it needs first.
NODE_MODULES := node_modules/.package-lock.json
GIT_HASH := $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
BUILD_PROFILE ?= release

.PHONY: build run test test-unit test-e2e bench schema clean

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

bench: build
	node dist/spec/bench/run.js

schema: build
	node dist/actors/config/emit-json-schema.js > schema/weir.schema.json

clean:
	rm -rf dist
