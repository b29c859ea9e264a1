package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// processCPU is the user and system CPU time process pid has used (0 for pid 0).
func processCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	return statCPU(fmt.Sprintf("/proc/%d/stat", pid))
}

// postgresCPU is the CPU time of the local processes named postgres (the server of the
// PostgreSQL figures runs on this machine); its backends live as long as the pools' connections.
func postgresCPU() time.Duration {
	ents, _ := os.ReadDir("/proc")
	var sum time.Duration
	for _, e := range ents {
		if c, _ := os.ReadFile("/proc/" + e.Name() + "/comm"); strings.TrimSpace(string(c)) == "postgres" {
			sum += statCPU("/proc/" + e.Name() + "/stat")
		}
	}
	return sum
}

// statCPU reads utime+stime from a /proc stat file.
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

// rss reads the resident set size of pid from /proc (bytes).
func rss(pid int) int64 { return statusKB(pid, "VmRSS:") }

// statusKB reads one kB field of /proc/pid/status, in bytes.
func statusKB(pid int, field string) int64 {
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

func mib(b int64) float64 { return float64(b) / (1 << 20) }
