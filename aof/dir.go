package aof

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Dir is an AOF directory (dir/appenddirname) and its manifest, with the
// file operations Redis 7.0 performs on it: opening the incremental file
// at start-up, rotating it when a rewrite starts, installing a rewrite's
// base, deleting history files and migrating an old-style AOF. Every
// change to the manifest is made on a copy that replaces Manifest only
// once the manifest file is durably written (persistAofManifest), so a
// failed operation leaves Manifest as it was. A Dir is not safe for
// concurrent use.
type Dir struct {
	// Path is the AOF directory.
	Path string
	// FileName is appendfilename, the prefix of the file names.
	FileName string
	// RDBPreamble is aof-use-rdb-preamble: it chooses the suffix of new
	// base files (".rdb" or ".aof"). What is written in them is the
	// caller's.
	RDBPreamble bool
	// Manifest is the current manifest.
	Manifest *Manifest
	// Log, when set, receives the notices Redis logs for these
	// operations ("Creating AOF incr file ... on background rewrite", ...).
	Log func(level LogLevel, msg string)
}

// OpenDir reads the manifest of the AOF directory path, as
// aofLoadManifestFromDisk does: when the directory or the manifest does
// not exist, the manifest is empty (and is written on the first change);
// a manifest that cannot be read or parsed is an error (*ManifestError).
// RDBPreamble is set to Redis's default, yes.
func OpenDir(path, fileName string) (*Dir, error) {
	d := &Dir{Path: path, FileName: fileName, RDBPreamble: true, Manifest: &Manifest{}}
	if !dirExists(path) {
		return d, nil
	}
	mp := d.ManifestPath()
	if !fileExists(mp) {
		return d, nil
	}
	m, err := ReadManifestFile(mp)
	if err != nil {
		return nil, err
	}
	d.Manifest = m
	return d, nil
}

// ManifestPath is the path of the manifest file.
func (d *Dir) ManifestPath() string { return filepath.Join(d.Path, ManifestFileName(d.FileName)) }

// FilePath is the path of the file name in the AOF directory.
func (d *Dir) FilePath(name string) string { return filepath.Join(d.Path, name) }

func (d *Dir) log(level LogLevel, format string, args ...any) {
	if d.Log != nil {
		d.Log(level, fmt.Sprintf(format, args...))
	}
}

// commit writes m as the manifest and makes it d's.
func (d *Dir) commit(m *Manifest) error {
	if err := WriteManifestFile(d.Path, d.FileName, m); err != nil {
		d.log(LogWarning, "%s", err)
		return err
	}
	d.Manifest = m
	return nil
}

// PersistManifest writes the current manifest (WriteManifestFile).
func (d *Dir) PersistManifest() error { return d.commit(d.Manifest) }

// createDir is dirCreateIfMissing: mkdir with mode 0755, an existing
// directory being fine.
// MakeDir creates the directory if it does not exist (Redis's error
// when it cannot).
func (d *Dir) MakeDir() error { return d.createDir() }

func (d *Dir) createDir() error {
	if err := os.Mkdir(d.Path, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return opErr(err, "Can't open or create append-only dir %s: %s", d.Path, strerror(err))
	}
	return nil
}

// UpgradeOldStyle migrates an old-style single-file AOF, as Redis 7.0 does
// at start-up (loadAppendOnlyFiles, aofUpgradePrepare). When the file
// workDir/FileName exists (workDir is Redis's "dir", where versions before
// 7.0 kept appendonly.aof) and
//
//   - the AOF directory does not exist, or
//   - the manifest lists no base and no incremental file, or
//   - it lists only a base named FileName, which is not in the directory
//     (an earlier migration stopped half-way),
//
// it creates the directory, makes FileName the base (sequence 1) in the
// manifest, persists it, then moves the file into the directory, and
// reports true. The caller then loads the directory as usual (the base is
// read with its RDB preamble, if any, and its command tail), and must
// call UpgradeOldStyle before Load: Load does not look at workDir. A crash
// at any step leaves files from which the next start-up completes the
// migration.
func (d *Dir) UpgradeOldStyle(workDir string) (bool, error) {
	oldPath := filepath.Join(workDir, d.FileName)
	if !fileExists(oldPath) {
		return false, nil
	}
	m := d.Manifest
	if dirExists(d.Path) && !m.Empty() &&
		(m.Base == nil || len(m.Incr) != 0 || m.Base.Name != d.FileName || fileExists(d.FilePath(d.FileName))) {
		return false, nil
	}
	if fileExists(d.FilePath(d.FileName)) {
		// Redis asserts !aofFileExist(server.aof_filename).
		return false, fmt.Errorf("aof: both %s and %s exist", oldPath, d.FilePath(d.FileName))
	}
	if err := d.createDir(); err != nil {
		return false, err
	}
	nm := m.Clone()
	nm.Base = &Entry{Name: d.FileName, Seq: 1, Type: TypeBase}
	nm.CurBaseSeq = 1
	if err := d.commit(nm); err != nil {
		return false, err
	}
	if err := os.Rename(oldPath, d.FilePath(d.FileName)); err != nil {
		return false, opErr(err, "Error trying to move the old AOF file %s into dir %s: %s", d.FileName, d.Path, strerror(err))
	}
	d.log(LogNotice, "Successfully migrated an old-style AOF file (%s) into the AOF directory (%s).", d.FileName, d.Path)
	return true, nil
}

