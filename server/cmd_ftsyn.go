package server

// FT.SYNUPDATE index group_id [SKIPINITIALSCAN] term [term ...]
//
// Adds the terms to the synonym group (search/synonym.go), then indexes
// the index's hashes again, as RediSearch does (each gets a new document
// id), unless SKIPINITIALSCAN: then only documents written later use the
// group. It propagates verbatim and is part of the index's definition
// (searchload.go).
func cmdFTSynUpdate(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.SYNUPDATE", 4, -1) {
		return
	}
	c.propagateNothing()
	s := c.srv
	fi := s.searchResolve(string(args[1]))
	if fi == nil {
		c.errorReply(errFTUnknownIndex)
		return
	}
	terms, scan := synTerms(args)
	fi.mu.Lock()
	fi.ix.SynUpdate(string(args[2]), terms)
	fi.mu.Unlock()
	def := copyArgs(args)
	def[1] = []byte(fi.name) // not an alias's
	fi.def = append(fi.def, def)
	if scan {
		s.searchRescan(fi)
	}
	c.dirty(1)
	c.propagateDB0(args...)
	c.w.OK()
}

// synTerms returns FT.SYNUPDATE's terms and whether it rescans.
func synTerms(args [][]byte) ([]string, bool) {
	rest, scan := args[3:], true
	if equalFold(rest[0], "SKIPINITIALSCAN") {
		rest, scan = rest[1:], false
	}
	terms := make([]string, len(rest))
	for i, t := range rest {
		terms[i] = string(t)
	}
	return terms, scan
}

// FT.SYNDUMP index
//
// Each term with the ids of its groups, in RediSearch's order: a flat
// array (RESP2) or a map (RESP3).
func cmdFTSynDump(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.SYNDUMP", 2, 2) {
		return
	}
	fi := c.srv.searchResolve(string(args[1]))
	if fi == nil {
		c.errorReply(errFTUnknownIndex)
		return
	}
	fi.mu.RLock()
	dump := fi.ix.SynDump()
	fi.mu.RUnlock()
	c.w.Map(len(dump))
	for _, e := range dump {
		c.w.BulkString(e.Term)
		c.w.Array(len(e.Groups))
		for _, g := range e.Groups {
			c.w.BulkString(g)
		}
	}
}
