package search

// fieldMask is a set of TEXT fields by their textID: 128 bits, as
// RediSearch's widest (MAXTEXTFIELDS) masks. A schema of 64 TEXT fields
// or fewer uses lo only.
type fieldMask struct{ lo, hi uint64 }

// allFields is the mask of every field (a term of no @field: modifier,
// NOFIELDS's postings).
var allFields = fieldMask{^uint64(0), ^uint64(0)}

// fieldBit is the mask of the field of textID id (0 to 127).
func fieldBit(id int) fieldMask {
	if id < 64 {
		return fieldMask{lo: 1 << id}
	}
	return fieldMask{hi: 1 << (id - 64)}
}

func (m fieldMask) and(o fieldMask) fieldMask { return fieldMask{m.lo & o.lo, m.hi & o.hi} }
func (m fieldMask) or(o fieldMask) fieldMask  { return fieldMask{m.lo | o.lo, m.hi | o.hi} }

// has reports whether m holds the field of textID id.
func (m fieldMask) has(id int) bool {
	if id < 64 {
		return m.lo&(1<<id) != 0
	}
	return id < 128 && m.hi&(1<<(id-64)) != 0
}

// meets reports whether m and o share a field.
func (m fieldMask) meets(o fieldMask) bool { return m.lo&o.lo != 0 || m.hi&o.hi != 0 }

// empty reports whether m holds no field.
func (m fieldMask) empty() bool { return m.lo == 0 && m.hi == 0 }
