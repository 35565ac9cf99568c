package server

import (
	"math"
	"math/bits"

	"github.com/hotkv/hotkv/keyspace"
)

// Bitmaps: strings addressed bit by bit, as Redis's bitops.c. Bit 0 is the
// most significant bit of the first byte.

func bitmapCommands() []*Command {
	const (
		rw  = Write | DenyOOM
		ro  = Readonly
		rof = Readonly | Fast
	)
	return []*Command{
		{Name: "setbit", Arity: 4, Flags: rw, First: 1, Last: 1, Step: 1, Handler: cmdSetBit},
		{Name: "getbit", Arity: 3, Flags: rof, First: 1, Last: 1, Step: 1, Handler: cmdGetBit},
		{Name: "bitcount", Arity: -2, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdBitCount},
		{Name: "bitpos", Arity: -3, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdBitPos},
		{Name: "bitop", Arity: -4, Flags: rw, First: 2, Last: -1, Step: 1, Handler: cmdBitOp},
		{Name: "bitfield", Arity: -2, Flags: rw, First: 1, Last: 1, Step: 1, Handler: cmdBitField},
		{Name: "bitfield_ro", Arity: -2, Flags: rof, First: 1, Last: 1, Step: 1, Handler: cmdBitFieldRO},
	}
}

// bitOffset parses a bit offset as getBitOffsetFromArgument: with hash,
// "#n" means n*width. Offsets whose byte is past proto-max-bulk-len are
// refused.
func (c *Client) bitOffset(arg []byte, hash bool, width int) (uint64, bool) {
	useHash := hash && width > 0 && len(arg) > 0 && arg[0] == '#'
	if useHash {
		arg = arg[1:]
	}
	n, ok := parseInt(arg)
	if useHash {
		n *= int64(width) // wraps as C's does; a negative result is refused below
	}
	if !ok || n < 0 || n>>3 >= c.srv.protoMaxBulk.Int() {
		c.errorReply(errBitOffset)
		return 0, false
	}
	return uint64(n), true
}

// bitString returns key's string for a bit write, created or grown with
// zero bytes so that bit maxBit exists (lookupStringForBitCommand); grown
// reports a new or longer string. It returns nil after replying WRONGTYPE.
func (c *Client) bitString(key []byte, maxBit uint64) (e *keyspace.Entry, grown bool) {
	n := int(maxBit>>3) + 1
	e = c.lookupWrite(key)
	if e == nil {
		e = keyspace.NewString(key, make([]byte, n))
		e.MarkRaw()
		return c.db.Set(key, e), true
	}
	if !c.checkType(e, keyspace.KindString) {
		return nil, false
	}
	if n > len(e.Str()) {
		c.db.GrowString(e, n)
		grown = true
	}
	e.MarkRaw()
	return e, grown
}

// SETBIT key offset value
func cmdSetBit(c *Client, args [][]byte) {
	off, ok := c.bitOffset(args[2], false, 0)
	if !ok {
		return
	}
	on, ok := parseInt(args[3])
	if !ok || on&^1 != 0 {
		c.errorReply(errBitValue)
		return
	}
	e, grown := c.bitString(args[1], off)
	if e == nil {
		return
	}
	i, mask := off>>3, byte(1)<<(7-off&7)
	v := e.Str()
	was := v[i]&mask != 0
	if grown || was != (on == 1) {
		v[i] = v[i]&^mask | byte(on)<<(7-off&7)
		c.db.Updated(args[1], e)
		c.notify(evString, "setbit", args[1])
	} else {
		c.propagateNothing()
	}
	c.w.Int(b2i64(was))
}

func b2i64(v bool) int64 {
	if v {
		return 1
	}
	return 0
}

// GETBIT key offset
func cmdGetBit(c *Client, args [][]byte) {
	off, ok := c.bitOffset(args[2], false, 0)
	if !ok {
		return
	}
	e := c.lookupRead(args[1])
	if !c.checkType(e, keyspace.KindString) {
		return
	}
	var bit int64
	if e != nil && off>>3 < uint64(len(e.Str())) {
		bit = int64(e.Str()[off>>3]>>(7-off&7)) & 1
	}
	c.w.Int(bit)
}

