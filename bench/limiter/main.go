// Command limiter measures the in-memory rate limiter's heap after 1,000,000 distinct
// identifiers (IPv6 /64 keys of the public tier, each making a few requests under a limit of
// 100,000 per hour), once with room for all of them and once under the default identifier bound,
// and prints the bytes per identifier beside what the former sliding-window log cost for the
// same traffic (one 8-byte time per allowed request, plus its slice).
//
//	go run ./bench/limiter [-identifiers 1000000] [-requests 3]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/ratelimit"
)

func main() {
	n := flag.Int("identifiers", 1_000_000, "distinct identifiers")
	per := flag.Int("requests", 3, "requests per identifier")
	flag.Parse()
	rl := folio.RateLimit{Limit: 100_000, Window: time.Hour}
	fmt.Printf("limiter: %d distinct identifiers, %d requests each, limit %d per %s\n", *n, *per, rl.Limit, rl.Window)
	for _, c := range []struct {
		name  string
		bound int
	}{{"room for all", *n}, {fmt.Sprintf("default bound (%d)", ratelimit.DefaultMaxIdentifiers), ratelimit.DefaultMaxIdentifiers}} {
		heap, tracked, elapsed := fill(c.bound, *n, *per, rl)
		fmt.Printf("limiter: %-24s heap %7.1f MiB, %d identifiers tracked, %.0f bytes per tracked identifier, %.0f ns per check\n",
			c.name+":", float64(heap)/(1<<20), tracked, float64(heap)/float64(tracked), float64(elapsed.Nanoseconds())/float64(*n**per))
	}
	// The former log: a slice header (24 B) + one int64 per allowed request, rounded up to Go's
	// size classes, per identifier, beside the same map overhead; at the limit a busy identifier
	// held Limit times.
	fmt.Printf("limiter: former sliding-window log: %d bytes of times per identifier at this traffic, %d bytes for one identifier at its limit of %d\n",
		24+8*roundPow2(*per), 24+8*rl.Limit, rl.Limit)
}

func roundPow2(n int) int {
	p := 1
	for p < n {
		p *= 2
	}
	return p
}

func fill(bound, n, per int, rl folio.RateLimit) (heap uint64, tracked int, elapsed time.Duration) {
	clock := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	m := ratelimit.NewMemoryBounded(func() time.Time { return clock }, bound)
	before := heapInUse()
	ctx := context.Background()
	start := time.Now()
	for i := range n {
		// 2001:db8::/32 with the identifier in the next 32 bits: one /64 each.
		key := fmt.Sprintf("public:2001:db8:%x:%x::/64", i>>16, i&0xffff)
		for range per {
			clock = clock.Add(time.Microsecond)
			if _, err := m.Allow(ctx, key, rl); err != nil {
				fmt.Fprintln(os.Stderr, "bench/limiter:", err)
				os.Exit(1)
			}
		}
	}
	elapsed = time.Since(start)
	heap = heapInUse() - before
	tracked = m.Len()
	runtime.KeepAlive(m)
	return heap, tracked, elapsed
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
