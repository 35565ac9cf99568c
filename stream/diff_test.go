package stream

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// The differential test drives random stream commands on a real
// redis-server 7.0 and on a Stream, through a small command layer written
// here the way the server is meant to use the package, and compares the
// replies, XINFO STREAM and GROUPS, XPENDING, whole ranges, and the DUMP
// payload: node by node, the listpack bytes must be Redis's own.

// startRedis starts redis-server with uncompressed DUMP payloads.
func startRedis(t *testing.T) *difftest.Conn {
	t.Helper()
	addr := difftest.StartRedis(t, "--rdbcompression", "no")
	c := difftest.Dial(t, addr)
	if v := c.Do("INFO", "server"); !strings.Contains(v, "redis_version:7.0.") {
		t.Skipf("SKIPPING differential test: redis-server is not 7.0 (%q)", firstLine(v, "redis_version:"))
	}
	return c
}

func firstLine(s, prefix string) string {
	for _, l := range strings.Split(s, "\r\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// harness runs one random session on one key.
type harness struct {
	t       *testing.T
	c       *difftest.Conn
	r       *rand.Rand
	key     string
	lim     Limits
	s       *Stream
	ids     []ID     // every ID added, for picking targets
	style   int      // 0: small entries, 1: mixed, 2: many long values
	history []string // the last commands, for failure reports
	stats   map[string]int
}

// note counts an event, for the coverage summary the test logs.
func (h *harness) note(what string, n int) {
	if h.stats == nil {
		h.stats = map[string]int{}
	}
	h.stats[what] += n
}

// noteMax records the greatest value seen.
func (h *harness) noteMax(what string, n int) {
	h.note(what, max(n-h.stats[what], 0))
}

const (
	oldAge  = 1_000_000 // delivery times pinned this far in the past
	minIdle = 500_000   // a min-idle that separates them from fresh ones
)

var groupNames = []string{"g0", "g1", "g2"}
var consumerNames = []string{"alice", "bob", "carol", "dave"}

func now() int64 { return time.Now().UnixMilli() }

// do sends a command to Redis and returns the parsed reply.
func (h *harness) do(args ...string) any {
	h.t.Helper()
	h.history = append(h.history, strings.Join(args, " "))
	if len(h.history) > 30 {
		h.history = h.history[1:]
	}
	return parseResp(h.c.Do(args...))
}

// expect compares a reply with the model's.
func (h *harness) expect(what string, got, want any) {
	h.t.Helper()
	if !reflect.DeepEqual(got, want) {
		h.t.Fatalf("%s differs\nredis: %#v\nmodel: %#v\nlast commands:\n  %s", what, got, want, strings.Join(h.history, "\n  "))
	}
}

func (h *harness) pick(xs []string) string { return xs[h.r.IntN(len(xs))] }

// randID returns an ID near the stream's IDs: one that was added (maybe
// deleted since), or one in between.
func (h *harness) randID() ID {
	if len(h.ids) == 0 || h.r.IntN(8) == 0 {
		return ID{uint64(h.r.IntN(3)), uint64(h.r.IntN(3))}
	}
	id := h.ids[h.r.IntN(len(h.ids))]
	switch h.r.IntN(6) {
	case 0:
		id.Seq++
	case 1:
		if id.Seq > 0 {
			id.Seq--
		}
	}
	return id
}

// pendingID returns an ID pending in the group, or some other ID.
func (h *harness) pendingID(g *Group) ID {
	if g != nil && g.PendingCount() > 0 && h.r.IntN(4) != 0 {
		all := g.PendingRange(nil, MinID, MaxID, -1, 0, 0)
		return all[h.r.IntN(len(all))].ID()
	}
	return h.randID()
}

// randValue returns a field or value: often short, sometimes an integer
// (listpacks store those as integers), sometimes long.
func (h *harness) randValue(field bool) []byte {
	switch k := h.r.IntN(20); {
	case field && k < 14:
		return []byte("f" + strconv.Itoa(h.r.IntN(4)))
	case k < 3:
		return []byte(strconv.FormatInt(h.r.Int64N(1<<40)>>h.r.IntN(40)-(1<<39)>>h.r.IntN(40), 10))
	case k < 4:
		return []byte(h.pick([]string{"0", "-0", "007", "127", "128", "-4096", "4095", "9223372036854775807", "-9223372036854775808", "9223372036854775808", ""}))
	case !field && (h.style == 1 && k < 5 || h.style == 2 && k < 9):
		return bytes.Repeat([]byte{'L'}, 60+h.r.IntN(4500))
	case h.style == 0:
		return bytes.Repeat([]byte{byte('a' + h.r.IntN(26))}, h.r.IntN(20))
	}
	return bytes.Repeat([]byte{byte('a' + h.r.IntN(26))}, h.r.IntN(120))
}

func (h *harness) trimArgs() ([]string, Trim) {
	var t Trim
	var args []string
	if h.r.IntN(2) == 0 {
		t.Strategy = TrimMaxLen
		n := max(int(h.s.Len())-h.r.IntN(8), 0)
		if h.r.IntN(10) == 0 {
			n = h.r.IntN(int(h.s.Len()) + 3)
		}
		t.MaxLen = uint64(n)
		args = []string{"MAXLEN"}
	} else {
		t.Strategy = TrimMinID
		t.MinID = h.randID()
		if head := h.s.Range(MinID, MaxID, 12, false); len(head) > 0 && h.r.IntN(4) != 0 {
			t.MinID = head[h.r.IntN(len(head))].ID
		}
		args = []string{"MINID"}
	}
	switch h.r.IntN(3) {
	case 0:
		t.Approx = true
		args = append(args, "~")
	case 1:
		args = append(args, "=")
	}
	if t.Strategy == TrimMaxLen {
		args = append(args, strconv.FormatUint(t.MaxLen, 10))
	} else {
		args = append(args, t.MinID.String())
	}
	if t.Approx {
		t.Limit = DefaultTrimLimit(h.lim.MaxEntries)
		if h.r.IntN(3) == 0 {
			t.Limit = int64(h.r.IntN(300))
			args = append(args, "LIMIT", strconv.FormatInt(t.Limit, 10))
		}
	}
	return args, t
}

func (h *harness) xadd() {
	last := h.s.LastID()
	var idArg string
	switch k := h.r.IntN(20); {
	case k < 9:
		idArg = ID{last.Ms, last.Seq + 1 + uint64(h.r.IntN(3))}.String()
	case k < 15:
		idArg = ID{last.Ms + 1 + uint64(h.r.IntN(1000)), uint64(h.r.IntN(3))}.String()
	case k < 17:
		idArg = strconv.FormatUint(last.Ms+uint64(h.r.IntN(2)), 10) + "-*"
	case k < 18:
		idArg = strconv.FormatUint(last.Ms+1, 10)
	case k < 19:
		idArg = last.String() // too small
	default:
		idArg = h.pick([]string{"0-0", "0", "0-*", "-", "1-x", "(5"})
	}
	args := []string{"XADD", h.key}
	var trim *Trim
	if h.r.IntN(15) == 0 {
		ta, t := h.trimArgs()
		args = append(args, ta...)
		trim = &t
	}
	args = append(args, idArg)
	var fv [][]byte
	for n := 1 + h.r.IntN(4); n > 0; n-- {
		f, v := h.randValue(true), h.randValue(false)
		fv = append(fv, f, v)
		args = append(args, string(f), string(v))
	}
	got := h.do(args...)

	var want any
	a, err := ParseAddID([]byte(idArg))
	if err == nil {
		err = a.Validate()
	}
	if err == nil {
		var id ID
		if id, err = h.s.Add(a, now(), fv, h.lim); err == nil {
			want = id.String()
			h.ids = append(h.ids, id)
			if trim != nil {
				h.note("trimmed by XADD", int(h.s.Trim(*trim)))
			}
		}
	}
	if err != nil {
		want = errValue(err)
		h.note("XADD errors", 1)
	}
	h.expect("XADD", got, want)
}

// burst adds n small entries, or deletes up to n live ones, so that
// nodes fill up by count and their counters outgrow one byte.
func (h *harness) burst(n int, del bool) {
	if del {
		live := h.s.Range(MinID, MaxID, 0, false)
		args := []string{"XDEL", h.key}
		var ids []ID
		for ; n > 0 && len(live) > 0; n-- {
			e := live[h.r.IntN(len(live))]
			ids = append(ids, e.ID)
			args = append(args, e.ID.String())
		}
		h.expect("XDEL", h.do(args...), int64(h.s.Delete(ids...)))
		return
	}
	for ; n > 0; n-- {
		last := h.s.LastID()
		id := ID{last.Ms + uint64(h.r.IntN(2)), last.Seq + 1}
		fv := [][]byte{[]byte("f0"), []byte(strconv.Itoa(h.r.IntN(1000)))}
		if h.r.IntN(4) == 0 {
			fv = append(fv, []byte("f1"), bytes.Repeat([]byte{'x'}, h.r.IntN(10)))
		}
		args := []string{"XADD", h.key, id.String()}
		for _, b := range fv {
			args = append(args, string(b))
		}
		if _, err := h.s.Add(AddID{ID: id}, now(), fv, h.lim); err != nil {
			h.t.Fatal(err)
		}
		h.ids = append(h.ids, id)
		h.expect("XADD", h.do(args...), id.String())
	}
}

func (h *harness) xdel() {
	args := []string{"XDEL", h.key}
	var ids []ID
	for n := 1 + h.r.IntN(3); n > 0; n-- {
		id := h.randID()
		ids = append(ids, id)
		args = append(args, id.String())
	}
	h.expect("XDEL", h.do(args...), int64(h.s.Delete(ids...)))
}

func (h *harness) xtrim() {
	ta, t := h.trimArgs()
	got := h.do(append([]string{"XTRIM", h.key}, ta...)...)
	nodes := h.s.NodeCount()
	n := h.s.Trim(t)
	if t.Approx {
		h.note("nodes removed by ~ trims", nodes-h.s.NodeCount())
	}
	h.note("trimmed by XTRIM", int(n))
	h.expect("XTRIM", got, n)
}

func (h *harness) xgroup() {
	name := h.pick(groupNames)
	g := h.s.Group(name)
	switch k := h.r.IntN(10); {
	case k < 4: // CREATE
		idArg, id := "$", h.s.LastID()
		if h.r.IntN(2) == 0 {
			id = h.randID()
			idArg = id.String()
		}
		args := []string{"XGROUP", "CREATE", h.key, name, idArg}
		er := int64(InvalidEntriesRead)
		var want any
		if h.r.IntN(3) == 0 {
			er = int64(h.r.IntN(int(h.s.EntriesAdded())+3)) - 1
			if h.r.IntN(10) == 0 {
				er = -2
			}
			args = append(args, "ENTRIESREAD", strconv.FormatInt(er, 10))
		}
		if er < InvalidEntriesRead {
			want = errValue(ErrEntriesRead)
		} else if _, err := h.s.CreateGroup(name, id, er); err != nil {
			want = errValue(err)
		} else {
			want = "OK"
		}
		h.expect("XGROUP CREATE", h.do(args...), want)
	case k < 6 && g != nil: // SETID
		idArg, id := "$", h.s.LastID()
		if h.r.IntN(3) != 0 {
			id = h.randID()
			idArg = id.String()
		}
		args := []string{"XGROUP", "SETID", h.key, name, idArg}
		er := int64(InvalidEntriesRead)
		if h.r.IntN(2) == 0 {
			er = int64(h.r.IntN(int(h.s.EntriesAdded()) + 2))
			args = append(args, "ENTRIESREAD", strconv.FormatInt(er, 10))
		}
		g.SetID(id, er)
		h.expect("XGROUP SETID", h.do(args...), "OK")
	case k < 7:
		want := int64(0)
		if h.r.IntN(4) != 0 {
			return // destroy rarely
		}
		if h.s.DestroyGroup(name) {
			want = 1
		}
		h.expect("XGROUP DESTROY", h.do("XGROUP", "DESTROY", h.key, name), want)
	case k < 8 && g != nil:
		cn := h.pick(consumerNames)
		_, created := g.CreateConsumer(cn, now())
		h.expect("XGROUP CREATECONSUMER", h.do("XGROUP", "CREATECONSUMER", h.key, name, cn), b2i(created))
	case g != nil:
		cn := h.pick(consumerNames)
		n, _ := g.DeleteConsumer(cn)
		h.expect("XGROUP DELCONSUMER", h.do("XGROUP", "DELCONSUMER", h.key, name, cn), int64(n))
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// existingGroup returns a group of the model, nil when there is none.
func (h *harness) existingGroup() *Group {
	gs := h.s.Groups()
	if len(gs) == 0 {
		return nil
	}
	return gs[h.r.IntN(len(gs))]
}

func (h *harness) xreadgroup() {
	g := h.existingGroup()
	if g == nil {
		return
	}
	cn := h.pick(consumerNames)
	args := []string{"XREADGROUP", "GROUP", g.Name(), cn}
	count := 0
	if h.r.IntN(3) != 0 {
		count = h.r.IntN(6)
		args = append(args, "COUNT", strconv.Itoa(count))
	}
	noack := h.r.IntN(6) == 0
	if noack {
		args = append(args, "NOACK")
	}
	idArg := ">"
	if h.r.IntN(4) == 0 {
		idArg = h.pick([]string{"0", h.pendingID(g).String()})
	}
	args = append(args, "STREAMS", h.key, idArg)
	got := h.do(args...)

	t := now()
	var want any
	if idArg == ">" {
		if last, ok := h.s.LastValidID(); ok && last.Compare(g.LastID()) > 0 {
			c, _ := g.ConsumerFor(cn, t)
			es := h.s.ReadNew(g, c, count, noack, t)
			h.note("read new", len(es))
			want = []any{[]any{h.key, entriesValue(es)}}
		}
	} else {
		after, _ := ParseStrictID([]byte(idArg), 0)
		c, _ := g.ConsumerFor(cn, t)
		es := h.s.ReadHistory(c, after, count, t)
		h.note("read history", len(es))
		for _, e := range es {
			if e.Fields == nil {
				h.note("read history deleted", 1)
			}
		}
		want = []any{[]any{h.key, entriesValue(es)}}
	}
	h.expect("XREADGROUP", got, want)
}

func (h *harness) xack() {
	g := h.existingGroup()
	if g == nil {
		return
	}
	args := []string{"XACK", h.key, g.Name()}
	var ids []ID
	for n := 1 + h.r.IntN(3); n > 0; n-- {
		id := h.pendingID(g)
		ids = append(ids, id)
		args = append(args, id.String())
	}
	h.expect("XACK", h.do(args...), int64(g.Ack(ids...)))
}

func (h *harness) xclaim() {
	g := h.existingGroup()
	if g == nil {
		return
	}
	cn := h.pick(consumerNames)
	var o ClaimOptions
	if h.r.IntN(3) == 0 {
		o.MinIdle = minIdle
	}
	args := []string{"XCLAIM", h.key, g.Name(), cn, strconv.FormatInt(o.MinIdle, 10)}
	var ids []ID
	for n := 1 + h.r.IntN(4); n > 0; n-- {
		id := h.pendingID(g)
		ids = append(ids, id)
		args = append(args, id.String())
	}
	t := now()
	idle := int64(-1)
	switch h.r.IntN(5) {
	case 0, 1:
		o.Time, o.HasTime = t-oldAge, true
		args = append(args, "TIME", strconv.FormatInt(o.Time, 10))
	case 2:
		idle = oldAge
		args = append(args, "IDLE", strconv.FormatInt(idle, 10))
	}
	if h.r.IntN(5) == 0 {
		o.RetryCount, o.HasRetryCount = int64(h.r.IntN(6))-1, true
		args = append(args, "RETRYCOUNT", strconv.FormatInt(o.RetryCount, 10))
	}
	if o.Force = h.r.IntN(5) == 0; o.Force {
		args = append(args, "FORCE")
	}
	if o.JustID = h.r.IntN(3) == 0; o.JustID {
		args = append(args, "JUSTID")
	}
	if h.r.IntN(10) == 0 {
		o.LastID = h.randID()
		args = append(args, "LASTID", o.LastID.String())
	}
	got := h.do(args...)
	t = now()
	if idle >= 0 {
		o.Time, o.HasTime = t-idle, true
	}
	res := h.s.Claim(g, cn, ids, o, t)
	h.note("claimed", len(res.Claimed))
	h.note("claim-deleted", len(res.Deleted))
	var want []any
	if o.JustID {
		for _, e := range res.Claimed {
			want = append(want, e.ID.String())
		}
	} else {
		want = entriesValue(res.Claimed)
	}
	if want == nil {
		want = []any{}
	}
	h.expect("XCLAIM", got, want)
}

func (h *harness) xautoclaim() {
	g := h.existingGroup()
	if g == nil {
		return
	}
	cn := h.pick(consumerNames)
	mi := int64(0)
	if h.r.IntN(3) == 0 {
		mi = minIdle
	}
	start := h.pendingID(g)
	startArg := start.String()
	if h.r.IntN(4) == 0 {
		startArg = "(" + startArg
		start, _ = start.Incr()
	}
	args := []string{"XAUTOCLAIM", h.key, g.Name(), cn, strconv.FormatInt(mi, 10), startArg}
	count := 100
	if h.r.IntN(4) != 0 {
		count = 1 + h.r.IntN(4)
		args = append(args, "COUNT", strconv.Itoa(count))
	}
	justID := h.r.IntN(3) == 0
	if justID {
		args = append(args, "JUSTID")
	}
	got := h.do(args...)
	res := h.s.AutoClaim(g, cn, start, count, mi, justID, now())
	h.note("autoclaimed", len(res.Claimed))
	h.note("autoclaim-deleted", len(res.Deleted))
	claimed := entriesValue(res.Claimed)
	if justID {
		claimed = []any{}
		for _, e := range res.Claimed {
			claimed = append(claimed, e.ID.String())
		}
	}
	h.expect("XAUTOCLAIM", got, []any{res.Next.String(), claimed, idsValue(res.Deleted)})
}

func (h *harness) xsetid() {
	last := h.s.LastID()
	id := ID{last.Ms + uint64(h.r.IntN(3)), last.Seq + uint64(h.r.IntN(3))}
	if h.r.IntN(5) == 0 {
		id = h.randID()
	}
	args := []string{"XSETID", h.key, id.String()}
	added := int64(-1)
	if h.r.IntN(3) == 0 {
		added = int64(h.s.EntriesAdded()) + int64(h.r.IntN(5)) - 2
		if h.r.IntN(5) == 0 {
			added = int64(h.s.Len()) - 1
		}
		args = append(args, "ENTRIESADDED", strconv.FormatInt(added, 10))
	}
	var maxDel ID
	if h.r.IntN(3) == 0 {
		maxDel = h.randID()
		args = append(args, "MAXDELETEDID", maxDel.String())
	}
	var want any = "OK"
	switch {
	case added < 0 && slices.Contains(args, "ENTRIESADDED"):
		want = errValue(ErrEntriesAddedNegative)
	case id.Compare(maxDel) < 0:
		want = errValue(ErrSetIDBelowGivenMaxDel)
	default:
		if err := h.s.SetID(id, added, maxDel); err != nil {
			want = errValue(err)
		}
	}
	h.expect("XSETID", h.do(args...), want)
}

// check is a command whose reply, after fix if any, must be want.
type check struct {
	args []string
	want any
	fix  func(any) any
}

// verify sends the commands of cs in one pipeline and compares the
// replies.
func (h *harness) verify(cs []check) {
	h.t.Helper()
	var buf []byte
	for _, c := range cs {
		buf = append(buf, difftest.Encode(c.args...)...)
	}
	h.c.Send(buf)
	for _, c := range cs {
		got := parseResp(h.c.Read())
		if c.fix != nil {
			got = c.fix(got)
		}
		h.expect(strings.Join(c.args, " "), got, c.want)
	}
}

// checkState compares what XINFO and XPENDING show.
func (h *harness) checkState() {
	s := h.s
	optEntry := func(rev bool) any {
		if es := s.Range(MinID, MaxID, 1, rev); len(es) > 0 {
			return entryValue(es[0])
		}
		return nil
	}
	cs := []check{{
		args: []string{"XINFO", "STREAM", h.key},
		want: []any{
			"length", int64(s.Len()),
			"radix-tree-keys", int64(s.NodeCount()),
			"radix-tree-nodes", nil,
			"last-generated-id", s.LastID().String(),
			"max-deleted-entry-id", s.MaxDeletedID().String(),
			"entries-added", int64(s.EntriesAdded()),
			"recorded-first-entry-id", s.FirstID().String(),
			"groups", int64(s.GroupCount()),
			"first-entry", optEntry(false),
			"last-entry", optEntry(true),
		},
		fix: func(v any) any {
			if a, ok := v.([]any); ok && len(a) > 5 {
				a[5] = nil // radix-tree-nodes: Redis's rax internals
			}
			return v
		},
	}}
	groups := []any{}
	for _, g := range s.Groups() {
		var er, lag any
		if g.EntriesRead() != InvalidEntriesRead {
			er = g.EntriesRead()
		} else {
			h.note("entries-read nil", 1)
		}
		if l, ok := s.Lag(g); ok {
			lag = l
		} else {
			h.note("lag nil", 1)
		}
		groups = append(groups, []any{
			"name", g.Name(), "consumers", int64(g.ConsumerCount()), "pending", int64(g.PendingCount()),
			"last-delivered-id", g.LastID().String(), "entries-read", er, "lag", lag,
		})
		sum := g.PendingSummary()
		want := []any{int64(0), nil, nil, nil}
		if sum.Count > 0 {
			cons := []any{}
			for _, c := range sum.Consumers {
				cons = append(cons, []any{c.Name, strconv.Itoa(c.Count)})
			}
			want = []any{int64(sum.Count), sum.First.String(), sum.Last.String(), cons}
		}
		cs = append(cs, check{args: []string{"XPENDING", h.key, g.Name()}, want: want})
		cons := []any{}
		for _, c := range g.Consumers() {
			cons = append(cons, []any{"name", c.Name(), "pending", int64(c.PendingCount())})
		}
		cs = append(cs, check{args: []string{"XINFO", "CONSUMERS", h.key, g.Name()}, want: cons,
			fix: func(v any) any {
				a, _ := v.([]any)
				for i := range a {
					a[i] = a[i].([]any)[:4] // drop idle, which follows the wall clock
				}
				return v
			}})
	}
	cs = append(cs, check{args: []string{"XINFO", "GROUPS", h.key}, want: groups})
	h.verify(cs)
}

// checkDeep compares ranges, the extended XPENDING and the DUMP payload.
func (h *harness) checkDeep() {
	s := h.s
	a, b := h.randID(), h.randID()
	if a.Compare(b) > 0 {
		a, b = b, a
	}
	afterA, _ := a.Incr()
	cs := []check{
		{args: []string{"XRANGE", h.key, "-", "+"}, want: entriesValue(s.Range(MinID, MaxID, 0, false))},
		{args: []string{"XREVRANGE", h.key, "+", "-", "COUNT", "3"}, want: entriesValue(s.Range(MinID, MaxID, 3, true))},
		{args: []string{"XRANGE", h.key, "(" + a.String(), b.String(), "COUNT", "4"}, want: entriesValue(s.Range(afterA, b, 4, false))},
		{args: []string{"XREVRANGE", h.key, strconv.FormatUint(b.Ms, 10), strconv.FormatUint(a.Ms, 10)},
			want: entriesValue(s.Range(ID{a.Ms, 0}, ID{b.Ms, MaxID.Seq}, 0, true))},
	}
	t := now()
	for _, g := range s.Groups() {
		for _, cn := range append([]string{""}, consumerNames...) {
			args := []string{"XPENDING", h.key, g.Name()}
			mi := int64(0)
			if h.r.IntN(2) == 0 {
				mi = minIdle
				args = append(args, "IDLE", strconv.FormatInt(mi, 10))
			}
			args = append(args, "-", "+", "10")
			var c *Consumer
			if cn != "" {
				args = append(args, cn)
				if c = g.Consumer(cn); c == nil {
					cs = append(cs, check{args: args, want: []any{}})
					continue
				}
			}
			want := []any{}
			for _, p := range g.PendingRange(c, MinID, MaxID, 10, mi, t) {
				want = append(want, []any{p.ID().String(), p.Consumer().Name(), nil, int64(p.DeliveryCount())})
			}
			cs = append(cs, check{args: args, want: want, fix: func(v any) any {
				for _, p := range v.([]any) {
					p.([]any)[2] = nil // idle follows the wall clock
				}
				return v
			}})
		}
	}
	h.verify(cs)

	raw := parseResp(h.c.Do("DUMP", h.key)).(string)
	rd, err := parseStreamDump([]byte(raw))
	if err != nil {
		h.t.Fatalf("DUMP: %v", err)
	}
	md := s.Dump()
	h.noteMax("max nodes", len(md.Nodes))
	h.noteMax("max length", int(s.Len()))
	for _, n := range md.Nodes {
		h.noteMax("max listpack bytes", len(n.Listpack))
		nd, _ := decodeNode(n.Master, n.Listpack)
		h.noteMax("max node counter", max(nd.live, nd.deleted))
	}
	for i := range max(len(rd.Nodes), len(md.Nodes)) {
		if i >= len(rd.Nodes) || i >= len(md.Nodes) || rd.Nodes[i].Master != md.Nodes[i].Master ||
			!bytes.Equal(rd.Nodes[i].Listpack, md.Nodes[i].Listpack) {
			h.t.Fatalf("DUMP: node %d differs (redis has %d nodes, model %d)\nredis: %v\nmodel: %v\nlast commands:\n  %s",
				i, len(rd.Nodes), len(md.Nodes), nodeAt(rd.Nodes, i), nodeAt(md.Nodes, i), strings.Join(h.history, "\n  "))
		}
	}
	// Times follow the wall clock: compare what does not.
	for _, d := range []*Dump{&rd, &md} {
		for i := range d.Groups {
			for j := range d.Groups[i].Pending {
				d.Groups[i].Pending[j].DeliveryTime = 0
			}
			for j := range d.Groups[i].Consumers {
				d.Groups[i].Consumers[j].SeenTime = 0
			}
		}
	}
	h.expect("DUMP", rd, md)

	// What the model dumps, it loads back to the same.
	ls, err := Load(s.Dump())
	if err != nil {
		h.t.Fatalf("Load(Dump()): %v", err)
	}
	if !reflect.DeepEqual(ls.Dump(), s.Dump()) {
		h.t.Fatalf("Load(Dump()) differs")
	}
}

func nodeAt(ns []Node, i int) string {
	if i >= len(ns) {
		return "none"
	}
	return fmt.Sprintf("%v %d bytes %x", ns[i].Master, len(ns[i].Listpack), ns[i].Listpack)
}

// run performs steps random commands, checking as it goes.
func (h *harness) run(steps int) {
	// Start with a key: Redis has none after a failed first XADD.
	id, _ := h.s.Add(AddID{ID: ID{1, 1}}, 0, [][]byte{[]byte("f0"), []byte("v")}, h.lim)
	h.ids = append(h.ids, id)
	h.expect("XADD", h.do("XADD", h.key, "1-1", "f0", "v"), "1-1")
	for i := range steps {
		switch k := h.r.IntN(100); {
		case k < 45 || h.s.Len() < 5:
			h.xadd()
		case k < 47:
			h.burst(30, false)
		case k < 48:
			h.burst(20, true)
		case k < 52:
			h.xdel()
		case k < 56:
			h.xtrim()
		case k < 62:
			h.xgroup()
		case k < 76:
			h.xreadgroup()
		case k < 81:
			h.xack()
		case k < 89:
			h.xclaim()
		case k < 96:
			h.xautoclaim()
		default:
			h.xsetid()
		}
		h.checkState()
		if i%25 == 24 {
			h.checkDeep()
		}
	}
	h.checkDeep()
}

// TestDifferential runs random sessions against redis-server 7.0 under
// several node limits: the defaults, small nodes, and nodes whose counters
// outgrow one-byte integers.
func TestDifferential(t *testing.T) {
	c := startRedis(t)
	for i, lim := range []Limits{DefaultLimits, {MaxBytes: 300, MaxEntries: 5}, {MaxBytes: 0, MaxEntries: 300}, {MaxBytes: 2000, MaxEntries: 0}} {
		t.Run(fmt.Sprintf("%d-%d", lim.MaxBytes, lim.MaxEntries), func(t *testing.T) {
			c.Do("CONFIG", "SET", "stream-node-max-bytes", strconv.FormatInt(lim.MaxBytes, 10),
				"stream-node-max-entries", strconv.FormatInt(lim.MaxEntries, 10))
			for seed := range uint64(3) {
				h := &harness{t: t, c: c, r: rand.New(rand.NewPCG(seed, uint64(i))), key: fmt.Sprintf("s%d-%d", i, seed), lim: lim, s: New(), style: int(seed)}
				h.run(600)
				t.Logf("seed %d: %v", seed, h.stats)
			}
		})
	}
}

// TestDifferentialErrors checks the error texts against Redis's.
func TestDifferentialErrors(t *testing.T) {
	c := startRedis(t)
	do := func(args ...string) any { return parseResp(c.Do(args...)) }
	do("XADD", "s", "5-5", "f", "v")
	s := New()
	if _, err := s.Add(AddID{ID: ID{5, 5}}, 0, [][]byte{[]byte("f"), []byte("v")}, DefaultLimits); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		err  error
	}{
		{[]string{"XADD", "s", "1-x", "f", "v"}, ErrInvalidID},
		{[]string{"XADD", "s", "5-5", "f", "v"}, ErrAddTooSmall},
		{[]string{"XADD", "s", "0-0", "f", "v"}, ErrAddZero},
		{[]string{"XRANGE", "s", "(18446744073709551615-18446744073709551615", "+"}, ErrInvalidStartInterval},
		{[]string{"XRANGE", "s", "-", "(0-0"}, ErrInvalidEndInterval},
		{[]string{"XGROUP", "CREATE", "s", "g", "$"}, nil},
		{[]string{"XGROUP", "CREATE", "s", "g", "$"}, ErrBusyGroup},
		{[]string{"XGROUP", "CREATE", "s", "h", "$", "ENTRIESREAD", "-3"}, ErrEntriesRead},
		{[]string{"XSETID", "s", "1-1"}, ErrSetIDTooSmall},
		{[]string{"XSETID", "s", "6-0", "ENTRIESADDED", "0"}, ErrEntriesAddedTooSmall},
		{[]string{"XSETID", "s", "6-0", "ENTRIESADDED", "-5"}, ErrEntriesAddedNegative},
		{[]string{"XSETID", "s", "6-0", "MAXDELETEDID", "7-0"}, ErrSetIDBelowGivenMaxDel},
		{[]string{"XSETID", "s", "6-0", "MAXDELETEDID", "5-9"}, nil},
		{[]string{"XSETID", "s", "6-0", "MAXDELETEDID", "0-0"}, nil},
		{[]string{"XSETID", "s", "6-0", "ENTRIESADDED", "-1"}, ErrEntriesAddedNegative},
		{[]string{"XDEL", "s", "5-5"}, nil},
		{[]string{"XSETID", "s", "5-0"}, nil},
		{[]string{"XSETID", "s", "18446744073709551615-18446744073709551615"}, nil},
		{[]string{"XADD", "s", "*", "f", "v"}, ErrExhausted},
	} {
		got := do(tc.args...)
		if tc.err == nil {
			if _, ok := got.(respErr); ok {
				t.Fatalf("%v: %v", tc.args, got)
			}
			continue
		}
		if got != errValue(tc.err) {
			t.Errorf("%v: redis says %q, the package %q", tc.args, got, tc.err)
		}
	}
	// The same sequence on the model gives the same errors.
	if err := s.SetID(ID{1, 1}, -1, ID{}); err != ErrSetIDTooSmall {
		t.Errorf("SetID below the top: %v", err)
	}
	if err := s.SetID(ID{6, 0}, 0, ID{}); err != ErrEntriesAddedTooSmall {
		t.Errorf("SetID entries-added below the length: %v", err)
	}
	s.SetID(ID{6, 0}, -1, ID{5, 9})
	s.Delete(ID{5, 5})
	if err := s.SetID(ID{5, 0}, -1, ID{}); err != nil {
		t.Errorf("SetID of an empty stream below the max deleted ID: %v", err)
	}
	s.SetID(MaxID, -1, ID{})
	if _, err := s.Add(AddID{Auto: true}, 1, [][]byte{[]byte("f"), []byte("v")}, DefaultLimits); err != ErrExhausted {
		t.Errorf("Add after MaxID: %v", err)
	}
}