// OpenForAppend opens the incremental file to append to at start-up, after
// loading, as aofOpenIfNeededOnServerStart does: it creates the directory
// if needed; when the manifest has no base and no incremental file (a
// start with an empty dataset), it first writes a base with writeBase
// (see WriteBase); then it opens the last incremental file, or a new one
// when there is none, with O_WRONLY|O_CREAT (mode 0644; no O_APPEND: see
// OSFile), and
// persists the manifest if it changed. It returns the file, its name and
// its size (aof_last_incr_size). writeBase may be nil when the manifest is
// not empty.
func (d *Dir) OpenForAppend(writeBase func(w io.Writer) error) (f *os.File, name string, size int64, err error) {
	if err := d.createDir(); err != nil {
		return nil, "", 0, err
	}
	m := d.Manifest.Clone()
	changed := false
	if m.Empty() {
		if writeBase == nil {
			return nil, "", 0, errors.New("aof: OpenForAppend needs writeBase to create the base")
		}
		base := m.NewBase(d.FileName, d.RDBPreamble)
		tmp, err := d.WriteBase(writeBase)
		if err != nil {
			return nil, "", 0, err
		}
		if err := os.Rename(tmp, d.FilePath(base)); err != nil {
			os.Remove(tmp)
			return nil, "", 0, opErr(err, "Error moving temp append only file on the final destination: %s", strerror(err))
		}
		changed = true
		d.log(LogNotice, "Creating AOF base file %s on server start", base)
	}
	name, created := m.LastIncr(d.FileName)
	changed = changed || created
	f, err = os.OpenFile(d.FilePath(name), os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, "", 0, opErr(err, "Can't open the append-only file %s: %s", name, strerror(err))
	}
	if changed {
		if err := d.commit(m); err != nil {
			f.Close()
			return nil, "", 0, err
		}
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, "", 0, err
	}
	if created {
		d.log(LogNotice, "Creating AOF incr file %s on server start", name)
	} else {
		d.log(LogNotice, "Opening AOF incr file %s on server start", name)
	}
	return f, name, fi.Size(), nil
}

// RotateIncr starts a new incremental file, as openNewIncrAofForAppend
// does when a rewrite starts with AOF on: it names the next incremental
// file, creates it (O_WRONLY|O_TRUNC|O_CREAT, mode 0644) and persists the
// manifest listing it; on failure nothing changes (the new file may be
// left behind). The caller writes its buffered commands to the old file
// before, switches to the new one (Appender.Reopen, which also fsyncs and
// closes the old file in the background), and from then on emits a SELECT
// before the next command (Feeder.ForceSelect).
func (d *Dir) RotateIncr() (*os.File, string, error) {
	m := d.Manifest.Clone()
	name := m.NewIncr(d.FileName)
	f, err := os.OpenFile(d.FilePath(name), os.O_WRONLY|os.O_TRUNC|os.O_CREATE, 0o644)
	if err != nil {
		err = opErr(err, "Can't open the append-only file %s: %s", name, strerror(err))
		d.log(LogWarning, "%s", err)
		return nil, "", err
	}
	if err := d.commit(m); err != nil {
		f.Close()
		return nil, "", err
	}
	d.log(LogNotice, "Creating AOF incr file %s on background rewrite", name)
	return f, name, nil
}

// CreateTempIncr creates (truncating) the temporary incremental file
// TempIncrFileName, which Redis writes to when AOF is turned on at run
// time until the first rewrite completes (AOF_WAIT_REWRITE); the manifest
// does not list it. InstallRewrite with tempIncr set renames it.
func (d *Dir) CreateTempIncr() (*os.File, error) {
	if err := d.createDir(); err != nil {
		return nil, err
	}
	name := TempIncrFileName(d.FileName)
	f, err := os.OpenFile(d.FilePath(name), os.O_WRONLY|os.O_TRUNC|os.O_CREATE, 0o644)
	if err != nil {
		return nil, opErr(err, "Can't open the append-only file %s: %s", name, strerror(err))
	}
	d.log(LogNotice, "Creating AOF incr file %s on background rewrite", name)
	return f, nil
}

