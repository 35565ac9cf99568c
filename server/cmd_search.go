package server

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hotkv/hotkv/resp"
	"github.com/hotkv/hotkv/search"
)

// FT.*: RediSearch 2.10's commands, over the search package (search.go
// joins it to the executor). As RediSearch declares them, the index name
// is the commands' key (first key 1): FT.SEARCH and FT.INFO lock it
// shared, which is the index's lock. FT.CREATE and FT.DROPINDEX take the
// global lock: they scan or delete keys, as FT.ALTER does. Their arity is checked by the
// handlers, to reply RediSearch's error text (the name in upper case).
//
// FT.CREATE, FT.ALTER and FT.DROPINDEX propagate verbatim (DROPINDEX DD
// as DROPINDEX, then the DELs of the documents it deleted), and snapshots
// keep the definitions (searchload.go). So do the commands of the
// server-wide search state (aliases, dictionaries, FT.CONFIG SET).

func searchCommands() []*Command {
	return []*Command{
		{Name: "ft.create", Arity: -1, Flags: Write | DenyOOM | Global, First: 1, Last: 1, Step: 1, Handler: cmdFTCreate},
		{Name: "ft.search", Arity: -1, Flags: Readonly, First: 1, Last: 1, Step: 1, Handler: cmdFTSearch},
		{Name: "ft.info", Arity: -1, Flags: Readonly, First: 1, Last: 1, Step: 1, Handler: cmdFTInfo},
		{Name: "ft.dropindex", Arity: -1, Flags: Write | Global, First: 1, Last: 1, Step: 1, Handler: cmdFTDropIndex},
		{Name: "ft.alter", Arity: -1, Flags: Write | DenyOOM | Global, First: 1, Last: 1, Step: 1, Handler: cmdFTAlter},
		{Name: "ft.aggregate", Arity: -1, Flags: Readonly, First: 1, Last: 1, Step: 1, Handler: cmdFTAggregate},
		{Name: "ft.cursor", Arity: -1, Flags: Readonly, First: 2, Last: 2, Step: 1, Handler: cmdFTCursor},
		{Name: "ft._list", Arity: -1, Flags: Readonly, Handler: cmdFTList},
		// RediSearch declares the alias commands read-only, their alias
		// and index the keys; they change the registry, under the global
		// lock.
		{Name: "ft.aliasadd", Arity: -1, Flags: Readonly | Global, First: 1, Last: 2, Step: 1, Handler: cmdFTAliasAdd},
		{Name: "ft.aliasupdate", Arity: -1, Flags: Readonly | Global, First: 1, Last: 2, Step: 1, Handler: cmdFTAliasUpdate},
		{Name: "ft.tagvals", Arity: -1, Flags: Readonly, First: 1, Last: 1, Step: 1, Handler: cmdFTTagVals},
		{Name: "ft.dictadd", Arity: -1, Flags: Readonly, Handler: cmdFTDictAdd},
		{Name: "ft.dictdel", Arity: -1, Flags: Readonly, Handler: cmdFTDictDel},
		{Name: "ft.dictdump", Arity: -1, Flags: Readonly, Handler: cmdFTDictDump},
		{Name: "ft.spellcheck", Arity: -1, Flags: Readonly, First: 1, Last: 1, Step: 1, Handler: cmdFTSpellCheck},
		{Name: "ft.config", Arity: -1, Flags: Readonly, Handler: cmdFTConfig},
		{Name: "ft.explain", Arity: -1, Flags: Readonly, First: 1, Last: 1, Step: 1, Handler: cmdFTExplain},
		{Name: "ft.explaincli", Arity: -1, Flags: Readonly, First: 1, Last: 1, Step: 1, Handler: cmdFTExplain},
		{Name: "ft.synupdate", Arity: -1, Flags: Write | DenyOOM | Global, First: 1, Last: 1, Step: 1, Handler: cmdFTSynUpdate},
		{Name: "ft.syndump", Arity: -1, Flags: Readonly, First: 1, Last: 1, Step: 1, Handler: cmdFTSynDump},
		{Name: "ft.profile", Arity: -1, Flags: Readonly, First: 1, Last: 1, Step: 1, Handler: cmdFTProfile},
		{Name: "ft.aliasdel", Arity: -1, Flags: Readonly | Global, First: 1, Last: 1, Step: 1, Handler: cmdFTAliasDel},
	}
}

