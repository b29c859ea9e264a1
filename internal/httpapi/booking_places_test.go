package httpapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/foliohq/folio/internal/booking/bookingtest"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// errorFields returns the fields an error answer names.
func errorFields(t *testing.T, res response) []string {
	t.Helper()
	var env struct {
		Error struct {
			Details []struct{ Field string } `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(res.Body, &env); err != nil {
		t.Fatalf("not an error envelope: %s", res.Body)
	}
	var out []string
	for _, d := range env.Error.Details {
		out = append(out, d.Field)
	}
	return out
}

func TestMeetingPlacesRoutes(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts := lifecycleServer(t, db, &bookingtest.Calendar{})
		st := ts.Bookings.Settings()
		st.JitsiURL = "https://jitsi.example.org"
		if err := ts.Bookings.Apply(st); err != nil {
			t.Fatal(err)
		}
		v := newOpenAPIValidator(t, ts)
		typ := map[string]any{"slug": "consult", "title": "Consultation", "durationMinutes": 30, "description": "Bring **documents**",
			"locations": []map[string]any{{"kind": "jitsi"}, {"kind": "phone"}, {"kind": "in_person", "value": "1 Main St, Springfield"}},
			"questions": []map[string]any{
				{"id": "topic", "label": "Topic", "kind": "choice", "required": true, "options": []string{"Tax", "Law"}},
				{"id": "notes", "label": "Anything else?", "kind": "textarea", "required": false}},
			"limits": map[string]any{"day": 3, "week": 5, "month": 10}, "minNoticeMinutes": 60}
		// Field errors name the field (422).
		for field, bad := range map[string]map[string]any{
			"locations[0].kind":     {"locations": []map[string]any{{"kind": "zoom"}}},
			"locations[0].value":    {"locations": []map[string]any{{"kind": "link", "value": "not a url"}}},
			"questions[0].options":  {"questions": []map[string]any{{"id": "a", "label": "A", "kind": "choice"}}},
			"limits.month":          {"limits": map[string]any{"month": -1}},
			"minNoticeMinutes":      {"minNoticeMinutes": -1},
			"locations[1].kind":     {"locations": []map[string]any{{"kind": "jitsi"}, {"kind": "jitsi"}}},
			"questions[0].id":       {"questions": []map[string]any{{"id": "Not OK", "label": "A", "kind": "text"}}},
			"questions[0].kind":     {"questions": []map[string]any{{"id": "a", "label": "A", "kind": "date"}}},
			"locations[0].value ip": {"locations": []map[string]any{{"kind": "in_person"}}},
		} {
			body := map[string]any{"slug": "bad", "title": "Bad", "durationMinutes": 30}
			for k, val := range bad {
				body[k] = val
			}
			res := ts.do("POST", "/api/schedule/types", "admin", body)
			v.check("POST", "/api/schedule/types", res)
			want, _, _ := strings.Cut(field, " ")
			if res.Status != 422 || !strings.Contains(strings.Join(errorFields(t, res), " "), want) {
				t.Errorf("type with bad %s: %d %s", field, res.Status, res.Body)
			}
		}
		res := ts.do("POST", "/api/schedule/types", "admin", typ)
		v.check("POST", "/api/schedule/types", res)
		if res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		res = ts.do("GET", "/api/schedule/types", "", nil)
		v.check("GET", "/api/schedule/types", res)
		if !strings.Contains(string(res.Body), `"kind":"in_person","value":"1 Main St, Springfield"`) ||
			!strings.Contains(string(res.Body), `"limits":{"day":3,"week":5,"month":10}`) ||
			!strings.Contains(string(res.Body), `\u003cstrong\u003edocuments`) || !strings.Contains(string(res.Body), `"minNoticeMinutes":60`) {
			t.Errorf("types: %s", res.Body)
		}

		body := bookBody("2026-03-04T15:00:00Z")
		delete(body, "durationMinutes")
		body["type"] = "consult"
		body["location"] = map[string]any{"kind": "jitsi"}
		body["answers"] = map[string]any{"notes": "Lease"}
		res = ts.do("POST", "/api/schedule/book", "", body)
		v.check("POST", "/api/schedule/book", res)
		if res.Status != 422 || errorFields(t, res)[0] != "answers.topic" {
			t.Errorf("missing answer: %d %s", res.Status, res.Body)
		}
		body["answers"] = map[string]any{"topic": "Law", "notes": "Lease"}
		body["location"] = map[string]any{"kind": "google_meet"}
		res = ts.do("POST", "/api/schedule/book", "", body)
		if res.Status != 422 || errorFields(t, res)[0] != "location" {
			t.Errorf("place not offered: %d %s", res.Status, res.Body)
		}
		body["location"] = map[string]any{"kind": "jitsi"}
		res = ts.do("POST", "/api/schedule/book", "", body)
		v.check("POST", "/api/schedule/book", res)
		if res.Status != 200 {
			t.Fatalf("book: %d %s", res.Status, res.Body)
		}
		var ans struct {
			ProviderMeetLink string
			ManageURL        string `json:"manageUrl"`
			Location         struct{ Kind, Label, JoinURL string }
		}
		json.Unmarshal(res.Body, &ans)
		if ans.Location.Kind != "jitsi" || !strings.HasPrefix(ans.Location.JoinURL, "https://jitsi.example.org/folio-") || ans.ProviderMeetLink != ans.Location.JoinURL {
			t.Fatalf("book answer: %s", res.Body)
		}
		token := ans.ManageURL[strings.LastIndexByte(ans.ManageURL, '/')+1:]
		res = ts.do("GET", "/api/schedule/bookings/"+token, "", nil)
		v.check("GET", "/api/schedule/bookings/{token}", res)
		if !strings.Contains(string(res.Body), `"joinUrl":"`+ans.Location.JoinURL+`"`) {
			t.Errorf("manage view: %s", res.Body)
		}
		res = ts.do("POST", "/api/schedule/bookings/"+token+"/reschedule", "", map[string]any{"startTime": "2026-03-05T15:00:00Z", "timezone": "Europe/London"})
		v.check("POST", "/api/schedule/bookings/{token}/reschedule", res)
		if res.Status != 200 || !strings.Contains(string(res.Body), `"joinUrl":"`+ans.Location.JoinURL+`"`) {
			t.Errorf("reschedule keeps the link: %d %s", res.Status, res.Body)
		}
		res = ts.do("GET", "/api/schedule/bookings", "admin", nil)
		v.check("GET", "/api/schedule/bookings", res)
		if !strings.Contains(string(res.Body), `"answers":[{"id":"topic","label":"Topic","kind":"choice","value":"Law"}`) {
			t.Errorf("admin list lacks the answers: %s", res.Body)
		}
		// Phone: the visitor's number is asked and checked.
		body = bookBody("2026-03-06T15:00:00Z")
		delete(body, "durationMinutes")
		body["type"], body["answers"] = "consult", map[string]any{"topic": "Tax"}
		body["location"] = map[string]any{"kind": "phone", "value": "nope"}
		if res := ts.do("POST", "/api/schedule/book", "", body); res.Status != 422 || errorFields(t, res)[0] != "location" {
			t.Errorf("bad phone: %d %s", res.Status, res.Body)
		}
		body["location"] = map[string]any{"kind": "phone", "value": "+44 20 7946 0958"}
		if res := ts.do("POST", "/api/schedule/book", "", body); res.Status != 200 || !strings.Contains(string(res.Body), `"kind":"phone","label":"Phone call: the host calls you at +44 20 7946 0958"`) {
			t.Errorf("phone: %d %s", res.Status, res.Body)
		}
	})
}
