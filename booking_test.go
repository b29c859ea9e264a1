package folio

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	_ "time/tzdata"
)

func TestSlotMarshalJSONUsesTheVisitorsOffset(t *testing.T) {
	t.Parallel()
	kolkata, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 3, 10, 13, 0, 0, 0, time.UTC).In(kolkata)
	b, err := json.Marshal(Slot{Start: start, End: start.Add(time.Hour), Duration: 60})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"start":"2026-03-10T18:30:00+05:30","end":"2026-03-10T19:30:00+05:30","duration":60}`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

func validBooking() BookingRequest {
	return BookingRequest{
		StartISO: "2026-03-10T09:00:00-04:00", DurationMinutes: 30, TimeZone: "America/New_York",
		AttendeeEmail: "ada@example.com", AttendeeName: "Ada Lovelace", Summary: "Intro", Description: "Hello",
	}
}

func TestBookingRequestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		edit       func(*BookingRequest)
		wantStatus int // 0: valid
		wantField  string
	}{
		{"valid", func(r *BookingRequest) {}, 0, ""},
		{"summary and description optional", func(r *BookingRequest) { r.Summary, r.Description = "", "" }, 0, ""},
		{"UTC start", func(r *BookingRequest) { r.StartISO = "2026-03-10T13:00:00Z" }, 0, ""},
		{"missing start", func(r *BookingRequest) { r.StartISO = " " }, 400, "startISO"},
		{"start without offset", func(r *BookingRequest) { r.StartISO = "2026-03-10T09:00:00" }, 400, "startISO"},
		{"start is a date", func(r *BookingRequest) { r.StartISO = "2026-03-10" }, 400, "startISO"},
		{"missing duration", func(r *BookingRequest) { r.DurationMinutes = 0 }, 400, "durationMinutes"},
		{"missing zone", func(r *BookingRequest) { r.TimeZone = "" }, 400, "timeZone"},
		{"unknown zone", func(r *BookingRequest) { r.TimeZone = "Mars/Olympus" }, 400, "timeZone"},
		{"Local is not a zone", func(r *BookingRequest) { r.TimeZone = "Local" }, 400, "timeZone"},
		{"path in zone", func(r *BookingRequest) { r.TimeZone = "../../etc/passwd" }, 400, "timeZone"},
		{"missing email", func(r *BookingRequest) { r.AttendeeEmail = "" }, 400, "attendeeEmail"},
		{"missing name", func(r *BookingRequest) { r.AttendeeName = "  " }, 400, "attendeeName"},
		{"negative duration", func(r *BookingRequest) { r.DurationMinutes = -30 }, 422, "durationMinutes"},
		{"bad email", func(r *BookingRequest) { r.AttendeeEmail = "ada" }, 422, "attendeeEmail"},
		{"email with display name", func(r *BookingRequest) { r.AttendeeEmail = "Ada <ada@example.com>" }, 422, "attendeeEmail"},
		{"name with newline", func(r *BookingRequest) { r.AttendeeName = "Ada\r\nBcc: x@example.com" }, 422, "attendeeName"},
		{"long summary", func(r *BookingRequest) { r.Summary = strings.Repeat("é", MaxSummaryLen+1) }, 422, "summary"},
		{"long description", func(r *BookingRequest) { r.Description = strings.Repeat("x", MaxDescriptionLen+1) }, 422, "description"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := validBooking()
			tt.edit(&r)
			err := r.Validate()
			if tt.wantStatus == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != EINVALID || statusOf(e) != tt.wantStatus {
				t.Fatalf("Validate() = %#v, want %s %d", err, EINVALID, tt.wantStatus)
			}
			if len(e.Details) == 0 || e.Details[0].Field != tt.wantField {
				t.Errorf("details = %+v, want field %s", e.Details, tt.wantField)
			}
		})
	}
}

func TestBookingRequestStartAndSummary(t *testing.T) {
	t.Parallel()
	r := validBooking()
	start, loc, err := r.Start()
	if err != nil {
		t.Fatal(err)
	}
	if loc.String() != "America/New_York" || !start.Equal(time.Date(2026, 3, 10, 13, 0, 0, 0, time.UTC)) {
		t.Errorf("Start() = %v %v", start, loc)
	}
	if got := r.EventSummary(); got != "Intro" {
		t.Errorf("EventSummary() = %q", got)
	}
	r.Summary = ""
	if got := r.EventSummary(); got != "Meeting with Ada Lovelace" {
		t.Errorf("EventSummary() = %q", got)
	}
}

func TestConflictRequestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in         ConflictRequest
		wantStatus int
	}{
		{ConflictRequest{StartISO: "2026-03-10T09:00:00-04:00", DurationMinutes: 60}, 0},
		{ConflictRequest{StartISO: "2026-03-10T09:00:00-04:00", DurationMinutes: 60, TimeZone: "Asia/Kathmandu"}, 0},
		{ConflictRequest{DurationMinutes: 60}, 400},
		{ConflictRequest{StartISO: "tomorrow", DurationMinutes: 60}, 400},
		{ConflictRequest{StartISO: "2026-03-10T09:00:00-04:00"}, 400},
		{ConflictRequest{StartISO: "2026-03-10T09:00:00-04:00", DurationMinutes: 60, TimeZone: "Nowhere"}, 400},
		{ConflictRequest{StartISO: "2026-03-10T09:00:00-04:00", DurationMinutes: 100000}, 422},
	}
	for _, tt := range tests {
		err := tt.in.Validate()
		var e *Error
		switch {
		case tt.wantStatus == 0 && err != nil:
			t.Errorf("%+v: Validate() = %v", tt.in, err)
		case tt.wantStatus != 0 && (!errors.As(err, &e) || statusOf(e) != tt.wantStatus):
			t.Errorf("%+v: Validate() = %v, want status %d", tt.in, err, tt.wantStatus)
		}
	}
	iv, err := ConflictRequest{StartISO: "2026-03-10T09:00:00-04:00", DurationMinutes: 60}.Interval()
	if err != nil || iv.End.Sub(iv.Start) != time.Hour {
		t.Errorf("Interval() = %v, %v", iv, err)
	}
}

func TestIntervalOverlaps(t *testing.T) {
	t.Parallel()
	at := func(h int) time.Time { return time.Date(2026, 1, 1, h, 0, 0, 0, time.UTC) }
	tests := []struct {
		a, b Interval
		want bool
	}{
		{Interval{at(9), at(10)}, Interval{at(10), at(11)}, false},
		{Interval{at(10), at(11)}, Interval{at(9), at(10)}, false},
		{Interval{at(9), at(11)}, Interval{at(10), at(12)}, true},
		{Interval{at(9), at(12)}, Interval{at(10), at(11)}, true},
	}
	for _, tt := range tests {
		if got := tt.a.Overlaps(tt.b); got != tt.want {
			t.Errorf("%v.Overlaps(%v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestBookingConfigValidate(t *testing.T) {
	t.Parallel()
	ok := BookingConfig{DurationOptions: []int{30, 60}, Weekly: BusinessHours(9, 18, 1, 2, 3, 4, 5),
		Location: time.UTC, AdvanceDays: 60, MinNotice: 24 * time.Hour}
	if err := ok.Validate(); err != nil {
		t.Fatalf("Validate() = %v", err)
	}
	if ok.Step() != 30*time.Minute || ok.DefaultDuration() != 30 || !ok.AllowsDuration(60) || ok.AllowsDuration(45) {
		t.Errorf("defaults wrong: step %v default %d", ok.Step(), ok.DefaultDuration())
	}
	bad := []func(*BookingConfig){
		func(c *BookingConfig) { c.Location = nil },
		func(c *BookingConfig) { c.DurationOptions = nil },
		func(c *BookingConfig) { c.DurationOptions = []int{0} },
		func(c *BookingConfig) { c.Weekly = BusinessHours(18, 18, 1) },
		func(c *BookingConfig) { c.Weekly = BusinessHours(9, 25, 1) },
		func(c *BookingConfig) { c.Weekly = BusinessHours(-1, 9, 1) },
		func(c *BookingConfig) { c.Weekly[2].Ranges = [][2]int{{540, 720}, {700, 800}} },
		func(c *BookingConfig) { c.SlotStep = 90 * time.Second },
		func(c *BookingConfig) { c.Buffer = -time.Minute },
	}
	for i, edit := range bad {
		c := ok
		edit(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("case %d: Validate() = nil, want an error", i)
		}
	}
}

func FuzzBookingRequestValidate(f *testing.F) {
	f.Add("2026-03-10T09:00:00-04:00", 30, "America/New_York", "ada@example.com", "Ada")
	f.Add("2026-03-10T09:00:00Z", -1, "", "", "")
	f.Add("x", 0, "../etc", "a@b", "\n")
	f.Fuzz(func(t *testing.T, start string, dur int, zone, email, name string) {
		r := BookingRequest{StartISO: start, DurationMinutes: dur, TimeZone: zone, AttendeeEmail: email, AttendeeName: name}
		err := r.Validate()
		if err == nil {
			if _, _, err := r.Start(); err != nil {
				t.Fatalf("valid request but Start() = %v", err)
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) || e.Code != EINVALID || (statusOf(e) != 400 && statusOf(e) != 422) {
			t.Fatalf("Validate() = %#v", err)
		}
	})
}

// FuzzRescheduleInput: Validate and Start agree: a validated input always has a start and zone.
func FuzzRescheduleInput(f *testing.F) {
	f.Add("2026-03-04T10:00:00-05:00", "America/New_York")
	f.Add("2026-03-04T10:00:00", "Mars/Olympus")
	f.Fuzz(func(t *testing.T, start, zone string) {
		in := RescheduleInput{StartTime: start, TimeZone: zone}
		if in.Validate() != nil {
			return
		}
		if _, loc, err := in.Start(); err != nil || loc == nil {
			t.Fatalf("validated %q %q: Start fails: %v", start, zone, err)
		}
	})
}
