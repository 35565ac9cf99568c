package hll

// Union accumulates the register-wise maximum of HyperLogLogs, the way
// PFCOUNT with several keys and PFMERGE walk their keys. It lets a caller
// interleave its own per-key checks (a key holding a list gets Redis's
// generic WRONGTYPE error at its position in the command) with Merge:
//
//	var u hll.Union
//	for each key, in command order:
//		missing: skip; not a string: generic WRONGTYPE error, stop
//		u.Merge(value): on error, reply with it and stop
//	PFCOUNT: u.Count(); PFMERGE: u.Store(destination value or New(), max)
//
// The zero value is an empty union, ready to use. A Union is 16 KiB.
type Union struct {
	max   [numRegisters]uint8 // register-wise maximum so far
	dense bool                // a dense value was merged
}

// Merge adds the HyperLogLog v to the union, as Redis's hllMerge does.
// Errors: ErrWrongType when Validate rejects v, ErrInvalid when v is a
// corrupted sparse value; the union may then hold part of v.
func (u *Union) Merge(v []byte) error {
	if err := Validate(v); err != nil {
		return err
	}
	if isDense(v) {
		u.dense = true
		u.mergeDense(v[hdrSize:])
		return nil
	}
	ok := walkSparse(v[hdrSize:], 0, func(first, n int, val uint8) {
		for i := first; i < first+n; i++ {
			u.max[i] = max(u.max[i], val)
		}
	})
	if !ok {
		return ErrInvalid
	}
	return nil
}

// mergeDense merges the dense registers r.
func (u *Union) mergeDense(r []byte) {
	for i, j := 0, 0; i+3 <= len(r); i, j = i+3, j+4 {
		r0, r1, r2, r3 := unpack4(r[i], r[i+1], r[i+2])
		u.max[j] = max(u.max[j], r0)
		u.max[j+1] = max(u.max[j+1], r1)
		u.max[j+2] = max(u.max[j+2], r2)
		u.max[j+3] = max(u.max[j+3], r3)
	}
}

// Count returns the cardinality estimate of the union (PFCOUNT with
// several keys). Like Redis, it is 1<<63 only for forged registers, and
// Redis replies with it as a signed integer: int64 of the result.
func (u *Union) Count() uint64 {
	var h histogram
	h.addRaw(&u.max)
	return h.estimate()
}

// Store writes the union into dst and returns the value to store under
// PFMERGE's destination, as pfmergeCommand does. dst must be the
// destination's current value, already merged into u (PFMERGE's first key
// is its destination), or New() when the key does not exist. dst is
// converted to dense first when any merged value was dense; each nonzero
// register is then raised to the union's value, promoting a sparse dst
// that outgrows maxSparse (hll-sparse-max-bytes); the cached cardinality is
// marked stale. dst may be modified in place. Errors (impossible when dst
// was merged first): ErrWrongType when Validate rejects dst, ErrInvalid
// when a corrupted sparse dst must become dense.
func (u *Union) Store(dst []byte, maxSparse int) ([]byte, error) {
	if err := Validate(dst); err != nil {
		return dst, err
	}
	x := value{b: dst}
	if u.dense {
		if err := x.toDense(); err != nil {
			return dst, err
		}
	}
	for i, val := range u.max {
		if val != 0 {
			x.set(i, val, maxSparse) // Redis ignores errors: x is unchanged
		}
	}
	dst = x.b
	invalidate(dst)
	return dst, nil
}