// ftArity replies RediSearch's arity error for cmd and reports false when
// args has fewer than min or more than max (max < 0: no limit).
func (c *Client) ftArity(args [][]byte, name string, min, max int) bool {
	if len(args) < min || max >= 0 && len(args) > max {
		c.errorReply(fmt.Sprintf(errArity, name))
		return false
	}
	return true
}

// FT.CREATE index [ON HASH] [PREFIX count prefix ...] [FILTER expression]
// [LANGUAGE lang] [LANGUAGE_FIELD field] [SCORE score] [SCORE_FIELD field] [MAXTEXTFIELDS]
// [NOOFFSETS] [NOHL] [NOFIELDS] [NOFREQS] [ASYNC] [NOSCOREIDX]
// [STOPWORDS count word ...] [SKIPINITIALSCAN] SCHEMA field [AS alias]
// TEXT|TAG|NUMERIC|VECTOR [options] ...
//
// A FILTER decides which of the hashes under the prefixes are documents
// (search/filter.go); the locks a write takes still follow the prefixes.
func cmdFTCreate(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.CREATE", 5, -1) {
		return
	}
	c.propagateNothing()
	s := c.srv
	name := string(args[1])
	if s.searchFind(name) != nil {
		c.errorReply(errFTIndexExists)
		return
	}
	schema, err := search.ParseCreate(args[2:])
	if err != nil {
		c.errorReply(err.Error())
		return
	}
	fi := s.newFTIndex(name, schema, args)
	if !schema.SkipInitialScan {
		s.searchScan(fi)
	}
	s.searchAdd(fi)
	c.dirty(1)
	c.propagateDB0(args...)
	c.w.OK()
}

// FT.SEARCH index query [NOCONTENT] [VERBATIM] [WITHSCORES] [INKEYS count
// key ...] [INFIELDS count field ...] [RETURN count field [AS name] ...]
// [FILTER field min max] [SORTBY field [ASC|DESC]] [LIMIT offset num]
// [DIALECT 1|2]
//
// The reply (RESP2): the number of results, then each key with, as asked,
// its score and its fields (all the hash's, or RETURN's that it has).
// RESP3: RediSearch's map (attributes, total_results, format, results,
// warning).
func cmdFTSearch(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.SEARCH", 2, -1) {
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
	c.ftSearch(fi, args[2:], nil)
}

// ftProfile is FT.PROFILE's request around a search: when it started,
// and LIMITED.
type ftProfile struct {
	start   time.Time
	limited bool
}

