package hotkv

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestSpecTxPipeline is the Go example of the transactions spec, verbatim.
func TestSpecTxPipeline(t *testing.T) {
	ctx := context.Background()
	client := newTestClient(t)
	client.Del(ctx, "account:42:balance", "account:42:history")

	pipe := client.TxPipeline()
	pipe.Incr(ctx, "account:42:balance")
	pipe.LPush(ctx, "account:42:history", "deposit")
	if _, err := pipe.Exec(ctx); err != nil {
		log.Fatal(err)
	}

	if n, err := client.Get(ctx, "account:42:balance").Int(); err != nil || n != 1 {
		t.Fatalf("balance = %d, %v; want 1", n, err)
	}
	if h, err := client.LRange(ctx, "account:42:history", 0, -1).Result(); err != nil || len(h) != 1 || h[0] != "deposit" {
		t.Fatalf("history = %q, %v; want [deposit]", h, err)
	}
}

// TestTransactionTransfer moves money between two accounts from many
// goroutines at once; the WATCH conflicts force retries, and the total must
// be preserved.
func TestTransactionTransfer(t *testing.T) {
	ctx := context.Background()
	client := newTestClient(t)
	a, b := Key("xfer", "a"), Key("xfer", "b")
	const initial = 1000
	if err := client.MSet(ctx, a, initial, b, initial).Err(); err != nil {
		t.Fatal(err)
	}

	transfer := func(from, to string, amount int) (attempts int, err error) {
		err = client.TransactionWithRetries(ctx, 1000, func(tx *redis.Tx) error {
			attempts++
			fromBal, err := tx.Get(ctx, from).Int()
			if err != nil {
				return err
			}
			toBal, err := tx.Get(ctx, to).Int()
			if err != nil {
				return err
			}
			if fromBal < amount {
				return nil // insufficient funds: nothing to do
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, from, fromBal-amount, 0)
				p.Set(ctx, to, toBal+amount, 0)
				return nil
			})
			return err
		}, from, to)
		return attempts, err
	}

	const workers, perWorker = 16, 50
	var totalAttempts atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				from, to := a, b
				if (w+i)%2 == 1 {
					from, to = b, a
				}
				n, err := transfer(from, to, 1+(w+i)%7)
				totalAttempts.Add(int64(n))
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	av, err := client.Get(ctx, a).Int()
	if err != nil {
		t.Fatal(err)
	}
	bv, err := client.Get(ctx, b).Int()
	if err != nil {
		t.Fatal(err)
	}
	if av+bv != 2*initial {
		t.Fatalf("a+b = %d+%d = %d; want %d", av, bv, av+bv, 2*initial)
	}
	if av < 0 || bv < 0 {
		t.Fatalf("negative balance: a=%d b=%d", av, bv)
	}
	retries := totalAttempts.Load() - workers*perWorker
	t.Logf("%d transactions, %d retries", workers*perWorker, retries)
	if retries == 0 {
		t.Errorf("no retries happened: the concurrent writers never conflicted")
	}
}

// TestTransactionRetriesOnConflict: a writer changes the watched key once,
// the transaction retries and then succeeds.
func TestTransactionRetriesOnConflict(t *testing.T) {
	ctx := context.Background()
	client := newTestClient(t)
	other := newTestClient(t)
	key := Key("retry", "n")
	client.Set(ctx, key, 10, 0)

	attempts := 0
	err := client.Transaction(ctx, func(tx *redis.Tx) error {
		attempts++
		n, err := tx.Get(ctx, key).Int()
		if err != nil {
			return err
		}
		if attempts == 1 {
			other.Incr(ctx, key) // concurrent writer: the first EXEC must fail
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, key, n*2, 0)
			return nil
		})
		return err
	}, key)
	if err != nil {
		t.Fatal(err)
	}
	if attempts != 2 {
		t.Errorf("attempts = %d; want 2", attempts)
	}
	if n, _ := client.Get(ctx, key).Int(); n != 22 {
		t.Errorf("value = %d; want 22 ((10+1)*2)", n)
	}
}

