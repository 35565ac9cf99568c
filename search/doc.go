// Package search is HotKV's full-text and secondary index engine, the part
// of RediSearch 2.10 that FT.CREATE and FT.SEARCH need: index schemas
// parsed from FT.CREATE's arguments, documents indexed from a hash's
// fields, TEXT fields in an inverted index (term frequencies, positions,
// field masks, snowball stems in 18 languages (lang.go), synonym groups
// (synonym.go), double metaphone codes for PHONETIC fields
// (metaphone.go)), TAG, NUMERIC, VECTOR and GEO
// fields (geo.go: radius queries and GEOFILTER), the query
// language of DIALECT 1, 2 and 3 (2's, over HASH documents) and the
// default TFIDF scorer, with the same results and scores as RediSearch.
//
// FT.CREATE's FILTER (filter.go) decides, in Put, whether a hash is a
// document at all; its other options change what Put stores (no
// positions, frequencies or field masks; the score and the payload from
// hash fields).
//
// FT.AGGREGATE's pipeline is here too (aggregate.go; its expression
// language in expr.go and exprfunc.go, its reducers in reducers.go): a
// request parsed into steps that run, in the order given, over the
// documents a query matches, loading their hash fields through the
// caller's Loader.
//
// FT.SUGADD's suggestion dictionaries are not indexes: they are keys of
// their own, in package suggest. FormatScore (dtoa.go) writes the doubles
// of both as RediSearch's replies do.
//
// # Storage
//
// A term's postings (postings.go) are stored as RediSearch stores its
// inverted indexes: blocks of up to 128 entries, an entry a few uvarints
// (its document id less the entry before's, its length, its frequency,
// its field mask, its positions' deltas), each block headed by its first
// and last document ids so that a reader skipping to an id passes whole
// blocks; a removal splices its entry out of its block (a block thinned
// to a quarter joins a neighbour). Positions are
// decoded when a query first asks for them. A document (index.go) is 80
// bytes and one string of what Delete needs (its terms' ids, its TAG and
// NUMERIC values); Delete finds its VECTOR, GEO and INDEXMISSING entries
// by its id.
//
// The package knows nothing of connections, locks or the keyspace: an
// Index is not safe for concurrent use, its caller serialises access to it
// (the server's index locks, LOCKING.md). Documents are given to it as
// field/value pairs, and a search returns keys and scores; loading the
// fields to return is the caller's.
//
// # Where RediSearch's numbers come from
//
// A query is evaluated as RediSearch evaluates it, with iterators that
// step through document ids (iter.go): the records its TFIDF scorer walks
// depend on how they stepped (a union inside an intersection may hold one
// of its matching children, not all), and so do the scores. Intersections
// order their children by estimated counts as RediSearch does (not with
// INORDER), and check their children's positions (withinRange,
// proximity.go: an exact phrase within 0, in order; SLOP and INORDER).
//
// The two dialects' grammars differ (query.go for DIALECT 2, query1.go
// for DIALECT 1's precedence rules), and so does what they build.
//
// Known differences, each seen against RediSearch 2.10.5: a NUMERIC
// filter is one list here, where RediSearch's range tree of several
// leaves makes it a union whose stepping can change a score's "slop";
// phrases with a stop word (DIALECT 2) match differently; unions of more than 20 children (wide prefixes and tag
// sets) score differently from one RediSearch run to the next, so not
// always as here; a GEO field's range tree is one leaf here (its readers'
// estimates and which cells have one differ from RediSearch's once it
// holds more than about 16 distinct positions); the garbage described
// below.
//
// RediSearch keeps a deleted document's entries in its inverted indexes
// until its garbage collector runs, and counts them in a term's document
// frequency (the IDF) meanwhile. This package removes them at once, so
// scores can differ from RediSearch's after deletions or updates until
// its collector has run; on an index that only received new documents
// they are the same.
package search