// ftSearch runs FT.SEARCH's arguments (the query and its options) on fi
// and replies, with FT.PROFILE's profile after the results when prof is
// not nil.
func (c *Client) ftSearch(fi *ftIndex, args [][]byte, prof *ftProfile) {
	fi.touch() // a TEMPORARY index's timer
	fi.mu.RLock()
	req, err := fi.ix.ParseSearch(args)
	var total int
	var hits []search.Hit
	if err == nil {
		if prof != nil {
			req.Profiling, req.ProfileLimited = true, prof.limited
		}
		total, hits, err = fi.ix.Search(req, c.srv.searchLoad)
	}
	// SUMMARIZE and HIGHLIGHT read the index (each document's record
	// and offsets): their functions are made under its lock.
	var hls []func(string, []byte) []byte
	if err == nil && req.Highlights() {
		hls = make([]func(string, []byte) []byte, len(hits))
		for i, h := range hits {
			hls[i] = fi.ix.Highlighter(req, h.Key, c.srv.searchLoad)
		}
	}
	fi.mu.RUnlock()
	if err != nil {
		c.errorReply(err.Error())
		return
	}
	// RediSearch replies a document's fields in the order of its lookup
	// table, whose keys are made as the page's documents are loaded, in
	// result order (the SORTBY field first): a field keeps the place of
	// its first appearance.
	var order []string
	if req.SortBy != "" {
		order = append(order, req.SortBy)
	}
	// SUMMARIZE's and HIGHLIGHT's fields come next (their lookup keys
	// are made before any document is loaded).
	for _, f := range req.HighlightFieldNames() {
		if !slices.Contains(order, f) {
			order = append(order, f)
		}
	}
	// The index's SCORE_FIELD and PAYLOAD_FIELD are never replied, as in
	// RediSearch.
	schema := fi.ix.Schema
	fields := func(i int, hit search.Hit, emit func(f, v []byte)) {
		h := c.srv.searchHash(hit.Key)
		if h == nil {
			return
		}
		var hl func(string, []byte) []byte
		if hls != nil {
			hl = hls[i]
		}
		each := func(f, v []byte) {
			if !schema.Hidden(string(f)) {
				emit(f, v)
			}
		}
		hashField := func(f, v []byte) {
			if hl != nil {
				v = hl(string(f), v)
			}
			each(f, v)
		}
		yield := func(name string) (string, bool) {
			for _, y := range hit.Yields {
				if y.Name == name {
					return y.Value, true
				}
			}
			return "", false
		}
		if req.Return != nil {
			for _, rf := range req.Return {
				if v, ok := yield(rf.Field); ok {
					each([]byte(rf.As), []byte(v))
				} else if v, ok := h.Get([]byte(rf.Field)); ok {
					hashField([]byte(rf.As), v)
				}
			}
			return
		}
		// The distances the query yields come first.
		for _, y := range hit.Yields {
			each([]byte(y.Name), []byte(y.Value))
		}
		h.Each(func(f, _ []byte) bool {
			if !slices.Contains(order, string(f)) {
				order = append(order, string(f))
			}
			return true
		})
		for _, f := range order {
			if _, ok := yield(f); ok {
				continue
			}
			if v, ok := h.Get([]byte(f)); ok {
				hashField([]byte(f), v)
			}
		}
	}
	content := !req.NoContent && (req.Return == nil || len(req.Return) > 0)
	if c.w.Proto == 3 {
		c.w.Map(5 + b2i(prof != nil))
		c.w.Simple("attributes")
		c.w.Array(0)
		c.w.Simple("total_results")
		c.w.Int(int64(total))
		c.w.Simple("format")
		c.w.Simple("STRING")
		c.w.Simple("results")
		c.w.Array(len(hits))
		for i, h := range hits {
			n := 2 + b2i(req.WithScores) + b2i(content) + b2i(req.WithPayloads) + b2i(req.WithSortKeys)
			c.w.Map(n)
			c.w.Simple("id")
			c.w.BulkString(h.Key)
			if req.WithScores {
				c.w.Simple("score")
				if h.Explain != nil {
					c.w.Array(2)
					ftFloat(&c.w, h.Score)
					writeScoreExplain(&c.w, h.Explain)
				} else {
					ftFloat(&c.w, h.Score)
				}
			}
			if req.WithPayloads {
				c.w.Simple("payload")
				writePayload(&c.w, h.Payload)
			}
			if req.WithSortKeys {
				c.w.Simple("sortkey")
				sortKey(&c.w, h)
			}
			if content {
				var kv [][]byte
				fields(i, h, func(f, v []byte) { kv = append(kv, f, v) })
				c.w.Simple("extra_attributes")
				c.w.Map(len(kv) / 2)
				for _, b := range kv {
					c.w.Bulk(b)
				}
			}
			c.w.Simple("values")
			c.w.Array(0)
		}
		c.w.Simple("warning")
		if req.TimedOut {
			c.w.Array(1)
			c.w.Simple(search.WarnTimeout)
		} else {
			c.w.Array(0)
		}
		if prof != nil {
			c.w.Simple("profile")
			writeProfile(&c.w, req.Profile, req.TimedOut, prof)
		}
		return
	}
	if prof != nil {
		c.w.Array(2)
		defer writeProfile(&c.w, req.Profile, req.TimedOut, prof)
	}
	per := 1 + b2i(req.WithScores) + b2i(content) + b2i(req.WithPayloads) + b2i(req.WithSortKeys)
	c.w.Array(1 + per*len(hits))
	c.w.Int(int64(total))
	for i, h := range hits {
		c.w.BulkString(h.Key)
		if req.WithScores && h.Explain != nil {
			c.w.Array(2)
			c.w.BulkString(search.FormatScore(h.Score))
			writeScoreExplain(&c.w, h.Explain)
		} else if req.WithScores {
			c.w.BulkString(search.FormatScore(h.Score))
		}
		if req.WithPayloads {
			writePayload(&c.w, h.Payload)
		}
		if req.WithSortKeys {
			sortKey(&c.w, h)
		}
		if content {
			var kv [][]byte
			fields(i, h, func(f, v []byte) { kv = append(kv, f, v) })
			c.w.Array(len(kv))
			for _, b := range kv {
				c.w.Bulk(b)
			}
		}
	}
}

