package latency

import (
	"fmt"
	"math/bits"
	"strings"
	"sync/atomic"
)

// The bucket layout of an HdrHistogram as Redis 7.0 creates every command's
// histogram: lowest discernible value 1, highest trackable value 1e9 (one
// second in nanoseconds), 2 significant figures. 2 significant figures need
// 2*10^2 = 200 distinct values per bucket, rounded up to 256 sub-buckets;
// bucket b holds the values [128<<b, 256<<b) (bucket 0 also 0..127) at a
// resolution of 1<<b, and 23 buckets reach 256<<22 > 1e9. The counts array
// has (buckets+1)*128 = 3072 slots:
//
//	slot  0..255    values 0..255            bucket 0, step 1
//	slot  256..383  values 256..510          bucket 1, step 2
//	...
//	slot  (b+1)*128 + (v>>b) - 128           bucket b, step 1<<b
//	slot  2944..3071 values 2^29..1069547520  bucket 22, step 2^22
const (
	histMin            = 1             // LATENCY_HISTOGRAM_MIN_VALUE, ns
	histMax            = 1_000_000_000 // LATENCY_HISTOGRAM_MAX_VALUE, ns
	histSubBucketCount = 256
	histSubBucketHalf  = histSubBucketCount / 2
	histSubBucketMask  = histSubBucketCount - 1
	histHalfMagnitude  = 7 // log2(histSubBucketHalf)
	histBuckets        = 23
	histCountsLen      = (histBuckets + 1) * histSubBucketHalf // 3072
)

// Histogram is a per-command latency histogram in nanoseconds with the
// bucket layout of Redis 7.0's hdr_histogram (see the constants above), so
// that percentiles and LATENCY HISTOGRAM keys come out as Redis's. The zero
// Histogram is empty and ready to use; it is about 24 KiB.
//
// Record, RecordN and all readers are safe for concurrent use without locks:
// every counter is atomic. A reader running alongside writers may see a
// snapshot that is slightly inconsistent (a total that does not match the
// counts), which only shifts a percentile by the in-flight records.
type Histogram struct {
	total  atomic.Int64
	counts [histCountsLen]atomic.Int64
}

// Record adds one latency of ns nanoseconds, clamped to [1, 1e9] as Redis's
// updateCommandLatencyHistogram does.
func (h *Histogram) Record(ns int64) {
	h.counts[histIndex(clampNS(ns))].Add(1)
	h.total.Add(1)
}

// RecordN adds n latencies of ns nanoseconds each, clamped as Record. It
// records nothing when n < 1.
func (h *Histogram) RecordN(ns, n int64) {
	if n < 1 {
		return
	}
	h.counts[histIndex(clampNS(ns))].Add(n)
	h.total.Add(n)
}

// Total returns the number of latencies recorded (Redis's total_count, the
// "calls" of LATENCY HISTOGRAM).
func (h *Histogram) Total() int64 { return h.total.Load() }

// Reset empties the histogram.
func (h *Histogram) Reset() {
	for i := range h.counts {
		h.counts[i].Store(0)
	}
	h.total.Store(0)
}

// ValueAtPercentile returns the value at percentile p (0..100; more is
// taken as 100) exactly as hdr_value_at_percentile: the target count is
// p/100*total rounded half up, at least 1; the answer is the first slot
// whose cumulative count reaches it, reported as the highest value that
// slot holds (its lowest value when p is 0). An empty histogram gives 0.
// INFO latencystats prints it as "%.3f" of value/1000.0.
func (h *Histogram) ValueAtPercentile(p float64) int64 {
	req := min(p, 100.0)
	// The explicit conversion keeps the product rounded on its own, as in
	// C, rather than fused with the addition.
	target := int64(float64(req/100*float64(h.total.Load())) + 0.5)
	target = max(target, 1)
	var v, cum int64
	for i := range h.counts {
		cum += h.counts[i].Load()
		if cum >= target {
			v = histValueAtIndex(i)
			break
		}
	}
	if p == 0 {
		return histLowestEquivalent(v)
	}
	return histHighestEquivalent(v)
}

