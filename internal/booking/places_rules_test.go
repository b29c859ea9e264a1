package booking_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/booking/bookingtest"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

func TestBookRefusesBadPlaceAndAnswers(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		svc := placeService(t, db, &bookingtest.Calendar{}, "fake")
		ctx := context.Background()
		hook := folio.Webhook{ID: "hook-places", URL: "https://r.example/b", Events: []string{folio.EventBookingCreated}, CreatedAt: testNow}
		if err := db.Webhooks.CreateWebhook(ctx, hook, "whsec_AAAA"); err != nil {
			t.Fatal(err)
		}
		_, err := svc.SaveType(ctx, "", folio.MeetingTypeInput{Slug: "call", Title: "Call", DurationMinutes: 30,
			Locations: []folio.MeetingLocation{{Kind: folio.PlacePhone}, {Kind: folio.PlaceJitsi}},
			Questions: []folio.Question{
				{ID: "topic", Label: "Topic", Kind: folio.QuestionChoice, Required: true, Options: []string{"Tax", "Law"}},
				{ID: "agree", Label: "I agree", Kind: folio.QuestionCheckbox, Required: true},
				{ID: "mobile", Label: "Mobile", Kind: folio.QuestionPhone},
				{ID: "company", Label: "Company", Kind: folio.QuestionText, Required: true}}})
		if err != nil {
			t.Fatal(err)
		}
		good := func() folio.BookingRequest {
			r := request("2026-03-04T10:00:00-05:00")
			r.DurationMinutes, r.Type = 0, "call"
			r.Location = &folio.LocationChoice{Kind: folio.PlacePhone, Value: "+1 (555) 010-0199"}
			r.Answers = map[string]json.RawMessage{"topic": json.RawMessage(`"Tax"`), "agree": json.RawMessage(`true`), "company": json.RawMessage(`"ACME"`)}
			return r
		}
		for _, c := range []struct {
			name, field string
			edit        func(r *folio.BookingRequest)
		}{
			{"no place among several", "location", func(r *folio.BookingRequest) { r.Location = nil }},
			{"place not offered", "location", func(r *folio.BookingRequest) { r.Location.Kind = folio.PlaceInPerson }},
			{"unknown kind", "location", func(r *folio.BookingRequest) { r.Location.Kind = "zoom" }},
			{"phone without number", "location", func(r *folio.BookingRequest) { r.Location.Value = "" }},
			{"phone not a number", "location", func(r *folio.BookingRequest) { r.Location.Value = "call me maybe" }},
			{"required choice missing", "answers.topic", func(r *folio.BookingRequest) { delete(r.Answers, "topic") }},
			{"choice not an option", "answers.topic", func(r *folio.BookingRequest) { r.Answers["topic"] = json.RawMessage(`"Art"`) }},
			{"required checkbox unchecked", "answers.agree", func(r *folio.BookingRequest) { r.Answers["agree"] = json.RawMessage(`false`) }},
			{"checkbox of the wrong type", "answers.agree", func(r *folio.BookingRequest) { r.Answers["agree"] = json.RawMessage(`"yes"`) }},
			{"bad phone answer", "answers.mobile", func(r *folio.BookingRequest) { r.Answers["mobile"] = json.RawMessage(`"12"`) }},
			{"blank required text", "answers.company", func(r *folio.BookingRequest) { r.Answers["company"] = json.RawMessage(`"  "`) }},
			{"text on two lines", "answers.company", func(r *folio.BookingRequest) { r.Answers["company"] = json.RawMessage(`"a\nb"`) }},
			{"unknown question", "answers.shoe", func(r *folio.BookingRequest) { r.Answers["shoe"] = json.RawMessage(`"42"`) }},
		} {
			r := good()
			c.edit(&r)
			_, err := svc.Book(ctx, r, "")
			if status(err) != 422 || !hasField(err, c.field) {
				t.Errorf("%s: %v, want 422 on %s", c.name, err, c.field)
			}
		}
		if n := countBookings(t, db); n != 0 {
			t.Fatalf("%d bookings after refusals", n)
		}
		resp, _ := book(t, svc, good())
		if resp.Location == nil || resp.Location.Kind != folio.PlacePhone || !strings.Contains(resp.Location.Label, "+1 (555) 010-0199") || resp.Location.JoinURL != "" {
			t.Errorf("phone location %+v", resp.Location)
		}
		// The owner's list shows the answers and the place; the webhook payload carries both.
		items, _, err := svc.List(ctx, "", "", "", 1, 10)
		if err != nil || len(items) != 1 || len(items[0].Answers) != 3 || items[0].Location == nil || items[0].Location.Kind != folio.PlacePhone {
			t.Fatalf("admin list %+v (%v)", items, err)
		}
		var payload string
		if err := db.R.QueryRow(`SELECT body FROM webhook_deliveries WHERE event_type = $1`, folio.EventBookingCreated).Scan(&payload); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(payload, `"answers"`) || !strings.Contains(payload, `"ACME"`) || !strings.Contains(payload, `"location":{"kind":"phone"`) {
			t.Errorf("webhook payload %s", payload)
		}
	})
}

