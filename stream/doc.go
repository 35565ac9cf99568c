// Package stream is the data structure behind Redis 7.0 streams
// (src/t_stream.c and src/stream.h): entries with increasing IDs, each a
// list of field/value pairs, consumer groups with their pending entries
// lists, and the bookkeeping XINFO shows (entries-added, the maximal
// deleted ID, entries-read and lag).
//
// The package knows nothing of connections, locks or configuration: the
// node limits (stream-node-max-entries and stream-node-max-bytes) and the
// current time in milliseconds are passed in by the caller. A Stream is not
// safe for concurrent use; the server guards it with its key's lock.
//
// Entries are kept, as in Redis, in nodes that stand for the listpacks of
// Redis's radix tree. A node is closed, and a new one started, exactly when
// Redis would start a new listpack, because the size of a node (its
// listpack's byte size, computed as Redis's listpack would lay it out) and
// the number of entries it holds decide where approximate trimming
// (MAXLEN ~, MINID ~) can cut, and what XINFO reports as radix-tree-keys.
// Dump gives each node's listpack, the very bytes Redis would store, for
// RDB and DUMP.
//
// Field and value slices returned by the package alias the stream's
// storage, which is never changed in place: they stay valid, and must not
// be modified. Arguments are copied.
//
// Files: id.go (IDs and their parsing), listpack.go (the listpack
// encoding and its sizes), node.go (a node and its listpack), stream.go
// (entries: add, range, delete, trim, XSETID), group.go and pel.go
// (consumer groups), dump.go (the RDB/DUMP representation).
package stream
