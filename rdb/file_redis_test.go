package rdb

// Differential tests of whole RDB files against a real redis-server 7.0
// (skipped, loudly, when it is not installed): FileReader reads what SAVE
// writes, and FileWriter rewrites it byte for byte; redis-server loads
// what FileWriter writes at start-up.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// configGet returns a configuration parameter's value.
func configGet(t *testing.T, c *difftest.Conn, name string) string {
	t.Helper()
	r := doArray(t, c, "CONFIG", "GET", name)
	if len(r) != 2 {
		t.Fatalf("CONFIG GET %s = %q", name, r)
	}
	return r[1]
}

// rewriteFile writes, with FileWriter, the records FileReader reported.
func rewriteFile(t *testing.T, fc *fileContent, opts FileWriterOptions) []byte {
	t.Helper()
	aux := map[string]string{}
	for _, kv := range fc.aux {
		k, v, _ := strings.Cut(kv, "=")
		aux[k] = v
	}
	opts.RedisVersion = aux["redis-ver"]
	opts.CTime, _ = strconv.ParseInt(aux["ctime"], 10, 64)
	opts.UsedMem, _ = strconv.ParseInt(aux["used-mem"], 10, 64)
	opts.AOFBase = aux["aof-base"] == "1"
	var buf bytes.Buffer
	fw, err := NewFileWriter(&buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range fc.functions {
		if err := fw.WriteFunction(code); err != nil {
			t.Fatal(err)
		}
	}
	resize := map[int][2]uint64{}
	for _, r := range fc.resize {
		var db int
		var keys, expires uint64
		fmt.Sscanf(r, "%d:%d/%d", &db, &keys, &expires)
		resize[db] = [2]uint64{keys, expires}
	}
	db := -1
	for _, k := range fc.keys {
		if k.db != db {
			db = k.db
			if err := fw.SelectDB(db, resize[db][0], resize[db][1]); err != nil {
				t.Fatal(err)
			}
		}
		if err := fw.WriteKey([]byte(k.key), k.original, k.expire, k.lru, k.lfu); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Finish(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRedisFileRead has Redis SAVE keys of every kind in several databases,
// with expirations, a function library, and LRU or LFU data, and checks
// that FileReader reports exactly that content, and that FileWriter, given
// the records read, writes the very same file.
func TestRedisFileRead(t *testing.T) {
	c := difftest.Dial(t, difftest.StartRedis(t, "--enable-debug-command", "yes"))
	dir := configGet(t, c, "dir")
	rng := rand.New(rand.NewPCG(31, 32))
	type expected struct {
		value  string
		expire int64
	}
	want := map[string]expected{} // "db key"
	lib := "#!lua name=mylib\nredis.register_function('myfunc', function(keys, args) return args[1] end)"
	if r := c.Do("FUNCTION", "LOAD", lib); !strings.HasPrefix(r, "$") {
		t.Fatalf("FUNCTION LOAD: %q", r)
	}
	expireAt := time.Now().Add(24*time.Hour).UnixMilli() + 123
	for _, db := range []int{0, 3, 15} {
		mustDo(t, c, "+OK\r\n", "SELECT", strconv.Itoa(db))
		for i := range 60 {
			v := randomValue(rng)
			key := fmt.Sprintf("key:%d:%d", db, i)
			store(t, c, key, v)
			e := expected{value: canon(v), expire: -1}
			if i%3 == 0 {
				e.expire = expireAt + int64(i)
				mustDo(t, c, ":1\r\n", "PEXPIREAT", key, strconv.FormatInt(e.expire, 10))
			}
			want[fmt.Sprintf("%d %s", db, key)] = e
		}
	}
	for _, policy := range []string{"noeviction", "allkeys-lru", "allkeys-lfu"} {
		for _, compression := range []string{"yes", "no"} {
			mustDo(t, c, "+OK\r\n", "CONFIG", "SET", "maxmemory-policy", policy, "rdbcompression", compression)
			mustDo(t, c, "+OK\r\n", "SAVE")
			file, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
			if err != nil {
				t.Fatal(err)
			}
			fc, err := readFileContent(t, bytes.NewReader(file))
			if err != nil {
				t.Fatalf("%s: reading Redis's file: %v", policy, err)
			}
			if len(fc.keys) != len(want) || fc.info.Keys != int64(len(want)) {
				t.Fatalf("%s: %d keys, want %d", policy, len(fc.keys), len(want))
			}
			for _, k := range fc.keys {
				w, ok := want[fmt.Sprintf("%d %s", k.db, k.key)]
				if !ok || k.value != w.value || k.expire != w.expire {
					t.Fatalf("%s: key %d %q = %.100s expire %d; want %.100s expire %d", policy, k.db, k.key, k.value, k.expire, w.value, w.expire)
				}
				if (k.lru >= 0) != (policy == "allkeys-lru") || (k.lfu >= 0) != (policy == "allkeys-lfu") {
					t.Fatalf("%s: key %q LRU %d LFU %d", policy, k.key, k.lru, k.lfu)
				}
			}
			if len(fc.functions) != 1 || fc.functions[0] != lib {
				t.Fatalf("%s: functions %q", policy, fc.functions)
			}
			if got := strings.Join(fc.resize, " "); got != "0:60/20 3:60/20 15:60/20" {
				t.Fatalf("%s: resize hints %s", policy, got)
			}
			aux := strings.Join(fc.aux, " ")
			if !strings.HasPrefix(aux, "redis-ver=7.0.") || !strings.Contains(aux, " redis-bits=64 ctime=") || !strings.HasSuffix(aux, " aof-base=0") {
				t.Fatalf("%s: aux fields %s", policy, aux)
			}
			if fc.info.Checksum != CRC64(0, file[:len(file)-8]) || fc.info.Size != int64(len(file)) {
				t.Fatalf("%s: info %+v", policy, fc.info)
			}
			opts := DefaultEncodeOptions()
			opts.Compress = compression == "yes"
			if mine := rewriteFile(t, fc, FileWriterOptions{Encode: opts}); !bytes.Equal(mine, file) {
				t.Fatalf("%s, rdbcompression %s: FileWriter's file differs from Redis's (%d bytes, Redis %d)", policy, compression, len(mine), len(file))
			}
		}
	}
	// rdbchecksum no (immutable at run time): 8 zero bytes, which
	// FileReader accepts, as does FileWriter with DisableChecksum.
	c = difftest.Dial(t, difftest.StartRedis(t, "--rdbchecksum", "no"))
	dir = configGet(t, c, "dir")
	for i := range 20 {
		store(t, c, strconv.Itoa(i), randomValue(rng))
	}
	mustDo(t, c, "+OK\r\n", "SAVE")
	file, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	fc, err := readFileContent(t, bytes.NewReader(file))
	if err != nil || fc.info.Checksum != 0 || !bytes.HasSuffix(file, make([]byte, 8)) || len(fc.keys) != 20 {
		t.Fatalf("rdbchecksum no: %+v, %v", fc.info, err)
	}
	if mine := rewriteFile(t, fc, FileWriterOptions{Encode: DefaultEncodeOptions(), DisableChecksum: true}); !bytes.Equal(mine, file) {
		t.Fatal("rdbchecksum no: FileWriter's file differs from Redis's")
	}
}

// TestRedisFileLoad writes files with FileWriter and starts redis-server on
// them: Redis must load every key with its value, type, encoding and
// expiration, the function library, and the LFU counters.
func TestRedisFileLoad(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for _, variant := range []struct {
		name string
		opts FileWriterOptions
	}{
		{"defaults", FileWriterOptions{Encode: DefaultEncodeOptions()}},
		{"no checksum, no compression, small thresholds", FileWriterOptions{DisableChecksum: true, Encode: testConfigs()[1]}},
	} {
		dir := t.TempDir()
		var buf bytes.Buffer
		fw, err := NewFileWriter(&buf, variant.opts)
		if err != nil {
			t.Fatal(err)
		}
		lib := "#!lua name=loaded\nredis.register_function('twice', function(keys, args) return args[1] * 2 end)"
		if err := fw.WriteFunction(lib); err != nil {
			t.Fatal(err)
		}
		type key struct {
			v      *Value
			expire int64
			freq   int
		}
		dbs := map[int]map[string]key{}
		future := time.Now().Add(time.Hour).UnixMilli()
		for _, db := range []int{0, 1, 9} {
			dbs[db] = map[string]key{}
			var names []string
			expires := 0
			for i := range 50 {
				k := key{v: randomValue(rng), expire: -1, freq: rng.IntN(256)}
				if i%4 == 0 {
					k.expire = future + int64(i)
					expires++
				}
				name := fmt.Sprintf("db%d:%d", db, i)
				dbs[db][name] = k
				names = append(names, name)
			}
			if err := fw.SelectDB(db, uint64(len(names)), uint64(expires)); err != nil {
				t.Fatal(err)
			}
			for _, name := range names {
				k := dbs[db][name]
				if err := fw.WriteKey([]byte(name), k.v, k.expire, -1, k.freq); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := fw.Finish(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "ours.rdb"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		// Redis exits at start-up if it cannot load the file.
		o := variant.opts.Encode
		// lfu-decay-time 0: the counters do not decay if a minute turns
		// between writing the file and reading them back.
		c := difftest.Dial(t, difftest.StartRedis(t, "--dir", dir, "--dbfilename", "ours.rdb", "--maxmemory-policy", "allkeys-lfu", "--lfu-decay-time", "0",
			"--hash-max-listpack-entries", strconv.Itoa(o.HashMaxListpackEntries),
			"--hash-max-listpack-value", strconv.Itoa(o.HashMaxListpackValue),
			"--set-max-intset-entries", strconv.Itoa(o.SetMaxIntsetEntries),
			"--zset-max-listpack-entries", strconv.Itoa(o.ZSetMaxListpackEntries),
			"--zset-max-listpack-value", strconv.Itoa(o.ZSetMaxListpackValue)))
		if got := c.Do("FCALL", "twice", "0", "21"); got != ":42\r\n" {
			t.Fatalf("%s: FCALL = %q", variant.name, got)
		}
		for db, keys := range dbs {
			mustDo(t, c, "+OK\r\n", "SELECT", strconv.Itoa(db))
			mustDo(t, c, fmt.Sprintf(":%d\r\n", len(keys)), "DBSIZE")
			for name, k := range keys {
				// First, as reading the value counts as an access.
				mustDo(t, c, fmt.Sprintf(":%d\r\n", k.freq), "OBJECT", "FREQ", name)
				if got := readBack(t, c, name); canon(got) != canon(k.v) {
					t.Fatalf("%s: db %d key %s holds %.200s, want %.200s", variant.name, db, name, canon(got), canon(k.v))
				}
				wantTTL := ":-1\r\n"
				if k.expire != -1 {
					wantTTL = fmt.Sprintf(":%d\r\n", k.expire)
				}
				mustDo(t, c, wantTTL, "PEXPIRETIME", name)
				if k.v.Kind != KindString {
					enc := EncodeValue(nil, k.v, variant.opts.Encode)
					want := encodingName(enc[0])
					if got := c.Do("OBJECT", "ENCODING", name); got != fmt.Sprintf("$%d\r\n%s\r\n", len(want), want) {
						t.Fatalf("%s: %s: OBJECT ENCODING %q, want %s", variant.name, name, got, want)
					}
				}
			}
		}
	}
}
