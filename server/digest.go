package server

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"strconv"

	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/rdb"
	"github.com/hotkv/hotkv/stream"
)

// DEBUG DIGEST and DIGEST-VALUE: Redis's digests of the dataset and of
// values (debug.c), bit for bit, so that they compare with redis-server's
// for the same data. An unordered collection's digest is the xor of its
// elements' digests; an ordered one's feeds each element into the
// running digest.

type digest [20]byte

// xor xors SHA1(data) into d (xorDigest).
func (d *digest) xor(data []byte) {
	h := sha1.Sum(data)
	for i := range d {
		d[i] ^= h[i]
	}
}

// mix makes d SHA1(d xor SHA1(data)) (mixDigest): the order counts.
func (d *digest) mix(data []byte) {
	d.xor(data)
	*d = sha1.Sum(d[:])
}

func (d digest) hex() string { return hex.EncodeToString(d[:]) }

// valueDigest mixes into d the digest of e, key's value (xorObjectDigest).
func valueDigest(d *digest, e *keyspace.Entry) {
	if e.Kind == keyspace.KindSuggest {
		// A module value (OBJ_MODULE): RediSearch registers no digest
		// callback for its dictionaries, so only the type counts.
		var typ [4]byte
		binary.BigEndian.PutUint32(typ[:], 5)
		d.mix(typ[:])
		if e.Expire() != 0 {
			d.xor([]byte("!!expire!!"))
		}
		return
	}
	v := entryValue(e)
	if v == nil {
		return
	}
	var typ [4]byte
	binary.BigEndian.PutUint32(typ[:], uint32(rdbObjectType(v.Kind)))
	d.mix(typ[:])
	switch v.Kind {
	case rdb.KindString:
		d.mix(v.Str)
	case rdb.KindList:
		for _, it := range v.Items {
			d.mix(it)
		}
	case rdb.KindSet:
		for _, it := range v.Items {
			d.xor(it)
		}
	case rdb.KindZSet:
		for _, m := range v.ZSet {
			var el digest
			el.mix(m.Member)
			el.mix([]byte(formatScore17(m.Score)))
			d.xor(el[:])
		}
	case rdb.KindHash:
		for _, p := range v.Pairs {
			var el digest
			el.mix(p[0])
			el.mix(p[1])
			d.xor(el[:])
		}
	case rdb.KindStream:
		for _, en := range streamOf(e).Range(stream.MinID, stream.MaxID, 0, false) {
			d.mix([]byte(strconv.FormatUint(en.ID.Ms, 10) + "." + strconv.FormatUint(en.ID.Seq, 10)))
			for _, f := range en.Fields {
				d.mix(f)
			}
		}
	}
	if e.Expire() != 0 {
		d.xor([]byte("!!expire!!"))
	}
}

// rdbObjectType is Redis's object type number (OBJ_STRING ... OBJ_STREAM)
// of a value kind.
func rdbObjectType(k rdb.Kind) int {
	switch k {
	case rdb.KindList:
		return 1
	case rdb.KindSet:
		return 2
	case rdb.KindZSet:
		return 3
	case rdb.KindHash:
		return 4
	case rdb.KindStream:
		return 6
	}
	return 0
}

// datasetDigest is DEBUG DIGEST's digest of every database
// (computeDatasetDigest). The caller holds the global lock exclusively.
func (s *Server) datasetDigest() digest {
	var final digest
	for i, db := range s.dbs {
		if db.Len() == 0 {
			continue
		}
		var id [4]byte
		binary.BigEndian.PutUint32(id[:], uint32(i))
		final.mix(id[:])
		for cursor := uint64(0); ; {
			cursor = db.Scan(cursor, 1024, func(key string, e *keyspace.Entry) {
				db.Load(e) // under the global lock: counted as a load under a lock
				var kv digest
				kv.mix([]byte(key))
				valueDigest(&kv, e)
				final.xor(kv[:])
			})
			if cursor == 0 {
				break
			}
		}
	}
	return final
}

// DEBUG DIGEST
func debugDigest(c *Client) { c.w.Simple(c.srv.datasetDigest().hex()) }

// DEBUG DIGEST-VALUE [key ...]: each key's value digest, 40 zeros for a
// missing key.
func debugDigestValue(c *Client, keys [][]byte) {
	c.w.Array(len(keys))
	for _, k := range keys {
		var d digest
		if e := c.db.Peek(k); e != nil {
			valueDigest(&d, e)
		}
		c.w.Simple(d.hex())
	}
}
