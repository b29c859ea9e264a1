package respcache

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Ensure a 200 is kept as an exact-size copy, not in the recorder's doubled buffer.
func TestNewEntryKeepsAnExactSizeCopy(t *testing.T) {
	rec := NewRecorder()
	for range 100 {
		rec.Write([]byte("0123456789abc"))
	}
	e := NewEntry(0, "posts", rec.Status(), http.Header{"Content-Type": {"application/json"}}, rec.Body())
	if len(e.body) != 1300 || cap(e.body) != len(e.body) {
		t.Errorf("body of %d bytes kept in a %d-byte buffer", len(e.body), cap(e.body))
	}
	if &e.body[0] == &rec.Body()[0] {
		t.Error("the entry shares the recorder's buffer")
	}
}

// Ensure the cache stays within its byte bound, drops a scope's entries on Invalidate, refuses
// a render of an older generation, and answers If-None-Match with 304.
func TestCacheBoundsAndGenerations(t *testing.T) {
	const bound = 64 << 10
	c := New(1000, bound)
	g := c.Generation("posts")
	body := make([]byte, 4<<10)
	for i := range 40 {
		c.Put(fmt.Sprintf("/p/%d", i), NewEntry(g.Load(), "posts", 200, textPlain, body), g)
		if _, b := c.Stats(); b > bound {
			t.Fatalf("cache holds %d bytes, over its %d-byte bound", b, bound)
		}
	}
	if n, _ := c.Stats(); n == 0 {
		t.Fatal("nothing kept")
	}
	stale := NewEntry(g.Load(), "posts", 200, textPlain, body)
	c.Invalidate("posts")
	if n, b := c.Stats(); n != 0 || b != 0 {
		t.Errorf("after invalidating: %d entries, %d bytes", n, b)
	}
	c.Put("/p/x", stale, g)
	if c.Get("/p/x", g.Load()) != nil {
		t.Error("a render of an older generation was kept")
	}
	e := NewEntry(g.Load(), "posts", 200, textPlain, []byte("hi"))
	c.Put("/p/y", e, g)
	got := c.Get("/p/y", g.Load())
	if got == nil {
		t.Fatal("entry not kept")
	}
	req := httptest.NewRequest("GET", "/p/y", nil)
	req.Header.Set("If-None-Match", "W/"+got.etag)
	w := httptest.NewRecorder()
	got.Write(w, req)
	if w.Code != http.StatusNotModified || w.Header().Get("Etag") != got.etag {
		t.Errorf("If-None-Match: %d %v", w.Code, w.Header())
	}
}

var textPlain = http.Header{"Content-Type": {"text/plain"}}

// Ensure entries keyed by a query (?page=N) share a quarter of the bound and evict only each
// other: a flood of them never pushes a plain entry out, however full the cache is.
func TestQueriedKeysHaveTheirOwnBudget(t *testing.T) {
	const bound = 64 << 10
	c := New(40, bound)
	g := c.Generation("posts")
	body := make([]byte, 2<<10)
	for i := range 8 {
		c.Put(fmt.Sprintf("/p/%d", i), NewEntry(g.Load(), "posts", 200, textPlain, body), g)
	}
	for i := range 2000 {
		c.Put(fmt.Sprintf("/list?page=%d", i), NewEntry(g.Load(), "posts", 200, textPlain, body), g)
		if c.queriedBytes > bound/queriedShare || len(c.queried) > 40/queriedShare {
			t.Fatalf("queried entries hold %d bytes in %d entries, over a quarter of the bound", c.queriedBytes, len(c.queried))
		}
	}
	for i := range 8 {
		if c.Get(fmt.Sprintf("/p/%d", i), g.Load()) == nil {
			t.Errorf("/p/%d was evicted by a flood of ?page=N", i)
		}
	}
	if c.Get("/list?page=1999", g.Load()) == nil {
		t.Error("the newest queried entry was not kept")
	}
	c.Invalidate("posts")
	if n, b := c.Stats(); n != 0 || b != 0 || c.queriedBytes != 0 || len(c.queried) != 0 {
		t.Errorf("after invalidating: %d entries, %d bytes, %d queried bytes", n, b, c.queriedBytes)
	}
}
