// Command hotkv runs the HotKV server.
//
// Usage follows redis-server: an optional config file path, then
// "--directive value" pairs that override it:
//
//	hotkv [/path/to/hotkv.conf] [--port 6380] [--dir /tmp/x] ...
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/server"
)

func main() {
	args := os.Args[1:]
	if len(args) == 1 && (args[0] == "-v" || args[0] == "--version") {
		fmt.Printf("HotKV v=%s (Redis %s compatible)\n", server.Version, server.RedisVersion)
		return
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Println("Usage: hotkv [/path/to/hotkv.conf] [--directive value ...]")
		return
	}
	path := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "--") {
		path, args = args[0], args[1:]
	}
	cfg, err := config.Load(path, args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if dir := cfg.Lookup("dir").String(); dir != "" {
		if err := os.Chdir(dir); err != nil {
			fmt.Fprintf(os.Stderr, "Can't chdir to '%s': %v\n", dir, err)
			os.Exit(1)
		}
	}
	if path := os.Getenv("HOTKV_CPUPROFILE"); path != "" {
		// Profiling aid for `go tool pprof`: written at shutdown.
		f, err := os.Create(path)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer pprof.StopCPUProfile()
		}
	}
	srv := server.New(cfg)
	if err := srv.LoadData(); err != nil {
		fmt.Fprintf(os.Stderr, "Fatal error loading the DB: %v. Exiting.\n", err)
		os.Exit(1)
	}
	if err := srv.Listen(); err != nil {
		fmt.Fprintf(os.Stderr, "Could not create server TCP listening socket: %v\n", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "HotKV %s ready to accept connections on %s\n", server.Version, srv.Addr())

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		select {
		case s := <-sig:
			fmt.Fprintf(os.Stderr, "Received %v, shutting down\n", s)
			if err := srv.SaveOnSignal(); err != nil {
				fmt.Fprintf(os.Stderr, "Error trying to save the DB: %v\n", err)
			}
		case <-srv.Done():
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}()
	if err := srv.Serve(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "HotKV is now ready to exit, bye bye...")
}
