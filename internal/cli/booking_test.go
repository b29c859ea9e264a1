package cli

import (
	"testing"

	"github.com/foliohq/folio/internal/config"
)

func TestCalendarProviderChoice(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  config.Config
		want string
	}{
		{"nothing set", config.Config{}, "local"},
		{"explicit wins", config.Config{CalendarProvider: "local", ProviderCalendarID: "o@example.com"}, "local"},
		{"any PROVIDER_* means google", config.Config{ProviderSAEmail: "sa@example.iam.gserviceaccount.com"}, "google"},
		{"google before caldav", config.Config{ProviderCalendarID: "o@example.com", CalDAVURL: "https://dav.example.com/c/"}, "google"},
		{"CALDAV_URL alone is not a choice", config.Config{CalDAVURL: "https://dav.example.com/c/"}, "local"},
		{"explicit caldav", config.Config{CalendarProvider: "caldav", CalDAVURL: "https://dav.example.com/c/"}, "caldav"},
	} {
		if got := calendarProvider(&tc.cfg); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