// TestTransactionMaxRetries: a writer that changes the key on every attempt
// exhausts the retries; the error wraps redis.TxFailedErr.
func TestTransactionMaxRetries(t *testing.T) {
	ctx := context.Background()
	client := newTestClient(t)
	other := newTestClient(t)
	key := Key("maxretry", "n")
	client.Set(ctx, key, 0, 0)

	run := func(f func(fn func(*redis.Tx) error) error) (int, error) {
		attempts := 0
		err := f(func(tx *redis.Tx) error {
			attempts++
			if err := tx.Get(ctx, key).Err(); err != nil {
				return err
			}
			other.Incr(ctx, key)
			_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, key, -1, 0)
				return nil
			})
			return err
		})
		return attempts, err
	}

	attempts, err := run(func(fn func(*redis.Tx) error) error { return client.Transaction(ctx, fn, key) })
	if !errors.Is(err, redis.TxFailedErr) {
		t.Fatalf("err = %v; want one wrapping redis.TxFailedErr", err)
	}
	var re *TxRetriesError
	if !errors.As(err, &re) || re.Attempts != DefaultTxMaxRetries+1 {
		t.Fatalf("err = %#v; want *TxRetriesError with %d attempts", err, DefaultTxMaxRetries+1)
	}
	if attempts != DefaultTxMaxRetries+1 {
		t.Errorf("fn ran %d times; want %d", attempts, DefaultTxMaxRetries+1)
	}
	if !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "6 attempts") {
		t.Errorf("message %q should name the key and the attempts", err)
	}
	if n, _ := client.Get(ctx, key).Int(); n != attempts {
		t.Errorf("value = %d; want %d (no transaction write applied)", n, attempts)
	}

	// Configurable: field and explicit variant.
	client.TxMaxRetries = 1
	if attempts, err = run(func(fn func(*redis.Tx) error) error { return client.Transaction(ctx, fn, key) }); attempts != 2 || !errors.Is(err, redis.TxFailedErr) {
		t.Errorf("TxMaxRetries=1: attempts=%d err=%v", attempts, err)
	}
	if attempts, err = run(func(fn func(*redis.Tx) error) error { return client.TransactionWithRetries(ctx, 0, fn, key) }); attempts != 1 || !errors.Is(err, redis.TxFailedErr) {
		t.Errorf("maxRetries=0: attempts=%d err=%v", attempts, err)
	}
}

// TestTransactionFnError: an error from fn is returned at once, not retried.
func TestTransactionFnError(t *testing.T) {
	ctx := context.Background()
	client := newTestClient(t)
	boom := errors.New("boom")
	attempts := 0
	err := client.Transaction(ctx, func(tx *redis.Tx) error { attempts++; return boom }, "fnerr")
	if !errors.Is(err, boom) || attempts != 1 {
		t.Fatalf("err=%v attempts=%d; want boom after 1 attempt", err, attempts)
	}
}

func TestKey(t *testing.T) {
	tests := []struct {
		tag   string
		parts []string
		want  string
	}{
		{"user:42", []string{"balance"}, "{user:42}:balance"},
		{"user:42", []string{"history", "2024"}, "{user:42}:history:2024"},
		{"user:42", nil, "{user:42}"},
		{"queue", []string{"{x}"}, "{queue}:{x}"},
	}
	for _, tt := range tests {
		got := Key(tt.tag, tt.parts...)
		if got != tt.want {
			t.Errorf("Key(%q, %q) = %q; want %q", tt.tag, tt.parts, got, tt.want)
		}
		if HashTag(got) != tt.tag {
			t.Errorf("HashTag(%q) = %q; want %q", got, HashTag(got), tt.tag)
		}
	}
	for _, k := range [][2]string{{"plain", "plain"}, {"{}x", "{}x"}, {"a{b}c", "b"}, {"{a", "{a"}, {"x{}{y}", "x{}{y}"}} {
		if got := HashTag(k[0]); got != k[1] {
			t.Errorf("HashTag(%q) = %q; want %q", k[0], got, k[1])
		}
	}
	for _, bad := range []string{"", "a}b"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Key(%q) did not panic", bad)
				}
			}()
			Key(bad, "x")
		}()
	}
}

const counterSrc = `local current = tonumber(redis.call('GET', KEYS[1]) or "0")
if current >= tonumber(ARGV[1]) then
  return 0
end
redis.call('INCR', KEYS[1])
return 1
`

