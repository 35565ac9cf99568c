package stream

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// Helpers of the differential tests: a RESP2 reply parser, the model's
// values in the same shape, and an RDB reader for DUMP payloads.

// respErr is an error reply, without its '-'.
type respErr string

// parseResp parses one raw RESP2 reply into string, int64, nil, respErr
// or []any (never nil for an empty array).
func parseResp(raw string) any {
	v, rest := parseRespOne(raw)
	if rest != "" {
		panic(fmt.Sprintf("trailing data after reply: %q", rest))
	}
	return v
}

func parseRespOne(s string) (any, string) {
	i := strings.Index(s, "\r\n")
	line, rest := s[1:i], s[i+2:]
	switch s[0] {
	case '+':
		return line, rest
	case '-':
		return respErr(line), rest
	case ':':
		n, _ := strconv.ParseInt(line, 10, 64)
		return n, rest
	case '$':
		n, _ := strconv.Atoi(line)
		if n < 0 {
			return nil, rest
		}
		return rest[:n], rest[n+2:]
	case '*':
		n, _ := strconv.Atoi(line)
		if n < 0 {
			return nil, rest
		}
		arr := make([]any, n)
		for j := range arr {
			arr[j], rest = parseRespOne(rest)
		}
		return arr, rest
	}
	panic(fmt.Sprintf("unexpected reply %q", s))
}

// The model's values as replies.

func errValue(err error) any { return respErr(err.Error()) }

func entryValue(e Entry) any {
	if e.Fields == nil {
		return []any{e.ID.String(), nil}
	}
	fv := make([]any, len(e.Fields))
	for i, b := range e.Fields {
		fv[i] = string(b)
	}
	return []any{e.ID.String(), fv}
}

func entriesValue(es []Entry) []any {
	out := make([]any, len(es))
	for i, e := range es {
		out[i] = entryValue(e)
	}
	return out
}

func idsValue(ids []ID) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}

// rdbReader reads the body of a DUMP payload.
type rdbReader struct {
	b   []byte
	err error
}

func (r *rdbReader) take(n int) []byte {
	if r.err != nil || len(r.b) < n {
		r.err = fmt.Errorf("short payload")
		return make([]byte, n)
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

// length reads an RDB length; enc reports a special string encoding.
func (r *rdbReader) length() (n uint64, enc int) {
	c := r.take(1)[0]
	switch c >> 6 {
	case 0:
		return uint64(c & 0x3F), -1
	case 1:
		return uint64(c&0x3F)<<8 | uint64(r.take(1)[0]), -1
	case 2:
		if c == 0x80 {
			return uint64(binary.BigEndian.Uint32(r.take(4))), -1
		}
		return binary.BigEndian.Uint64(r.take(8)), -1
	}
	return 0, int(c & 0x3F)
}

func (r *rdbReader) uint() uint64 {
	n, enc := r.length()
	if enc >= 0 {
		r.err = fmt.Errorf("encoded length")
	}
	return n
}

func (r *rdbReader) str() []byte {
	n, enc := r.length()
	switch enc {
	case -1:
		return r.take(int(n))
	case 0:
		return strconv.AppendInt(nil, int64(int8(r.take(1)[0])), 10)
	case 1:
		return strconv.AppendInt(nil, int64(int16(binary.LittleEndian.Uint16(r.take(2)))), 10)
	case 2:
		return strconv.AppendInt(nil, int64(int32(binary.LittleEndian.Uint32(r.take(4)))), 10)
	}
	r.err = fmt.Errorf("compressed string (run redis with rdbcompression no)")
	return nil
}

func (r *rdbReader) rawID() ID {
	b := r.take(16)
	return ID{binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[8:])}
}

func (r *rdbReader) id() ID { return ID{r.uint(), r.uint()} }

func (r *rdbReader) msTime() int64 { return int64(binary.LittleEndian.Uint64(r.take(8))) }

// parseStreamDump reads a DUMP payload of a stream (RDB type 19,
// RDB_TYPE_STREAM_LISTPACKS_2) into a Dump.
func parseStreamDump(payload []byte) (Dump, error) {
	if len(payload) < 11 || payload[0] != 19 {
		return Dump{}, fmt.Errorf("not a RDB_TYPE_STREAM_LISTPACKS_2 payload")
	}
	r := &rdbReader{b: payload[1 : len(payload)-10]}
	var d Dump
	for n := r.uint(); n > 0 && r.err == nil; n-- {
		k := r.str()
		if len(k) != 16 {
			return d, fmt.Errorf("node key of %d bytes", len(k))
		}
		master := ID{binary.BigEndian.Uint64(k), binary.BigEndian.Uint64(k[8:])}
		d.Nodes = append(d.Nodes, Node{master, r.str()})
	}
	d.Length = r.uint()
	d.LastID = r.id()
	d.FirstID = r.id()
	d.MaxDeletedID = r.id()
	d.EntriesAdded = r.uint()
	for n := r.uint(); n > 0 && r.err == nil; n-- {
		g := GroupDump{Name: string(r.str()), LastID: r.id(), EntriesRead: int64(r.uint())}
		for k := r.uint(); k > 0 && r.err == nil; k-- {
			g.Pending = append(g.Pending, PendingDump{r.rawID(), r.msTime(), r.uint()})
		}
		for k := r.uint(); k > 0 && r.err == nil; k-- {
			c := ConsumerDump{Name: string(r.str()), SeenTime: r.msTime()}
			for j := r.uint(); j > 0 && r.err == nil; j-- {
				c.Pending = append(c.Pending, r.rawID())
			}
			g.Consumers = append(g.Consumers, c)
		}
		d.Groups = append(d.Groups, g)
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%d bytes left over", len(r.b))
	}
	return d, r.err
}
