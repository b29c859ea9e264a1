package httpapi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// accessLogLines are the access-log lines ("msg": "request") of a JSON log.
func accessLogLines(log string) []map[string]any {
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(log))
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) == nil && line["msg"] == "request" {
			lines = append(lines, line)
		}
	}
	return lines
}

// wantNoToken fails t when log holds token, or enough of it (its first 12 characters) to matter.
func wantNoToken(t *testing.T, log, token string) {
	t.Helper()
	if strings.Contains(log, token) || strings.Contains(log, token[:12]) {
		t.Errorf("the token reached the log:\n%s", log)
	}
}

// wantRoutesLogged fails t for each route pattern that no access-log line names.
func wantRoutesLogged(t *testing.T, lines []map[string]any, routes ...string) {
	t.Helper()
	logged := map[string]bool{}
	for _, line := range lines {
		logged[fmt.Sprint(line["route"])] = true
	}
	for _, r := range routes {
		if !logged[r] {
			t.Errorf("no access-log line for route %s (routes %v)", r, logged)
		}
	}
}
