# Entry points for developers and CI. `make test` is what CI runs.

# The npm harness pinning the official MCP conformance suite and Node 22.
HARNESS := integration/conformance

.PHONY: test bench

test: $(HARNESS)/node_modules/.package-lock.json
	go vet ./...
	go test -race -count=1 -timeout 15m ./...
	go test -count=1 -run '^TestSessionMemory$$' -v ./integration/

bench:
	go test -run '^$$' -bench . -benchmem ./...

# npm writes node_modules/.package-lock.json on every install, so it is
# missing before the first install and older than package-lock.json after a
# change to the pins: exactly when npm ci must run. The touch marks the
# install even if npm left the file's time alone.
$(HARNESS)/node_modules/.package-lock.json: $(HARNESS)/package-lock.json $(HARNESS)/package.json
	npm ci --prefix $(HARNESS) --no-audit --no-fund
	touch $@