func TestBookingEventCarriesPlaceAndAnswers(t *testing.T) {
	b := &folio.Booking{ID: "b", Status: folio.BookingConfirmed, MeetLink: "https://jitsi.example/folio-x",
		Place: &folio.Place{Kind: folio.PlaceJitsi}, Answers: []folio.BookingAnswer{{ID: "q", Label: "Q", Kind: "text", Value: "A"}}}
	data, err := json.Marshal(b.Event(folio.EventBookingCreated).Data)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Location folio.BookingLocation `json:"location"`
		Answers  []folio.BookingAnswer `json:"answers"`
	}
	if err := json.Unmarshal(data, &got); err != nil || got.Location.JoinURL != b.MeetLink || got.Location.Kind != "jitsi" || len(got.Answers) != 1 || got.Answers[0].Value != "A" {
		t.Fatalf("event data %s (%v)", data, err)
	}
}

func TestTypeLimitsAndNotice(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		svc := placeService(t, db, &bookingtest.Calendar{}, "fake")
		ctx := context.Background()
		// Two a week, and three days' notice (the owner's is one day).
		if _, err := svc.SaveType(ctx, "", folio.MeetingTypeInput{Slug: "rare", Title: "Rare", DurationMinutes: 30,
			Limits: folio.TypeLimits{Week: 2}, MinNoticeMinutes: 3 * 24 * 60}); err != nil {
			t.Fatal(err)
		}
		req := func(start string) folio.BookingRequest {
			r := request(start)
			r.DurationMinutes, r.Type = 0, "rare"
			return r
		}
		// testNow is Monday 2 March 12:00 UTC: Wednesday 4 March is within three days.
		if slots, err := svc.AvailableOfType(ctx, "2026-03-04", "rare", 0, "America/New_York"); err != nil || len(slots) != 0 {
			t.Errorf("slots inside the type's notice: %v (%v)", slots, err)
		}
		if _, err := svc.Book(ctx, req("2026-03-04T10:00:00-05:00"), ""); status(err) != 422 {
			t.Errorf("booking inside the type's notice: %v", err)
		}
		book(t, svc, req("2026-03-05T14:00:00-05:00")) // Thursday
		book(t, svc, req("2026-03-06T10:00:00-05:00")) // Friday: the week's second
		if slots, err := svc.AvailableOfType(ctx, "2026-03-06", "rare", 0, "America/New_York"); err != nil || len(slots) != 0 {
			t.Errorf("slots in a full week: %d (%v)", len(slots), err)
		}
		if _, err := svc.Book(ctx, req("2026-03-06T14:00:00-05:00"), ""); err == nil {
			t.Error("a third booking in the week was accepted")
		}
		// The month view agrees: no free times left that week, some the next.
		days, err := svc.AvailableDays(ctx, "2026-03-05", "2026-03-10", "rare", 0, "America/New_York")
		if err != nil || len(days) != 6 {
			t.Fatalf("days: %v %v", days, err)
		}
		for _, d := range days {
			if full := d.Date < "2026-03-09"; full != (d.Slots == 0) {
				t.Errorf("day %s: %d slots", d.Date, d.Slots)
			}
		}
		// The next week is open again.
		if slots, err := svc.AvailableOfType(ctx, "2026-03-09", "rare", 0, "America/New_York"); err != nil || len(slots) == 0 {
			t.Errorf("next week: %d slots (%v)", len(slots), err)
		}
		book(t, svc, req("2026-03-09T10:00:00-05:00"))
		types, err := svc.Types(ctx)
		if err != nil || len(types) != 1 || types[0].Limits.Week != 2 || types[0].MinNoticeMinutes != 4320 {
			t.Fatalf("types %+v (%v)", types, err)
		}
	})
}

