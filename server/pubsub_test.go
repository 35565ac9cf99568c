package server

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// conversation runs steps on two connections to one server and returns
// every reply read, in order. A step is "N> command" (send on connection
// N, read its reply), "N< " (read one more reply, a message), "N! cmd"
// (send without reading) or "N~ cmd" (run, reply not kept).
func conversation(t *testing.T, addr string, steps []string) []string {
	t.Helper()
	conns := []*difftest.Conn{difftest.Dial(t, addr), difftest.Dial(t, addr)}
	var out []string
	for _, st := range steps {
		c := conns[st[0]-'0']
		line := strings.TrimSpace(st[2:])
		switch st[1] {
		case '>':
			out = append(out, st+" => "+c.Do(difftest.Split(line)...))
		case '!':
			c.Send(difftest.Encode(difftest.Split(line)...))
		case '<':
			out = append(out, st+" => "+c.Read())
		case '~':
			c.Do(difftest.Split(line)...) // a reply not compared
		}
	}
	return out
}

// TestPubSubConversation: subscriptions, messages, confirmations, the
// RESP2 subscribed context and RESP3 pushes, byte for byte as Redis.
func TestPubSubConversation(t *testing.T) {
	if shared.redisErr != nil {
		t.Skip("SKIPPING differential test: " + shared.redisErr.Error())
	}
	steps := []string{
		"0> SUBSCRIBE a b",
		"0< ",
		"1> PUBLISH a hello",
		"0< ",
		"1> PUBLISH nobody x",
		"1> PUBSUB NUMSUB a b c",
		"1> PUBSUB CHANNELS a*",
		"1> PUBSUB NUMPAT",
		"0> PSUBSCRIBE a* z?",
		"0< ",
		"1> PUBSUB NUMPAT",
		"1> PUBLISH a two",
		"0< ",
		"0< ",
		"1> PUBLISH zz three",
		"0< ",
		"0> GET x",
		"0> PING",
		"0> PING hi",
		"0> SUBSCRIBE a",
		"0> UNSUBSCRIBE a nosuch",
		"0< ",
		"0> UNSUBSCRIBE",
		"0> UNSUBSCRIBE",
		"0> PUNSUBSCRIBE z?",
		"0> PUNSUBSCRIBE",
		"0> PUNSUBSCRIBE",
		"0> PING",
		"0> GET x",
		"0> SSUBSCRIBE s1",
		"1> SPUBLISH s1 shard",
		"0< ",
		"1> PUBLISH s1 notshard",
		"1> PUBSUB SHARDCHANNELS",
		"1> PUBSUB SHARDNUMSUB s1 s2",
		"0> MULTI",
		"0> SUNSUBSCRIBE s1",
		"0> SUNSUBSCRIBE",
		"0> SUBSCRIBE r",
		"0> RESET",
		"1> PUBLISH r x",
		"0> GET x",
		"1~ HELLO 3",
		"1> SUBSCRIBE p3",
		"1> GET x",
		"1> PUBLISH p3 self",
		"1< ",
		"0> PUBLISH p3 other",
		"1< ",
		"1> UNSUBSCRIBE",
		"1> UNSUBSCRIBE",
		"1> PSUBSCRIBE",
		"0> PUBLISH",
		"0> PUBSUB",
		"0> PUBSUB FOO",
		"0> PUBSUB NUMPAT x",
		"0> PUBSUB CHANNELS a b",
		"0> PUBSUB HELP",
		"0> MULTI",
		"0> SUBSCRIBE m",
		"0> EXEC",
		"0> PUBSUB NUMSUB m",
		"0> UNSUBSCRIBE m",
		"0> EVAL \"return redis.call('subscribe', 'x')\" 0",
		"0> EVAL \"return redis.call('publish', 'x', 'y')\" 0",
	}
	want := conversation(t, shared.redis, steps)
	got := conversation(t, sharedHotKV(t), steps)
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Errorf("step %d\n redis: %q\n hotkv: %q", i, want[i], got[min(i, len(got)-1)])
		}
	}
}

