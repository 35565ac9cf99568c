// Command hotkv runs the HotKV server.
//
// Usage follows redis-server: an optional config file path, then
// "--directive value" pairs that override it:
//
//	hotkv [/path/to/hotkv.conf] [--port 6380] [--dir /tmp/x] ...
//
// It starts, logs and stops as redis-server does (server.c main), so that
// it can stand in for src/redis-server under Redis's own test suite: the
// log is in Redis's format on standard output (or logfile), with Redis's
// startup lines ("Redis is starting", the logo or "Running mode", "Ready
// to accept connections"); SIGTERM and SIGINT save as configured and exit
// with "Redis is now ready to exit, bye bye...".
package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"

	// Child mode (the writer of a BGSAVE or AOF rewrite, started by the
	// server as this same executable) is entered by bgchild's init,
	// before main runs; server links it anyway, this says so.
	_ "github.com/hotkv/hotkv/bgchild"
	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/proctitle"
	"github.com/hotkv/hotkv/rlog"
	"github.com/hotkv/hotkv/server"
)

func main() {
	// os.Args's strings are the process's argument memory, which
	// proctitle.Set overwrites: the server works on copies.
	for i, a := range os.Args {
		os.Args[i] = strings.Clone(a)
	}
	os.Exit(run(os.Args[1:]))
}

// run is main without the exit, so that deferred calls (the CPU profile)
// run first.
func run(args []string) int {
	const notice, warning = rlog.Notice, rlog.Warning
	if len(args) == 1 && (args[0] == "-v" || args[0] == "--version") {
		fmt.Println(server.VersionLine())
		return 0
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Println("Usage: hotkv [/path/to/hotkv.conf] [--directive value ...]")
		fmt.Println("       hotkv -v or --version")
		return 0
	}
	path := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "--") {
		path, args = args[0], args[1:]
	}
	cfg, err := config.Load(path, args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if dir := cfg.Lookup("dir").String(); dir != "" {
		if err := os.Chdir(dir); err != nil {
			fmt.Fprintf(os.Stderr, "Can't chdir to '%s': %v\n", dir, err)
			return 1
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
	if err := srv.OpenLog(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	log := srv.Logger()
	srv.LogStarting(path)
	if err := srv.CheckStartup(); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			log.Log(warning, line)
			fmt.Fprintln(os.Stderr, line)
		}
		return 1
	}
	if err := srv.ConfigureTLS(); err != nil {
		log.Log(warning, "Failed to configure TLS. Check logs for more info.")
		return 1
	}
	if err := srv.Listen(); err != nil {
		var le *server.ListenError
		if errors.As(err, &le) {
			kind := "TCP"
			if le.TLS {
				kind = "TLS"
			}
			log.Logf(warning, "Could not create server TCP listening socket: %v", le.Err)
			log.Logf(warning, "Failed listening on port %d (%s), aborting.", le.Port, kind)
		} else {
			log.Log(warning, err.Error())
		}
		return 1
	}
	srv.WritePidFile()
	srv.ManageProcTitle(os.Args[0], proctitle.Set)
	fi, _ := os.Stdout.Stat()
	srv.LogBanner(fi != nil && fi.Mode()&os.ModeCharDevice != 0)
	srv.ApplyOOMScoreAdj()
	go handleSignals(srv)
	// SIGABRT sent to the process: Redis's crash report, then the end.
	abrt := make(chan os.Signal, 1)
	signal.Notify(abrt, syscall.SIGABRT)
	go func() {
		<-abrt
		srv.CrashReport(int(syscall.SIGABRT))
	}()
	// The server serves while it loads, as Redis: clients get LOADING
	// until the dataset is there.
	err = srv.LoadAndServe(func(err error) {
		if err != nil {
			if !errors.Is(err, server.ErrLoadTerminated) { // else logged as Redis does
				log.Logf(warning, "Fatal error loading the DB: %v. Exiting.", err)
				srv.RemovePidFile()
			}
			os.Exit(1)
		}
		if cfg.Lookup("port").Int() != 0 || cfg.Lookup("tls-port").Int() != 0 {
			log.Log(notice, "Ready to accept connections")
		}
		if sock := cfg.Lookup("unixsocket").String(); sock != "" {
			log.Logf(notice, "The server is now ready to accept connections at %s", sock)
		}
	})
	if err != nil {
		log.Log(warning, err.Error())
		return 1
	}
	srv.RemovePidFile()
	log.Log(warning, "Redis is now ready to exit, bye bye...")
	return 0
}

// handleSignals schedules a shutdown on SIGTERM or SIGINT, as Redis's
// sigShutdownHandler: the server's cron carries it out (the save the
// shutdown-on-sigterm (-sigint) flags ask for, then Shutdown; a save that
// fails keeps the server running, unless the flags say "force"), and
// SHUTDOWN ABORT cancels it until then. A second SIGINT while one is
// scheduled or under way exits at once, with status 1, removing the
// snapshot being written.
func handleSignals(srv *server.Server) {
	const warning = rlog.Warning
	log := srv.Logger()
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	for {
		select {
		case s := <-sig:
			if s == syscall.SIGINT && srv.ShutdownScheduled() {
				log.Log(warning, "You insist... exiting now.")
				srv.RemoveTempRDB()
				os.Exit(1)
			}
			name := "SIGTERM"
			if s == syscall.SIGINT {
				name = "SIGINT"
			}
			log.Logf(warning, "Received %s scheduling shutdown...", name)
			srv.ScheduleShutdown(s == syscall.SIGINT)
		case <-srv.Done():
			return
		}
	}
}