// writePayload writes WITHPAYLOADS's payload: a bulk string, null when
// the document has none.
func writePayload(w *resp.Writer, p []byte) {
	if p == nil {
		w.Null()
		return
	}
	w.Bulk(p)
}

// writeScoreExplain writes EXPLAINSCORE's account of a score as
// RediSearch does: a line alone, or [line, [its parts]].
func writeScoreExplain(w *resp.Writer, e *search.ScoreExplain) {
	if len(e.Kids) == 0 {
		w.Simple(e.Text)
		return
	}
	w.Array(2)
	w.Simple(e.Text)
	w.Array(len(e.Kids))
	for _, k := range e.Kids {
		writeScoreExplain(w, k)
	}
}

// sortKey writes a result's WITHSORTKEYS value: its sort key, or null.
func sortKey(w *resp.Writer, h search.Hit) {
	if h.SortKey == "" {
		w.Null()
		return
	}
	w.BulkString(h.SortKey)
}

// searchQueried returns the index (or alias) name names for a query
// command, or nil after replying RediSearch's error for it.
func (c *Client) searchQueried(name []byte) *ftIndex {
	fi := c.srv.searchResolve(string(name))
	if fi == nil {
		c.errorReply(string(name) + errFTNoSuchIndex)
	}
	return fi
}

// searchLoad reads a field of a document, for SORTBY on a field that is
// not SORTABLE (see searchHash for why no key lock is needed).
func (s *Server) searchLoad(key, field string) ([]byte, bool) {
	h := s.searchHash(key)
	if h == nil {
		return nil, false
	}
	return h.Get([]byte(field))
}

