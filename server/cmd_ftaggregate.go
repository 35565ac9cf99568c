package server

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/hotkv/hotkv/resp"
	"github.com/hotkv/hotkv/search"
)

// FT.AGGREGATE and FT.CURSOR. The pipeline is the search package's
// (search.Aggregation); this file runs it under the index's lock, loads
// documents' fields for it (searchHash, valid under that lock) and keeps
// cursors.
//
// Cursors belong to the server, not to a connection, as in RediSearch: a
// map guarded by its own mutex (a leaf). A cursor is taken out of the map
// while a read runs it, so two reads of one cursor never run it at once
// (the second finds no cursor). A cursor idle longer than its MAXIDLE is
// gone: it is dropped when next read, or when a new cursor is made.

// defaultCursorCount and defaultMaxIdle are RediSearch's defaults for
// WITHCURSOR's COUNT and MAXIDLE (milliseconds).
const (
	defaultCursorCount = 1000
	defaultMaxIdle     = 300000
)

// ftCursors is the cursor registry (searchState.cursors).
type ftCursors struct {
	mu   sync.Mutex
	byID map[int64]*ftCursor
}

// ftCursor is one cursor: the pipeline it reads and the index it reads
// (its name must still name that index for a read to run it).
type ftCursor struct {
	id      int64
	fi      *ftIndex
	agg     *search.Aggregation
	count   int
	maxIdle time.Duration
	last    time.Time
}

// add registers cur under a new id, dropping expired cursors.
func (cs *ftCursors) add(cur *ftCursor) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.byID == nil {
		cs.byID = map[int64]*ftCursor{}
	}
	now := time.Now()
	for id, x := range cs.byID {
		if now.Sub(x.last) > x.maxIdle {
			delete(cs.byID, id)
		}
	}
	for {
		id := rand.Int64N(1<<31-1) + 1
		if cs.byID[id] == nil {
			cur.id = id
			break
		}
	}
	cur.last = now
	cs.byID[cur.id] = cur
}

// take removes and returns the live cursor id of index fi, or nil. Unlike
// RediSearch, which finds a cursor by id alone, READ needs the cursor's
// own index: it holds that index's lock to run it.
func (cs *ftCursors) take(id int64, fi *ftIndex) *ftCursor {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cur := cs.byID[id]
	if cur == nil {
		return nil
	}
	if time.Since(cur.last) > cur.maxIdle {
		delete(cs.byID, id)
		return nil
	}
	if cur.fi != fi {
		return nil
	}
	delete(cs.byID, id)
	return cur
}

// del removes cursor id, reporting whether there was one.
func (cs *ftCursors) del(id int64) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	_, ok := cs.byID[id]
	delete(cs.byID, id)
	return ok
}

// put returns a cursor that was read and is not done to the registry.
func (cs *ftCursors) put(cur *ftCursor) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cur.last = time.Now()
	cs.byID[cur.id] = cur
}

// aggLoader loads documents' fields for an aggregation from database 0;
// it is used under the index's lock (searchHash).
// The index's SCORE_FIELD and PAYLOAD_FIELD are hidden, as RediSearch's
// loading skips them.
type aggLoader struct {
	s      *Server
	schema *search.Schema
}

func (l aggLoader) Field(key, field string) ([]byte, bool) {
	if l.schema.Hidden(field) {
		return nil, false
	}
	return l.s.searchLoad(key, field)
}

func (l aggLoader) All(key string, each func(field, value []byte)) {
	h := l.s.searchHash(key)
	if h == nil {
		return
	}
	h.Each(func(f, v []byte) bool {
		if !l.schema.Hidden(string(f)) {
			each(f, v)
		}
		return true
	})
}

// FT.AGGREGATE index query [VERBATIM] [LOAD count field [AS name] ... |
// LOAD *] [TIMEOUT ms] [GROUPBY nargs property ... [REDUCE function nargs
// arg ... [AS name]] ...] [SORTBY nargs property [ASC|DESC] ... [MAX n]]
// [APPLY expression AS name] [LIMIT offset num] [FILTER expression]
// [WITHCURSOR [COUNT n] [MAXIDLE ms]] [DIALECT 1|2]
//
// The reply (RESP2): the total (search.Aggregation.Chunk says which), then
// each row's fields and values; RESP3: RediSearch's map. With WITHCURSOR:
// that reply and the cursor's id (0 when it is done).
func cmdFTAggregate(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.AGGREGATE", 2, -1) {
		return
	}
	if len(args) < 3 {
		c.errorReply(errFTNoQuery)
		return
	}
	fi := c.searchQueried(args[1])
	if fi == nil {
		return
	}
	fi.touch() // a TEMPORARY index's timer
	fi.mu.RLock()
	req, err := fi.ix.ParseAggregate(args[2:])
	var agg *search.Aggregation
	if err == nil {
		agg, err = fi.ix.Aggregate(req, aggLoader{c.srv, fi.ix.Schema})
	}
	var total int
	var rows [][]search.AggField
	var done bool
	if err == nil {
		n := 0
		if req.Cursor {
			n = req.CursorCount
			if n == 0 {
				n = defaultCursorCount
			}
		}
		total, rows, done, err = agg.Chunk(n)
	}
	fi.mu.RUnlock()
	if err != nil {
		c.errorReply(err.Error())
		return
	}
	if !req.Cursor {
		writeAggChunk(&c.w, total, rows, nil)
		return
	}
	var id int64
	if !done {
		cur := &ftCursor{fi: fi, agg: agg, count: req.CursorCount, maxIdle: defaultMaxIdle * time.Millisecond}
		if req.MaxIdle > 0 {
			cur.maxIdle = time.Duration(req.MaxIdle) * time.Millisecond
		}
		c.srv.search.cursors.add(cur)
		id = cur.id
	}
	c.w.Array(2)
	writeAggChunk(&c.w, total, rows, nil)
	c.w.Int(id)
}