// bitRange converts BITCOUNT's and BITPOS's start and end (bytes, or bits
// with isBit) over a string of n bytes to a byte range [start, end] and
// the masks of the bits outside the range in its first and last bytes.
// start > end means an empty range.
func bitRange(start, end int64, n int, isBit bool) (s, e int64, firstNeg, lastNeg byte) {
	total := int64(n)
	if isBit {
		total <<= 3
	}
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	start, end = max(start, 0), max(end, 0)
	if end >= total {
		end = total - 1
	}
	if isBit && start <= end {
		firstNeg = ^byte(1<<(8-start&7) - 1)
		lastNeg = byte(1<<(7-end&7) - 1)
		start >>= 3
		end >>= 3
	}
	return start, end, firstNeg, lastNeg
}

// bitUnit parses BITCOUNT's and BITPOS's BYTE | BIT.
func (c *Client) bitUnit(arg []byte) (isBit, ok bool) {
	switch {
	case equalFold(arg, "bit"):
		return true, true
	case equalFold(arg, "byte"):
		return false, true
	}
	c.errorReply(errSyntax)
	return false, false
}

func popcount(b []byte) (n int64) {
	for _, x := range b {
		n += int64(bits.OnesCount8(x))
	}
	return n
}

// BITCOUNT key [start end [BYTE | BIT]]
func cmdBitCount(c *Client, args [][]byte) {
	e := c.lookupRead(args[1])
	if e == nil {
		c.w.Int(0) // before the arguments are looked at, as in Redis
		return
	}
	if !c.checkType(e, keyspace.KindString) {
		return
	}
	p := e.Str()
	start, end := int64(0), int64(len(p))-1
	var firstNeg, lastNeg byte
	switch len(args) {
	case 2:
	case 4, 5:
		var ok bool
		if start, ok = c.intArg(args[2]); !ok {
			return
		}
		if end, ok = c.intArg(args[3]); !ok {
			return
		}
		if start < 0 && end < 0 && start > end {
			c.w.Int(0)
			return
		}
		isBit := false
		if len(args) == 5 {
			if isBit, ok = c.bitUnit(args[4]); !ok {
				return
			}
		}
		start, end, firstNeg, lastNeg = bitRange(start, end, len(p), isBit)
	default:
		c.errorReply(errSyntax)
		return
	}
	if start > end {
		c.w.Int(0)
		return
	}
	n := popcount(p[start : end+1])
	n -= int64(bits.OnesCount8(p[start]&firstNeg)) + int64(bits.OnesCount8(p[end]&lastNeg))
	c.w.Int(n)
}

// bitpos is redisBitpos: the position of the first bit set to bit in p, or
// for a 0 not found the bit just after p (zero padding), for a 1 not found
// -1.
func bitpos(p []byte, bit byte) int64 {
	skip := byte(0)
	if bit == 0 {
		skip = 0xff
	}
	for i, x := range p {
		if x != skip {
			if bit == 0 {
				x = ^x
			}
			return int64(i)*8 + int64(bits.LeadingZeros8(x))
		}
	}
	if bit == 1 {
		return -1
	}
	return int64(len(p)) * 8
}