// TestPubSubManyPublishers: every message reaches every subscriber once,
// in order per publisher, with publishers and subscribers running at once.
func TestPubSubManyPublishers(t *testing.T) {
	_, addr := startServer(t)
	const subs, pubs, msgs = 4, 4, 400
	type sub struct {
		conn net.Conn
		r    *bufio.Reader
	}
	var ss []sub
	for range subs {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		r := bufio.NewReader(conn)
		conn.Write(difftest.Encode("SUBSCRIBE", "news"))
		conn.Write(difftest.Encode("PSUBSCRIBE", "n*"))
		for range 2 {
			if _, err := difftest.ReadReply(r); err != nil {
				t.Fatal(err)
			}
		}
		ss = append(ss, sub{conn, r})
	}
	var wg sync.WaitGroup
	for p := range pubs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			r := bufio.NewReader(c)
			for i := range msgs {
				c.Write(difftest.Encode("PUBLISH", "news", fmt.Sprintf("%d:%d", p, i)))
				if got, err := difftest.ReadReply(r); err != nil || got != fmt.Sprintf(":%d\r\n", 2*subs) {
					t.Errorf("PUBLISH: %q, %v", got, err)
					return
				}
			}
		}()
	}
	for si, s := range ss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			next := [2][pubs]int{} // per kind (message, pmessage), per publisher
			s.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
			for range 2 * pubs * msgs {
				raw, err := difftest.ReadReply(s.r)
				if err != nil {
					t.Errorf("subscriber %d: %v", si, err)
					return
				}
				parts := strings.Split(raw, "\r\n")
				kind, body := 0, parts[len(parts)-2]
				if parts[2] == "pmessage" {
					kind = 1
				}
				var p, i int
				fmt.Sscanf(body, "%d:%d", &p, &i)
				if i != next[kind][p] {
					t.Errorf("subscriber %d got %q, want message %d of publisher %d", si, raw, next[kind][p], p)
					return
				}
				next[kind][p]++
			}
		}()
	}
	wg.Wait()
}

// TestPubSubSlowSubscriber: a subscriber that does not read does not slow
// the publisher down, and is disconnected once its queued output passes
// client-output-buffer-limit pubsub.
func TestPubSubSlowSubscriber(t *testing.T) {
	_, addr := startServer(t, "--client-output-buffer-limit", "pubsub", "1mb", "256kb", "60")
	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	slow.(*net.TCPConn).SetReadBuffer(4096)
	slow.Write(difftest.Encode("SUBSCRIBE", "flood"))
	c := difftest.Dial(t, addr)
	for deadline := time.Now().Add(5 * time.Second); c.Do("PUBSUB", "NUMSUB", "flood") != "*2\r\n$5\r\nflood\r\n:1\r\n"; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no subscriber")
		}
	}
	msg := strings.Repeat("x", 64<<10)
	start := time.Now()
	for i := 0; i < 200 && strings.Contains(c.Do("PUBSUB", "NUMSUB", "flood"), ":1\r\n"); i++ {
		c.Do("PUBLISH", "flood", msg)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("publishing to a slow subscriber took %v", d)
	}
	if got := c.Do("PUBSUB", "NUMSUB", "flood"); got != "*2\r\n$5\r\nflood\r\n:0\r\n" {
		t.Errorf("the slow subscriber is still there: %q\n%s", got, c.Do("CLIENT", "LIST"))
	}
}

// TestPubSubReplyOff: (un)subscribe confirmations and messages reach a
// client whatever CLIENT REPLY says (Redis's CLIENT_PUSHING), in RESP2
// and RESP3; its other replies stay silenced. Against redis-server.
func TestPubSubReplyOff(t *testing.T) {
	p := newPair(t)
	pub := newPair(t)
	for _, proto := range []string{"2", "3"} {
		for _, mode := range []string{"OFF", "SKIP"} {
			steps := [][]string{
				{"SUBSCRIBE", "channel"},
				{"PSUBSCRIBE", "ch*"},
				{"PING"}, // silenced under OFF; under SKIP the SKIP is used up
				{"UNSUBSCRIBE", "channel"},
				{"PUNSUBSCRIBE", "ch*"},
				{"UNSUBSCRIBE"},
			}
			for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
				c.Do("HELLO", proto)
				c.Send(difftest.Encode("CLIENT", "REPLY", mode))
			}
			for _, st := range steps {
				if st[0] == "PING" && mode == "OFF" {
					for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
						c.Send(difftest.Encode(st...))
					}
					continue
				}
				want := p.Redis.Do(st...)
				if got := p.HotKV.Do(st...); got != want {
					t.Errorf("RESP%s, CLIENT REPLY %s, %v: %q, Redis %q", proto, mode, st, got, want)
				}
				if st[0] == "PSUBSCRIBE" {
					pub.Do("PUBLISH channel hello")
					want, got := p.Redis.Read(), p.HotKV.Read()
					if got != want {
						t.Errorf("RESP%s, CLIENT REPLY %s, message: %q, Redis %q", proto, mode, got, want)
					}
					want, got = p.Redis.Read(), p.HotKV.Read()
					if got != want {
						t.Errorf("RESP%s, CLIENT REPLY %s, pmessage: %q, Redis %q", proto, mode, got, want)
					}
				}
			}
			for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
				if mode == "OFF" {
					c.Send(difftest.Encode("CLIENT", "REPLY", "ON"))
					if got := c.Read(); got != "+OK\r\n" {
						t.Fatalf("CLIENT REPLY ON: %q", got)
					}
				}
			}
		}
	}
}