// FT.CURSOR READ index cursor [COUNT n] | FT.CURSOR DEL index cursor
func cmdFTCursor(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.CURSOR", 4, -1) {
		return
	}
	read := equalFold(args[1], "READ")
	if !read && !equalFold(args[1], "DEL") {
		c.errorReply(errFTCursorSubcommand)
		return
	}
	id, err := strconv.ParseInt(string(args[3]), 10, 64)
	if err != nil {
		c.errorReply(errFTCursorBadID)
		return
	}
	count := 0
	if read && len(args) > 4 {
		if len(args) != 6 || !equalFold(args[4], "COUNT") {
			c.errorReply(errFTCursorCount)
			return
		}
		n, err := strconv.ParseInt(string(args[5]), 10, 64)
		if err != nil || n <= 0 {
			c.errorReply(errFTCursorCount)
			return
		}
		count = int(n)
	}
	fi := c.srv.searchResolve(string(args[2]))
	if !read { // by id alone, as RediSearch
		if !c.srv.search.cursors.del(id) {
			c.errorReply(errFTCursorNoSuch)
			return
		}
		c.w.OK()
		return
	}
	cur := c.srv.search.cursors.take(id, fi)
	if cur == nil || fi == nil {
		c.errorReply(errFTCursorNotFound)
		return
	}
	if count == 0 {
		count = cur.count
	}
	if count == 0 {
		count = defaultCursorCount
	}
	fi.mu.RLock()
	total, rows, done, err := cur.agg.Chunk(count)
	fi.mu.RUnlock()
	if err != nil {
		c.errorReply(err.Error())
		return
	}
	if !done {
		c.srv.search.cursors.put(cur)
	} else {
		id = 0
	}
	c.w.Array(2)
	writeAggChunk(&c.w, total, rows, nil)
	c.w.Int(id)
}

// writeAggChunk writes an aggregation's chunk as RediSearch does: RESP2
// the total then each row's flat field/value array; RESP3 a map
// (attributes, total_results, format, results of extra_attributes and
// values, warning). Numbers are bulk strings in both. A profile (FT.PROFILE,
// non-nil profile) follows: RESP2 [chunk, profile], RESP3 the map's
// "profile" entry.
func writeAggChunk(w *resp.Writer, total int, rows [][]search.AggField, profile func(*resp.Writer)) {
	if w.Proto == 3 {
		w.Map(5 + b2i(profile != nil))
		w.Simple("attributes")
		w.Array(0)
		w.Simple("total_results")
		w.Int(int64(total))
		w.Simple("format")
		w.Simple("STRING")
		w.Simple("results")
		w.Array(len(rows))
		for _, r := range rows {
			w.Map(2)
			w.Simple("extra_attributes")
			w.Map(len(r))
			for _, f := range r {
				w.BulkString(f.Name)
				writeAggValue(w, f.Value)
			}
			w.Simple("values")
			w.Array(0)
		}
		w.Simple("warning")
		w.Array(0)
		if profile != nil {
			w.Simple("profile")
			profile(w)
		}
		return
	}
	if profile != nil {
		w.Array(2)
		defer profile(w)
	}
	w.Array(1 + len(rows))
	w.Int(int64(total))
	for _, r := range rows {
		w.Array(2 * len(r))
		for _, f := range r {
			w.BulkString(f.Name)
			writeAggValue(w, f.Value)
		}
	}
}

func writeAggValue(w *resp.Writer, v search.Value) {
	switch v.Kind {
	case search.Number, search.String:
		w.BulkString(v.String())
	case search.Array:
		w.Array(len(v.Arr))
		for _, x := range v.Arr {
			writeAggValue(w, x)
		}
	default:
		w.Null()
	}
}