// FT.INFO index
//
// The fields clients read: the definition, the attributes, the numbers of
// documents and terms, the indexing state. RediSearch's num_records (its
// numeric and tag accounting differ), memory and garbage-collection
// statistics are not reported.
func cmdFTInfo(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.INFO", 2, -1) {
		return
	}
	fi := c.srv.searchResolve(string(args[1]))
	if fi == nil {
		c.errorReply(errFTUnknownIndex)
		return
	}
	fi.mu.RLock()
	defer fi.mu.RUnlock()
	ix := fi.ix
	s := ix.Schema
	n := 10
	if s.CustomStopwords {
		n++
	}
	w := &c.w
	w.Map(n)
	w.Simple("index_name")
	w.Simple(fi.name)
	w.Simple("index_options")
	var opts []string
	for _, o := range []struct {
		on   bool
		name string
	}{{s.NoFreqs, "NOFREQS"}, {s.NoFields, "NOFIELDS"}, {s.NoOffsets, "NOOFFSETS"}, {s.NoHL, "NOHL"}, {s.WideSchema(), "MAXTEXTFIELDS"}} {
		if o.on {
			opts = append(opts, o.name)
		}
	}
	w.Array(len(opts))
	for _, o := range opts {
		w.Simple(o)
	}
	w.Simple("index_definition")
	w.Map(3 + b2i(s.Filter != "") + b2i(s.Language != "english") + b2i(s.LanguageField != "") + b2i(s.ScoreField != "") + b2i(s.PayloadField != ""))
	w.Simple("key_type")
	w.Simple("HASH")
	w.Simple("prefixes")
	w.Array(len(s.Prefixes))
	for _, p := range s.Prefixes {
		w.Simple(p)
	}
	if s.Filter != "" {
		w.Simple("filter")
		w.Simple(s.Filter)
	}
	if s.Language != "english" {
		w.Simple("default_language")
		w.Simple(s.Language)
	}
	if s.LanguageField != "" {
		w.Simple("language_field")
		w.Simple(s.LanguageField)
	}
	w.Simple("default_score")
	ftFloat(w, s.Score)
	if s.ScoreField != "" {
		w.Simple("score_field")
		w.Simple(s.ScoreField)
	}
	if s.PayloadField != "" {
		w.Simple("payload_field")
		w.Simple(s.PayloadField)
	}
	w.Simple("attributes")
	w.Array(len(s.Fields))
	for _, f := range s.Fields {
		// RESP2: a flat array, the type's option and the flags after the
		// type; RESP3: a map, the flags in an array of their own.
		var flags []string
		if f.Type == search.Tag && f.CaseSensitive {
			flags = append(flags, "CASESENSITIVE")
		}
		if f.Sortable {
			flags = append(flags, "SORTABLE")
			if f.UNF {
				flags = append(flags, "UNF")
			}
		}
		if f.NoStem {
			flags = append(flags, "NOSTEM")
		}
		if f.NoIndex {
			flags = append(flags, "NOINDEX")
		}
		if f.WithSuffixTrie {
			flags = append(flags, "WITHSUFFIXTRIE")
		}
		if f.IndexEmpty {
			flags = append(flags, "INDEXEMPTY")
		}
		if f.IndexMissing {
			flags = append(flags, "INDEXMISSING")
		}
		opt := 0 // the type's options, keys and values
		switch {
		case f.Type == search.Vector && f.Vector.Algorithm == "HNSW":
			opt = 12
		case f.Type == search.Vector:
			opt = 8
		case f.Type != search.Numeric && f.Type != search.Geo:
			opt = 2
		}
		if w.Proto == 3 {
			w.Map(4 + opt/2)
		} else {
			w.Array(6 + opt + len(flags))
		}
		w.Simple("identifier")
		w.Simple(f.Name)
		w.Simple("attribute")
		w.Simple(f.Alias)
		w.Simple("type")
		w.Simple(f.Type.String())
		switch f.Type {
		case search.Text:
			w.Simple("WEIGHT")
			ftFloat(w, f.Weight)
		case search.Tag:
			w.Simple("SEPARATOR")
			w.Simple(string(f.Separator))
		case search.Vector:
			v := f.Vector
			w.Simple("algorithm")
			w.Simple(v.Algorithm)
			w.Simple("data_type")
			w.Simple(v.Type)
			w.Simple("dim")
			w.Int(int64(v.Dim))
			w.Simple("distance_metric")
			w.Simple(v.Metric)
			if v.Algorithm == "HNSW" {
				w.Simple("M")
				w.Int(int64(v.M))
				w.Simple("ef_construction")
				w.Int(int64(v.EFConstruction))
			}
		}
		if w.Proto == 3 {
			w.Simple("flags")
			w.Array(len(flags))
		}
		for _, fl := range flags {
			w.Simple(fl)
		}
	}
	w.Simple("num_docs")
	w.Int(int64(ix.NumDocs()))
	w.Simple("max_doc_id")
	w.Int(int64(ix.MaxDocID()))
	w.Simple("num_terms")
	w.Int(int64(ix.NumTerms()))
	w.Simple("hash_indexing_failures")
	w.Int(int64(ix.Failures()))
	building, done := fi.searchProgress()
	w.Simple("indexing")
	w.Int(int64(b2i(building)))
	w.Simple("percent_indexed")
	ftFloat(w, done)
	if s.CustomStopwords {
		w.Simple("stopwords_list")
		sw := s.SortedStopwords()
		w.Array(len(sw))
		for _, x := range sw {
			w.BulkString(x)
		}
	}
}

// ftFloat writes a number of an FT.* reply: a bulk string in RESP2, a
// double in RESP3, either as the shortest text that reads back (Redis
// 7.4's, under RediSearch 2.10; HotKV's other doubles are Redis 7.0's
// %.17g).
func ftFloat(w *resp.Writer, f float64) {
	if w.Proto == 3 {
		w.Raw([]byte("," + search.FormatScore(f) + "\r\n"))
		return
	}
	w.BulkString(search.FormatScore(f))
}

// FT.DROPINDEX index [DD]
func cmdFTDropIndex(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.DROPINDEX", 2, 3) {
		return
	}
	c.propagateNothing()
	s := c.srv
	fi := s.searchResolve(string(args[1]))
	if fi == nil {
		c.errorReply(errFTUnknownIndexName)
		return
	}
	s.searchRemove(fi)
	c.dirty(1)
	c.propagateDB0(args[:2]...)
	if len(args) == 3 && equalFold(args[2], "DD") {
		fi.mu.RLock()
		keys := fi.ix.Keys()
		fi.mu.RUnlock()
		for _, k := range keys {
			if s.dbs[0].Delete([]byte(k)) {
				c.dirty(1)
				c.propagateDB0(argDEL, []byte(k))
			}
		}
	}
	c.w.OK()
}

