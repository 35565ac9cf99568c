// Package aof is the file layer of Redis 7.0's multi-part append-only
// file, compatible with redis-server 7.0.15: HotKV loads the AOF directory
// Redis writes, and Redis (and redis-check-aof) accept HotKV's.
//
// The AOF directory (dir/appenddirname, "appendonlydir") holds:
//
//   - the manifest, "<appendfilename>.manifest" ("appendonly.aof.manifest"):
//     one line per file, "file <name> seq <n> type <b|h|i>";
//   - at most one base file (type b), the snapshot of the last rewrite:
//     "<appendfilename>.<seq>.base.rdb" (an RDB, aof-use-rdb-preamble yes)
//     or "<appendfilename>.<seq>.base.aof" (commands);
//   - incremental files (type i), "<appendfilename>.<seq>.incr.aof": the
//     commands written since, the last one being appended to;
//   - history files (type h), bases and incremental files a later rewrite
//     made obsolete, deleted unless aof-disable-auto-gc is yes.
//
// Pieces:
//
//   - Manifest, ParseManifest, ReadManifestFile, WriteManifestFile: the
//     manifest's grammar, validation and error texts (aof.c's
//     aofLoadManifestFromFile, aofInfoFormat, writeAofManifestFile), and
//     the naming functions (BaseFileName, IncrFileName, ...).
//   - Loader: replays a directory (the base, RDB or commands, then each
//     incremental file) as loadAppendOnlyFiles does, with Redis's rules
//     for truncated files (aof-load-truncated) and unfinished
//     transactions, calling back per command and, through an
//     rdb.FileReader, per key of an RDB base.
//   - Dir: the file operations on the directory (start-up, rotation when a
//     rewrite starts, installing a rewrite's base, deleting history,
//     migrating an old-style AOF).
//   - Appender, OSFile: writing the current incremental file through a
//     buffer, with appendfsync always (write and fsync before replying;
//     with Appender.Prealloc, zeros preallocated ahead of the data), everysec (background fsync
//     once per second) or no.
//   - AppendCommand, AppendSelect, Feeder: the encoding of the command
//     stream (feedAppendOnlyFile).
//
// What the server does with these, as Redis 7.0 does:
//
// Start-up with appendonly yes: OpenDir(dir/appenddirname,
// appendfilename); Dir.UpgradeOldStyle(dir) (migrates a pre-7.0
// appendonly.aof from dir into the directory: it then becomes the base);
// Loader.Load (LoadResult.Trims and, on StatusTruncated, Truncation.Apply
// before appending; any error is fatal: Redis exits); then
// Dir.OpenForAppend, which writes a base first when the manifest is
// empty, and NewAppender on the file it returns (OSFile), with NewFeeder.
//
// Each write command: Feeder.Feed its propagated form into
// Appender.Append; before replying (beforeSleep), Appender.Flush(false)
// (one call can cover the commands of many clients: group commit); while
// Appender.Err is not nil, refuse writes with Appender.Misconf. The cron calls Flush
// again (postponed writes, the once-per-second fsync).
//
// Rewrite (BGREWRITEAOF): Flush(true), Dir.RotateIncr and Appender.Reopen
// on the new file, Feeder.ForceSelect; the snapshot is written with
// Dir.WriteBase (an RDB with rdb.FileWriter, AOFBase set, or commands);
// then Dir.InstallRewrite, Feeder.ForceSelect, Dir.DeleteHistory.
package aof
