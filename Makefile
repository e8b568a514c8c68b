# Entry points for developers and CI. `make test` is what CI runs.

# The npm harness pinning the official MCP conformance suite and Node 22.
HARNESS := integration/conformance

# The fuzz targets `make fuzz` runs, as package:Target; add new ones here.
FUZZ := \
	./jsonrpc:FuzzParse \
	./internal/jsonscan:FuzzMembers \
	./sse:FuzzAppendEvent \
	./stdio:FuzzRead \
	./mcptest:FuzzEventReader \
	./params:FuzzValidate \
	./internal/seal:FuzzOpen \
	./internal/uripattern:FuzzMatch \
	./internal/modern:FuzzDecodeHeader \
	./internal/modern:FuzzSameNumber \
	./internal/jsonvalue:FuzzDecode \
	./internal/envelope:FuzzRead \
	./handlers:FuzzPlainCallTool \
	./internal/modern:FuzzPlainParams

# How long each fuzz target runs.
FUZZTIME ?= 10s

.PHONY: test bench fuzz

test: $(HARNESS)/node_modules/.package-lock.json
	go vet ./...
	go test -race -count=1 -timeout 15m ./...
	go test -count=1 -run '^TestSessionMemory$$' -v ./integration/
	$(MAKE) fuzz

# Runs each fuzz target for FUZZTIME on top of its seeds and its
# testdata/fuzz corpus (which plain go test replays). A failing input is
# written to the package's testdata/fuzz/<Target>/: fix the bug and commit
# the file, so that it stays a regression test.
fuzz:
	@set -e; for t in $(FUZZ); do \
		echo "go test -fuzz $${t#*:} $${t%%:*}"; \
		go test -run '^$$' -fuzz "^$${t#*:}$$" -fuzztime $(FUZZTIME) "$${t%%:*}"; \
	done

bench:
	go test -run '^$$' -bench . -benchmem ./...

# npm writes node_modules/.package-lock.json on every install, so it is
# missing before the first install and older than package-lock.json after a
# change to the pins: exactly when npm ci must run. The touch marks the
# install even if npm left the file's time alone.
$(HARNESS)/node_modules/.package-lock.json: $(HARNESS)/package-lock.json $(HARNESS)/package.json
	npm ci --prefix $(HARNESS) --no-audit --no-fund
	touch $@
