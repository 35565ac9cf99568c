package server

import (
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/list"
	"github.com/hotkv/hotkv/stream"
)

// lazyfreeThreshold is Redis's LAZYFREE_THRESHOLD: a value whose free
// effort is at most this is freed at once even by UNLINK.
const lazyfreeThreshold = 64

// Lazy freeing. HotKV frees nothing itself (the Go collector does), so no
// object is ever pending (lazyfree_pending_objects is 0); but INFO's
// lazyfreed_objects counts what Redis would have handed to its lazy-free
// thread: values UNLINK (or DEL with lazyfree-lazy-user-del) removes whose
// free effort passes the threshold, and the keys of a database FLUSHDB or
// FLUSHALL empties asynchronously (lazyfree.c).

// freeEffort is Redis's lazyfreeGetFreeEffort: about the number of
// allocations freeing the value takes.
func freeEffort(e *keyspace.Entry) int {
	if n, cold := e.ColdEffort(); cold {
		return int(n) // noted when it moved to the disk tier
	}
	switch e.Kind {
	case keyspace.KindList:
		if l, ok := e.Obj.(*list.List); ok {
			return l.Nodes() // the quicklist's nodes
		}
	case keyspace.KindSet, keyspace.KindHash, keyspace.KindZSet:
		if v, ok := e.Obj.(interface {
			Encoding() string
			Len() int
		}); ok {
			if enc := v.Encoding(); enc == "hashtable" || enc == "skiplist" {
				return v.Len()
			}
		}
	case keyspace.KindStream:
		if s, ok := e.Obj.(*stream.Stream); ok {
			return s.FreeEffort()
		}
	}
	return 1
}

// freeAsync counts e as lazily freed when Redis's freeObjAsync would
// free it in the background. The caller removes it.
func (s *Server) freeAsync(e *keyspace.Entry) {
	if freeEffort(e) > lazyfreeThreshold {
		s.stats.lazyfreed.Add(1)
	}
}