// propagateDB0 records args, run on database 0 (where the indexes' keys
// are, whatever c's database).
func (c *Client) propagateDB0(args ...[]byte) {
	c.prop.decided, c.prop.changed = true, true
	if c.srv.propagating() {
		c.prop.AddTo(0, args, c.srv.propagationTargets())
	}
}

// FT.ALTER index [SKIPINITIALSCAN] SCHEMA ADD field [AS alias] type
// [options] ...
//
// The new fields count for every document once it is indexed again: at
// once (the matching hashes of database 0 are indexed again, under the
// global lock), or, with SKIPINITIALSCAN, when each is next written.
func cmdFTAlter(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.ALTER", 5, -1) {
		return
	}
	c.propagateNothing()
	s := c.srv
	fi := s.searchResolve(string(args[1]))
	if fi == nil {
		c.errorReply(errFTUnknownIndex)
		return
	}
	fields, skipScan, err := fi.ix.Schema.ParseAlter(args[2:])
	if errors.Is(err, search.ErrAlterNoFields) {
		c.errorReply(fmt.Sprintf(errArity, "FT.ALTER"))
		return
	}
	if err != nil {
		c.errorReply(err.Error())
		return
	}
	fi.mu.Lock()
	fi.ix.AddFields(fields)
	fi.mu.Unlock()
	fi.def = append(fi.def, copyArgs(args))
	if !skipScan {
		s.searchRescan(fi)
	}
	c.dirty(1)
	c.propagateDB0(args...)
	c.w.OK()
}

// FT._LIST
func cmdFTList(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT._LIST", 1, 1) {
		return
	}
	list := c.srv.searchIndexes()
	c.w.Set(len(list))
	for _, fi := range list {
		c.w.Simple(fi.name)
	}
}

// FT.ALIASADD alias index
//
// An alias names an index wherever an index name is accepted but
// FT.CREATE's (the index of that name first). Aliases are case-sensitive,
// dropped with their index.
func cmdFTAliasAdd(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.ALIASADD", 3, 3) {
		return
	}
	s := c.srv
	fi := s.searchFind(string(args[2]))
	if fi == nil {
		c.errorReply(errFTAliasTarget)
		return
	}
	if s.searchAlias(string(args[1])) != nil {
		c.errorReply(errFTAliasExists)
		return
	}
	s.searchAliasSet(string(args[1]), fi)
	c.propagateDB0(args...)
	c.w.OK()
}

// FT.ALIASUPDATE alias index
//
// As RediSearch: the alias is removed from the index the name resolves to
// (an index of that name has no such alias: an error), then added to
// index (put back where it was if index is unknown).
func cmdFTAliasUpdate(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.ALIASUPDATE", 3, 3) {
		return
	}
	s := c.srv
	alias := string(args[1])
	orig := s.searchResolve(alias)
	if orig != nil && !slices.Contains(orig.aliases, alias) {
		c.errorReply(errFTAliasNotBelong)
		return
	}
	fi := s.searchFind(string(args[2]))
	if fi == nil {
		c.errorReply(errFTAliasTarget)
		return
	}
	if orig != fi {
		s.searchAliasSet(alias, fi)
	}
	c.propagateDB0(args...)
	c.w.OK()
}

// FT.ALIASDEL alias
func cmdFTAliasDel(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.ALIASDEL", 2, 2) {
		return
	}
	s := c.srv
	alias := string(args[1])
	fi := s.searchResolve(alias)
	if fi == nil {
		c.errorReply(errFTAliasNotExists)
		return
	}
	if !slices.Contains(fi.aliases, alias) {
		c.errorReply(errFTAliasNotBelong)
		return
	}
	s.searchAliasSet(alias, nil)
	c.propagateDB0(args...)
	c.w.OK()
}

