package server

import (
	"strconv"

	"github.com/hotkv/hotkv/search"
)

// FT.SPELLCHECK index query [DISTANCE d] [TERMS INCLUDE|EXCLUDE dict]...
// [DIALECT n]
//
// For each term of the query that is not in the index: the suggestions
// of search.Index.SpellCheck, as [score, word] pairs (RESP3: a map of
// term to maps of word to score). Arguments RediSearch does not know are
// ignored, as by RediSearch.
func cmdFTSpellCheck(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.SPELLCHECK", 3, -1) {
		return
	}
	s := c.srv
	fi := s.searchResolve(string(args[1]))
	if fi == nil {
		c.errorReply(errFTUnknownIndexName)
		return
	}
	distance, dialect := 1, int(fi.ix.Config.DefaultDialect())
	var include, exclude []map[string]struct{}
	s.search.dictMu.Lock()
	defer s.search.dictMu.Unlock()
	for i := 3; i < len(args); i++ {
		switch {
		case equalFold(args[i], "DISTANCE") && i+1 < len(args):
			n, err := strconv.Atoi(string(args[i+1]))
			if err != nil || n < 1 || n > 4 {
				c.errorReply(errFTSpellDistance)
				return
			}
			distance = n
			i++
		case equalFold(args[i], "TERMS"):
			if i+2 >= len(args) || !equalFold(args[i+1], "INCLUDE") && !equalFold(args[i+1], "EXCLUDE") {
				c.errorReply(errFTSpellTerms)
				return
			}
			d, ok := s.search.dicts[string(args[i+2])]
			if !ok {
				c.errorReply(errFTSpellNoDict + string(args[i+2]))
				return
			}
			if equalFold(args[i+1], "INCLUDE") {
				include = append(include, d)
			} else {
				exclude = append(exclude, d)
			}
			i += 2
		case equalFold(args[i], "DIALECT") && i+1 < len(args):
			n, err := strconv.Atoi(string(args[i+1]))
			if err != nil || n < 1 || n > 4 {
				c.errorReply(search.ErrDialect.Error())
				return
			}
			dialect = min(n, 2)
			i++
		}
	}
	fi.mu.RLock()
	res, err := fi.ix.SpellCheck(string(args[2]), dialect, distance, include, exclude)
	fi.mu.RUnlock()
	if err != nil {
		c.errorReply(err.Error())
		return
	}
	w := &c.w
	if w.Proto == 3 {
		w.Map(1)
		w.Simple("results")
		w.Map(len(res))
		for _, m := range res {
			w.BulkString(m.Term)
			w.Array(len(m.Suggestions))
			for _, sg := range m.Suggestions {
				w.Map(1)
				w.BulkString(sg.Word)
				ftFloat(w, sg.Score)
			}
		}
		return
	}
	w.Array(len(res))
	for _, m := range res {
		w.Array(3)
		w.Simple("TERM")
		w.BulkString(m.Term)
		w.Array(len(m.Suggestions))
		for _, sg := range m.Suggestions {
			w.Array(2)
			w.BulkString(search.FormatScore(sg.Score))
			w.BulkString(sg.Word)
		}
	}
}
