package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseDotenv(t *testing.T) {
	got, err := ParseDotenv(strings.NewReader(`
# comment
FOLIO_ADDR=:9090
export SMTP_HOST = mail.example.org
SMTP_FROM="Folio <folio@example.org>"
IMAGE_MODEL='gpt-image-1' 
PROVIDER_SERVICE_ACCOUNT_PRIVATE_KEY="-----BEGIN-----\nabc\n-----END-----"
LOG_LEVEL=debug # trailing comment
EMPTY=
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"FOLIO_ADDR": ":9090", "SMTP_HOST": "mail.example.org", "SMTP_FROM": "Folio <folio@example.org>",
		"IMAGE_MODEL": "gpt-image-1", "PROVIDER_SERVICE_ACCOUNT_PRIVATE_KEY": "-----BEGIN-----\nabc\n-----END-----",
		"LOG_LEVEL": "debug", "EMPTY": ""}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for _, bad := range []string{"NOVALUE", "=x", `A="unterminated`, "BAD KEY=1"} {
		if _, err := ParseDotenv(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestLoadPrecedenceAndDefaults(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".env")
	os.WriteFile(p, []byte("FOLIO_ADDR=:7000\nSMTP_PORT=2525\n"), 0o600)
	env := map[string]string{"SMTP_PORT": "465"}
	c, err := Load(func(k string) string { return env[k] }, p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != ":7000" || c.SMTPPort != 465 || c.RateLimitPublic != 100 || c.BookingTimezone.String() != "America/New_York" {
		t.Errorf("got addr %q port %d limit %d tz %v", c.Addr, c.SMTPPort, c.RateLimitPublic, c.BookingTimezone)
	}
	if _, err := Load(func(k string) string {
		return map[string]string{"BOOKING_BUSINESS_HOURS_START": "18", "BOOKING_BUSINESS_HOURS_END": "9"}[k]
	}, ""); err == nil ||
		!strings.Contains(err.Error(), "BOOKING_BUSINESS_HOURS_END") {
		t.Errorf("inverted business hours: %v", err)
	}
}

func FuzzParseDotenv(f *testing.F) {
	f.Add("A=1\nB=\"x\\ny\"\n# c\nexport C='z'")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseDotenv(strings.NewReader(s))
		if err != nil {
			return
		}
		for k := range m {
			if k == "" || strings.ContainsAny(k, " \t\"'") {
				t.Fatalf("accepted bad key %q", k)
			}
		}
	})
}
