package latency

import (
	"strings"
	"testing"
)

// Paragraphs as redis-server 7.0.15 sent them (captured from the socket).
const (
	wantIntro   = "Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n"
	wantAdvices = "\nI have a few advices for you:\n\n"
	wantInspect = "- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n"
	wantLarge   = "- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n"
	wantEnable  = "- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than 100000'. If the Slow log is disabled Redis is not able to log slow commands execution for you.\n"
	wantTuning  = "- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than 100000'.\n"
)

// defaults are redis-server's defaults with the monitor on at 100 ms.
var defaults = Facts{Threshold: 100, SlowlogSlowerThan: 10000, Hz: 10}

func TestDoctor(t *testing.T) {
	one150 := []add{{"command", 150, 1796396795}}
	tests := []struct {
		name  string
		adds  []add
		facts Facts
		now   int64
		want  string
	}{
		{
			"disabled", nil, Facts{SlowlogSlowerThan: 10000, Hz: 10}, 1,
			"I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n",
		},
		{
			"disabled even with THP", nil, Facts{AnonHugePages: true}, 1,
			"I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n",
		},
		{
			"no spike", nil, defaults, 1,
			"Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n",
		},
		{
			"no spike but THP", nil, Facts{Threshold: 100, AnonHugePages: true}, 1,
			wantAdvices + adviceText[adviseDisableTHP],
		},
		{
			// redis-server 7.0.15, DEBUG SLEEP 0.3, 0.2, 0.15 at the times
			// its LATENCY HISTORY gave, read 0 s after the last.
			"redis capture, three samples",
			[]add{{"command", 300, 1796396594}, {"command", 200, 1796396595}, {"command", 150, 1796396597}},
			defaults, 1796396597,
			wantIntro +
				"1. command: 3 latency spikes (average 216ms, mean deviation 55ms, period 1.00 sec). Worst all time event 300ms.\n" +
				wantAdvices + wantInspect + wantLarge,
		},
		{
			"redis capture, slowlog disabled", one150, Facts{Threshold: 100, SlowlogSlowerThan: -1, Hz: 10}, 1796396796,
			wantIntro +
				"1. command: 1 latency spikes (average 150ms, mean deviation 0ms, period 1.00 sec). Worst all time event 150ms.\n" +
				wantAdvices + wantEnable + wantInspect + wantLarge,
		},
		{
			"redis capture, slowlog above threshold", one150, Facts{Threshold: 100, SlowlogSlowerThan: 200000, Hz: 10}, 1796396796,
			wantIntro +
				"1. command: 1 latency spikes (average 150ms, mean deviation 0ms, period 1.00 sec). Worst all time event 150ms.\n" +
				wantAdvices + wantTuning + wantInspect + wantLarge,
		},
		{
			"slowlog equal to threshold needs no tuning", one150, Facts{Threshold: 100, SlowlogSlowerThan: 100999}, 1796396796,
			wantIntro +
				"1. command: 1 latency spikes (average 150ms, mean deviation 0ms, period 1.00 sec). Worst all time event 150ms.\n" +
				wantAdvices + wantInspect + wantLarge,
		},
		{
			"two samples, half a second each",
			[]add{{"command", 350, 100}, {"command", 250, 101}}, defaults, 101,
			wantIntro +
				"1. command: 2 latency spikes (average 300ms, mean deviation 50ms, period 0.50 sec). Worst all time event 350ms.\n" +
				wantAdvices + wantInspect + wantLarge,
		},
		{
			// Events are reported even with the monitor switched off.
			"threshold 0 with events",
			[]add{{"fork", 20, 100}}, Facts{ForkRate: 30}, 110,
			wantIntro +
				"1. fork: 1 latency spikes (average 20ms, mean deviation 0ms, period 10.00 sec). Worst all time event 20ms. Fork rate is 30.00 GB/sec (good).\n" +
				"\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n",
		},
		{
			"terrible fork, name case-insensitive",
			[]add{{"Fork", 20, 100}}, defaults, 103,
			wantIntro +
				"1. Fork: 1 latency spikes (average 20ms, mean deviation 0ms, period 3.00 sec). Worst all time event 20ms. Fork rate is 0.00 GB/sec (terrible).\n" +
				wantAdvices + adviceText[adviseBetterVM],
		},
		{
			"excellent fork", []add{{"fork", 20, 100}}, Facts{Threshold: 1, ForkRate: 100}, 100,
			wantIntro +
				"1. fork: 1 latency spikes (average 20ms, mean deviation 0ms, period 1.00 sec). Worst all time event 20ms. Fork rate is 100.00 GB/sec (excellent).\n" +
				"\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n",
		},
		{
			"poor fork, rate rounded as %.2f", []add{{"fork", 20, 100}}, Facts{Threshold: 1, ForkRate: 24.999}, 100,
			wantIntro +
				"1. fork: 1 latency spikes (average 20ms, mean deviation 0ms, period 1.00 sec). Worst all time event 20ms. Fork rate is 25.00 GB/sec (poor).\n" +
				wantAdvices + adviceText[adviseBetterVM],
		},
		{
			// Counted but not printed: the list header stands alone.
			"fsync advice only when always", []add{{"aof-fsync-always", 20, 100}}, defaults, 100,
			wantIntro +
				"1. aof-fsync-always: 1 latency spikes (average 20ms, mean deviation 0ms, period 1.00 sec). Worst all time event 20ms.\n" +
				wantAdvices,
		},
		{
			"fsync always", []add{{"aof-fsync-always", 20, 100}}, Facts{Threshold: 10, FsyncAlways: true}, 100,
			wantIntro +
				"1. aof-fsync-always: 1 latency spikes (average 20ms, mean deviation 0ms, period 1.00 sec). Worst all time event 20ms.\n" +
				wantAdvices + adviceText[adviseRelaxFsync],
		},
		{
			"hz advice only below 100", []add{{"expire-cycle", 20, 100}}, Facts{Threshold: 10, Hz: 100}, 100,
			wantIntro +
				"1. expire-cycle: 1 latency spikes (average 20ms, mean deviation 0ms, period 1.00 sec). Worst all time event 20ms.\n" +
				wantAdvices + wantLarge,
		},
		{
			// Several events: numbered in name order, advice deduplicated
			// and printed in Redis's fixed order, THP last.
			"many events",
			[]add{
				{"expire-cycle", 20, 100}, {"aof-write-pending-fsync", 40, 101}, {"fast-command", 12, 100},
				{"eviction-cycle", 11, 90}, {"aof-rename", 30, 100}, {"aof-write-pending-fsync", 60, 103},
			},
			Facts{Threshold: 10, SlowlogSlowerThan: 10000, Hz: 10, AnonHugePages: true}, 104,
			wantIntro +
				"1. aof-rename: 1 latency spikes (average 30ms, mean deviation 0ms, period 4.00 sec). Worst all time event 30ms.\n" +
				"2. aof-write-pending-fsync: 2 latency spikes (average 50ms, mean deviation 10ms, period 1.50 sec). Worst all time event 60ms.\n" +
				"3. eviction-cycle: 1 latency spikes (average 11ms, mean deviation 0ms, period 14.00 sec). Worst all time event 11ms.\n" +
				"4. expire-cycle: 1 latency spikes (average 20ms, mean deviation 0ms, period 4.00 sec). Worst all time event 20ms.\n" +
				"5. fast-command: 1 latency spikes (average 12ms, mean deviation 0ms, period 4.00 sec). Worst all time event 12ms.\n" +
				wantAdvices +
				adviceText[adviseScheduler] +
				adviceText[adviseLocalDisk] +
				adviceText[adviseSSD] +
				adviceText[adviseDataWriteback] +
				adviceText[adviseDiskContention] +
				adviceText[adviseWriteLoadInfo] +
				adviceText[adviseHz] +
				wantLarge +
				adviceText[adviseMassEviction] +
				adviceText[adviseDisableTHP],
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMonitor(tt.adds...)
			if got := m.Doctor(tt.facts, tt.now); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// The statistics truncate as Redis's integer arithmetic: the average of
// 100, 101, 101 is 100, and the deviations 0+1+1 over 3 are 0.
func TestDoctorTruncates(t *testing.T) {
	m := newMonitor(add{"command", 100, 10}, add{"command", 101, 11}, add{"command", 101, 12})
	got := m.Doctor(defaults, 17)
	want := "1. command: 3 latency spikes (average 100ms, mean deviation 0ms, period 2.33 sec). Worst all time event 101ms.\n"
	if !strings.Contains(got, want) {
		t.Errorf("report lacks %q:\n%s", want, got)
	}
}