// BITPOS key bit [start [end [BYTE | BIT]]]
func cmdBitPos(c *Client, args [][]byte) {
	b, ok := parseInt(args[2])
	if !ok {
		c.errorReply(errNotInt)
		return
	}
	if b != 0 && b != 1 {
		c.errorReply(errBitArgument)
		return
	}
	bit := byte(b)
	e := c.lookupRead(args[1])
	if e == nil {
		c.w.Int(-int64(bit)) // an infinite run of zeros
		return
	}
	if !c.checkType(e, keyspace.KindString) {
		return
	}
	p := e.Str()
	start, end := int64(0), int64(len(p))-1
	var firstNeg, lastNeg byte
	endGiven := false
	switch len(args) {
	case 3:
	case 4, 5, 6:
		if start, ok = c.intArg(args[3]); !ok {
			return
		}
		isBit := false
		if len(args) == 6 {
			if isBit, ok = c.bitUnit(args[5]); !ok {
				return
			}
		}
		if len(args) >= 5 {
			if end, ok = c.intArg(args[4]); !ok {
				return
			}
			endGiven = true
		}
		start, end, firstNeg, lastNeg = bitRange(start, end, len(p), isBit)
	default:
		c.errorReply(errSyntax)
		return
	}
	if start > end {
		c.w.Int(-1) // an empty range holds neither a 0 nor a 1
		return
	}
	c.w.Int(bitposRange(p, bit, start, end, firstNeg, lastNeg, endGiven))
}

// bitposRange is BITPOS over bytes start..end of p, without the bits of
// firstNeg and lastNeg at the edges, step by step as Redis 7.0's
// bitposCommand.
func bitposRange(p []byte, bit byte, start, end int64, firstNeg, lastNeg byte, endGiven bool) int64 {
	// edge keeps only the bits of x inside the range.
	edge := func(x, neg byte) byte {
		if bit == 1 {
			return x &^ neg
		}
		return x | neg
	}
	nbytes := end - start + 1
	pos := func() int64 {
		if firstNeg != 0 {
			x := edge(p[start], firstNeg)
			if lastNeg != 0 && nbytes == 1 {
				x = edge(x, lastNeg)
			}
			pos := bitpos([]byte{x}, bit)
			if nbytes == 1 || pos != -1 && pos != 8 {
				return pos
			}
			start++
			nbytes--
		}
		cur := nbytes
		if lastNeg != 0 {
			cur--
		}
		if cur > 0 {
			pos := bitpos(p[start:start+cur], bit)
			if nbytes == cur || pos != -1 && pos != cur*8 {
				return pos
			}
			start += cur
			nbytes -= cur
		}
		return bitpos([]byte{edge(p[end], lastNeg)}, bit)
	}()
	// A 0 found only past an explicit end is not in the range.
	if endGiven && bit == 0 && pos == nbytes*8 {
		return -1
	}
	if pos != -1 {
		pos += start * 8
	}
	return pos
}

// BITOP <AND | OR | XOR | NOT> destkey key [key ...]
func cmdBitOp(c *Client, args [][]byte) {
	op := string(asciiLower(cstr(args[1])))
	if op != "and" && op != "or" && op != "xor" && op != "not" {
		c.errorReply(errSyntax)
		return
	}
	if op == "not" && len(args) != 4 {
		c.errorReply(errBitopNot)
		return
	}
	srcs := make([][]byte, 0, len(args)-3)
	maxLen := 0
	for _, k := range args[3:] {
		e := c.lookupRead(k)
		if e == nil {
			srcs = append(srcs, nil)
			continue
		}
		if !c.checkType(e, keyspace.KindString) {
			return
		}
		srcs = append(srcs, e.Str())
		maxLen = max(maxLen, len(e.Str()))
	}
	dst := args[2]
	if maxLen == 0 {
		if c.db.Delete(dst) {
			c.notify(evGeneric, "del", dst)
		} else {
			c.propagateNothing()
		}
		c.w.Int(0)
		return
	}
	res := make([]byte, maxLen)
	at := func(s []byte, i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	for i := range res {
		x := at(srcs[0], i)
		for _, s := range srcs[1:] {
			switch op {
			case "and":
				x &= at(s, i)
			case "or":
				x |= at(s, i)
			case "xor":
				x ^= at(s, i)
			}
		}
		if op == "not" {
			x = ^x
		}
		res[i] = x
	}
	e := keyspace.NewString(dst, res)
	e.MarkRaw()
	c.db.Set(dst, e)
	c.notify(evString, "set", dst)
	c.w.Int(int64(maxLen))
}

// asciiLower returns b lowercased (ASCII), in a new slice.
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, x := range b {
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		out[i] = x
	}
	return out
}

