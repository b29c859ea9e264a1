package ratelimit

import (
	"context"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
)

type refunder interface {
	folio.Limiter
	Refund(ctx context.Context, key string) error
}

// checkRefund: with a limit of 2, a refunded request does not count, so a third request passes;
// a fourth does not.
func checkRefund(t *testing.T, l refunder, key string) {
	t.Helper()
	ctx := context.Background()
	rl := folio.RateLimit{Limit: 2, Window: time.Hour}
	for i, want := range []bool{true, true} {
		if d, err := l.Allow(ctx, key, rl); err != nil || d.Allowed != want {
			t.Fatalf("request %d: %+v %v", i, d, err)
		}
	}
	if err := l.Refund(ctx, key); err != nil {
		t.Fatal(err)
	}
	if d, _ := l.Allow(ctx, key, rl); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("after a refund: %+v", d)
	}
	if d, _ := l.Allow(ctx, key, rl); d.Allowed {
		t.Fatalf("over the limit after the refund: %+v", d)
	}
	if err := l.Refund(ctx, "never-seen-"+key); err != nil {
		t.Errorf("refund of an unknown key: %v", err)
	}
}

func TestMemoryRefund(t *testing.T) {
	checkRefund(t, NewMemory(nil), "helper:book:203.0.113.7")
}

func TestRedisRefund(t *testing.T) {
	c := foliotest.RedisPool(t)
	prefix := "folio-test-refund-" + time.Now().Format("150405.000000") + ":"
	t.Cleanup(func() { foliotest.RedisDo(t, c, "DEL", prefix+"helper:book:203.0.113.7") })
	checkRefund(t, NewRedis(c, prefix), "helper:book:203.0.113.7")
}
