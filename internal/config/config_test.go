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

// Ensure production refuses the secrets folio keys with when they are shorter than 32 bytes,
// naming them but never quoting them, and that development takes them.
func TestProductionSecretLengths(t *testing.T) {
	long := strings.Repeat("k", 32)
	base := map[string]string{"FOLIO_ENV": "production", "NEXTAUTH_SECRET": long}
	load := func(extra map[string]string) (*Config, error) {
		env := map[string]string{}
		for k, v := range base {
			env[k] = v
		}
		for k, v := range extra {
			env[k] = v
		}
		return Load(func(k string) string { return env[k] }, "")
	}
	if _, err := load(nil); err != nil {
		t.Fatalf("32-byte NEXTAUTH_SECRET refused: %v", err)
	}
	for _, name := range []string{"NEXTAUTH_SECRET", "EXTBLOG_WEBHOOK_SECRET", "METRICS_TOKEN"} {
		short := "short-secret-value"
		_, err := load(map[string]string{name: short})
		if err == nil || !strings.Contains(err.Error(), name) || strings.Contains(err.Error(), short) {
			t.Errorf("%s of %d bytes in production: %v", name, len(short), err)
		}
		env := map[string]string{"FOLIO_ENV": "development", name: short}
		if _, err := Load(func(k string) string { return env[k] }, ""); err != nil {
			t.Errorf("%s short in development: %v", name, err)
		}
	}
	if _, err := load(map[string]string{"NEXTAUTH_SECRET": "x"}); err == nil {
		t.Error("NEXTAUTH_SECRET=x accepted in production")
	}
	// An http NEXTAUTH_URL starts in production, with a warning.
	c, err := load(map[string]string{"NEXTAUTH_URL": "http://site.example.com", "EXTBLOG_WEBHOOK_SECRET": long})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(c.Warnings(), "\n"); !strings.Contains(w, "NEXTAUTH_URL") {
		t.Errorf("no warning for an http NEXTAUTH_URL: %q", w)
	}
	c, _ = load(map[string]string{"NEXTAUTH_URL": "https://site.example.com", "EXTBLOG_WEBHOOK_SECRET": long})
	if w := strings.Join(c.Warnings(), "\n"); strings.Contains(w, "NEXTAUTH_URL") {
		t.Errorf("warning for an https NEXTAUTH_URL: %q", w)
	}
	// With the platform configured but no EXTBLOG_WEBHOOK_SECRET, the webhook's refusal is
	// announced at start; without the platform there is nothing to announce.
	if w := strings.Join(c.Warnings(), "\n"); strings.Contains(w, "EXTBLOG_WEBHOOK_SECRET") {
		t.Errorf("webhook warning with a secret set: %q", w)
	}
	c, _ = load(nil)
	if w := strings.Join(c.Warnings(), "\n"); strings.Contains(w, "EXTBLOG_WEBHOOK_SECRET") {
		t.Errorf("webhook warning without the platform configured: %q", w)
	}
	c, err = load(map[string]string{"FOLIO_ENV": "development", "EXTBLOG_API_TOKEN": "token"})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(c.Warnings(), "\n"); !strings.Contains(w, "EXTBLOG_WEBHOOK_SECRET") || !strings.Contains(w, "401") {
		t.Errorf("no warning without EXTBLOG_WEBHOOK_SECRET, the platform configured: %q", w)
	}
	if c.PublicCacheBytes != 64<<20 {
		t.Errorf("FOLIO_PUBLIC_CACHE_BYTES default = %d, want 64 MiB", c.PublicCacheBytes)
	}
}

// Ensure FOLIO_ADMIN_PASSWORD follows the one password rule in every environment: 11 characters
// stop the start with an error naming the variable (never the value), 12 start.
func TestAdminPasswordRule(t *testing.T) {
	for _, env := range []string{"development", "production"} {
		vars := map[string]string{"FOLIO_ENV": env, "NEXTAUTH_SECRET": strings.Repeat("k", 32), "FOLIO_ADMIN_EMAIL": "o@example.com"}
		load := func(password string) error {
			vars["FOLIO_ADMIN_PASSWORD"] = password
			_, err := Load(func(k string) string { return vars[k] }, "")
			return err
		}
		short := "elevenchars"
		if err := load(short); err == nil || !strings.Contains(err.Error(), "FOLIO_ADMIN_PASSWORD must be at least 12 characters") ||
			strings.Contains(err.Error(), short) {
			t.Errorf("%s: an 11-character FOLIO_ADMIN_PASSWORD: %v", env, err)
		}
		if err := load("twelve chars"); err != nil {
			t.Errorf("%s: a 12-character FOLIO_ADMIN_PASSWORD: %v", env, err)
		}
	}
}
