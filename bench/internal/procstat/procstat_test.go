package procstat

import (
	"os"
	"testing"
)

// This process's own figures are there and consistent.
func TestSelf(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc on this system")
	}
	pid := os.Getpid()
	rss, hwm := RSS(pid), HWM(pid)
	if rss <= 0 || hwm < rss {
		t.Fatalf("RSS %d, HWM %d: want 0 < RSS <= HWM", rss, hwm)
	}
	sink := 0
	for i := range 50_000_000 {
		sink += i
	}
	if CPU(pid) <= 0 || sink == 0 {
		t.Fatalf("CPU %v after a busy loop", CPU(pid))
	}
	if RSS(0) != 0 && CPU(0) != 0 {
		t.Fatal("pid 0 read")
	}
	if MiB(3<<20) != 3 {
		t.Fatal("MiB")
	}
}