// CDF calls yield with LATENCY HISTOGRAM's entries in order, exactly as
// Redis's fillCommandCDF walks hdr_iter_log_init(h, 1024, 2): reporting
// levels at 1024 ns and then doubling, each reported as the highest value
// of the slot where the walk crossed the level, in microseconds
// (truncated), with the cumulative count so far. A level is skipped when
// the cumulative count did not grow since the previous one. With a value
// recorded in each range the keys are 1, 2, 4, 8, 16, 33, 66, 132, 264,
// 528, 1056, 2113, 4227, 8454, 16908, 33816, 67633, 135266, 270532, 541065
// and, for values from 541065216 ns up, 1073741: the walk runs off the end
// of the counts at the 2^30 level and reports the last slot.
//
// CDF reads one snapshot of the counts and uses their sum as the total, so
// the final cumulative count is that sum even under concurrent Records.
func (h *Histogram) CDF(yield func(usec, cumulative int64)) {
	var counts [histCountsLen]int64
	var total int64
	for i := range h.counts {
		counts[i] = h.counts[i].Load()
		total += counts[i]
	}

	// The iterator's state, as hdr_iter: the slot index, the cumulative
	// count through it, its lowest and highest values.
	idx, cum, value, highest := -1, int64(0), int64(0), int64(0)
	level := int64(1024)
	levelLowest := histLowestEquivalent(level)
	var prev int64
	for cum < total || (idx < histCountsLen && histValueAtIndex(idx+1) > levelLowest) {
		for {
			if value >= levelLowest {
				level *= 2
				levelLowest = histLowestEquivalent(level)
				break
			}
			idx++
			if idx >= histCountsLen {
				break // hdr reports the last slot's values again
			}
			cum += counts[idx]
			value = histValueAtIndex(idx)
			highest = histHighestEquivalent(value)
		}
		if cum > prev {
			yield(highest/1000, cum)
		}
		prev = cum
	}
}

// FormatPercentile returns the label INFO latencystats gives percentile p:
// "%f", then trailing zeros and a trailing '.' removed (Redis's
// trimDoubleString): 50 -> "50", 99.9 -> "99.9", 99.99 -> "99.99".
func FormatPercentile(p float64) string {
	s := fmt.Sprintf("%f", p)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s
}

// clampNS limits a latency to the histogram's trackable range.
func clampNS(ns int64) int64 { return max(histMin, min(ns, histMax)) }

// histBucket returns the bucket of v >= 0: the bucket of the smallest power
// of two above v, counting from the one that covers the first 256 values.
func histBucket(v int64) int {
	return 64 - bits.LeadingZeros64(uint64(v)|histSubBucketMask) - (histHalfMagnitude + 1)
}

// histIndex returns the counts slot of v, 0 <= v <= 1e9.
func histIndex(v int64) int {
	b := histBucket(v)
	sub := int(v >> b)
	return (b+1)<<histHalfMagnitude + sub - histSubBucketHalf
}

// histValueAtIndex returns the lowest value slot i holds (hdr_value_at_index).
func histValueAtIndex(i int) int64 {
	b := i>>histHalfMagnitude - 1
	sub := i&(histSubBucketHalf-1) + histSubBucketHalf
	if b < 0 {
		sub -= histSubBucketHalf
		b = 0
	}
	return int64(sub) << b
}

// histLowestEquivalent returns the lowest value counted in the same slot as v.
func histLowestEquivalent(v int64) int64 {
	b := histBucket(v)
	return v >> b << b
}

// histHighestEquivalent returns the highest value counted in the same slot
// as v (hdr's highest_equivalent_value).
func histHighestEquivalent(v int64) int64 {
	b := histBucket(v)
	size := int64(1) << b
	if v>>b >= histSubBucketCount {
		size <<= 1
	}
	return v>>b<<b + size - 1
}
