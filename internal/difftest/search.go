package difftest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// SearchOptOut is the environment variable that lets the search
// differential tests skip when their oracle cannot be fetched (set it to
// 1). Without it a failed download fails them: CI must run them.
const SearchOptOut = "HOTKV_SKIP_SEARCH_ORACLE"

// ErrSearchOptedOut reports that the search oracle was not fetched because
// SearchOptOut is set.
var ErrSearchOptedOut = errors.New(SearchOptOut + " is set: search differential tests skipped")

// LaunchSearch starts the search oracle — Redis 7.4.1 with RediSearch
// 2.10.5, fetched into a cache outside the repository by
// scripts/search-oracle.sh (which `make deps` runs first; here it runs
// again, a no-op when the cache is complete) — on a free port with
// persistence off, and returns its address and a function that stops it;
// extra are additional "--directive value" arguments.
func LaunchSearch(extra ...string) (addr string, stop func(), err error) {
	if os.Getenv(SearchOptOut) == "1" {
		return "", nil, ErrSearchOptedOut
	}
	root, err := moduleRoot()
	if err != nil {
		return "", nil, err
	}
	out, err := exec.Command(filepath.Join(root, "scripts", "search-oracle.sh")).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, ee.Stderr)
		}
		return "", nil, fmt.Errorf("fetching the search oracle (scripts/search-oracle.sh; set %s=1 to skip): %w", SearchOptOut, err)
	}
	dir := strings.TrimSpace(string(out))
	return launch(filepath.Join(dir, "bin", "redis-server"), []string{"LD_LIBRARY_PATH=" + filepath.Join(dir, "lib")},
		append([]string{"--loadmodule", filepath.Join(dir, "lib", "redisearch.so")}, extra...)...)
}

// moduleRoot returns the directory of the go.mod above the working
// directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
