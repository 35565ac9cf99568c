package stream

import (
	"math"
	"strings"
	"testing"
)

const max64 = math.MaxUint64

func TestParseID(t *testing.T) {
	for _, tc := range []struct {
		arg     string
		missing uint64
		want    ID
		err     error
		strict  error // the error ParseStrictID gives, when it differs
	}{
		{arg: "1-2", want: ID{1, 2}},
		{arg: "0-0", want: ID{}},
		{arg: "5", want: ID{5, 0}},
		{arg: "5", missing: max64, want: ID{5, max64}},
		{arg: "-", want: MinID, strict: ErrInvalidID},
		{arg: "+", want: MaxID, strict: ErrInvalidID},
		{arg: "18446744073709551615-18446744073709551615", want: MaxID},
		{arg: "18446744073709551616-0", err: ErrInvalidID},
		{arg: "1-18446744073709551616", err: ErrInvalidID},
		// string2ull falls back on strtoull(3): leading zeros, white
		// space and signs are accepted, a minus negates.
		{arg: "007-010", want: ID{7, 10}},
		{arg: " 7-+3", want: ID{7, 3}},
		{arg: "1--01", want: ID{1, max64}},
		{arg: "1--1", err: ErrInvalidID}, // string2ll reads -1: negative
		{arg: "", err: ErrInvalidID},
		{arg: "-5", err: ErrInvalidID},
		{arg: "1-", err: ErrInvalidID},
		{arg: "1-2-3", err: ErrInvalidID},
		{arg: "1-*", err: ErrInvalidID},
		{arg: "a", err: ErrInvalidID},
		{arg: "1.5", err: ErrInvalidID},
		{arg: "7 ", err: ErrInvalidID},
		{arg: "*", err: ErrInvalidID},
		// Redis reads the argument as a C string.
		{arg: "5-1\x00junk", want: ID{5, 1}},
		{arg: "-\x00x", want: MinID, strict: ErrInvalidID},
		{arg: strings.Repeat("0", 127), want: ID{}},
		{arg: strings.Repeat("0", 128), err: ErrInvalidID},
	} {
		got, err := ParseID([]byte(tc.arg), tc.missing)
		if err != tc.err || err == nil && got != tc.want {
			t.Errorf("ParseID(%q) = %v, %v; want %v, %v", tc.arg, got, err, tc.want, tc.err)
		}
		wantErr := tc.err
		if tc.strict != nil {
			wantErr = tc.strict
		}
		got, err = ParseStrictID([]byte(tc.arg), tc.missing)
		if err != wantErr || err == nil && got != tc.want {
			t.Errorf("ParseStrictID(%q) = %v, %v; want %v, %v", tc.arg, got, err, tc.want, wantErr)
		}
	}
	if ErrInvalidID.Error() != "ERR Invalid stream ID specified as stream command argument" {
		t.Errorf("ErrInvalidID = %q", ErrInvalidID)
	}
}

func TestParseAddID(t *testing.T) {
	for _, tc := range []struct {
		arg   string
		want  AddID
		err   error
		valid error
	}{
		{arg: "*", want: AddID{Auto: true}},
		{arg: "*\x00x", want: AddID{Auto: true}},
		{arg: "5-*", want: AddID{ID: ID{5, 0}, SeqAuto: true}},
		{arg: "0-*", want: AddID{SeqAuto: true}},
		{arg: "5", want: AddID{ID: ID{5, 0}}},
		{arg: "5-3", want: AddID{ID: ID{5, 3}}},
		{arg: "0-0", want: AddID{}, valid: ErrAddZero},
		{arg: "0", want: AddID{}, valid: ErrAddZero},
		{arg: "-", err: ErrInvalidID},
		{arg: "+", err: ErrInvalidID},
		{arg: "**", err: ErrInvalidID},
		{arg: "*-5", err: ErrInvalidID},
		{arg: "5-**", err: ErrInvalidID},
	} {
		got, err := ParseAddID([]byte(tc.arg))
		if err != tc.err || got != tc.want {
			t.Errorf("ParseAddID(%q) = %+v, %v; want %+v, %v", tc.arg, got, err, tc.want, tc.err)
		}
		if err == nil {
			if v := got.Validate(); v != tc.valid {
				t.Errorf("ParseAddID(%q).Validate() = %v, want %v", tc.arg, v, tc.valid)
			}
		}
	}
}

func TestParseRange(t *testing.T) {
	for _, tc := range []struct {
		arg        string
		start, end ID
		serr, eerr error
	}{
		{arg: "5", start: ID{5, 0}, end: ID{5, max64}},
		{arg: "-", start: MinID, end: MinID},
		{arg: "+", start: MaxID, end: MaxID},
		{arg: "(5-3", start: ID{5, 4}, end: ID{5, 2}},
		{arg: "(5", start: ID{5, 1}, end: ID{5, max64 - 1}},
		{arg: "(5-18446744073709551615", start: ID{6, 0}, end: ID{5, max64 - 1}},
		{arg: "(0-0", start: ID{0, 1}, eerr: ErrInvalidEndInterval},
		{arg: "(18446744073709551615-18446744073709551615", serr: ErrInvalidStartInterval, end: ID{max64, max64 - 1}},
		{arg: "(-", serr: ErrInvalidID, eerr: ErrInvalidID},
		{arg: "(+", serr: ErrInvalidID, eerr: ErrInvalidID},
		{arg: "(", serr: ErrInvalidID, eerr: ErrInvalidID},
		{arg: "((5", serr: ErrInvalidID, eerr: ErrInvalidID},
	} {
		s, err := ParseRangeStart([]byte(tc.arg))
		if err != tc.serr || err == nil && s != tc.start {
			t.Errorf("ParseRangeStart(%q) = %v, %v; want %v, %v", tc.arg, s, err, tc.start, tc.serr)
		}
		e, err := ParseRangeEnd([]byte(tc.arg))
		if err != tc.eerr || err == nil && e != tc.end {
			t.Errorf("ParseRangeEnd(%q) = %v, %v; want %v, %v", tc.arg, e, err, tc.end, tc.eerr)
		}
	}
}

func TestIDArithmetic(t *testing.T) {
	if id, ok := MaxID.Incr(); ok || id != MinID {
		t.Errorf("MaxID.Incr() = %v, %v", id, ok)
	}
	if id, ok := MinID.Decr(); ok || id != MaxID {
		t.Errorf("MinID.Decr() = %v, %v", id, ok)
	}
	if id, _ := (ID{3, max64}).Incr(); id != (ID{4, 0}) {
		t.Errorf("3-max incremented = %v", id)
	}
	if id, _ := (ID{4, 0}).Decr(); id != (ID{3, max64}) {
		t.Errorf("4-0 decremented = %v", id)
	}
	if s := MaxID.String(); s != "18446744073709551615-18446744073709551615" {
		t.Errorf("MaxID.String() = %q", s)
	}
	if (ID{1, 9}).Compare(ID{2, 0}) != -1 || (ID{2, 1}).Compare(ID{2, 0}) != 1 || (ID{2, 1}).Compare(ID{2, 1}) != 0 {
		t.Error("Compare")
	}
}
