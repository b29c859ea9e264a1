package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/foliotest/smtptest"
)

// call sends one request with the admin key and returns the status and body.
func call(t *testing.T, method, url, key string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// slotCount is how many slots GET /api/schedule/available offers on date in New York.
func slotCount(t *testing.T, base, date string) int {
	t.Helper()
	status, body := call(t, "GET", base+"/api/schedule/available?timezone=America/New_York&date="+date, "", nil)
	var v struct{ Slots []folio.Slot }
	if err := json.Unmarshal(body, &v); status != 200 || err != nil {
		t.Fatalf("available %s: %d %s", date, status, body)
	}
	return len(v.Slots)
}

// nextSaturday is a Saturday 3 to 9 days ahead in New York: outside the default business days,
// past the default notice, within the default horizon.
func nextSaturday() string {
	ny, _ := time.LoadLocation("America/New_York")
	d := time.Now().In(ny).AddDate(0, 0, 3)
	for d.Weekday() != time.Saturday {
		d = d.AddDate(0, 0, 1)
	}
	return d.Format(time.DateOnly)
}

var saturdayHours = map[string]any{"booking": map[string]any{"hours": map[string]any{"sat": []map[string]string{{"start": "10:00", "end": "12:00"}}}}}

// Ensure a change through PUT /api/settings takes effect at once, without a restart: the slots
// offered, the booking page's framing and configuration, the mail server and sender; and a field
// an environment variable sets is locked.
func TestSettingsTakeEffectWithoutRestart(t *testing.T) {
	srv := smtptest.Start(t)
	vars := map[string]string{"FOLIO_DATA_DIR": t.TempDir(), "FOLIO_ADDR": "127.0.0.1:0", "BOOKING_BUFFER_MINUTES": "5"}
	env, _, _ := envWith(t, vars)
	key := mustAPIKey(t, env, "admin")
	base := startServe(t, vars)

	status, body := call(t, "GET", base+"/api/settings", key, nil)
	var got folio.SettingsView
	if err := json.Unmarshal(body, &got); status != 200 || err != nil || got.Locked["booking.bufferMinutes"] != "BOOKING_BUFFER_MINUTES" ||
		got.Booking.BufferMinutes != 5 || got.Booking.Timezone != "America/New_York" {
		t.Fatalf("GET /api/settings: %d %s", status, body)
	}
	if status, body := call(t, "PUT", base+"/api/settings", key, map[string]any{"booking": map[string]any{"bufferMinutes": 0}}); status != 422 ||
		!strings.Contains(string(body), `"field":"booking.bufferMinutes"`) || !strings.Contains(string(body), "BOOKING_BUFFER_MINUTES") {
		t.Errorf("PUT of a locked field: %d %s", status, body)
	}

	sat := nextSaturday()
	if n := slotCount(t, base, sat); n != 0 {
		t.Fatalf("%d slots on Saturday %s before the change", n, sat)
	}
	if status, body := call(t, "PUT", base+"/api/settings", key, saturdayHours); status != 200 {
		t.Fatalf("PUT hours: %d %s", status, body)
	}
	if n := slotCount(t, base, sat); n != 4 {
		t.Errorf("%d slots on Saturday %s after opening 10:00–12:00, want 4", n, sat)
	}

	// The Jitsi server: checked, then used by the next booking of a jitsi place.
	if got.Booking.JitsiURL != "https://meet.jit.si" {
		t.Errorf("default jitsiUrl %q", got.Booking.JitsiURL)
	}
	if status, body := call(t, "PUT", base+"/api/settings", key, map[string]any{"booking": map[string]any{"jitsiUrl": "https://jitsi.example.org/?room=x"}}); status != 422 ||
		!strings.Contains(string(body), `"field":"booking.jitsiUrl"`) {
		t.Errorf("PUT of a Jitsi URL with a query: %d %s", status, body)
	}
	if status, body := call(t, "PUT", base+"/api/settings", key, map[string]any{"booking": map[string]any{"jitsiUrl": "https://jitsi.example.org/"}}); status != 200 ||
		!strings.Contains(string(body), `"jitsiUrl":"https://jitsi.example.org"`) {
		t.Fatalf("PUT jitsiUrl: %d %s", status, body)
	}
	if status, body := call(t, "POST", base+"/api/schedule/types", key, map[string]any{"slug": "talk", "title": "Talk", "durationMinutes": 30,
		"locations": []map[string]any{{"kind": "jitsi"}}}); status != 201 {
		t.Fatalf("POST type: %d %s", status, body)
	}
	ny, _ := time.LoadLocation("America/New_York")
	day, _ := time.ParseInLocation(time.DateOnly, sat, ny)
	status, body = call(t, "POST", base+"/api/schedule/book", "", map[string]any{"type": "talk", "location": map[string]any{"kind": "jitsi"},
		"startISO": day.Add(10 * time.Hour).Format(time.RFC3339), "durationMinutes": 30, "timeZone": "America/New_York",
		"attendeeEmail": "vera@example.org", "attendeeName": "Vera Visitor"})
	var booked struct{ Location folio.BookingLocation }
	if err := json.Unmarshal(body, &booked); status != 200 || err != nil || !strings.HasPrefix(booked.Location.JoinURL, "https://jitsi.example.org/folio-") {
		t.Errorf("book a jitsi place after the change: %d %s", status, body)
	}

	csp := func() string {
		res, err := http.Get(base + "/book")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.Header.Get("Content-Security-Policy")
	}
	if c := csp(); !strings.Contains(c, "frame-ancestors 'none'") {
		t.Fatalf("/book CSP before: %s", c)
	}
	if status, body := call(t, "PUT", base+"/api/settings", key, map[string]any{"booking": map[string]any{
		"embedOrigins": []string{"https://blog.example"}, "horizonDays": 14}}); status != 200 {
		t.Fatalf("PUT embed origins: %d %s", status, body)
	}
	if c := csp(); !strings.Contains(c, "frame-ancestors https://blog.example") {
		t.Errorf("/book CSP after: %s", c)
	}
	if _, body := call(t, "GET", base+"/book/config.json", "", nil); !strings.Contains(string(body), `"advanceDays":14`) {
		t.Errorf("/book/config.json after: %s", body)
	}

	// The mail settings rebuild the mailer; the test mail goes to the owner's account.
	if status, body := call(t, "PUT", base+"/api/settings", key, map[string]any{"mail": map[string]any{
		"fromName": "Olivia's Studio", "fromAddress": "studio@example.org",
		"smtp": map[string]any{"host": srv.Host, "port": srv.Port, "tls": "none"}}}); status != 200 {
		t.Fatalf("PUT mail: %d %s", status, body)
	}
	if status, body := call(t, "POST", base+"/api/settings/mail/test", key, nil); status != 200 {
		t.Fatalf("mail test: %d %s", status, body)
	}
	msgs := srv.Messages()
	if len(msgs) != 1 || msgs[0].To[0] != "cli-owner@example.com" || msgs[0].From != "studio@example.org" ||
		!strings.Contains(msgs[0].Parsed(t).Header.Get("From"), "Olivia's Studio") {
		t.Errorf("test mail: %+v", msgs)
	}
}

// Ensure a PUT on one instance changes what another instance offers without a restart: two
// servers on one PostgreSQL database (the other reloads on the change notice), and two servers
// on one SQLite file (the other notices the commit).
func TestSettingsAcrossInstances(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			vars := map[string]string{"FOLIO_ADDR": "127.0.0.1:0", "NEXTAUTH_SECRET": "one secret for every instance, 32 bytes+"}
			if engine == "postgres" {
				vars["DATABASE_URL"] = foliotest.PostgresSchema(t)
			} else {
				vars["FOLIO_DATA_DIR"] = t.TempDir()
			}
			env, _, _ := envWith(t, maps.Clone(vars))
			key := mustAPIKey(t, env, "admin")
			a, b := startServe(t, maps.Clone(vars)), startServe(t, maps.Clone(vars))
			sat := nextSaturday()
			if slotCount(t, a, sat) != 0 || slotCount(t, b, sat) != 0 {
				t.Fatal("Saturday has slots before the change")
			}
			if status, body := call(t, "PUT", a+"/api/settings", key, saturdayHours); status != 200 {
				t.Fatalf("PUT on a: %d %s", status, body)
			}
			// The notice arrives asynchronously; poll until it has (the deadline only stops a
			// broken build from hanging, it measures nothing).
			deadline := time.Now().Add(60 * time.Second)
			for slotCount(t, b, sat) != 4 {
				if time.Now().After(deadline) {
					t.Fatal("the other instance still offers the old hours")
				}
				time.Sleep(10 * time.Millisecond)
			}
			if status, body := call(t, "GET", b+"/api/settings", key, nil); status != 200 || !strings.Contains(string(body), `"sat":[{"start":"10:00","end":"12:00"}]`) {
				t.Errorf("GET on b: %d %s", status, body)
			}
		})
	}
}

