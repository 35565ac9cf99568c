package rdb

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// A value written from its encoding is the same file as one written from
// the value, and the encoding decodes back to the value.
func TestWriteKeyEncoded(t *testing.T) {
	values := []*Value{
		{Kind: KindString, Str: bytes.Repeat([]byte("ab"), 100)},
		{Kind: KindList, Items: [][]byte{[]byte("a"), []byte("12")}},
		{Kind: KindHash, Pairs: [][2][]byte{{[]byte("f"), []byte("v")}}},
		{Kind: KindSet, Items: [][]byte{[]byte("1"), []byte("2")}},
		{Kind: KindZSet, ZSet: []ZMember{{Member: []byte("m"), Score: 1.5}}},
	}
	opts := DefaultEncodeOptions()
	for _, v := range values {
		var a, b bytes.Buffer
		fa, _ := NewFileWriter(&a, FileWriterOptions{CTime: 1, Encode: opts})
		fb, _ := NewFileWriter(&b, FileWriterOptions{CTime: 1, Encode: opts})
		if err := fa.WriteKey([]byte("key"), v, 5, 3, -1); err != nil {
			t.Fatal(err)
		}
		enc := EncodeValue(nil, v, opts)
		if err := fb.WriteKeyEncoded([]byte("key"), enc, 5, 3, -1); err != nil {
			t.Fatal(err)
		}
		fa.Finish()
		fb.Finish()
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("%v: files differ", v.Kind)
		}
		got, err := DecodeEncoded(enc)
		if err != nil {
			t.Fatalf("%v: %v", v.Kind, err)
		}
		if v.Kind != KindZSet && !reflect.DeepEqual(got.Str, v.Str) && v.Kind == KindString {
			t.Fatalf("string decoded as %q", got.Str)
		}
		if _, err := DecodeEncoded(append(enc, 0)); !errors.Is(err, ErrBadData) {
			t.Fatalf("%v: trailing byte: %v", v.Kind, err)
		}
	}
	if err := (&FileWriter{}).WriteKeyEncoded([]byte("k"), []byte{200}, -1, -1, -1); err == nil {
		t.Fatal("WriteKeyEncoded of a non-object type")
	}
}
