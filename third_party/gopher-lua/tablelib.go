package lua

import (
	"sort"
	"strings"
)

func OpenTable(L *LState) int {
	tabmod := L.RegisterModule(TabLibName, tableFuncs)
	L.Push(tabmod)
	return 1
}

var tableFuncs = map[string]LGFunction{
	"getn":   tableGetN,
	"concat": tableConcat,
	"insert": tableInsert,
	"maxn":   tableMaxN,
	"remove": tableRemove,
	"sort":   tableSort,
}

func tableSort(L *LState) int {
	tbl := L.CheckTable(1)
	L.checkWritable(tbl)
	sorter := lValueArraySorter{L, nil, tbl.array[:tbl.Len()]}
	if L.GetTop() != 1 {
		sorter.Fn = L.CheckFunction(2)
	}
	sort.Sort(sorter)
	return 0
}

func tableGetN(L *LState) int {
	L.Push(LNumber(L.CheckTable(1).Len()))
	return 1
}

func tableMaxN(L *LState) int {
	L.Push(LNumber(L.CheckTable(1).MaxN()))
	return 1
}

func tableRemove(L *LState) int {
	tbl := L.CheckTable(1)
	L.checkWritable(tbl)
	if L.GetTop() == 1 {
		L.Push(tbl.Remove(-1))
	} else {
		L.Push(tbl.Remove(L.CheckInt(2)))
	}
	return 1
}

// tableConcat is C Lua 5.1's tconcat (HotKV patch): the result is built
// in one buffer (upstream pushed every value and separator on the
// registry, which a long table overflowed), values are read up to the
// given end (an absent one is an error), numbers are accepted where
// strings are, the result is bounded by SetMaxStringLen, and the work is
// counted against the count hook.
func tableConcat(L *LState) int {
	sep := ""
	if L.Get(2) != LNil {
		sep = L.CheckString(2)
	}
	tbl := L.CheckTable(1)
	i := optCInt(L, 3, 1)
	var last int
	if L.Get(4) == LNil {
		last = tbl.Len()
	} else {
		last = checkCInt(L, 4)
	}
	limit := int(maxStringLen.Load())
	var b strings.Builder
	addField := func(i int) {
		v := tbl.RawGetInt(i)
		switch v := v.(type) {
		case LString:
			b.WriteString(string(v))
		case LNumber:
			b.WriteString(v.String())
		default:
			L.RaiseError("invalid value (%s) at index %d in table for 'concat'", v.Type().String(), i)
		}
	}
	for ; i < last; i++ {
		n := b.Len()
		addField(i)
		b.WriteString(sep)
		if b.Len() > limit {
			L.RaiseError("not enough memory")
		}
		L.CheckHookN(1 + (b.Len()-n)>>6)
	}
	if i == last { // add last value (if interval was not empty)
		addField(i)
		if b.Len() > limit {
			L.RaiseError("not enough memory")
		}
	}
	L.Push(LString(b.String()))
	return 1
}

func tableInsert(L *LState) int {
	tbl := L.CheckTable(1)
	L.checkWritable(tbl)
	nargs := L.GetTop()
	if nargs != 2 && nargs != 3 { // HotKV patch: C Lua's check and text
		L.RaiseError("wrong number of arguments to 'insert'")
	}

	if L.GetTop() == 2 {
		tbl.Append(L.Get(2))
		return 0
	}
	tbl.Insert(int(L.CheckInt(2)), L.CheckAny(3))
	return 0
}

//