// Ensure booking mails speak for the owner: the visitor's confirmation says "Meeting with <the
// owner account's name>", comes from the configured sender, and the owner's notice goes to the
// owner account's email when no recipient is set (it went to owner@localhost, named so).
func TestBookingMailsSpeakForTheOwner(t *testing.T) {
	ctx := context.Background()
	srv := smtptest.Start(t)
	env := map[string]string{"FOLIO_DATA_DIR": t.TempDir(), "SMTP_HOST": srv.Host, "SMTP_PORT": strconv.Itoa(srv.Port), "SMTP_TLS": "none",
		"SMTP_FROM": "Olivia's Studio <studio@example.org>"}
	cfg, err := config.Load(func(k string) string { return env[k] }, "")
	if err != nil {
		t.Fatal(err)
	}
	db, log := foliotest.MustOpenSQLite(t), slog.New(slog.DiscardHandler)
	if _, err := db.Identity.CreateUser(ctx, &folio.UserInput{Email: "olivia@example.org", Name: "Olivia Owner", Role: folio.RoleOwner}, "h"); err != nil {
		t.Fatal(err)
	}
	st, err := newSettings(ctx, cfg, db, "the instance secret of this test, long enough", log)
	if err != nil {
		t.Fatal(err)
	}
	m, err := newMail(cfg, db, st, log)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := newBookings(ctx, bookingDeps{Config: cfg, DB: db, Mail: m, Settings: st, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	ny, _ := time.LoadLocation("America/New_York")
	day := time.Now().In(ny).AddDate(0, 0, 3)
	for day.Weekday() == time.Saturday || day.Weekday() == time.Sunday {
		day = day.AddDate(0, 0, 1)
	}
	slots, err := svc.Available(ctx, day.Format(time.DateOnly), 30, "America/New_York")
	if err != nil || len(slots) == 0 {
		t.Fatalf("no slot on %s: %v", day, err)
	}
	if _, err := svc.Book(ctx, folio.BookingRequest{StartISO: slots[0].Start.Format(time.RFC3339), DurationMinutes: 30, TimeZone: "Europe/Berlin",
		AttendeeEmail: "vera@example.com", AttendeeName: "Vera Visitor"}, ""); err != nil {
		t.Fatal(err)
	}
	if sent, err := m.Outbox.RunOnce(ctx); sent != 2 || err != nil {
		t.Fatalf("outbox sent %d, %v; want the visitor's and the owner's mail", sent, err)
	}
	byTo := map[string]smtptest.Message{}
	for _, msg := range srv.Messages() {
		byTo[msg.To[0]] = msg
	}
	visitor, owner := byTo["vera@example.com"], byTo["olivia@example.org"]
	if visitor.Data == nil || owner.Data == nil {
		t.Fatalf("recipients: %v; want the visitor and the owner account's email", keysOf(byTo))
	}
	vh := visitor.Parsed(t).Header
	if got := vh.Get("Subject"); !strings.HasPrefix(got, "Confirmed: Meeting with Olivia Owner,") {
		t.Errorf("visitor's subject %q", got)
	}
	for _, msg := range []smtptest.Message{visitor, owner} {
		if from := msg.Parsed(t).Header.Get("From"); !strings.Contains(from, "studio@example.org") || !strings.Contains(from, "Studio") {
			t.Errorf("From %q, want the configured sender", from)
		}
	}
	if ics := calendarPart(t, visitor); !strings.Contains(ics, "ORGANIZER;CN=Olivia Owner:mailto:olivia@example.org") {
		t.Errorf("the invite's organizer is not the owner:\n%s", ics)
	}
	for _, msg := range []smtptest.Message{visitor, owner} {
		if bytes.Contains(msg.Data, []byte("owner@localhost")) || strings.Contains(calendarPart(t, msg), "owner@localhost") {
			t.Error("a mail still names owner@localhost")
		}
	}

	// A recipient set in the settings takes the owner's notices from then on.
	if _, err := st.Update(ctx, &folio.SettingsUpdate{Contact: &folio.ContactUpdate{Recipient: ptrTo("bookings@example.org")},
		Site: &folio.SiteUpdate{OwnerName: ptrTo("Dr. Olivia Owner")}}); err != nil {
		t.Fatal(err)
	}
	if p := svc.Settings(); p.Config.Location.String() != "America/New_York" {
		t.Fatalf("booking settings lost: %+v", p)
	}
	if o := st.Owner(ctx); o != (folio.Participant{Name: "Dr. Olivia Owner", Email: "bookings@example.org"}) {
		t.Errorf("owner after the change: %+v", o)
	}
}

// calendarPart returns the decoded text/calendar attachment of a delivered message.
func calendarPart(t *testing.T, m smtptest.Message) string {
	t.Helper()
	msg := m.Parsed(t)
	var walk func(ct string, body io.Reader) string
	walk = func(ct string, body io.Reader) string {
		mt, params, _ := mime.ParseMediaType(ct)
		if !strings.HasPrefix(mt, "multipart/") {
			return ""
		}
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err != nil {
				return ""
			}
			pt := p.Header.Get("Content-Type")
			if strings.HasPrefix(pt, "text/calendar") {
				b, _ := io.ReadAll(base64.NewDecoder(base64.StdEncoding, p))
				return string(b)
			}
			if s := walk(pt, p); s != "" {
				return s
			}
		}
	}
	return walk(msg.Header.Get("Content-Type"), msg.Body)
}

func keysOf(m map[string]smtptest.Message) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }
