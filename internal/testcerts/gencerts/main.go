// Command gencerts writes a test CA and certificates (package testcerts)
// into a directory, for scripts that run servers over TLS (make bench).
//
//	go run ./internal/testcerts/gencerts DIR
package main

import (
	"fmt"
	"os"

	"github.com/hotkv/hotkv/internal/testcerts"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gencerts DIR")
		os.Exit(2)
	}
	if err := os.MkdirAll(os.Args[1], 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if _, err := testcerts.Write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
