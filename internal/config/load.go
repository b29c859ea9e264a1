package config

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

// Load builds a Config from getenv, falling back to the .env file at dotenvPath (if it exists) and
// then to the defaults. The first invalid value stops it with an error naming the variable.
func Load(getenv func(string) string, dotenvPath string) (*Config, error) {
	dotenv := map[string]string{}
	if dotenvPath != "" {
		f, err := os.Open(dotenvPath)
		if err == nil {
			dotenv, err = ParseDotenv(f)
			f.Close()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", dotenvPath, err)
			}
		} else if !os.IsNotExist(err) {
			return nil, err
		}
	}
	c := &Config{given: map[string]bool{}}
	var short []string // secrets under their production minimum, by name (never by value)
	for _, o := range options {
		v, ok := getenv(o.name), true
		if v == "" {
			v, ok = dotenv[o.name]
		}
		if !ok || v == "" {
			v = o.def
		} else {
			c.given[o.name] = true
		}
		if err := o.set(c, v); err != nil {
			return nil, fmt.Errorf("config: %s: %w", o.name, err)
		}
		if o.minProdBytes > 0 && v != "" && len(v) < o.minProdBytes {
			short = append(short, fmt.Sprintf("%s (%d bytes, needs %d)", o.name, len(v), o.minProdBytes))
		}
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	if c.Production() && len(short) > 0 {
		return nil, fmt.Errorf("config: secrets too short for FOLIO_ENV=production: %s; generate one with: openssl rand -base64 32",
			strings.Join(short, ", "))
	}
	return c, nil
}

func (c *Config) validate() error {
	if c.BookingHoursEnd <= c.BookingHoursStart {
		return fmt.Errorf("config: BOOKING_BUSINESS_HOURS_END (%d) must be after BOOKING_BUSINESS_HOURS_START (%d)", c.BookingHoursEnd, c.BookingHoursStart)
	}
	if c.MediaStorage == "s3" && c.S3Bucket == "" {
		return fmt.Errorf("config: S3_BUCKET is required when MEDIA_STORAGE=s3")
	}
	if c.CalendarProvider == "caldav" && c.CalDAVURL == "" {
		return fmt.Errorf("config: CALDAV_URL is required when CALENDAR_PROVIDER=caldav")
	}
	// The first-start owner's password follows the one password rule in every environment: the
	// value is only ever named, never shown.
	var fe *folio.Error
	if c.AdminPassword != "" && errors.As(folio.ValidatePassword(c.AdminPassword), &fe) {
		return fmt.Errorf("config: FOLIO_ADMIN_PASSWORD %s", fe.Details[0].Message)
	}
	if c.Production() {
		if c.NextAuthSecret == "" {
			return fmt.Errorf("config: NEXTAUTH_SECRET is required when FOLIO_ENV=production")
		}
		if c.ExtblogConfigured() && c.ExtblogWebhookSecret == "" {
			return fmt.Errorf("config: EXTBLOG_WEBHOOK_SECRET is required when FOLIO_ENV=production and the external blog is configured")
		}
	}
	return nil
}

// ParseDotenv reads KEY=VALUE lines: blank lines and # comments are skipped, an optional
// "export " prefix is allowed, and values may be wrapped in single or double quotes (double
// quotes understand \n, \" and \\).
func ParseDotenv(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t\"'") {
			return nil, fmt.Errorf("line %d: not KEY=VALUE", n)
		}
		v = strings.TrimSpace(v)
		switch {
		case len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"':
			uq, err := strconv.Unquote(v)
			if err != nil {
				return nil, fmt.Errorf("line %d: bad double-quoted value of %s", n, k)
			}
			v = uq
		case len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'':
			v = v[1 : len(v)-1]
		case len(v) > 0 && (v[0] == '"' || v[0] == '\''):
			return nil, fmt.Errorf("line %d: unterminated quoted value of %s", n, k)
		default:
			if i := strings.Index(v, " #"); i >= 0 {
				v = strings.TrimSpace(v[:i])
			}
		}
		out[k] = v
	}
	return out, sc.Err()
}

func str(p func(*Config) *string) func(*Config, string) error {
	return func(c *Config, v string) error { *p(c) = v; return nil }
}

func integer(min, max int, p func(*Config) *int) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("not a whole number: %q", v)
		}
		if n < min || n > max {
			return fmt.Errorf("%d is outside %d..%d", n, min, max)
		}
		*p(c) = n
		return nil
	}
}

func boolean(p func(*Config) *bool) func(*Config, string) error {
	return func(c *Config, v string) error {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("not a boolean (true/false): %q", v)
		}
		*p(c) = b
		return nil
	}
}

func duration(p func(*Config) *time.Duration) func(*Config, string) error {
	return func(c *Config, v string) error {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil || d < 0 {
			return fmt.Errorf("not a duration such as 30s or 5m: %q", v)
		}
		*p(c) = d
		return nil
	}
}

func seconds(p func(*Config) *time.Duration) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return fmt.Errorf("not a whole number of seconds: %q", v)
		}
		*p(c) = time.Duration(n) * time.Second
		return nil
	}
}

func oneOf(p func(*Config) *string, allowed ...string) func(*Config, string) error {
	return func(c *Config, v string) error {
		for _, a := range allowed {
			if v == a {
				*p(c) = v
				return nil
			}
		}
		return fmt.Errorf("%q is not one of %s", v, strings.Join(allowed, ", "))
	}
}

func httpURL(p func(*Config) *string) func(*Config, string) error {
	return func(c *Config, v string) error {
		if v != "" {
			u, err := url.Parse(v)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fmt.Errorf("not an http(s) URL: %q", v)
			}
		}
		*p(c) = strings.TrimRight(v, "/")
		return nil
	}
}

func list(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func address(p func(*Config) *string) func(*Config, string) error {
	return func(c *Config, v string) error {
		if v != "" {
			if _, err := mail.ParseAddress(v); err != nil {
				return fmt.Errorf("not an email address: %q", v)
			}
		}
		*p(c) = v
		return nil
	}
}
