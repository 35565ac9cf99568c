package server

import (
	"strconv"
	"strings"
	"time"

	"github.com/hotkv/hotkv/resp"
	"github.com/hotkv/hotkv/search"
)

// FT.PROFILE index SEARCH|AGGREGATE [LIMITED] QUERY query [options ...]
//
// Runs FT.SEARCH's or FT.AGGREGATE's query and options and replies its
// results with RediSearch 2.10's profile of them (search.Profile): RESP2
// [results, profile], RESP3 the command's map with a "profile" entry.
// Times are HotKV's, in milliseconds. WITHCURSOR anywhere after the
// command's kind is refused, as in RediSearch.
func cmdFTProfile(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.PROFILE", 5, -1) {
		return
	}
	prof := &ftProfile{start: time.Now()}
	kind := strings.ToUpper(string(args[2]))
	if kind != "SEARCH" && kind != "AGGREGATE" {
		c.errorReply(errFTProfileKind)
		return
	}
	i := 3
	if strings.EqualFold(string(args[i]), "LIMITED") {
		prof.limited = true
		i++
	}
	if i >= len(args) || !strings.EqualFold(string(args[i]), "QUERY") {
		c.errorReply(errFTProfileQuery)
		return
	}
	i++
	if i >= len(args) {
		c.errorReply(errFTNoQuery)
		return
	}
	for _, a := range args[3:] {
		if equalFold(a, "WITHCURSOR") {
			c.errorReply(errFTProfileCursor)
			return
		}
	}
	fi := c.searchQueried(args[1])
	if fi == nil {
		return
	}
	if kind == "AGGREGATE" {
		c.ftProfileAggregate(fi, args[i:], prof)
		return
	}
	c.ftSearch(fi, args[i:], prof)
}

// ftProfileAggregate runs FT.AGGREGATE's arguments (the query and its
// steps) on fi under FT.PROFILE and replies the rows and their profile.
func (c *Client) ftProfileAggregate(fi *ftIndex, args [][]byte, prof *ftProfile) {
	fi.touch() // a TEMPORARY index's timer
	fi.mu.RLock()
	req, err := fi.ix.ParseAggregate(args)
	var agg *search.Aggregation
	if err == nil {
		req.Profiling, req.ProfileLimited = true, prof.limited
		agg, err = fi.ix.Aggregate(req, aggLoader{c.srv, fi.ix.Schema})
	}
	var total int
	var rows [][]search.AggField
	var p *search.Profile
	if err == nil {
		total, rows, p, err = agg.ProfileRun()
	}
	fi.mu.RUnlock()
	if err != nil {
		c.errorReply(err.Error())
		return
	}
	writeAggChunk(&c.w, total, rows, func(w *resp.Writer) { writeProfile(w, p, false, prof) })
}

// writeProfile writes FT.PROFILE's profile of a search as RediSearch 2.10
// does: RESP2 an array of [name, value] pairs, its iterators and result
// processors as flat arrays of keys and values (children spliced in after
// "Child iterators"); RESP3 maps.
func writeProfile(w *resp.Writer, p *search.Profile, timedOut bool, prof *ftProfile) {
	if p == nil {
		p = &search.Profile{}
	}
	total := time.Since(prof.start)
	if w.Proto == 3 {
		w.Map(6)
		w.Simple("Total profile time")
		profTime(w, total)
		w.Simple("Parsing time")
		profTime(w, p.Parsing)
		w.Simple("Pipeline creation time")
		profTime(w, p.Pipeline)
		w.Simple("Warning")
		if timedOut {
			w.Simple(search.WarnTimeout)
		} else {
			w.Simple("None")
		}
		w.Simple("Iterators profile")
		w.Array(1)
		writeIterProfile(w, p.Iterators)
		w.Simple("Result processors profile")
		w.Array(len(p.Processors))
		for _, rp := range p.Processors {
			w.Map(3)
			writeProcProfile(w, rp)
		}
		return
	}
	w.Array(6)
	for _, t := range []struct {
		name string
		d    time.Duration
	}{{"Total profile time", total}, {"Parsing time", p.Parsing}, {"Pipeline creation time", p.Pipeline}} {
		w.Array(2)
		w.Simple(t.name)
		profTime(w, t.d)
	}
	if timedOut {
		w.Array(2)
		w.Simple("Warning")
		w.Simple(search.WarnTimeout)
	} else {
		w.Array(1)
		w.Simple("Warning")
	}
	w.Array(2)
	w.Simple("Iterators profile")
	writeIterProfile(w, p.Iterators)
	w.Array(1 + len(p.Processors))
	w.Simple("Result processors profile")
	for _, rp := range p.Processors {
		w.Array(6)
		writeProcProfile(w, rp)
	}
}

func writeProcProfile(w *resp.Writer, rp search.ProcProfile) {
	w.Simple("Type")
	w.Simple(rp.Type)
	w.Simple("Time")
	profTime(w, rp.Time)
	w.Simple("Counter")
	w.Int(int64(rp.Counter))
}

// profTime writes a duration as RediSearch's profile times: milliseconds,
// a double.
func profTime(w *resp.Writer, d time.Duration) {
	ms := float64(d) / float64(time.Millisecond)
	if w.Proto == 3 {
		w.Raw([]byte("," + search.FormatScore(ms) + "\r\n"))
		return
	}
	w.BulkString(strconv.FormatFloat(ms, 'g', 17, 64))
}

// writeIterProfile writes one iterator's profile: a map (RESP2: a flat
// array) of its type, term, time, counter, size and children.
func writeIterProfile(w *resp.Writer, ip *search.IterProfile) {
	if ip == nil {
		w.Null()
		return
	}
	pairs := 3 + b2i(ip.QueryType != "") + b2i(ip.HasTerm) + b2i(ip.HasSize) + b2i(ip.Kids != nil || ip.Child != nil)
	kidsList := ip.Kids != nil && !ip.Limited
	if w.Proto == 3 || !kidsList {
		w.Map(pairs)
	} else {
		// RESP2 splices the children in after their key.
		w.Array(2*pairs - 1 + len(ip.Kids))
	}
	w.Simple("Type")
	w.Simple(ip.Type)
	if ip.QueryType != "" {
		w.Simple("Query type")
		w.Simple(ip.QueryType)
	}
	if ip.HasTerm {
		w.Simple("Term")
		w.Simple(ip.Term)
	}
	w.Simple("Time")
	profTime(w, ip.Time)
	w.Simple("Counter")
	w.Int(int64(ip.Counter))
	if ip.HasSize {
		w.Simple("Size")
		w.Int(int64(ip.Size))
	}
	switch {
	case ip.Child != nil:
		w.Simple("Child iterator")
		writeIterProfile(w, ip.Child)
	case ip.Limited:
		w.Simple("Child iterators")
		w.Simple("The number of iterators in the union is " + strconv.Itoa(len(ip.Kids)))
	case ip.Kids != nil:
		w.Simple("Child iterators")
		if w.Proto == 3 {
			w.Array(len(ip.Kids))
		}
		for _, k := range ip.Kids {
			writeIterProfile(w, k)
		}
	}
}
