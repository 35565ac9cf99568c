package stream

import "testing"

// TestCloneAndMemSize: a clone is equal and independent; the size grows
// with the entries.
func TestCloneAndMemSize(t *testing.T) {
	s := New()
	empty := s.MemSize()
	for i := uint64(1); i <= 300; i++ {
		if _, err := s.Add(AddID{ID: ID{Ms: i}}, 0, [][]byte{[]byte("field"), []byte("value")}, DefaultLimits); err != nil {
			t.Fatal(err)
		}
	}
	if s.MemSize() <= empty+300*10 {
		t.Errorf("MemSize %d for 300 entries (empty: %d)", s.MemSize(), empty)
	}
	c := s.Clone().(*Stream)
	if c.Len() != 300 || c.LastID() != s.LastID() || len(c.Range(MinID, MaxID, 0, false)) != 300 {
		t.Fatalf("clone: len %d last %v", c.Len(), c.LastID())
	}
	c.Delete(ID{Ms: 1})
	if s.Len() != 300 || c.Len() != 299 {
		t.Errorf("the clone shares entries: %d, %d", s.Len(), c.Len())
	}
}