// Overflow behaviours of BITFIELD.
const (
	bfWrap = iota
	bfSat
	bfFail
)

// bitfieldOp is one GET, SET or INCRBY of a BITFIELD call.
type bitfieldOp struct {
	op     byte // 'g', 's', 'i'
	offset uint64
	value  int64
	width  int
	signed bool
	ow     int
}

// BITFIELD key [GET encoding offset | [OVERFLOW <WRAP | SAT | FAIL>]
// <SET encoding offset value | INCRBY encoding offset increment>
// [GET encoding offset | [OVERFLOW <WRAP | SAT | FAIL>]
// <SET encoding offset value | INCRBY encoding offset increment> ...]]
func cmdBitField(c *Client, args [][]byte) { c.bitfield(args, false) }

// BITFIELD_RO key [GET encoding offset [GET encoding offset ...]]
func cmdBitFieldRO(c *Client, args [][]byte) { c.bitfield(args, true) }

func (c *Client) bitfield(args [][]byte, readonly bool) {
	var ops []bitfieldOp
	ow := bfWrap
	writes := false
	var highest uint64
	for j := 2; j < len(args); j++ {
		rem := len(args) - j - 1
		var op byte
		switch sub := args[j]; {
		case equalFold(sub, "get") && rem >= 2:
			op = 'g'
		case equalFold(sub, "set") && rem >= 3:
			op = 's'
		case equalFold(sub, "incrby") && rem >= 3:
			op = 'i'
		case equalFold(sub, "overflow") && rem >= 1:
			j++
			switch {
			case equalFold(args[j], "wrap"):
				ow = bfWrap
			case equalFold(args[j], "sat"):
				ow = bfSat
			case equalFold(args[j], "fail"):
				ow = bfFail
			default:
				c.errorReply(errBitfieldOverflow)
				return
			}
			continue
		default:
			c.errorReply(errSyntax)
			return
		}
		signed, width, ok := c.bitfieldType(args[j+1])
		if !ok {
			return
		}
		off, ok := c.bitOffset(args[j+2], true, width)
		if !ok {
			return
		}
		o := bitfieldOp{op: op, offset: off, width: width, signed: signed, ow: ow}
		if op != 'g' {
			writes = true
			highest = max(highest, off+uint64(width)-1)
			if o.value, ok = c.intArg(args[j+3]); !ok {
				return
			}
			j++
		}
		ops = append(ops, o)
		j += 2
	}
	var e *keyspace.Entry
	grown := false
	if !writes {
		if e = c.lookupRead(args[1]); !c.checkType(e, keyspace.KindString) {
			return
		}
	} else {
		if readonly {
			c.errorReply(errBitfieldRO)
			return
		}
		if e, grown = c.bitString(args[1], highest); e == nil {
			return
		}
	}
	c.w.Array(len(ops))
	changes := 0
	for _, o := range ops {
		if o.op == 'g' {
			var buf [9]byte
			if e != nil && o.offset>>3 < uint64(len(e.Str())) {
				copy(buf[:], e.Str()[o.offset>>3:])
			}
			c.w.Int(getBitfield(buf[:], o.offset&7, o.width, o.signed))
			continue
		}
		old := getBitfield(e.Str(), o.offset, o.width, o.signed)
		var next, reply int64
		var overflow bool
		if o.op == 'i' {
			next, overflow = bitfieldAdd(old, o.value, o.width, o.signed, o.ow)
			reply = next
		} else {
			next, overflow = bitfieldAdd(o.value, 0, o.width, o.signed, o.ow)
			reply = old
		}
		if overflow && o.ow == bfFail {
			c.w.Null()
			continue
		}
		c.w.Int(reply)
		setBitfield(e.Str(), o.offset, o.width, uint64(next))
		if grown || old != next {
			changes++
		}
	}
	if changes > 0 {
		c.db.Updated(args[1], e)
		c.notify(evString, "setbit", args[1])
	} else {
		c.propagateNothing()
	}
}

