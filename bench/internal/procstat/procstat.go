// Package procstat reads what the benches report of a process from Linux's /proc: its
// resident memory (now and at its peak) and the CPU time it used. Every reader answers 0 when
// the process or the field is gone (it exited, or /proc is absent).
package procstat

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// RSS is pid's resident set size now (VmRSS), in bytes.
func RSS(pid int) int64 { return StatusBytes(pid, "VmRSS:") }

// HWM is pid's peak resident set size so far (VmHWM), in bytes.
func HWM(pid int) int64 { return StatusBytes(pid, "VmHWM:") }

// StatusBytes reads one kB field of /proc/pid/status ("VmRSS:", with its colon), in bytes.
func StatusBytes(pid int, field string) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// CPU is the user and system CPU time pid has used (0 for pid 0).
func CPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	return statCPU("/proc/" + strconv.Itoa(pid) + "/stat")
}

// CPUOf sums the CPU time of the processes named comm (as /proc/pid/comm has it), such as
// "postgres", whose server runs several processes.
func CPUOf(comm string) time.Duration {
	ents, _ := os.ReadDir("/proc")
	var sum time.Duration
	for _, e := range ents {
		if c, _ := os.ReadFile("/proc/" + e.Name() + "/comm"); strings.TrimSpace(string(c)) == comm {
			sum += statCPU("/proc/" + e.Name() + "/stat")
		}
	}
	return sum
}

// statCPU reads utime+stime from a /proc stat file (after the command name, which may hold
// spaces and parentheses).
func statCPU(path string) time.Duration {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * time.Second / 100 // USER_HZ
}

// MiB is b bytes in mebibytes.
func MiB(b int64) float64 { return float64(b) / (1 << 20) }