func TestSaveTypeValidatesPlacesAndQuestions(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		svc := placeService(t, db, &bookingtest.Calendar{}, "fake")
		ctx := context.Background()
		base := func() folio.MeetingTypeInput {
			return folio.MeetingTypeInput{Slug: "x", Title: "X", DurationMinutes: 30}
		}
		for _, c := range []struct {
			name, field string
			edit        func(*folio.MeetingTypeInput)
		}{
			{"unknown kind", "locations[0].kind", func(in *folio.MeetingTypeInput) { in.Locations = []folio.MeetingLocation{{Kind: "zoom"}} }},
			{"link without URL", "locations[0].value", func(in *folio.MeetingTypeInput) {
				in.Locations = []folio.MeetingLocation{{Kind: "link", Value: "zoom"}}
			}},
			{"address missing", "locations[0].value", func(in *folio.MeetingTypeInput) { in.Locations = []folio.MeetingLocation{{Kind: "in_person"}} }},
			{"kind twice", "locations[1].kind", func(in *folio.MeetingTypeInput) {
				in.Locations = []folio.MeetingLocation{{Kind: "jitsi"}, {Kind: "jitsi"}}
			}},
			{"bad owner phone", "locations[0].value", func(in *folio.MeetingTypeInput) {
				in.Locations = []folio.MeetingLocation{{Kind: "phone", Value: "abc"}}
			}},
			{"bad question id", "questions[0].id", func(in *folio.MeetingTypeInput) {
				in.Questions = []folio.Question{{ID: "Bad Id", Label: "L", Kind: "text"}}
			}},
			{"choice without options", "questions[0].options", func(in *folio.MeetingTypeInput) {
				in.Questions = []folio.Question{{ID: "c", Label: "L", Kind: "choice"}}
			}},
			{"unknown question kind", "questions[0].kind", func(in *folio.MeetingTypeInput) {
				in.Questions = []folio.Question{{ID: "c", Label: "L", Kind: "date"}}
			}},
			{"duplicate id", "questions[1].id", func(in *folio.MeetingTypeInput) {
				in.Questions = []folio.Question{{ID: "c", Label: "L", Kind: "text"}, {ID: "c", Label: "M", Kind: "text"}}
			}},
			{"negative week", "limits.week", func(in *folio.MeetingTypeInput) { in.Limits.Week = -1 }},
			{"negative notice", "minNoticeMinutes", func(in *folio.MeetingTypeInput) { in.MinNoticeMinutes = -5 }},
		} {
			in := base()
			c.edit(&in)
			_, err := svc.SaveType(ctx, "", in)
			if status(err) != 422 || !hasField(err, c.field) {
				t.Errorf("%s: %v, want 422 on %s", c.name, err, c.field)
			}
		}
	})
}

func hasField(err error, field string) bool {
	fe, ok := err.(*folio.Error)
	if !ok {
		return false
	}
	for _, d := range fe.Details {
		if d.Field == field {
			return true
		}
	}
	return false
}

func TestDefaultTypeTakesTheProvidersPlace(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		svc := placeService(t, db, &bookingtest.Calendar{}, "fake")
		r := request("2026-03-04T10:00:00-05:00")
		r.Location = &folio.LocationChoice{Kind: folio.PlaceGoogleMeet}
		if _, err := svc.Book(context.Background(), r, ""); status(err) != 422 || !hasField(err, "location") {
			t.Fatalf("google_meet without the Google provider: %v", err)
		}
		r.Location.Kind = folio.PlaceJitsi
		resp, _ := book(t, svc, r)
		if resp.Location == nil || resp.Location.Kind != folio.PlaceJitsi || !strings.HasPrefix(resp.Location.JoinURL, "https://jitsi.example.org/folio-") {
			t.Fatalf("jitsi on a default type: %+v", resp.Location)
		}
		plain, _ := book(t, svc, request("2026-03-05T10:00:00-05:00"))
		if plain.Location == nil || plain.Location.Kind != folio.PlaceLink || plain.Location.JoinURL != plain.ProviderMeetLink {
			t.Fatalf("no place asked: %+v", plain.Location)
		}
	})
}

// TestWeekCapUnderConcurrentBookings: parallel bookings of different times in one week never
// exceed the type's week cap (the cap is checked again inside the reservation lock).
func TestWeekCapUnderConcurrentBookings(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		svc := placeService(t, db, &bookingtest.Calendar{}, "fake")
		ctx := context.Background()
		if _, err := svc.SaveType(ctx, "", folio.MeetingTypeInput{Slug: "busy", Title: "Busy", DurationMinutes: 30, Limits: folio.TypeLimits{Week: 2}}); err != nil {
			t.Fatal(err)
		}
		starts := []string{"2026-03-04T10:00:00-05:00", "2026-03-04T13:00:00-05:00", "2026-03-05T10:00:00-05:00",
			"2026-03-05T14:00:00-05:00", "2026-03-06T10:00:00-05:00", "2026-03-06T15:00:00-05:00"}
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok := 0
		for i, st := range starts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := request(st)
				r.DurationMinutes, r.Type, r.AttendeeEmail = 0, "busy", fmt.Sprintf("v%d@example.org", i)
				_, err := svc.Book(ctx, r, "")
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
				case errorCode(err) == folio.ECONFLICT || status(err) == 422:
				default:
					t.Errorf("book %s: %v", st, err)
				}
			}()
		}
		wg.Wait()
		if ok != 2 {
			t.Fatalf("%d bookings in a week capped at 2", ok)
		}
		var n int
		if err := db.R.QueryRow(`SELECT COUNT(*) FROM bookings WHERE status = 'confirmed' AND type_slug = 'busy'`).Scan(&n); err != nil || n != 2 {
			t.Fatalf("%d confirmed bookings (%v)", n, err)
		}
	})
}
