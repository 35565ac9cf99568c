package latency

import (
	"fmt"
	"strings"
)

// Facts are the server settings and measurements LATENCY DOCTOR's advice
// depends on.
type Facts struct {
	Threshold         int64   // latency-monitor-threshold, milliseconds
	SlowlogSlowerThan int64   // slowlog-log-slower-than, microseconds; negative = disabled
	FsyncAlways       bool    // appendfsync always
	Hz                int     // hz
	ForkRate          float64 // GB/s of the last fork; only read for a "fork" event
	AnonHugePages     bool    // the process has anonymous huge pages (THP)
}

// stats is Redis's latencyStats for one event's current samples.
type stats struct {
	samples  int64
	avg, mad int64 // integer mean and mean absolute deviation, ms
	period   int64 // seconds from the oldest sample to now, at least 1
}

// analyze computes an event's stats at unix time now the way Redis's
// analyzeLatencyForEvent does: integer (truncating) average and mean
// absolute deviation, and a period of now minus the oldest sample, 1 when
// that is 0.
func (ts *series) analyze(now int64) stats {
	var st stats
	var sum, oldest int64
	for _, s := range ts.samples {
		if s.Time == 0 {
			continue
		}
		st.samples++
		sum += s.Latency
		if oldest == 0 || s.Time < oldest {
			oldest = s.Time
		}
	}
	if st.samples == 0 {
		return st
	}
	st.avg = sum / st.samples
	st.period = now - oldest
	if st.period == 0 {
		st.period = 1
	}
	var dev int64
	for _, s := range ts.samples {
		if s.Time == 0 {
			continue
		}
		d := st.avg - s.Latency
		if d < 0 {
			d = -d
		}
		dev += d
	}
	st.mad = dev / st.samples
	return st
}

// advice is one paragraph of the doctor's advice list.
type advice int

// The advice paragraphs, in the order the report prints them.
const (
	adviseBetterVM advice = iota
	adviseSlowlogEnabled
	adviseSlowlogTuning
	adviseSlowlogInspect
	adviseScheduler
	adviseLocalDisk
	adviseSSD
	adviseDataWriteback
	adviseDiskContention
	adviseNoAppendfsync
	adviseRelaxFsync
	adviseWriteLoadInfo
	adviseHz
	adviseLargeObjects
	adviseMassEviction
	adviseDisableTHP
	numAdvice
)

// eventAdvice maps an event name (compared ignoring ASCII case) to the
// advice it triggers. Each listed advice also counts once toward the
// number of advices, as in Redis. "fork" and "command" are handled in code
// because they depend on Facts.
var eventAdvice = []struct {
	event  string
	advice []advice
}{
	{"fast-command", []advice{adviseScheduler}},
	{"aof-write-pending-fsync", []advice{adviseLocalDisk, adviseDiskContention, adviseSSD, adviseDataWriteback}},
	{"aof-write-active-child", []advice{adviseNoAppendfsync, adviseDataWriteback, adviseSSD}},
	{"aof-write-alone", []advice{adviseLocalDisk, adviseDataWriteback, adviseSSD}},
	{"aof-fsync-always", []advice{adviseRelaxFsync}},
	{"aof-fstat", []advice{adviseDiskContention, adviseLocalDisk}},
	{"rdb-unlink-temp-file", []advice{adviseDiskContention, adviseLocalDisk}},
	{"aof-rewrite-diff-write", []advice{adviseWriteLoadInfo, adviseDataWriteback, adviseSSD, adviseLocalDisk}},
	{"aof-rename", []advice{adviseWriteLoadInfo, adviseDataWriteback, adviseSSD, adviseLocalDisk}},
	{"expire-cycle", []advice{adviseHz, adviseLargeObjects}},
	{"eviction-del", []advice{adviseLargeObjects}},
	{"eviction-cycle", []advice{adviseMassEviction}},
}

// Fixed texts of the report.
const (
	doctorDisabled = "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n"
	doctorIntro    = "Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n"
	doctorNoSpike  = "Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n"
	doctorNoAdvice = "\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n"
	doctorAdvices  = "\nI have a few advices for you:\n\n"
)

