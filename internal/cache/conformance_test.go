package cache

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
)

// harness is one implementation under the shared conformance suite.
type harness struct {
	cache folio.Cache
	clock *foliotest.Clock
	// checkExpires asserts that key, stored with keep, disappears once keep has passed: Memory
	// moves its clock; Redis checks the key's expiry, since its clock cannot be moved.
	checkExpires func(t *testing.T, key string, keep time.Duration)
}

var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestMemoryConformance(t *testing.T) {
	runConformance(t, func(t *testing.T) *harness {
		clock := foliotest.NewClock(epoch)
		m := NewMemory(clock.Now, 0)
		return &harness{cache: m, clock: clock, checkExpires: func(t *testing.T, key string, keep time.Duration) {
			t.Helper()
			clock.Advance(keep - time.Microsecond)
			if _, ok, _ := m.Get(context.Background(), key); !ok {
				t.Errorf("entry gone before its keep time")
			}
			clock.Advance(time.Microsecond)
			if _, ok, _ := m.Get(context.Background(), key); ok {
				t.Errorf("entry still there after its keep time")
			}
		}}
	})
}

func TestRedisConformance(t *testing.T) {
	if foliotest.RedisURL() == "" {
		t.Skip("Redis tests skipped: set FOLIO_TEST_REDIS_URL (e.g. redis://127.0.0.1:6379/0)")
	}
	runConformance(t, func(t *testing.T) *harness {
		c := foliotest.RedisPool(t)
		clock := foliotest.NewClock(epoch)
		prefix := uniquePrefix(t)
		r := NewRedis(c, prefix, clock.Now)
		t.Cleanup(func() { foliotest.RedisDeletePrefix(t, c, prefix) })
		return &harness{cache: r, clock: clock, checkExpires: func(t *testing.T, key string, keep time.Duration) {
			t.Helper()
			ttl := time.Duration(foliotest.RedisDo(t, c, "PTTL", prefix+"e:"+key).(int64)) * time.Millisecond
			if ttl <= 0 || ttl > keep {
				t.Errorf("PTTL = %s, want in (0, %s]", ttl, keep)
			}
		}}
	})
}