// bitfieldType parses a BITFIELD type: i1..i64 or u1..u63.
func (c *Client) bitfieldType(arg []byte) (signed bool, width int, ok bool) {
	arg = cstr(arg)
	if len(arg) == 0 || arg[0] != 'i' && arg[0] != 'u' {
		c.errorReply(errBitfieldType)
		return false, 0, false
	}
	signed = arg[0] == 'i'
	n, ok := parseInt(arg[1:])
	if !ok || n < 1 || signed && n > 64 || !signed && n > 63 {
		c.errorReply(errBitfieldType)
		return false, 0, false
	}
	return signed, int(n), true
}

// getBitfield reads width bits at offset of p (big-endian bit order),
// sign-extended when signed. The bits must lie within p.
func getBitfield(p []byte, offset uint64, width int, signed bool) int64 {
	var v uint64
	for i := 0; i < width; i++ {
		o := offset + uint64(i)
		v = v<<1 | uint64(p[o>>3]>>(7-o&7))&1
	}
	if signed && width < 64 && v&(1<<(width-1)) != 0 {
		v |= math.MaxUint64 << width
	}
	return int64(v)
}

// setBitfield writes the low width bits of v at offset of p.
func setBitfield(p []byte, offset uint64, width int, v uint64) {
	for i := 0; i < width; i++ {
		o := offset + uint64(i)
		bit := byte(v>>(width-1-i)) & 1
		p[o>>3] = p[o>>3]&^(1<<(7-o&7)) | bit<<(7-o&7)
	}
}

// bitfieldAdd returns value+incr for a field of width bits and whether it
// overflowed, the result then wrapped or saturated according to ow, as
// Redis's check{Signed,Unsigned}BitfieldOverflow.
func bitfieldAdd(value, incr int64, width int, signed bool, ow int) (int64, bool) {
	if signed {
		return signedAdd(value, incr, width, ow)
	}
	return unsignedAdd(uint64(value), incr, width, ow)
}

func unsignedAdd(value uint64, incr int64, width int, ow int) (int64, bool) {
	maxv := uint64(1)<<width - 1
	maxIncr := int64(maxv - value)
	minIncr := -int64(value)
	wrap := func() (int64, bool) {
		return int64((value + uint64(incr)) &^ (math.MaxUint64 << width)), true
	}
	switch {
	case value > maxv || incr > 0 && incr > maxIncr:
		if ow == bfWrap {
			return wrap()
		}
		return int64(maxv), true
	case incr < 0 && incr < minIncr:
		if ow == bfWrap {
			return wrap()
		}
		return 0, true
	}
	return int64(value + uint64(incr)), false
}

func signedAdd(value, incr int64, width int, ow int) (int64, bool) {
	maxv := int64(math.MaxInt64)
	if width < 64 {
		maxv = 1<<(width-1) - 1
	}
	minv := -maxv - 1
	maxIncr := int64(uint64(maxv) - uint64(value))
	minIncr := int64(uint64(minv) - uint64(value))
	wrap := func() (int64, bool) {
		c := uint64(value) + uint64(incr)
		if width < 64 {
			mask := uint64(math.MaxUint64) << width
			if c&(1<<(width-1)) != 0 {
				c |= mask
			} else {
				c &^= mask
			}
		}
		return int64(c), true
	}
	switch {
	case value > maxv || width != 64 && incr > maxIncr || value >= 0 && incr > 0 && incr > maxIncr:
		if ow == bfWrap {
			return wrap()
		}
		return maxv, true
	case value < minv || width != 64 && incr < minIncr || value < 0 && incr < 0 && incr < minIncr:
		if ow == bfWrap {
			return wrap()
		}
		return minv, true
	}
	return value + incr, false
}
