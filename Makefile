# Entry points for developers and CI. `make test` is what CI runs.

# The npm harness pinning the official MCP conformance suite and Node 22.
HARNESS := integration/conformance
# The npm harness of the MCP Apps browser test: the official ext-apps
# AppBridge, the TypeScript MCP client and esbuild, which bundles the test
# host when the test runs.
APPS_HARNESS := integration/apps
# The npm harness pinning the real servers the client is tested against
# (integration/interop): the reference servers, the TypeScript SDKs and
# node-oidc-provider, on the same Node.
INTEROP := integration/interop
# The npm harness pinning the real-world OpenAPI documents the openapi
# package is tested against: GitHub's REST API description, the Petstore
# examples and the APIs.guru directory (Stripe, Kubernetes).
OPENAPI_DOCS := openapi/testdata/npm

# The fuzz targets `make fuzz` runs, as package:Target; add new ones here.
FUZZ := \
	./jsonrpc:FuzzParse \
	./internal/jsonscan:FuzzMembers \
	./sse:FuzzAppendEvent \
	./stdio:FuzzRead \
	./mcptest:FuzzEventReader \
	./params:FuzzValidate \
	./internal/stateless:FuzzOpen \
	./internal/uripattern:FuzzMatch \
	./internal/stateless:FuzzDecodeHeader \
	./internal/stateless:FuzzSameNumber \
	./internal/jsonscan:FuzzDecode \
	./internal/methods:FuzzRead \
	./internal/methods:FuzzPlainCallTool \
	./internal/stateless:FuzzPlainParams

# How long each fuzz target runs.
FUZZTIME ?= 10s

# staticcheck, pinned: go run fetches it from the module proxy, so nothing
# is installed by hand.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: check test bench fuzz compare compare-test

# The quick checks: vet, staticcheck and the tests in -short mode, without
# the race detector. .ci/run runs them before make test, so that a lint
# finding fails CI before the long run.
check:
	go vet ./...
	go run $(STATICCHECK) ./...
	go test -short -count=1 ./...

test: $(HARNESS)/node_modules/.package-lock.json $(APPS_HARNESS)/node_modules/.package-lock.json $(INTEROP)/node_modules/.package-lock.json $(OPENAPI_DOCS)/node_modules/.package-lock.json
	go vet ./...
	go test -race -count=1 -timeout 15m ./...
	go test -count=1 -run '^TestSessionMemory$$' -v ./integration/
	$(MAKE) compare-test
	$(MAKE) fuzz

# Runs each fuzz target for FUZZTIME on top of its seeds and its
# testdata/fuzz corpus (which plain go test replays). A failing input is
# written to the package's testdata/fuzz/<Target>/: fix the bug and commit
# the file, so that it stays a regression test.
#
# Go 1.26's fuzz coordinator can fail a target with a bare "context deadline
# exceeded" when FUZZTIME ends while a worker is busy (go.dev/issue/75804,
# fixed in Go 1.27): no input failed, none is written. Such a run counts as
# passed once the target's seeds and corpus replay cleanly; any other
# failure fails.
fuzz:
	@set -e; log=$$(mktemp); trap 'rm -f "$$log"' EXIT; \
	for t in $(FUZZ); do \
		pkg=$${t%%:*}; name=$${t#*:}; \
		echo "go test -fuzz $$name $$pkg"; \
		if go test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) "$$pkg" >"$$log" 2>&1; then \
			cat "$$log"; \
		else \
			cat "$$log"; \
			if grep -q '^    context deadline exceeded$$' "$$log" && ! grep -q 'Failing input written' "$$log"; then \
				echo "fuzz: $$name stopped on the Go 1.26 deadline race (go.dev/issue/75804), no failing input; replaying its corpus"; \
				go test -count=1 -run "^$$name$$" "$$pkg"; \
			else \
				exit 1; \
			fi; \
		fi; \
	done

bench:
	go test -run '^$$' -bench . -benchmem ./...

# Compares Specter with a bare Echo handler, the official Go SDK and
# mcp-go and prints a Markdown table (about two minutes). It is a module
# of its own, so that this one does not depend on the peers; `make test`
# runs only its tests (compare-test). COMPARE_FLAGS passes options, e.g.
# -rounds 9 or -cpuprofile DIR.
compare:
	cd benchmarks/compare && go run . $(COMPARE_FLAGS)

# Vets and tests the comparison module: each server answers the harness's
# requests, and a short run of the whole harness prints every cell.
compare-test:
	cd benchmarks/compare && go vet ./... && go test -race -count=1 ./...

# npm writes node_modules/.package-lock.json on every install, so it is
# missing before the first install and older than package-lock.json after a
# change to the pins: exactly when npm ci must run. The touch marks the
# install even if npm left the file's time alone.
$(HARNESS)/node_modules/.package-lock.json: $(HARNESS)/package-lock.json $(HARNESS)/package.json
	npm ci --prefix $(HARNESS) --no-audit --no-fund
	touch $@

$(APPS_HARNESS)/node_modules/.package-lock.json: $(APPS_HARNESS)/package-lock.json $(APPS_HARNESS)/package.json
	npm ci --prefix $(APPS_HARNESS) --no-audit --no-fund
	touch $@

$(INTEROP)/node_modules/.package-lock.json: $(INTEROP)/package-lock.json $(INTEROP)/package.json
	npm ci --prefix $(INTEROP) --no-audit --no-fund
	touch $@

$(OPENAPI_DOCS)/node_modules/.package-lock.json: $(OPENAPI_DOCS)/package-lock.json $(OPENAPI_DOCS)/package.json
	npm ci --prefix $(OPENAPI_DOCS) --no-audit --no-fund
	touch $@
