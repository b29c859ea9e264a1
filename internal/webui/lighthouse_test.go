package webui_test

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestLighthouse runs Lighthouse (testdata/lighthouse/run.sh) against a folio seeded with the
// demo content: the booking page and the signed-in Overview, Posts, Analytics and Settings
// pages must score at least 0.98 for accessibility and 1 for best practices. It skips when
// Lighthouse (npm ci --prefix internal/webui/testdata/lighthouse) or Chromium is not installed.
func TestLighthouse(t *testing.T) {
	chromium := findChromium(t)
	if _, err := os.Stat("testdata/lighthouse/node_modules/.bin/lighthouse"); err != nil {
		t.Skip("Lighthouse scores skipped: Lighthouse is not installed (npm ci --prefix internal/webui/testdata/lighthouse)")
	}
	for _, tool := range []string{"bash", "curl", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("Lighthouse scores skipped: %s is not installed", tool)
		}
	}
	f := startFresh(t, map[string]string{"FOLIO_ADMIN_EMAIL": adminEmail, "FOLIO_ADMIN_PASSWORD": adminPassword,
		"RATE_LIMIT_HELPER_PER_HOUR": "1000", "RATE_LIMIT_PUBLIC_PER_HOUR": "100000"})
	f.command(t, "", "seed", "--demo")

	reports := t.TempDir()
	if dir := os.Getenv("FOLIO_SCREENSHOTS"); dir != "" {
		reports = dir
	}
	cmd := exec.Command("bash", "testdata/lighthouse/run.sh", f.base, adminEmail, adminPassword, reports)
	cmd.Env = append(os.Environ(), "CHROME_PATH="+chromium)
	out, err := cmd.Output()
	t.Logf("Lighthouse (reports in %s):\n%s", reports, out)
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("run.sh: %v\n%s", err, stderr)
	}
	// Lines: "page accessibility best-practices", then "  - audit: title" for each audit that lost
	// points.
	type score struct {
		a11y, bp float64
		lost     []string
	}
	scores := map[string]*score{}
	var cur *score
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		line := sc.Text()
		if audit, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok && cur != nil {
			cur.lost = append(cur.lost, strings.SplitN(audit, ":", 2)[0])
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 3 {
			continue
		}
		a11y, err1 := strconv.ParseFloat(fields[1], 64)
		bp, err2 := strconv.ParseFloat(fields[2], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("unreadable score line %q", line)
		}
		cur = &score{a11y: a11y, bp: bp}
		scores[fields[0]] = cur
	}
	for _, page := range []string{"book", "overview", "posts", "analytics", "settings"} {
		s := scores[page]
		if s == nil {
			t.Errorf("%s: no score", page)
			continue
		}
		if s.bp < 1 {
			t.Errorf("%s: best practices %.2f, want 1 (lost on %v)", page, s.bp, s.lost)
		}
		if s.a11y < 0.98 {
			t.Errorf("%s: accessibility %.2f, want at least 0.98 (lost on %v)", page, s.a11y, s.lost)
		}
	}
}
