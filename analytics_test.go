package folio

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCollectInputValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		in     CollectInput
		status int
		field  string
	}{
		{"page view", CollectInput{Type: "pageview", Path: "/blog?utm_source=x", Title: "Blog", Referrer: "https://t.co/x"}, 0, ""},
		{"absolute url", CollectInput{Type: "pageview", Path: "https://site.example/a"}, 0, ""},
		{"event", CollectInput{Type: "event", Path: "/", Name: "modal_opened", Props: map[string]any{"n": 1.0, "ok": true, "s": "x"}}, 0, ""},
		{"visitor id", CollectInput{Type: "pageview", Path: "/", VisitorID: "0f8c1d2e-aaaa-4bbb-8ccc-123456789abc"}, 0, ""},
		{"booking error", CollectInput{Type: "event", Path: "/", Name: "booking_error", Props: map[string]any{"group": "conflict"}}, 0, ""},
		{"garbage referrer is kept for the server to drop", CollectInput{Type: "pageview", Path: "/", Referrer: "not a url"}, 0, ""},
		{"missing type", CollectInput{Path: "/"}, 400, "type"},
		{"missing path", CollectInput{Type: "pageview"}, 400, "path"},
		{"blank path", CollectInput{Type: "pageview", Path: "  "}, 400, "path"},
		{"event without name", CollectInput{Type: "event", Path: "/"}, 400, "name"},
		{"unknown type", CollectInput{Type: "click", Path: "/"}, 422, "type"},
		{"relative path", CollectInput{Type: "pageview", Path: "blog"}, 422, "path"},
		{"javascript url", CollectInput{Type: "pageview", Path: "javascript:alert(1)"}, 422, "path"},
		{"path with space", CollectInput{Type: "pageview", Path: "/a b"}, 422, "path"},
		{"path too long", CollectInput{Type: "pageview", Path: "/" + strings.Repeat("a", MaxCollectPath)}, 422, "path"},
		{"title with newline", CollectInput{Type: "pageview", Path: "/", Title: "a\nb"}, 422, "title"},
		{"title too long", CollectInput{Type: "pageview", Path: "/", Title: strings.Repeat("é", MaxCollectTitle+1)}, 422, "title"},
		{"visitor id with dot", CollectInput{Type: "pageview", Path: "/", VisitorID: "a.b"}, 422, "visitorId"},
		{"visitor id too long", CollectInput{Type: "pageview", Path: "/", VisitorID: strings.Repeat("a", 65)}, 422, "visitorId"},
		{"bad event name", CollectInput{Type: "event", Path: "/", Name: "has space"}, 422, "name"},
		{"nested prop", CollectInput{Type: "event", Path: "/", Name: "x", Props: map[string]any{"o": map[string]any{}}}, 422, "props.o"},
		{"too many props", CollectInput{Type: "event", Path: "/", Name: "x", Props: manyProps(17)}, 422, "props"},
		{"unknown error group", CollectInput{Type: "event", Path: "/", Name: "booking_error", Props: map[string]any{"group": "oops"}}, 422, "props.group"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.in.Validate()
			if tc.status == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			e, ok := err.(*Error)
			if !ok || statusOf(e) != tc.status || e.Code != EINVALID {
				t.Fatalf("got %v, want %d", err, tc.status)
			}
			found := false
			for _, d := range e.Details {
				found = found || d.Field == tc.field
			}
			if !found {
				t.Errorf("details %v do not name %q", e.Details, tc.field)
			}
		})
	}
}

func manyProps(n int) map[string]any {
	m := map[string]any{}
	for i := 0; i < n; i++ {
		m[strings.Repeat("k", i+1)] = "v"
	}
	return m
}

// FuzzCollectInput feeds arbitrary collect bodies through decoding and validation: it must never
// panic, and whatever it accepts must respect the limits.
func FuzzCollectInput(f *testing.F) {
	f.Add(`{"type":"pageview","path":"/a?b=c","title":"T","referrer":"https://x.org","visitorId":"abc"}`)
	f.Add(`{"type":"event","path":"/","name":"booking_error","props":{"group":"conflict","step":"date_selected"}}`)
	f.Add(`{"type":"event","path":"/","name":"x","props":{"a":[1]}}`)
	f.Fuzz(func(t *testing.T, body string) {
		var in CollectInput
		if json.Unmarshal([]byte(body), &in) != nil {
			return
		}
		if in.Validate() != nil {
			return
		}
		if len(in.Path) > MaxCollectPath || len(in.Referrer) > MaxCollectReferrer || len(in.Props) > MaxEventProps ||
			(in.VisitorID != "" && !ValidVisitorID(in.VisitorID)) || (in.Type != CollectPageView && in.Type != CollectEvent) {
			t.Fatalf("accepted %+v", in)
		}
	})
}