// RemoveTempIncr deletes the temporary incremental file
// (aofDelTempIncrAofFile, after a rewrite ends while AOF is being turned
// on). A missing file is not an error.
func (d *Dir) RemoveTempIncr() error {
	name := TempIncrFileName(d.FileName)
	d.log(LogNotice, "Removing the temp incr aof file %s in the background", name)
	if err := os.Remove(d.FilePath(name)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// WriteBase writes a new base to a temporary file in the AOF directory, as
// rewriteAppendOnlyFile does: write streams the content (through a
// buffer: an RDB written with rdb.FileWriter with AOFBase set, or commands
// encoded with AppendCommand, starting with a SELECT), then the file is
// flushed, fsynced and closed. It returns the temporary file's path, for
// InstallRewrite (or OpenForAppend); on failure the file is removed. The
// temporary name is TempRewriteFileName of this process.
func (d *Dir) WriteBase(write func(w io.Writer) error) (string, error) {
	if err := d.createDir(); err != nil {
		return "", err
	}
	tmp := d.FilePath(TempRewriteFileName(os.Getpid()))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_TRUNC|os.O_CREATE, 0o644)
	if err != nil {
		return "", opErr(err, "Opening the temp file for AOF rewrite in rewriteAppendOnlyFile(): %s", strerror(err))
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return "", opErr(err, "Write error writing append only file on disk: %s", strerror(err))
	}
	return tmp, nil
}

// InstallRewrite installs the base a rewrite wrote to tmpPath, as
// backgroundRewriteDoneHandler does on success:
//
//  1. the new base gets the next base name (the old base becomes history)
//     and tmpPath is renamed to it;
//  2. with tempIncr (AOF was being turned on: AOF_WAIT_REWRITE), the
//     temporary incremental file is renamed to the next incremental name;
//  3. the incremental files the rewrite covered become history: all of
//     them when aofOn is false (no incremental file is being written),
//     all but the last otherwise;
//  4. the manifest is persisted.
//
// On failure the files renamed are removed again, Manifest is unchanged,
// and the rewrite has failed. On success it returns the new base's name;
// the caller then calls DeleteHistory (unless aof-disable-auto-gc), makes
// the next command emit a SELECT, and counts aof_current_size as the new
// base's size plus the current incremental file's.
func (d *Dir) InstallRewrite(tmpPath string, aofOn, tempIncr bool) (string, error) {
	m := d.Manifest.Clone()
	base := m.NewBase(d.FileName, d.RDBPreamble)
	basePath := d.FilePath(base)
	if err := os.Rename(tmpPath, basePath); err != nil {
		err = opErr(err, "Error trying to rename the temporary AOF base file %s into %s: %s", tmpPath, basePath, strerror(err))
		d.log(LogWarning, "%s", err)
		return "", err
	}
	d.log(LogNotice, "Successfully renamed the temporary AOF base file %s into %s", filepath.Base(tmpPath), base)
	var incrPath string
	if tempIncr {
		tmpName := TempIncrFileName(d.FileName)
		incr := m.NewIncr(d.FileName)
		incrPath = d.FilePath(incr)
		if err := os.Rename(d.FilePath(tmpName), incrPath); err != nil {
			err = opErr(err, "Error trying to rename the temporary AOF incr file %s into %s: %s",
				d.FilePath(tmpName), incrPath, strerror(err))
			d.log(LogWarning, "%s", err)
			os.Remove(basePath)
			return "", err
		}
		d.log(LogNotice, "Successfully renamed the temporary AOF incr file %s into %s", tmpName, incr)
	}
	m.MarkIncrAsHistory(aofOn)
	if err := d.commit(m); err != nil {
		os.Remove(basePath)
		if incrPath != "" {
			os.Remove(incrPath)
		}
		return "", err
	}
	return base, nil
}

// DeleteHistory deletes the history files and persists the manifest
// without them, as aofDelHistoryFiles does (Redis unlinks in a background
// thread and ignores the outcome; so does this: a file that cannot be
// removed is only reported, in the returned slice). It does nothing when
// there is no history.
func (d *Dir) DeleteHistory() (failed []string, err error) {
	if len(d.Manifest.History) == 0 {
		return nil, nil
	}
	for _, e := range d.Manifest.History {
		d.log(LogNotice, "Removing the history file %s in the background", e.Name)
		if err := os.Remove(d.FilePath(e.Name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			failed = append(failed, e.Name)
		}
	}
	m := d.Manifest.Clone()
	m.History = nil
	return failed, d.commit(m)
}

// fileExists is Redis's fileExist: a regular file.
func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// dirExists is Redis's dirExists.
func dirExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