// TestKeyLockedScript runs the spec's key-locked counter concurrently for
// several users, then checks the NOSCRIPT fallback after SCRIPT FLUSH.
func TestKeyLockedScript(t *testing.T) {
	ctx := context.Background()
	client := newTestClient(t)
	s := KeyLockedScript(counterSrc)
	if !strings.HasPrefix(s.Source(), "#!lua flags=allow-key-locking\n") {
		t.Fatalf("source = %q; missing shebang", s.Source())
	}
	if KeyLockedScript("#!lua flags=no-writes,allow-key-locking\nreturn 1").Source() != "#!lua flags=no-writes,allow-key-locking\nreturn 1" {
		t.Error("an existing shebang must be kept unchanged")
	}

	const users, callers, limit = 4, 8, 30
	var keys []string
	for u := range users {
		k := Key(fmt.Sprintf("user:%d", u), "quota")
		keys = append(keys, k)
		client.Del(ctx, k)
	}
	var wg sync.WaitGroup
	var granted [users]atomic.Int64
	errs := make(chan error, users*callers)
	for u := range users {
		for range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 10 {
					n, err := s.Run(ctx, client, []string{keys[u]}, limit).Int()
					if err != nil {
						errs <- err
						return
					}
					granted[u].Add(int64(n))
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for u, k := range keys {
		if g := granted[u].Load(); g != limit {
			t.Errorf("user %d: granted %d; want %d", u, g, limit)
		}
		if n, _ := client.Get(ctx, k).Int(); n != limit {
			t.Errorf("%s = %d; want %d", k, n, limit)
		}
	}

	// The server enforces the flag: a key with another hash tag is refused.
	bad := KeyLockedScript(`return redis.call('GET', '{other}:x')`)
	if err := bad.Run(ctx, client, []string{Key("user:0", "quota")}).Err(); err == nil || !strings.Contains(err.Error(), "Dynamic keys") {
		t.Errorf("uncovered dynamic key: err = %v; want the allow-key-locking rejection", err)
	}
	// A same-tag dynamic key is covered.
	same := KeyLockedScript(`return redis.call('INCR', '{user:0}:' .. ARGV[1])`)
	if err := same.Run(ctx, client, []string{Key("user:0", "quota")}, "dyn").Err(); err != nil {
		t.Errorf("same-tag dynamic key: %v", err)
	}
}

func TestScriptNoScriptFallback(t *testing.T) {
	ctx := context.Background()
	client := newTestClient(t)
	s := NewScript(`return redis.call('INCRBY', KEYS[1], ARGV[1])`)
	key := Key("script", "n")
	client.Del(ctx, key)

	if err := client.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := client.EvalSha(ctx, s.Hash(), []string{key}, 1).Err(); err == nil || !strings.HasPrefix(err.Error(), "NOSCRIPT") {
		t.Fatalf("EVALSHA after SCRIPT FLUSH: err = %v; want NOSCRIPT", err)
	}
	if n, err := s.Run(ctx, client, []string{key}, 2).Int(); err != nil || n != 2 {
		t.Fatalf("Run after flush = %d, %v; want 2", n, err)
	}
	if ex, err := s.Exists(ctx, client).Result(); err != nil || len(ex) != 1 || !ex[0] {
		t.Fatalf("SCRIPT EXISTS after fallback = %v, %v; want [true]", ex, err)
	}
	if n, err := s.Run(ctx, client, []string{key}, 3).Int(); err != nil || n != 5 {
		t.Fatalf("Run (cached) = %d, %v; want 5", n, err)
	}
	// Explicit SCRIPT LOAD.
	client.ScriptFlush(ctx)
	if sha, err := s.Load(ctx, client).Result(); err != nil || sha != s.Hash() {
		t.Fatalf("Load = %q, %v; want %q", sha, err, s.Hash())
	}
	if n, err := s.EvalSha(ctx, client, []string{key}, 1).Int(); err != nil || n != 6 {
		t.Fatalf("EvalSha after Load = %d, %v; want 6", n, err)
	}
}

func TestParseURL(t *testing.T) {
	ctx := context.Background()
	for _, scheme := range []string{"hotkv", "redis", "HOTKV"} {
		c, err := ParseURL(scheme + "://" + serverAddr + "/3?dial_timeout=2s")
		if err != nil {
			t.Fatalf("%s: %v", scheme, err)
		}
		if got := c.Options().Addr; got != serverAddr {
			t.Errorf("%s: Addr = %q; want %q", scheme, got, serverAddr)
		}
		if c.Options().DB != 3 {
			t.Errorf("%s: DB = %d; want 3", scheme, c.Options().DB)
		}
		if err := c.Ping(ctx).Err(); err != nil {
			t.Errorf("%s: PING: %v", scheme, err)
		}
		c.Close()
	}
	opts, err := ParseOptions("hotkvs://:pw@example.com:7000/1")
	if err != nil {
		t.Fatal(err)
	}
	if opts.TLSConfig == nil || opts.Password != "pw" || opts.Addr != "example.com:7000" || opts.DB != 1 {
		t.Errorf("hotkvs:// options = %+v", opts)
	}
	if _, err := ParseURL("http://localhost:6379"); err == nil || !strings.Contains(err.Error(), "http://localhost:6379") {
		t.Errorf("bad scheme: err = %v; want an error naming the URL", err)
	}
}

func TestDialError(t *testing.T) {
	port, err := freePort() // nothing listens there any more
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	c := NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	err = c.Ping(context.Background()).Err()
	if err == nil {
		t.Fatal("PING to a closed port succeeded")
	}
	var ce *ConnError
	if !errors.As(err, &ce) || ce.Addr != addr {
		t.Fatalf("err = %#v; want *ConnError for %s", err, addr)
	}
	if !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "cannot connect") {
		t.Errorf("message %q should name %s", err, addr)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("err = %v; want it to wrap ECONNREFUSED", err)
	}
	if c.Addr() != addr {
		t.Errorf("Addr() = %q", c.Addr())
	}
}