func runConformance(t *testing.T, newHarness func(t *testing.T) *harness) {
	ctx := context.Background()
	t.Run("get returns what set stored, stamped with the clock", func(t *testing.T) {
		h := newHarness(t)
		if _, ok, err := h.cache.Get(ctx, "posts:1:10"); ok || err != nil {
			t.Fatalf("empty cache: ok=%t err=%v, want a miss", ok, err)
		}
		mustSet(t, h.cache, "posts:1:10", []byte(`{"posts":[]}`), time.Hour)
		h.clock.Advance(90 * time.Second)
		e := mustGet(t, h.cache, "posts:1:10")
		if !bytes.Equal(e.Value, []byte(`{"posts":[]}`)) {
			t.Errorf("value = %q", e.Value)
		}
		if !e.StoredAt.Equal(epoch) {
			t.Errorf("StoredAt = %s, want %s (the time of Set, not of Get)", e.StoredAt, epoch)
		}
	})
	t.Run("set replaces and restamps", func(t *testing.T) {
		h := newHarness(t)
		mustSet(t, h.cache, "k", []byte("one"), time.Hour)
		h.clock.Advance(time.Minute)
		mustSet(t, h.cache, "k", []byte("two"), time.Hour)
		e := mustGet(t, h.cache, "k")
		if string(e.Value) != "two" || !e.StoredAt.Equal(epoch.Add(time.Minute)) {
			t.Errorf("got %q at %s, want two at %s", e.Value, e.StoredAt, epoch.Add(time.Minute))
		}
	})
	t.Run("empty and binary values survive", func(t *testing.T) {
		h := newHarness(t)
		bin := []byte{0, 1, 2, 0xff, 0}
		mustSet(t, h.cache, "bin", bin, time.Hour)
		mustSet(t, h.cache, "empty", nil, time.Hour)
		if e := mustGet(t, h.cache, "bin"); !bytes.Equal(e.Value, bin) {
			t.Errorf("binary value = %v", e.Value)
		}
		if e := mustGet(t, h.cache, "empty"); len(e.Value) != 0 {
			t.Errorf("empty value = %v", e.Value)
		}
	})
	t.Run("entries expire after keep", func(t *testing.T) {
		h := newHarness(t)
		mustSet(t, h.cache, "short", []byte("x"), 2*time.Hour)
		h.checkExpires(t, "short", 2*time.Hour)
	})
	t.Run("a keep of zero stores nothing", func(t *testing.T) {
		h := newHarness(t)
		mustSet(t, h.cache, "never", []byte("x"), 0)
		if _, ok, _ := h.cache.Get(ctx, "never"); ok {
			t.Error("entry stored with keep 0")
		}
	})
	t.Run("delete by prefix removes only matching keys, glob characters literal", func(t *testing.T) {
		h := newHarness(t)
		for _, k := range []string{"posts:1:10", "posts:2:10", "posts*:1", "post:1", "other:posts:1", "p[o]sts:1"} {
			mustSet(t, h.cache, k, []byte(k), time.Hour)
		}
		if err := h.cache.DeletePrefix(ctx, "posts:"); err != nil {
			t.Fatal(err)
		}
		if err := h.cache.DeletePrefix(ctx, "p[o]"); err != nil {
			t.Fatal(err)
		}
		for k, want := range map[string]bool{"posts:1:10": false, "posts:2:10": false, "posts*:1": true,
			"post:1": true, "other:posts:1": true, "p[o]sts:1": false} {
			if _, ok, _ := h.cache.Get(ctx, k); ok != want {
				t.Errorf("%q present = %t, want %t", k, ok, want)
			}
		}
	})
	t.Run("generations count per scope", func(t *testing.T) {
		h := newHarness(t)
		if g, err := h.cache.Generation(ctx, "extblog"); g != 0 || err != nil {
			t.Fatalf("fresh generation = %d, %v; want 0", g, err)
		}
		for want := uint64(1); want <= 3; want++ {
			if g, err := h.cache.Bump(ctx, "extblog"); g != want || err != nil {
				t.Fatalf("Bump = %d, %v; want %d", g, err, want)
			}
		}
		if g, _ := h.cache.Generation(ctx, "extblog"); g != 3 {
			t.Errorf("Generation = %d, want 3", g)
		}
		if g, _ := h.cache.Generation(ctx, "projects"); g != 0 {
			t.Errorf("other scope's generation = %d, want 0", g)
		}
	})
	t.Run("concurrent bumps are all counted", func(t *testing.T) {
		h := newHarness(t)
		var wg sync.WaitGroup
		for range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := h.cache.Bump(ctx, "s"); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if g, _ := h.cache.Generation(ctx, "s"); g != 50 {
			t.Errorf("Generation after 50 concurrent bumps = %d", g)
		}
	})
	t.Run("a caller cannot change a stored value through its slice", func(t *testing.T) {
		h := newHarness(t)
		v := []byte("abc")
		mustSet(t, h.cache, "k", v, time.Hour)
		v[0] = 'X'
		e := mustGet(t, h.cache, "k")
		e.Value[1] = 'Y'
		if got := mustGet(t, h.cache, "k").Value; string(got) != "abc" {
			t.Errorf("stored value changed to %q", got)
		}
	})
}

func TestMemoryBounded(t *testing.T) {
	clock := foliotest.NewClock(epoch)
	m := NewMemory(clock.Now, 3)
	ctx := context.Background()
	for i := range 3 {
		mustSet(t, m, fmt.Sprint(i), []byte("v"), time.Hour)
		clock.Advance(time.Second)
	}
	mustSet(t, m, "new", []byte("v"), time.Hour)
	if _, ok, _ := m.Get(ctx, "0"); ok {
		t.Error("oldest entry kept in a full cache")
	}
	for _, k := range []string{"1", "2", "new"} {
		if _, ok, _ := m.Get(ctx, k); !ok {
			t.Errorf("entry %q evicted", k)
		}
	}
}

func TestRedisUnreachable(t *testing.T) {
	r := NewRedis(foliotest.UnreachableRedis(t), "folio-test:", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, ok, err := r.Get(ctx, "k"); ok || err == nil {
		t.Errorf("Get with Redis down: ok=%t err=%v, want an error", ok, err)
	}
	if err := r.Set(ctx, "k", []byte("v"), time.Hour); err == nil {
		t.Error("Set with Redis down: no error")
	}
	if _, err := r.Bump(ctx, "s"); err == nil {
		t.Error("Bump with Redis down: no error")
	}
}

func mustSet(t *testing.T, c folio.Cache, key string, v []byte, keep time.Duration) {
	t.Helper()
	if err := c.Set(context.Background(), key, v, keep); err != nil {
		t.Fatalf("Set(%q): %v", key, err)
	}
}

func mustGet(t *testing.T, c folio.Cache, key string) folio.CacheEntry {
	t.Helper()
	e, ok, err := c.Get(context.Background(), key)
	if err != nil || !ok {
		t.Fatalf("Get(%q): ok=%t err=%v", key, ok, err)
	}
	return e
}

// uniquePrefix gives each test its own key space.
func uniquePrefix(t *testing.T) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	return "folio-test:" + hex.EncodeToString(b[:]) + ":"
}
