// Package proctitle sets the process title that /proc/PID/cmdline and ps
// show, as Redis's setproctitle.c (spt_init, setproctitle) does for
// set-proc-title and proc-title-template.
//
// The contract of Set, on Linux:
//
//   - The title is written into the process's original argument area: the
//     memory the kernel placed argv's strings in, which the kernel reads
//     for /proc/PID/cmdline. Go's runtime builds os.Args without copying
//     (runtime.goargs uses gostringnocopy), so os.Args[0] points at the
//     start of that area; the package captures the area's bounds once, at
//     package initialisation, from os.Args and /proc/self/stat (arg_start,
//     arg_end, env_start, env_end), before anything could modify os.Args.
//     The strings of os.Args change with the area (os.Args is not used by
//     the server after start-up; read it before calling Set if needed).
//   - Like Redis's spt_init, the area extends over the environment strings
//     when they follow the arguments contiguously (env_start == arg_end),
//     since the arguments alone are often too short for a title (Redis's
//     own test sets a title of about 150 bytes on a server started as
//     "src/redis-server ./tests/tmp/redis.conf.N.M"). Go does not read that
//     memory after start-up: runtime.goenvs copies each environment string
//     (gostring), so os.Getenv, os.Environ and the environment of child
//     processes are unaffected. The environment is only written when the
//     title does not fit the arguments' memory, and then only as far as
//     the title needs. What still reads it is C code's getenv in a cgo
//     binary (libc's environ points at the original strings; Redis moves
//     them, which Go cannot reach) and /proc/PID/environ, which shows the
//     title's tail, as it does for Redis.
//   - The title is truncated to the area's size less one byte (for the
//     terminating NUL) and to 255 bytes (Redis's SPT_MAXTITLE); the rest of
//     what earlier titles and the original arguments used is filled with
//     NULs, so /proc/self/cmdline reads the title followed only by NULs
//     (or by nothing, when the title reaches into the environment: the
//     kernel then reads up to the first NUL).
//   - The thread name (prctl PR_SET_NAME, /proc/PID/comm) is left alone,
//     as Redis's setproctitle leaves it.
//
// Set is safe for concurrent use. On other systems Set does nothing and
// returns errors.ErrUnsupported (Redis builds without setproctitle there
// and ignores the directives).
package proctitle

// maxTitle is Redis's SPT_MAXTITLE: longer titles are truncated.
const maxTitle = 255
