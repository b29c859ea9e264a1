package analyticsdb

import (
	"fmt"
	"testing"
	"time"
)

func TestVisitorCacheTrim(t *testing.T) {
	now := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
	st := func(idle bool) *visitorState {
		s := &visitorState{lastSeen: now.Add(-time.Minute), visitPages: []string{"/", "/blog/a-post", "/projects"}}
		if idle {
			s.lastSeen = now.Add(-VisitGap - time.Minute)
		}
		return s
	}
	one := visitorSize("a00000", st(false))
	bound := maxCachedVisitorBytes / one // states of that size the bound holds
	fill := func(active, idle int) *visitorCache {
		c := &visitorCache{states: map[string]*visitorState{}}
		for i := range active {
			c.states[fmt.Sprintf("a%05d", i)] = st(false)
		}
		for i := range idle {
			c.states[fmt.Sprintf("i%05d", i)] = st(true)
		}
		return c
	}
	c := fill(bound, 0)
	c.trim(now)
	if len(c.states) != bound {
		t.Errorf("at the bound: %d states kept, want all %d", len(c.states), bound)
	}
	c = fill(bound/2, bound)
	c.trim(now)
	if len(c.states) != bound/2 {
		t.Errorf("over the bound with idle visitors: %d states kept, want the %d active ones", len(c.states), bound/2)
	}
	for k := range c.states {
		if k[0] != 'a' {
			t.Fatalf("idle visitor %s kept", k)
		}
	}
	c = fill(bound+10, 0)
	c.trim(now)
	if want := maxCachedVisitorBytes * 3 / 4 / one; len(c.states) != want {
		t.Errorf("over the bound, all active: %d states kept, want %d", len(c.states), want)
	}
}
