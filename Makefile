# kurz: `make run` starts the whole local stack; `make test` runs every test
# against real PostgreSQL and ClickHouse started for it.
GO ?= go

.PHONY: build run test test-cluster lint bench gobench clean stack-down

build:
	$(GO) build -o bin/edge ./edge
	$(GO) build -o bin/admin ./admin
	$(GO) build -o bin/bench ./bench

run:
	deploy/local/run.sh

test:
	deploy/local/test.sh

# Only the ClickHouse cluster tests (`make test` runs them too): ZooKeeper
# and four ClickHouse servers of deploy/local/cluster.sh, two shards and
# two replicas.
test-cluster:
	deploy/local/test.sh cluster

# gofmt, go vet and staticcheck (pinned, run with `go run`). Not part of
# `make test`, which runs only the gofmt check and go vet: staticcheck's
# first run downloads and builds it for minutes.
lint:
	deploy/local/lint.sh

bench:
	deploy/local/bench.sh

# Copy the last `make bench` report (.run/bench-results/latest.md, and
# sweep.svg when the run made one) to bench/results/, the reference copy
# kept in the repository.
.PHONY: bench-record
bench-record:
	deploy/local/bench.sh record

# Every dashboard page at 1440 and 360 px wide, in Chromium, written to
# .run/screenshots/dashboard for review (starts the test servers if needed).
.PHONY: screenshots
screenshots:
	deploy/local/test.sh screenshots

# The edge's Go benchmarks (go test -bench) against the test servers.
gobench:
	deploy/local/test.sh gobench

# Stop servers a killed `make run`/`make test` may have left behind.
stack-down:
	-deploy/local/stack.sh down $(CURDIR)/.run/dev
	-deploy/local/stack.sh down $(CURDIR)/.run/test
	-deploy/local/cluster.sh down $(CURDIR)/.run/test-cluster

clean: stack-down
	rm -rf bin .run
