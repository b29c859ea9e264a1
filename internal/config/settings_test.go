package config

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
)

// Ensure the environment's settings are valid settings, and a variable set in the environment
// (not one left at its default) locks its field.
func TestSettingsFromTheEnvironment(t *testing.T) {
	c, err := Load(func(string) string { return "" }, "")
	if err != nil {
		t.Fatal(err)
	}
	s, locked := c.Settings()
	if err := s.Validate(); err != nil {
		t.Fatalf("the defaults are not valid settings: %v", err)
	}
	if len(locked) != 0 {
		t.Errorf("nothing set, yet locked: %v", locked)
	}
	if s.Booking.Timezone != "America/New_York" || s.Booking.MinNoticeMinutes != 1440 || !slices.Equal(s.Booking.Reminders, []string{"24h", "1h"}) ||
		len(s.Booking.Hours.Mon) != 1 || s.Booking.Hours.Mon[0].Start != "09:00" || s.Booking.Hours.Fri[0].End != "18:00" || len(s.Booking.Hours.Sat) != 0 ||
		s.Mail.FromAddress != "folio@localhost" || s.Contact.Recipient != "" || s.Analytics.Storage != "local" {
		t.Errorf("defaults: %+v", s)
	}
	env := map[string]string{"BOOKING_BUSINESS_DAYS": "1,2", "SMTP_FROM": "Ada <ada@example.com>", "SMTP_PASSWORD": "pw", "BOOKING_BUSINESS_HOURS_END": "17",
		"CONTACT_RECIPIENT": "Owner <owner@example.com>"}
	c, err = Load(func(k string) string { return env[k] }, "")
	if err != nil {
		t.Fatal(err)
	}
	s, locked = c.Settings()
	want := map[string]string{"booking.hours": "BOOKING_BUSINESS_HOURS_END", "mail.fromName": "SMTP_FROM", "mail.fromAddress": "SMTP_FROM",
		"mail.smtp.password": "SMTP_PASSWORD", "contact.recipient": "CONTACT_RECIPIENT"}
	if err := s.Validate(); err != nil {
		t.Errorf("the environment's settings are not valid settings: %v", err)
	}
	if !maps.Equal(locked, want) || s.Contact.Recipient != "owner@example.com" || s.Mail.FromName != "Ada" || s.Mail.SMTP.Password != "pw" || len(s.Booking.Hours.Wed) != 0 || s.Booking.Hours.Tue[0].End != "17:00" {
		t.Errorf("locked %v, settings %+v", locked, s)
	}
}

// Ensure every field the environment locks is a settings field, every variable exists, and
// docs/operations.md lists each pair.
func TestSettingsVariablesAreDocumented(t *testing.T) {
	c, _ := Load(func(string) string { return "" }, "")
	s, _ := c.Settings()
	b, _ := json.Marshal(s)
	var tree map[string]any
	json.Unmarshal(b, &tree)
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, sv := range settingsVariables {
		var node any = tree
		for _, part := range strings.Split(sv.field, ".") {
			m, _ := node.(map[string]any)
			node = m[part]
		}
		if node == nil {
			t.Errorf("%s is not a settings field", sv.field)
		}
		for _, name := range sv.vars {
			if !slices.Contains(Names(), name) {
				t.Errorf("%s: no variable %s", sv.field, name)
			}
			if !strings.Contains(string(doc), "| `"+sv.field+"` |") || !strings.Contains(string(doc), "`"+name+"`") {
				t.Errorf("docs/operations.md does not list %s locked by %s", sv.field, name)
			}
		}
	}
}
