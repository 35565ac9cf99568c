package aof

import (
	"fmt"
	"strconv"
)

// Defaults of the configuration directives that name the AOF files.
const (
	// DefaultFileName is appendfilename's default.
	DefaultFileName = "appendonly.aof"
	// DefaultDirName is appenddirname's default: the AOF directory, inside
	// the working directory ("dir").
	DefaultDirName = "appendonlydir"
)

// The pieces of Redis's file names (aof.c's naming rules).
const (
	baseSuffix     = ".base"
	incrSuffix     = ".incr"
	rdbSuffix      = ".rdb"
	aofSuffix      = ".aof"
	manifestSuffix = ".manifest"
	tempPrefix     = "temp-"
)

// ManifestFileName is the name of the manifest in the AOF directory,
// "<appendfilename>.manifest" (getAofManifestFileName).
func ManifestFileName(fileName string) string { return fileName + manifestSuffix }

// TempManifestFileName is the name the manifest is first written under,
// "temp-<appendfilename>.manifest" (getTempAofManifestFileName), before it
// is renamed over ManifestFileName.
func TempManifestFileName(fileName string) string {
	return tempPrefix + fileName + manifestSuffix
}

// BaseFileName is the name of the base file of sequence number seq,
// "<appendfilename>.<seq>.base.rdb", or "<appendfilename>.<seq>.base.aof"
// when rdbPreamble (aof-use-rdb-preamble) is false
// (getNewBaseFileNameAndMarkPreAsHistory).
func BaseFileName(fileName string, seq int64, rdbPreamble bool) string {
	suffix := aofSuffix
	if rdbPreamble {
		suffix = rdbSuffix
	}
	return fileName + "." + strconv.FormatInt(seq, 10) + baseSuffix + suffix
}

// IncrFileName is the name of the incremental file of sequence number seq,
// "<appendfilename>.<seq>.incr.aof" (getNewIncrAofName).
func IncrFileName(fileName string, seq int64) string {
	return fileName + "." + strconv.FormatInt(seq, 10) + incrSuffix + aofSuffix
}

// TempIncrFileName is the name of the incremental file Redis writes while
// AOF is being turned on at run time (AOF_WAIT_REWRITE), before the first
// rewrite completes: "temp-<appendfilename>.incr" (getTempIncrAofName).
func TempIncrFileName(fileName string) string {
	return tempPrefix + fileName + incrSuffix
}

// TempRewriteFileName is the name of the file a background rewrite writes
// the new base to before it is renamed into the AOF directory,
// "temp-rewriteaof-bg-<pid>.aof" (Redis writes it in the working
// directory; the pid is the rewriting child's).
func TempRewriteFileName(pid int) string {
	return fmt.Sprintf("temp-rewriteaof-bg-%d.aof", pid)
}
