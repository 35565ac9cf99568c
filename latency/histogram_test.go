package latency

import (
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"sync"
	"testing"
)

// hdrRef is hdr_histogram.c's bucket arithmetic written out in general
// form (hdr_calculate_bucket_config and the index helpers), to check the
// package's hard-wired constants against.
type hdrRef struct {
	unitMag, subHalfMag, subCount, subHalf int
	subMask                                int64
	buckets, countsLen                     int
}

func newHdrRef(lowest, highest int64, sig int) hdrRef {
	var r hdrRef
	largest := 2 * int64(math.Pow(10, float64(sig)))
	subCountMag := int(math.Ceil(math.Log(float64(largest)) / math.Log(2)))
	r.subHalfMag = max(subCountMag, 1) - 1
	r.unitMag = int(math.Log(float64(lowest)) / math.Log(2))
	r.subCount = int(math.Pow(2, float64(r.subHalfMag+1)))
	r.subHalf = r.subCount / 2
	r.subMask = int64(r.subCount-1) << r.unitMag
	untrackable := int64(r.subCount) << r.unitMag
	r.buckets = 1
	for untrackable <= highest {
		untrackable <<= 1
		r.buckets++
	}
	r.countsLen = (r.buckets + 1) * r.subHalf
	return r
}

func (r hdrRef) bucket(v int64) int {
	return 64 - bits.LeadingZeros64(uint64(v|r.subMask)) - r.unitMag - (r.subHalfMag + 1)
}

func (r hdrRef) index(v int64) int {
	b := r.bucket(v)
	sub := int(v >> (b + r.unitMag))
	return (b+1)<<r.subHalfMag + sub - r.subHalf
}

func (r hdrRef) lowest(v int64) int64 {
	b := r.bucket(v)
	return (v >> (b + r.unitMag)) << (b + r.unitMag)
}

func (r hdrRef) highest(v int64) int64 {
	b := r.bucket(v)
	if int(v>>(b+r.unitMag)) >= r.subCount {
		b++
	}
	return r.lowest(v) + int64(1)<<(r.unitMag+b) - 1
}

func TestHistogramLayout(t *testing.T) {
	r := newHdrRef(histMin, histMax, 2)
	if r.subCount != histSubBucketCount || r.buckets != histBuckets || r.countsLen != histCountsLen ||
		r.subHalfMag != histHalfMagnitude || r.unitMag != 0 || r.subMask != histSubBucketMask {
		t.Fatalf("hdr config %+v does not match the package's constants", r)
	}
	check := func(v int64) {
		if got, want := histIndex(v), r.index(v); got != want {
			t.Fatalf("histIndex(%d) = %d, want %d", v, got, want)
		}
		if got, want := histLowestEquivalent(v), r.lowest(v); got != want {
			t.Fatalf("lowest(%d) = %d, want %d", v, got, want)
		}
		if got, want := histHighestEquivalent(v), r.highest(v); got != want {
			t.Fatalf("highest(%d) = %d, want %d", v, got, want)
		}
		if lo := histValueAtIndex(histIndex(v)); lo != r.lowest(v) {
			t.Fatalf("value at index of %d = %d, want %d", v, lo, r.lowest(v))
		}
	}
	for v := int64(0); v <= 1<<17; v++ {
		check(v)
	}
	for v := int64(1 << 17); v <= histMax; v = v*1001/1000 + 1 {
		check(v)
		check(v - 1)
	}
	check(histMax)
	for i := range histCountsLen {
		if got := histIndex(histValueAtIndex(i)); got != i {
			t.Fatalf("index %d -> value %d -> index %d", i, histValueAtIndex(i), got)
		}
	}

	// Spot values worked out by hand.
	spots := []struct {
		v               int64
		idx             int
		lowest, highest int64
	}{
		{0, 0, 0, 0},
		{1, 1, 1, 1},
		{255, 255, 255, 255},
		{256, 256, 256, 257},
		{1000, 506, 1000, 1003},
		{1023, 511, 1020, 1023},
		{1024, 512, 1024, 1031},
		{2_500_000, 1944, 2_490_368, 2_506_751},
		{histMax, 3054, 998_244_352, 1_002_438_655},
	}
	for _, s := range spots {
		if got := histIndex(s.v); got != s.idx {
			t.Errorf("histIndex(%d) = %d, want %d", s.v, got, s.idx)
		}
		if lo, hi := histLowestEquivalent(s.v), histHighestEquivalent(s.v); lo != s.lowest || hi != s.highest {
			t.Errorf("equivalent range of %d = [%d, %d], want [%d, %d]", s.v, lo, hi, s.lowest, s.highest)
		}
	}
}