// FT.TAGVALS index field
//
// The distinct values of a TAG field (lower-cased unless CASESENSITIVE),
// in RediSearch's order: an array, a set in RESP3.
func cmdFTTagVals(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.TAGVALS", 3, 3) {
		return
	}
	fi := c.srv.searchResolve(string(args[1]))
	if fi == nil {
		c.errorReply(errFTUnknownIndexName)
		return
	}
	fi.mu.RLock()
	vals, err := fi.ix.TagValues(string(args[2]))
	fi.mu.RUnlock()
	if err != nil {
		c.errorReply(err.Error())
		return
	}
	c.w.Set(len(vals))
	for _, v := range vals {
		c.w.BulkString(v)
	}
}

// FT.DICTADD dict term [term ...]
//
// Dictionaries are server-wide (not keys), made by their first DICTADD
// and kept once emptied, as RediSearch's; HotKV has no FT.SPELLCHECK to
// use them yet. The reply is the number of terms added.
func cmdFTDictAdd(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.DICTADD", 3, -1) {
		return
	}
	n := c.srv.searchDictAdd(string(args[1]), args[2:])
	c.propagateDB0(args...)
	c.w.Int(int64(n))
}

// searchDictAdd adds terms to the dictionary name (created if need be)
// and returns how many were not there.
func (s *Server) searchDictAdd(name string, terms [][]byte) int {
	s.search.dictMu.Lock()
	defer s.search.dictMu.Unlock()
	if s.search.dicts == nil {
		s.search.dicts = map[string]map[string]struct{}{}
	}
	d := s.search.dicts[name]
	if d == nil {
		d = map[string]struct{}{}
		s.search.dicts[name] = d
	}
	n := 0
	for _, t := range terms {
		if _, ok := d[string(t)]; !ok && len(t) > 0 {
			d[string(t)] = struct{}{}
			n++
		}
	}
	return n
}

// FT.DICTDEL dict term [term ...]
//
// The reply is the number of terms deleted (0 for a dictionary that does
// not exist).
func cmdFTDictDel(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.DICTDEL", 3, -1) {
		return
	}
	n := c.srv.searchDictDel(string(args[1]), args[2:])
	c.propagateDB0(args...)
	c.w.Int(int64(n))
}

// searchDictDel deletes terms from the dictionary name and returns how
// many were there.
func (s *Server) searchDictDel(name string, terms [][]byte) int {
	s.search.dictMu.Lock()
	defer s.search.dictMu.Unlock()
	d := s.search.dicts[name]
	n := 0
	for _, t := range terms {
		if _, ok := d[string(t)]; ok {
			delete(d, string(t))
			n++
		}
	}
	return n
}

// FT.DICTDUMP dict
//
// The terms in order (bytewise: RediSearch's trie orders them by code
// point); a set in RESP3.
func cmdFTDictDump(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.DICTDUMP", 2, 2) {
		return
	}
	s := c.srv
	s.search.dictMu.Lock()
	d, ok := s.search.dicts[string(args[1])]
	terms := slices.Sorted(maps.Keys(d))
	s.search.dictMu.Unlock()
	if !ok {
		c.errorReply(errFTNoDict)
		return
	}
	c.w.Set(len(terms))
	for _, t := range terms {
		c.w.BulkString(t)
	}
}

// FT.EXPLAIN index query [DIALECT n] [VERBATIM] / FT.EXPLAINCLI
//
// The parsed query tree as RediSearch prints it (search.Index.Explain):
// one string, or for EXPLAINCLI an array of its lines.
func cmdFTExplain(c *Client, args [][]byte) {
	cli := equalFold(args[0], "FT.EXPLAINCLI")
	name := "FT.EXPLAIN"
	if cli {
		name = "FT.EXPLAINCLI"
	}
	if !c.ftArity(args, name, 3, -1) {
		return
	}
	fi := c.searchQueried(args[1])
	if fi == nil {
		return
	}
	if equalFold(args[len(args)-1], "DIALECT") {
		c.errorReply(errFTDialectArg)
		return
	}
	fi.mu.RLock()
	req, err := fi.ix.ParseSearch(args[2:])
	var out string
	if err == nil {
		out, err = fi.ix.Explain(req)
	}
	fi.mu.RUnlock()
	if err != nil {
		c.errorReply(err.Error())
		return
	}
	if !cli {
		c.w.BulkString(out)
		return
	}
	lines := strings.Split(out, "\n")
	c.w.Array(len(lines))
	for _, l := range lines {
		c.w.Simple(l)
	}
}