// adviceText holds each advice paragraph; the two slow-log ones take the
// threshold in microseconds as their only verb.
var adviceText = [numAdvice]string{
	adviseBetterVM:       "- If you are using a virtual machine, consider upgrading it with a faster one using a hypervisior that provides less latency during fork() calls. Xen is known to have poor fork() performance. Even in the context of the same VM provider, certain kinds of instances can execute fork faster than others.\n",
	adviseSlowlogEnabled: "- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than %d'. If the Slow log is disabled Redis is not able to log slow commands execution for you.\n",
	adviseSlowlogTuning:  "- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than %d'.\n",
	adviseSlowlogInspect: "- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n",
	adviseScheduler: "- The system is slow to execute Redis code paths not containing system calls. This usually means the system does not provide Redis CPU time to run for long periods. You should try to:\n" +
		"  1) Lower the system load.\n" +
		"  2) Use a computer / VM just for Redis if you are running other software in the same system.\n" +
		"  3) Check if you have a \"noisy neighbour\" problem.\n" +
		"  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n" +
		"  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are using Jemalloc. However this may create fragmentation problems.\n",
	adviseLocalDisk:      "- It is strongly advised to use local disks for persistence, especially if you are using AOF. Remote disks provided by platform-as-a-service providers are known to be slow.\n",
	adviseSSD:            "- SSD disks are able to reduce fsync latency, and total time needed for snapshotting and AOF log rewriting (resulting in smaller memory usage). With extremely high write load SSD disks can be a good option. However Redis should perform reasonably with high load using normal disks. Use this advice as a last resort.\n",
	adviseDataWriteback:  "- Mounting ext3/4 filesystems with data=writeback can provide a performance boost compared to data=ordered, however this mode of operation provides less guarantees, and sometimes it can happen that after a hard crash the AOF file will have a half-written command at the end and will require to be repaired before Redis restarts.\n",
	adviseDiskContention: "- Try to lower the disk contention. This is often caused by other disk intensive processes running in the same computer (including other Redis instances).\n",
	adviseNoAppendfsync:  "- Assuming from the point of view of data safety this is viable in your environment, you could try to enable the 'no-appendfsync-on-rewrite' option, so that fsync will not be performed while there is a child rewriting the AOF file or producing an RDB file (the moment where there is high disk contention).\n",
	adviseRelaxFsync:     "- Your fsync policy is set to 'always'. It is very hard to get good performances with such a setup, if possible try to relax the fsync policy to 'onesec'.\n",
	adviseWriteLoadInfo:  "- Latency during the AOF atomic rename operation or when the final difference is flushed to the AOF file at the end of the rewrite, sometimes is caused by very high write load, causing the AOF buffer to get very large. If possible try to send less commands to accomplish the same work, or use Lua scripts to group multiple operations into a single EVALSHA call.\n",
	adviseHz:             "- In order to make the Redis keys expiring process more incremental, try to set the 'hz' configuration parameter to 100 using 'CONFIG SET hz 100'.\n",
	adviseLargeObjects:   "- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n",
	adviseMassEviction:   "- Sudden changes to the 'maxmemory' setting via 'CONFIG SET', or allocation of large objects via sets or sorted sets intersections, STORE option of SORT, Redis Cluster large keys migrations (RESTORE command), may create sudden memory pressure forcing the server to block trying to evict keys. \n",
	adviseDisableTHP:     "- I detected a non zero amount of anonymous huge pages used by your process. This creates very serious latency events in different conditions, especially when Redis is persisting on disk. To disable THP support use the command 'echo never > /sys/kernel/mm/transparent_hugepage/enabled', make sure to also add it into /etc/rc.local so that the command will be executed again after a reboot. Note that even if you have already disabled THP, you still need to restart the Redis process to get rid of the huge pages already created.\n",
}

// Doctor returns LATENCY DOCTOR's report at unix time now, byte for byte
// as Redis 7.0's createLatencyReport writes it, with events taken in name
// order (Redis uses dictionary order).
//
// With no events and a zero threshold the report is the "I'm sorry, Dave"
// refusal. Otherwise each event gets a numbered line with its sample
// count, average, mean deviation, seconds per sample and all-time worst,
// and may add advice; THP adds advice on its own. The report ends with the
// advice list, or with the "no latency spike" text when there are neither
// events nor advice, or with "not able to suggest any easy fix" when there
// are events but no advice. As in Redis, the relax-fsync and hz advice are
// counted even when FsyncAlways is false or Hz is at least 100, in which
// case the list may be printed with those paragraphs left out.
func (m *Monitor) Doctor(f Facts, now int64) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.mu.events) == 0 && f.Threshold == 0 {
		return doctorDisabled
	}

	var b strings.Builder
	var want [numAdvice]bool
	advices := 0
	add := func(as ...advice) {
		for _, a := range as {
			want[a] = true
			advices++
		}
	}
	names := m.namesLocked()
	for i, name := range names {
		ts := m.mu.events[name]
		if i == 0 {
			b.WriteString(doctorIntro)
		}
		st := ts.analyze(now)
		fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %dms, mean deviation %dms, period %s sec). Worst all time event %dms.",
			i+1, name, st.samples, st.avg, st.mad, perSample(st), ts.max)

		if equalFoldASCII(name, "fork") {
			quality := "excellent"
			switch {
			case f.ForkRate < 10:
				quality = "terrible"
				add(adviseBetterVM)
			case f.ForkRate < 25:
				quality = "poor"
				add(adviseBetterVM)
			case f.ForkRate < 100:
				quality = "good"
			}
			fmt.Fprintf(&b, " Fork rate is %.2f GB/sec (%s).", f.ForkRate, quality)
		}
		if equalFoldASCII(name, "command") {
			if f.SlowlogSlowerThan < 0 {
				add(adviseSlowlogEnabled)
			} else if f.SlowlogSlowerThan/1000 > f.Threshold {
				add(adviseSlowlogTuning)
			}
			add(adviseSlowlogInspect, adviseLargeObjects)
		}
		for _, ea := range eventAdvice {
			if equalFoldASCII(name, ea.event) {
				add(ea.advice...)
			}
		}
		b.WriteByte('\n')
	}
	if f.AnonHugePages {
		add(adviseDisableTHP)
	}

	switch {
	case len(names) == 0 && advices == 0:
		b.WriteString(doctorNoSpike)
	case len(names) > 0 && advices == 0:
		b.WriteString(doctorNoAdvice)
	default:
		b.WriteString(doctorAdvices)
		for a := range numAdvice {
			switch {
			case !want[a]:
			case a == adviseRelaxFsync && !f.FsyncAlways:
			case a == adviseHz && f.Hz >= 100:
			case a == adviseSlowlogEnabled || a == adviseSlowlogTuning:
				fmt.Fprintf(&b, adviceText[a], f.Threshold*1000)
			default:
				b.WriteString(adviceText[a])
			}
		}
	}
	return b.String()
}

// perSample formats period/samples as Redis's "%.2f". An event whose
// samples are all empty slots (only possible after Add at time 0) divides
// 0 by 0, which glibc prints as "-nan" on x86-64.
func perSample(st stats) string {
	if st.samples == 0 {
		return "-nan"
	}
	return fmt.Sprintf("%.2f", float64(st.period)/float64(st.samples))
}
