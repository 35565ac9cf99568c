package list

import (
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestOneNodeDirectory checks that a list of one node keeps its directory
// in the List (no allocation of its own), that one[0] holds no buffer once
// the directory moves out or the list empties, and that a Copy gets a
// directory of its own.
func TestOneNodeDirectory(t *testing.T) {
	if sz := unsafe.Sizeof(List{}); sz != listSize {
		t.Fatalf("List is %d bytes, listSize %d", sz, listSize)
	}
	inOne := func(l *List) bool { return l.dir != nil && &l.dir[0] == &l.one[0] }
	allocs := testing.AllocsPerRun(100, func() {
		l := New(-2)
		l.PushBack([]byte("e:1"))
	})
	if allocs != 2 { // the List and the node's buffer
		t.Errorf("a one-entry list takes %v allocations, want 2", allocs)
	}
	for _, fill := range []int{-2, 3} {
		l := New(fill)
		for i := 0; i < 3; i++ {
			l.PushBack([]byte("e:" + strconv.Itoa(i)))
		}
		if l.Nodes() != 1 || !inOne(l) {
			t.Fatalf("fill %d: %d nodes, directory in the List %v", fill, l.Nodes(), inOne(l))
		}
		if got, want := l.MemSize(), int64(listSize)+l.bufMem; got != want {
			t.Fatalf("MemSize %d, want %d", got, want)
		}
		c := l.Copy()
		if !inOne(c) || &c.dir[0] == &l.dir[0] || c.Len() != 3 {
			t.Fatalf("Copy shares or lacks the directory")
		}
		check(t, c, [][]byte{[]byte("e:0"), []byte("e:1"), []byte("e:2")})
		for i := 3; i < 200; i++ {
			l.PushFront([]byte(strings.Repeat("e", 100) + strconv.Itoa(i)))
		}
		if l.Nodes() < 2 || inOne(l) || l.one[0].b != nil {
			t.Fatalf("fill %d: %d nodes, directory in the List %v, one[0] holds %d bytes", fill, l.Nodes(), inOne(l), cap(l.one[0].b))
		}
		for l.Len() > 1 {
			l.PopBack(nil)
		}
		l.PopFront(nil)
		if l.Len() != 0 || l.dir != nil || l.one[0].b != nil {
			t.Fatalf("fill %d: an emptied list keeps a directory or a buffer", fill)
		}
		l.PushBack([]byte("x"))
		if !inOne(l) {
			t.Fatal("the directory left the List")
		}
		l.Clear()
		if l.one[0].b != nil || l.Len() != 0 {
			t.Fatal("Clear kept a buffer")
		}
		check(t, l, nil)
		check(t, c, [][]byte{[]byte("e:0"), []byte("e:1"), []byte("e:2")})
	}
}
