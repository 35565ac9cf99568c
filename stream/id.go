package stream

import (
	"bytes"
	"math"
	"strconv"
)

// ID is a stream entry ID: a millisecond time and a sequence number,
// ordered by Ms then Seq.
type ID struct {
	Ms, Seq uint64
}

// MinID and MaxID are the smallest and greatest IDs, "-" and "+".
var (
	MinID = ID{}
	MaxID = ID{math.MaxUint64, math.MaxUint64}
)

// Compare returns -1, 0 or 1 as id is less than, equal to or greater than
// o.
func (id ID) Compare(o ID) int {
	switch {
	case id.Ms < o.Ms:
		return -1
	case id.Ms > o.Ms:
		return 1
	case id.Seq < o.Seq:
		return -1
	case id.Seq > o.Seq:
		return 1
	}
	return 0
}

// IsZero reports whether id is 0-0.
func (id ID) IsZero() bool { return id == ID{} }

// Incr returns the ID that follows id (Redis's streamIncrID). For MaxID it
// returns 0-0 and false.
func (id ID) Incr() (ID, bool) {
	switch {
	case id.Seq < math.MaxUint64:
		return ID{id.Ms, id.Seq + 1}, true
	case id.Ms < math.MaxUint64:
		return ID{id.Ms + 1, 0}, true
	}
	return ID{}, false
}

// Decr returns the ID that precedes id (Redis's streamDecrID). For 0-0 it
// returns MaxID and false.
func (id ID) Decr() (ID, bool) {
	switch {
	case id.Seq > 0:
		return ID{id.Ms, id.Seq - 1}, true
	case id.Ms > 0:
		return ID{id.Ms - 1, math.MaxUint64}, true
	}
	return MaxID, false
}

// String returns id as "ms-seq", the form replies use.
func (id ID) String() string { return string(id.Append(nil)) }

// Append appends id as "ms-seq" to b.
func (id ID) Append(b []byte) []byte {
	b = strconv.AppendUint(b, id.Ms, 10)
	b = append(b, '-')
	return strconv.AppendUint(b, id.Seq, 10)
}

// AddID says how Add chooses the ID of a new entry: XADD's "*" (Auto),
// "ms-*" (SeqAuto, with ID.Ms set) or an explicit ID.
type AddID struct {
	ID      ID
	Auto    bool // "*": the ID comes from the clock
	SeqAuto bool // "ms-*": ID.Ms is given, the sequence is generated
}

// ParseID parses a stream ID argument as Redis's streamParseIDOrReply: "-"
// and "+" stand for MinID and MaxID, and "ms" alone has the sequence
// missingSeq (0 for a range start, math.MaxUint64 for a range end). The
// error is ErrInvalidID.
func ParseID(arg []byte, missingSeq uint64) (ID, error) {
	id, _, err := parseID(arg, missingSeq, false, false)
	return id, err
}

// ParseStrictID is ParseID rejecting "-" and "+" (streamParseStrictIDOrReply),
// for the IDs of XDEL, XACK, XCLAIM, XGROUP CREATE, XSETID and the like.
func ParseStrictID(arg []byte, missingSeq uint64) (ID, error) {
	id, _, err := parseID(arg, missingSeq, true, false)
	return id, err
}

// ParseAddID parses XADD's ID argument: "*", "ms-*", "ms" (sequence 0) or
// "ms-seq". The error is ErrInvalidID. The check that an explicit ID is not
// 0-0 (ErrAddZero) is Validate's, since Redis makes it after the arity
// check.
func ParseAddID(arg []byte) (AddID, error) {
	if len(arg) > 0 && arg[0] == '*' && (len(arg) == 1 || arg[1] == 0) {
		return AddID{Auto: true}, nil
	}
	id, seqGiven, err := parseID(arg, 0, true, true)
	if err != nil {
		return AddID{}, err
	}
	return AddID{ID: id, SeqAuto: !seqGiven}, nil
}

// Validate returns ErrAddZero for an explicit 0-0, which XADD refuses
// before it looks the key up; nil otherwise.
func (a AddID) Validate() error {
	if !a.Auto && !a.SeqAuto && a.ID.IsZero() {
		return ErrAddZero
	}
	return nil
}

