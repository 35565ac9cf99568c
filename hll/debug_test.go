package hll

import "testing"

// TestSelfTest: PFSELFTEST's checks pass on this implementation, and
// Decode describes sparse values as Redis's PFDEBUG DECODE does.
func TestSelfTest(t *testing.T) {
	if err := SelfTest(); err != nil {
		t.Fatal(err)
	}
	if got, err := Decode(New()); err != nil || got != "Z:16384" {
		t.Errorf("Decode(New()) = %q, %v", got, err)
	}
	d, converted, err := ToDense(New())
	if err != nil || !converted || Sparse(d) {
		t.Fatalf("ToDense: %v %v %v", converted, err, Sparse(d))
	}
	if _, err := Decode(d); err != ErrNotSparse {
		t.Errorf("Decode of a dense value: %v", err)
	}
	for i, r := range Registers(d) {
		if r != 0 {
			t.Fatalf("register %d of an empty value: %d", i, r)
		}
	}
}
