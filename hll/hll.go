// Package hll implements Redis's HyperLogLog on the bytes of a string value,
// exactly as redis-server 7.0 does (src/hyperloglog.c, Redis 7.0.15), so
// that PFADD, PFCOUNT and PFMERGE produce the same replies and leave the
// same bytes in the keyspace as Redis, byte for byte.
//
// A HyperLogLog is an ordinary string. It starts with a 16-byte header:
//
//	"HYLL"  magic
//	E       encoding: 0 dense, 1 sparse
//	N/U     3 unused bytes
//	card    8 bytes, the cached cardinality, little endian; the most
//	        significant bit of the last byte set means "stale"
//
// followed by 16384 registers of 6 bits: dense packs them in 12288 bytes,
// sparse run-length encodes them with the ZERO (00xxxxxx), XZERO
// (01xxxxxx yyyyyyyy) and VAL (1vvvvvxx) opcodes. Elements are hashed with
// MurmurHash64A (seed 0xadc83b19): the low 14 bits pick a register, the
// position of the first 1 bit in the remaining 50 bits (1 to 51) is the
// candidate value. The cardinality is Otmar Ertl's estimator over the
// histogram of register values, as in Redis 7.
//
// Errors follow Redis's own checks and timing: a string that is not a
// HyperLogLog at all is rejected up front with ErrWrongType (Validate), a
// sparse payload whose opcodes do not describe exactly 16384 registers is
// only detected when an operation walks the part that is wrong, and then
// reported with ErrInvalid. Like Redis, a cached cardinality is returned
// without looking at the registers, and PFADD may succeed on a corrupted
// sparse value when no element lands in the broken part.
//
// The one known difference: for a forged sparse value ending in the middle
// of an XZERO opcode, Redis reads the byte after the end of its string,
// which an edit of that opcode can leave behind and which Redis then keeps
// in memory across commands; this package tracks it within one operation
// and assumes Redis's zero terminator again at the start of the next.
//
// Cardinalities are uint64; Redis replies with them as signed integers
// (int64(n)), which matters only for 1<<63, the estimate of forged dense
// registers that make Redis's rounding overflow.
//
// Functions that modify a value (Add, Merge, Union.Store) work like append:
// they may modify the slice passed in and return the value to store, which
// may or may not share its storage. Count and CountMany never modify their
// arguments.
package hll

// Error is an error of this package. Its text is Redis's error reply
// without the leading '-'.
type Error string

// Error returns the Redis error text, e.g. "INVALIDOBJ Corrupted HLL object
// detected".
func (e Error) Error() string { return string(e) }

const (
	// ErrWrongType is Redis's reply for a string that is not a valid
	// HyperLogLog (bad magic, unknown encoding, too short, or a dense
	// value of the wrong length).
	ErrWrongType Error = "WRONGTYPE Key is not a valid HyperLogLog string value."
	// ErrInvalid is Redis's reply for a corrupted sparse HyperLogLog.
	ErrInvalid Error = "INVALIDOBJ Corrupted HLL object detected"
)

// DefaultSparseMaxBytes is the default of Redis's hll-sparse-max-bytes: a
// sparse value that would grow beyond this many bytes (header included)
// is converted to the dense encoding.
const DefaultSparseMaxBytes = 3000

const (
	hllP         = 14                         // register index bits
	hllQ         = 64 - hllP                  // bits used for the zero-run count
	numRegisters = 1 << hllP                  // 16384
	regBits      = 6                          // bits per dense register
	regMax       = 1<<regBits - 1             // 63
	hdrSize      = 16                         // header bytes
	denseBytes   = numRegisters * regBits / 8 // 12288
	denseSize    = hdrSize + denseBytes       // a dense value's exact length
	encDense     = 0                          // encoding byte of dense values
	encSparse    = 1                          // encoding byte of sparse values
	encodingPos  = 4                          // offset of the encoding byte
	cardPos      = 8                          // offset of the cached cardinality
	staleBit     = 0x80                       // in the last byte of the cache
	stalePos     = cardPos + 7                // byte holding staleBit
	magic        = "HYLL"                     // first four bytes
	emptySparse  = "\x7f\xff"                 // XZERO:16384, all registers zero
	emptyLen     = hdrSize + len(emptySparse)
)

// New returns an empty HyperLogLog as Redis creates it: sparse, all
// registers zero, cached cardinality 0 (valid).
func New() []byte {
	v := make([]byte, emptyLen)
	copy(v, magic)
	v[encodingPos] = encSparse
	copy(v[hdrSize:], emptySparse)
	return v
}

// Validate reports whether v is acceptable as a HyperLogLog, as Redis's
// isHLLObjectOrReply does before every PF command: it returns ErrWrongType
// when v is shorter than the header, lacks the "HYLL" magic, has an
// encoding other than dense or sparse, or is dense with a length other
// than 12304 bytes; nil otherwise. It does not look at sparse opcodes:
// their corruption is reported with ErrInvalid by the operations, where and
// when Redis reports it. (Values that are not strings get Redis's generic
// WRONGTYPE error from the caller.)
func Validate(v []byte) error {
	switch {
	case len(v) < hdrSize, string(v[:4]) != magic, v[encodingPos] > encSparse:
		return ErrWrongType
	case v[encodingPos] == encDense && len(v) != denseSize:
		return ErrWrongType
	}
	return nil
}

// isDense reports whether the valid value v uses the dense encoding.
func isDense(v []byte) bool { return v[encodingPos] == encDense }

// invalidate marks the cached cardinality of v stale.
func invalidate(v []byte) { v[stalePos] |= staleBit }

// Add adds elems to the HyperLogLog v of an existing key, as PFADD does,
// and returns the value to store and whether a register changed (PFADD's
// reply 1 or 0). maxSparse is hll-sparse-max-bytes: a sparse value is
// converted to dense when an element needs a register above 32 or when it
// would grow beyond maxSparse bytes. When a register changed the cached
// cardinality is marked stale. (For a missing key, use Create.)
//
// v may be modified in place. Errors: ErrWrongType when Validate rejects v
// (nv is v, untouched); ErrInvalid when an element needs a corrupted part
// of a sparse value (no opcode covers its register, or the value must
// become dense and its opcodes do not cover exactly 16384 registers). nv
// then holds the elements added before, as Redis keeps them: store it.
func Add(v []byte, maxSparse int, elems ...[]byte) (nv []byte, changed bool, err error) {
	if err := Validate(v); err != nil {
		return v, false, err
	}
	x := value{b: v}
	for _, e := range elems {
		index, count := patLen(e)
		set, err := x.set(index, count, maxSparse)
		if err != nil {
			return x.b, changed, err
		}
		changed = changed || set
	}
	if changed {
		invalidate(x.b)
	}
	return x.b, changed, nil
}

// Create returns the value PFADD stores for a key that does not exist: an
// empty HyperLogLog holding elems, with the cached cardinality marked
// stale. PFADD replies 1 in that case, even with no elements.
func Create(maxSparse int, elems ...[]byte) []byte {
	v, _, _ := Add(New(), maxSparse, elems...) // New is valid: no error
	invalidate(v)
	return v
}

// Count returns the cardinality of one HyperLogLog, as PFCOUNT with a
// single key does: the cached value when it is valid (updated false, nv
// is v), else the freshly estimated one, with nv a new copy of v holding
// it in its cache (updated true; Redis writes it back, so the key's bytes
// change even though PFCOUNT is a read command). v itself is never
// modified. Errors: ErrWrongType (Validate) and ErrInvalid for a corrupted
// sparse value whose cache is stale; nv is then v.
func Count(v []byte) (n uint64, nv []byte, updated bool, err error) {
	if err := Validate(v); err != nil {
		return 0, v, false, err
	}
	if v[stalePos]&staleBit == 0 {
		return cachedCard(v), v, false, nil
	}
	var h histogram
	if isDense(v) {
		h.addDense(v[hdrSize:])
	} else if !h.addSparse(v[hdrSize:]) {
		return 0, v, false, ErrInvalid
	}
	n = h.estimate()
	nv = append([]byte(nil), v...)
	putCard(nv, n)
	return n, nv, true, nil
}

// cachedCard returns the cached cardinality of v.
func cachedCard(v []byte) uint64 {
	var n uint64
	for i := 7; i >= 0; i-- {
		n = n<<8 | uint64(v[cardPos+i])
	}
	return n
}

// putCard stores n as the cached cardinality of v.
func putCard(v []byte, n uint64) {
	for i := range 8 {
		v[cardPos+i] = byte(n >> (8 * i))
	}
}

// CountMany returns the cardinality of the union of several HyperLogLogs,
// as PFCOUNT with more than one key does, without touching any cache.
// vs are the values of the keys that exist, in the order of the command
// (Redis treats missing keys as empty). The first value that fails stops
// the count with its error: ErrWrongType, or ErrInvalid for a corrupted
// sparse value. Callers that must interleave their own per-key checks use
// Union.
func CountMany(vs ...[]byte) (uint64, error) {
	var u Union
	for _, v := range vs {
		if err := u.Merge(v); err != nil {
			return 0, err
		}
	}
	return u.Count(), nil
}

// Merge merges srcs into dst as PFMERGE dst src... does and returns the
// value to store under dst. dst is the destination's current value, or
// New() when the key does not exist; like Redis, it is itself part of the
// union and checked first, then srcs in order (values of missing source
// keys are left out). The result is dense when any input is dense, else
// stays sparse until it outgrows maxSparse (hll-sparse-max-bytes); its
// cached cardinality is marked stale. dst may be modified in place, but
// not when an error is returned: ErrWrongType or ErrInvalid for the first
// value that fails, as with CountMany.
func Merge(dst []byte, maxSparse int, srcs ...[]byte) ([]byte, error) {
	var u Union
	if err := u.Merge(dst); err != nil {
		return dst, err
	}
	for _, v := range srcs {
		if err := u.Merge(v); err != nil {
			return dst, err
		}
	}
	return u.Store(dst, maxSparse)
}