// ParseRangeStart parses the start of a range (XRANGE, XPENDING,
// XAUTOCLAIM): an ID as ParseID with missing sequence 0, or "(" and a
// strict ID for an exclusive start, which is then replaced by the ID that
// follows it (ErrInvalidStartInterval when there is none).
func ParseRangeStart(arg []byte) (ID, error) {
	id, excl, err := parseInterval(arg, 0)
	if err == nil && excl {
		var ok bool
		if id, ok = id.Incr(); !ok {
			return id, ErrInvalidStartInterval
		}
	}
	return id, err
}

// ParseRangeEnd parses the end of a range: an ID as ParseID with missing
// sequence math.MaxUint64, or "(" and a strict ID for an exclusive end,
// replaced by the ID before it (ErrInvalidEndInterval when there is none).
func ParseRangeEnd(arg []byte) (ID, error) {
	id, excl, err := parseInterval(arg, math.MaxUint64)
	if err == nil && excl {
		var ok bool
		if id, ok = id.Decr(); !ok {
			return id, ErrInvalidEndInterval
		}
	}
	return id, err
}

// parseInterval is streamParseIntervalIDOrReply.
func parseInterval(arg []byte, missingSeq uint64) (id ID, excl bool, err error) {
	if len(arg) > 1 && arg[0] == '(' {
		id, _, err = parseID(arg[1:], missingSeq, true, false)
		return id, true, err
	}
	id, _, err = parseID(arg, missingSeq, false, false)
	return id, false, err
}

// parseID is streamGenericParseIDOrReply. Redis copies the argument into a
// 128-byte C string, so anything from a NUL byte on is ignored. With
// allowSeqAuto (XADD) "ms-*" is accepted and seqGiven reports whether the
// sequence was given.
func parseID(arg []byte, missingSeq uint64, strict, allowSeqAuto bool) (id ID, seqGiven bool, err error) {
	if len(arg) > 127 {
		return ID{}, false, ErrInvalidID
	}
	if i := bytes.IndexByte(arg, 0); i >= 0 {
		arg = arg[:i]
	}
	if len(arg) == 1 && (arg[0] == '-' || arg[0] == '+') {
		if strict {
			return ID{}, false, ErrInvalidID
		}
		if arg[0] == '-' {
			return MinID, true, nil
		}
		return MaxID, true, nil
	}
	msPart, seqPart, dash := bytes.Cut(arg, []byte{'-'})
	ms, ok := parseUint(msPart)
	if !ok {
		return ID{}, false, ErrInvalidID
	}
	if !dash {
		return ID{ms, missingSeq}, true, nil
	}
	if allowSeqAuto && len(seqPart) == 1 && seqPart[0] == '*' {
		return ID{ms, 0}, false, nil
	}
	seq, ok := parseUint(seqPart)
	if !ok {
		return ID{}, false, ErrInvalidID
	}
	return ID{ms, seq}, true, nil
}

// parseUint is Redis's string2ull: a canonical non-negative long long, or
// else whatever strtoull(3) accepts in full, without overflow (leading
// white space, a sign, leading zeros; a minus negates modulo 2^64).
func parseUint(s []byte) (uint64, bool) {
	if v, ok := parseCanonicalInt(s); ok {
		return uint64(v), v >= 0
	}
	i := 0
	for i < len(s) && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i == len(s) {
		return 0, false
	}
	var v uint64
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-uint64(c-'0'))/10 {
			return 0, false // ERANGE
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// parseCanonicalInt reports whether s is an int64 in canonical decimal
// form (no sign but a leading minus, no leading zeros, no "-0"), as
// Redis's string2ll and the listpack's lpStringToInt64 require.
func parseCanonicalInt(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) > 20 {
		return 0, false
	}
	if s[0] == '0' {
		return 0, len(s) == 1
	}
	neg := s[0] == '-'
	d := s
	if neg {
		d = s[1:]
		if len(d) == 0 || d[0] == '0' {
			return 0, false
		}
	}
	var v uint64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-uint64(c-'0'))/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return int64(-v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}
