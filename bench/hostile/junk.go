package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// junkParams measures what junk query parameters cost on a post whose response is about 3 MB:
// the server's CPU per 1,000 requests cached and with a distinct junk parameter each; then floods
// the blog list with ?page=N and asks whether the useful entries are still served from the cache.
func junkParams(s *server, o options) error {
	// Emphasised three-byte words: the HTML (its tags escaped in JSON) makes the response about
	// 3.4 MB from under 1 MiB of Markdown.
	slug, size, err := s.createPost("Long read", strings.Repeat("*漢字* ", 75000))
	if err != nil {
		return err
	}
	post := "/api/blog/" + slug
	fmt.Printf("junk: folio pid %d on SQLite; the post's response is %.2f MB\n", s.pid, float64(size)/1e6)
	perK := func(label string, next func(i int) string) error {
		c0, err := cpuSeconds(s.pid)
		if err != nil {
			return err
		}
		t0 := time.Now()
		failed := s.flood(o.junkCPU, o.workers, func(i int) (string, string) { return "GET", next(i) })
		c1, _ := cpuSeconds(s.pid)
		fmt.Printf("junk: %-34s %7.2f CPU s per 1,000 requests (%d requests in %s, %d failed)\n", label,
			(c1-c0)*1000/float64(o.junkCPU), o.junkCPU, time.Since(t0).Round(time.Millisecond), failed)
		return nil
	}
	if err := perK("cached (the same address)", func(int) string { return post }); err != nil {
		return err
	}
	if err := perK("a distinct junk parameter each", func(i int) string { return post + "?cb=" + strconv.Itoa(i) }); err != nil {
		return err
	}

	useful := []string{post, "/api/blog", "/api/blog?page=2", "/api/blog/feed.xml", "/api/projects"}
	for range 2 { // stored, then hit
		for _, u := range useful {
			s.flood(1, 1, func(int) (string, string) { return "GET", u })
		}
	}
	t0 := time.Now()
	failed := s.flood(o.pages, o.workers, func(i int) (string, string) { return "GET", "/api/blog?page=" + strconv.Itoa(i+3) })
	after := s.sample()
	survived := 0
	var lost []string
	for _, u := range useful {
		h0 := s.sample().cacheHits
		s.flood(1, 1, func(int) (string, string) { return "GET", u })
		if s.sample().cacheHits > h0 {
			survived++
		} else {
			lost = append(lost, u)
		}
	}
	fmt.Printf("junk: after %d ?page=N requests (%s, %d failed; cache %d entries, %.1f MiB): %d of %d useful entries still cached; evicted: %v\n",
		o.pages, time.Since(t0).Round(time.Millisecond), failed, after.cacheEntries, mib(after.cacheBytes), survived, len(useful), lost)
	return nil
}

// cpuSeconds is the user and system CPU time pid has used (/proc/PID/stat, in USER_HZ = 100
// ticks a second).
func cpuSeconds(pid int) (float64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	ut, err1 := strconv.ParseFloat(f[11], 64)
	st, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %v %v", pid, err1, err2)
	}
	return (ut + st) / 100, nil
}
