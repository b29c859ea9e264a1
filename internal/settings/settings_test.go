package settings_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/settings"
	"github.com/foliohq/folio/internal/sqldb"
)

const secret = "an instance secret of thirty-two bytes or more"

func defaults() folio.Settings {
	return folio.Settings{
		Site: folio.SiteSettings{URL: "http://localhost:8080"},
		Booking: folio.BookingSettings{Timezone: "America/New_York", Hours: folio.WeeklyHoursOf(folio.BusinessHours(9, 18, 1, 2, 3, 4, 5)),
			MinNoticeMinutes: 1440, HorizonDays: 60, Reminders: []string{"24h", "1h"}, EmbedOrigins: []string{}},
		Mail:      folio.MailSettings{FromAddress: "folio@localhost", SMTP: folio.SMTPSettings{Port: 587, TLS: "opportunistic"}},
		Analytics: folio.AnalyticsSettings{Storage: "local"},
	}
}

func open(t *testing.T, db *sqldb.DB, locked map[string]string, secret string) *settings.Service {
	t.Helper()
	s, err := settings.New(context.Background(), db.Settings, settings.Options{Defaults: defaults(), Locked: locked, Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func update(t *testing.T, s *settings.Service, body string) (folio.SettingsView, error) {
	t.Helper()
	var u folio.SettingsUpdate
	if err := json.Unmarshal([]byte(body), &u); err != nil {
		t.Fatal(err)
	}
	return s.Update(context.Background(), &u)
}

func details(err error) []folio.FieldError {
	var fe *folio.Error
	if errors.As(err, &fe) && fe.RuleBroken {
		return fe.Details
	}
	return nil
}

func TestUpdateMergesValidatesAndLocks(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	s := open(t, db, map[string]string{"booking.hours": "BOOKING_BUSINESS_DAYS", "mail.fromAddress": "SMTP_FROM"}, secret)
	if got := s.Current(); got.Booking.Timezone != "America/New_York" || got.Booking.HorizonDays != 60 {
		t.Fatalf("defaults not in force: %+v", got.Booking)
	}
	v, err := update(t, s, `{"booking":{"timezone":"Europe/Berlin","reminders":["1d"]},"site":{"ownerName":" Olivia "}}`)
	if err != nil {
		t.Fatal(err)
	}
	if v.Booking.Timezone != "Europe/Berlin" || !slices.Equal(v.Booking.Reminders, []string{"24h"}) || v.Site.OwnerName != "Olivia" ||
		v.Booking.HorizonDays != 60 || v.Locked["booking.hours"] != "BOOKING_BUSINESS_DAYS" {
		t.Errorf("after the update: %+v", v)
	}
	// A second update keeps the first one's fields.
	if v, err = update(t, s, `{"booking":{"horizonDays":30}}`); err != nil || v.Booking.Timezone != "Europe/Berlin" || v.Booking.HorizonDays != 30 {
		t.Errorf("second update: %+v, %v", v.Booking, err)
	}
	// Locked fields: 422 naming the variable, nothing stored.
	_, err = update(t, s, `{"booking":{"hours":{"sat":[{"start":"10","end":"12:00"}]},"bufferMinutes":5},"mail":{"fromAddress":"me@example.com"}}`)
	d := details(err)
	if len(d) != 2 || d[0].Field != "booking.hours.sat" || !strings.Contains(d[0].Message, "BOOKING_BUSINESS_DAYS") ||
		d[1].Field != "mail.fromAddress" || !strings.Contains(d[1].Message, "SMTP_FROM") {
		t.Errorf("locked fields: %v", err)
	}
	if s.Current().Booking.BufferMinutes != 0 {
		t.Error("a refused update stored its other fields")
	}
	// Invalid fields: 422 naming the path.
	_, err = update(t, s, `{"booking":{"timezone":"Mars/Base","reminders":["24h","soon"]}}`)
	if d := details(err); len(d) != 2 || d[0].Field != "booking.timezone" || d[1].Field != "booking.reminders[1]" {
		t.Errorf("invalid fields: %v", err)
	}
	// A stored field of a variable set later is locked: the environment wins.
	locked := open(t, db, map[string]string{"booking.timezone": "BOOKING_TIMEZONE"}, secret)
	if got := locked.Current().Booking; got.Timezone != "America/New_York" || got.HorizonDays != 30 {
		t.Errorf("with BOOKING_TIMEZONE set: %+v", got)
	}
}

// Ensure the SMTP password is stored encrypted, never shown, kept by "set", and unreadable
// under another instance secret (where it falls back to its default rather than failing).
func TestSecretSettings(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	s := open(t, db, nil, secret)
	v, err := update(t, s, `{"mail":{"smtp":{"host":"smtp.example.com","username":"ada","password":"correct horse battery"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	if strings.Contains(string(b), "correct horse") || !strings.Contains(string(b), `"password":"set"`) {
		t.Errorf("view: %s", b)
	}
	if s.Current().Mail.SMTP.Password != "correct horse battery" {
		t.Errorf("password in force = %q", s.Current().Mail.SMTP.Password)
	}
	doc, _, err := db.Settings.SettingsDocument(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	raw := string(doc["mail.smtp.password"])
	if strings.Contains(raw, "correct") || !strings.HasPrefix(raw, `"v1:`) {
		t.Errorf("stored password %s is not sealed", raw)
	}
	// Sending "set" back (a dashboard saving the whole form) keeps it.
	if _, err := update(t, s, `{"mail":{"smtp":{"password":"set","port":2525}}}`); err != nil {
		t.Fatal(err)
	}
	if got := s.Current().Mail.SMTP; got.Password != "correct horse battery" || got.Port != 2525 {
		t.Errorf("after a PUT of \"set\": %+v", got)
	}
	// Another instance with the same secret reads it; one with another secret cannot.
	if got := open(t, db, nil, secret).Current().Mail.SMTP; got.Password != "correct horse battery" || got.Host != "smtp.example.com" {
		t.Errorf("same secret: %+v", got)
	}
	const rotated = "another secret, rotated since"
	if got := open(t, db, nil, rotated).Current().Mail.SMTP; got.Password != "" || got.Host != "smtp.example.com" {
		t.Errorf("rotated without the previous secret: %+v", got)
	}
	// Rotated with NEXTAUTH_SECRET_PREVIOUS: read, and sealed again under the new secret at start,
	// so the new secret alone reads it from then on.
	withPrevious, err := settings.New(context.Background(), db.Settings, settings.Options{Defaults: defaults(), Secret: rotated, PreviousSecret: secret})
	if err != nil || withPrevious.Current().Mail.SMTP.Password != "correct horse battery" {
		t.Fatalf("rotated with the previous secret: %v", err)
	}
	if got := open(t, db, nil, rotated).Current().Mail.SMTP; got.Password != "correct horse battery" {
		t.Errorf("after the rotation, the new secret alone: %+v", got)
	}
	if got := open(t, db, nil, secret).Current().Mail.SMTP; got.Password != "" {
		t.Errorf("after the rotation, the old secret still reads it: %+v", got)
	}
	s = open(t, db, nil, rotated)
	// "" clears it.
	if _, err := update(t, s, `{"mail":{"smtp":{"password":""}}}`); err != nil || s.Current().Mail.SMTP.Password != "" {
		t.Errorf("cleared: %q, %v", s.Current().Mail.SMTP.Password, err)
	}
}

// Ensure a change saved by one instance reaches another when it hears folio.ScopeSettings,
// subscribers see every version once and in order, and a stale notice changes nothing.
func TestReloadOnChangeNotice(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	a, b := open(t, db, nil, secret), open(t, db, nil, secret)
	if v, _ := json.Marshal(a.View()); !strings.Contains(string(v), `"locked":{}`) {
		t.Errorf("no lock must read {}: %s", v)
	}
	var seen []int
	b.Subscribe(func(st folio.Settings) { seen = append(seen, st.Booking.BufferMinutes) })
	for _, n := range []string{"5", "10"} {
		if _, err := update(t, a, `{"booking":{"bufferMinutes":`+n+`}}`); err != nil {
			t.Fatal(err)
		}
	}
	b.Changed(context.Background(), folio.ScopePosts) // not its scope
	if b.Current().Booking.BufferMinutes != 0 {
		t.Fatal("reloaded on another scope's notice")
	}
	b.Changed(context.Background(), folio.ScopeSettings)
	b.Changed(context.Background(), "*")
	if b.Current().Booking.BufferMinutes != 10 || !slices.Equal(seen, []int{0, 10}) {
		t.Errorf("b: buffer %d, subscriber saw %v; want 10 and [0 10]", b.Current().Booking.BufferMinutes, seen)
	}
	// b's own update is based on a's: both fields stay.
	if v, err := update(t, b, `{"booking":{"horizonDays":7}}`); err != nil || v.Booking.BufferMinutes != 10 || v.Booking.HorizonDays != 7 {
		t.Errorf("b's update: %+v, %v", v.Booking, err)
	}
}

func TestOwner(t *testing.T) {
	ctx := context.Background()
	db := foliotest.MustOpenSQLite(t)
	s := open(t, db, nil, secret)
	if got := s.Owner(ctx); got != (folio.Participant{Email: "folio@localhost"}) {
		t.Errorf("without an account: %+v", got)
	}
	if _, err := update(t, s, `{"site":{"name":"Ada's site"}}`); err != nil {
		t.Fatal(err)
	}
	if got := s.Owner(ctx); got != (folio.Participant{Name: "Ada's site", Email: "folio@localhost"}) {
		t.Errorf("with a site name: %+v", got)
	}
	for _, in := range []folio.UserInput{{Email: "ed@example.com", Name: "Ed Editor", Role: folio.RoleEditor},
		{Email: "ada@example.com", Name: "Ada Lovelace", Role: folio.RoleOwner}} {
		if _, err := db.Identity.CreateUser(ctx, &in, "h"); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Owner(ctx); got != (folio.Participant{Name: "Ada Lovelace", Email: "ada@example.com"}) {
		t.Errorf("with an owner account: %+v", got)
	}
	if _, err := update(t, s, `{"site":{"ownerName":"Ada L."},"contact":{"recipient":"inbox@example.com"}}`); err != nil {
		t.Fatal(err)
	}
	if got := s.Owner(ctx); got != (folio.Participant{Name: "Ada L.", Email: "inbox@example.com"}) {
		t.Errorf("with settings: %+v", got)
	}
}