// cdf collects h.CDF's output as [usec, cumulative] pairs.
func cdf(h *Histogram) [][2]int64 {
	var out [][2]int64
	h.CDF(func(usec, cum int64) { out = append(out, [2]int64{usec, cum}) })
	return out
}

func TestHistogramCDF(t *testing.T) {
	// One value per reporting level 1024<<k, and one past the last level:
	// the key sequence LATENCY HISTOGRAM shows.
	var every []int64
	for k := range 20 {
		every = append(every, 1024<<k)
	}
	every = append(every, 5_000_000_000)
	keys := []int64{1, 2, 4, 8, 16, 33, 66, 132, 264, 528, 1056, 2113, 4227, 8454, 16908,
		33816, 67633, 135266, 270532, 541065, 1073741}
	var everyWant [][2]int64
	for i, k := range keys {
		everyWant = append(everyWant, [2]int64{k, int64(i + 1)})
	}

	tests := []struct {
		name   string
		values []int64
		want   [][2]int64
	}{
		{"empty", nil, nil},
		{"1 ns", []int64{1}, [][2]int64{{1, 1}}},
		{"0 ns clamps to 1", []int64{0, -5}, [][2]int64{{1, 2}}},
		{"1000 ns", []int64{1000}, [][2]int64{{1, 1}}},
		{"1031 ns is still key 1", []int64{1031}, [][2]int64{{1, 1}}},
		{"1032 ns is key 2", []int64{1032}, [][2]int64{{2, 1}}},
		{"1500 ns", []int64{1500}, [][2]int64{{2, 1}}},
		{"1 and 1500 ns", []int64{1, 1500}, [][2]int64{{1, 1}, {2, 2}}},
		{"2.5 ms", []int64{2_500_000}, [][2]int64{{4227, 1}}},
		{"1e9", []int64{histMax}, [][2]int64{{1073741, 1}}},
		{"above 1e9 clamps", []int64{3_000_000_000}, [][2]int64{{1073741, 1}}},
		{"last level", []int64{541_065_215}, [][2]int64{{541065, 1}}},
		{"past last level", []int64{541_065_216}, [][2]int64{{1073741, 1}}},
		{"gaps skip levels", []int64{1, 1, 2_000_000, 2_000_000, 2_000_000}, [][2]int64{{1, 2}, {2113, 5}}},
		{
			// redis-server 7.0.15 after CONFIG RESETSTAT, DEBUG SLEEP 0,
			// 0.0025 and 1.1: "histogram_usec 132 1 4227 2 1073741 3".
			"redis capture", []int64{100_000, 2_580_000, 1_100_000_000},
			[][2]int64{{132, 1}, {4227, 2}, {1073741, 3}},
		},
		{"every level", every, everyWant},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Histogram
			for _, v := range tt.values {
				h.Record(v)
			}
			if got := cdf(&h); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("CDF = %v, want %v", got, tt.want)
			}
			if got := h.Total(); got != int64(len(tt.values)) {
				t.Errorf("Total = %d, want %d", got, len(tt.values))
			}
		})
	}
}

// ms3 formats a percentile value as INFO latencystats does: "%.3f" of
// value/1000.
func ms3(v int64) string { return fmt.Sprintf("%.3f", float64(v)/1000.0) }

func TestValueAtPercentile(t *testing.T) {
	type rec struct{ ns, n int64 }
	tests := []struct {
		name string
		recs []rec
		p    float64
		want string
	}{
		{"empty", nil, 50, "0.000"},
		{"empty p0", nil, 0, "0.000"},
		// redis-server 7.0.15: PING right after CONFIG RESETSTAT.
		{"0 us command", []rec{{0, 1}}, 50, "0.001"},
		{"1 us command p50", []rec{{1000, 1}}, 50, "1.003"},
		{"1 us command p99.9", []rec{{1000, 1}}, 99.9, "1.003"},
		// redis-server 7.0.15, 200 pipelined PINGs: p50=0.001, p99=1.003,
		// p99.9=1.003 is consistent with 199 at 0 us and 1 at 1 us.
		{"mostly 0 us p50", []rec{{1, 199}, {1000, 1}}, 50, "0.001"},
		{"mostly 0 us p99", []rec{{1, 199}, {1000, 1}}, 99, "0.001"},
		{"mostly 0 us p99.9", []rec{{1, 199}, {1000, 1}}, 99.9, "1.003"},
		// count_at_percentile = (int)(p/100*total + 0.5), at least 1.
		{"rounds half up", []rec{{10, 1}, {20, 1}, {30, 1}}, 50, "0.020"},
		{"rounds down", []rec{{10, 1}, {20, 1}, {30, 1}}, 33.3, "0.010"},
		{"at least one", []rec{{10, 1}, {20, 1}, {30, 1}}, 16, "0.010"},
		{"p100", []rec{{1000, 1}, {5000, 1}}, 100, "5.023"},
		{"over 100 is 100", []rec{{1000, 1}, {5000, 1}}, 250, "5.023"},
		{"p0 is the lowest equivalent", []rec{{1003, 1}, {5000, 1}}, 0, "1.000"},
		{"p0 of a small value", []rec{{1, 5}}, 0, "0.001"},
		{"1 s", []rec{{2_000_000_000, 1}}, 99, "1002438.655"},
		{"2.5 ms", []rec{{2_500_000, 3}}, 50, "2506.751"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Histogram
			for _, r := range tt.recs {
				h.RecordN(r.ns, r.n)
			}
			if got := ms3(h.ValueAtPercentile(tt.p)); got != tt.want {
				t.Errorf("p%v = %s, want %s", tt.p, got, tt.want)
			}
		})
	}
}

func TestHistogramRecordNAndReset(t *testing.T) {
	var h Histogram
	h.RecordN(0, 5)
	h.RecordN(2_500_000, 0)
	h.RecordN(2_500_000, -3)
	h.RecordN(1500, 2)
	h.Record(1500)
	if got, want := cdf(&h), [][2]int64{{1, 5}, {2, 8}}; !reflect.DeepEqual(got, want) {
		t.Errorf("CDF = %v, want %v", got, want)
	}
	if h.Total() != 8 {
		t.Errorf("Total = %d, want 8", h.Total())
	}
	h.Reset()
	if h.Total() != 0 || cdf(&h) != nil || h.ValueAtPercentile(50) != 0 {
		t.Errorf("after Reset: total %d, CDF %v, p50 %d", h.Total(), cdf(&h), h.ValueAtPercentile(50))
	}
	h.Record(1)
	if got := cdf(&h); !reflect.DeepEqual(got, [][2]int64{{1, 1}}) {
		t.Errorf("after Reset and Record: %v", got)
	}
}

func TestFormatPercentile(t *testing.T) {
	tests := []struct {
		p    float64
		want string
	}{
		{50, "50"}, {99, "99"}, {99.9, "99.9"}, {99.99, "99.99"}, {0, "0"}, {100, "100"},
		{12.5, "12.5"}, {0.0001, "0.0001"}, {1e-7, "0"}, {99.9999999, "100"}, {10, "10"},
	}
	for _, tt := range tests {
		if got := FormatPercentile(tt.p); got != tt.want {
			t.Errorf("FormatPercentile(%v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}

// Records from 8 goroutines while readers walk the histogram: no count is
// lost and readers always finish.
func TestHistogramConcurrent(t *testing.T) {
	const writers, each = 8, 10000
	var h Histogram
	var wg, readers sync.WaitGroup
	stop := make(chan struct{})
	readers.Add(1)
	go func() {
		defer readers.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			h.CDF(func(int64, int64) {})
			h.ValueAtPercentile(99)
		}
	}()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				h.Record(int64(w*each+i) * 997)
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()

	if got := h.Total(); got != writers*each {
		t.Errorf("Total = %d, want %d", got, writers*each)
	}
	c := cdf(&h)
	if len(c) == 0 || c[len(c)-1][1] != writers*each {
		t.Errorf("CDF ends at %v, want cumulative %d", c[len(c)-1:], writers*each)
	}
}

func TestRecordDoesNotAllocate(t *testing.T) {
	var h Histogram
	if n := testing.AllocsPerRun(1000, func() { h.Record(123456) }); n != 0 {
		t.Errorf("Record allocates %v times", n)
	}
}

func BenchmarkRecord(b *testing.B) {
	var h Histogram
	b.ReportAllocs()
	v := int64(1)
	for b.Loop() {
		h.Record(v)
		v = v*3 + 1
		if v > histMax {
			v = 1
		}
	}
}

func BenchmarkRecordParallel(b *testing.B) {
	var h Histogram
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		v := int64(1000)
		for pb.Next() {
			h.Record(v)
		}
	})
}
