package webui_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/foliohq/folio"
)

// TestBrowserSettings drives the settings pages: working hours (two ranges a day) and the time
// zone set in the dashboard are what /book offers at once; the sender set in the dashboard is
// the From of a booking's mail; a field set by an environment variable is read-only and names
// it; a secret is shown as set, never as its value; "Send a test mail" says why it failed.
func TestBrowserSettings(t *testing.T) {
	browser := newBrowser(t)
	f := startFresh(t, map[string]string{
		"FOLIO_ADMIN_EMAIL": adminEmail, "FOLIO_ADMIN_PASSWORD": adminPassword,
		"RATE_LIMIT_HELPER_PER_HOUR": "1000", "RATE_LIMIT_PUBLIC_PER_HOUR": "100000",
		// The zone is the dashboard's to set here; the contact address is the environment's.
		"BOOKING_TIMEZONE":  "",
		"CONTACT_RECIPIENT": "inbox@owner.example",
	})
	desk := newTab(t, browser, visitorZone)
	signIn(t, desk, f.base)
	if res := f.api(t, "POST", "/api/auth/login", map[string]string{"email": adminEmail, "password": adminPassword}, nil); res.status != 200 {
		t.Fatalf("API login: %d %s", res.status, res.body)
	}
	date := bookingDate(t)

	t.Run("hours and time zone", func(t *testing.T) {
		desk.do(t, "booking settings", chromedp.Navigate(f.base+"/admin/#/settings/booking"), chromedp.WaitVisible(css("#hours-editor")),
			chromedp.SetValue(css("#set-booking-timezone"), "Europe/Paris"))
		// Weekdays 09:00–10:00 and 14:00–15:00; the weekend off.
		desk.do(t, "set the hours", chromedp.Evaluate[chromedp.Void](`(() => {
			for (const day of document.querySelectorAll('#hours-editor .hours-day')) {
				const on = day.querySelector('input[type=checkbox]');
				const weekend = day.dataset.day === 'sat' || day.dataset.day === 'sun';
				if (on.checked === weekend) on.click();
				if (weekend) continue;
				while (day.querySelectorAll('.hours-range').length > 1) day.querySelector('.hours-range button').click();
				if (!day.querySelector('.hours-range')) on.click();
				[...day.querySelectorAll('button')].find((b) => b.textContent.includes('Add a range')).click();
				const t = day.querySelectorAll('.hours-range input[type=time]');
				t[0].value = '09:00'; t[1].value = '10:00'; t[2].value = '14:00'; t[3].value = '15:00';
			}
		})()`))
		desk.do(t, "Jitsi server", chromedp.SetValue(css("#set-booking-jitsiUrl"), "https://jitsi.owner.example/"))
		desk.top(t)
		desk.screenshot(t, f.site, "settings-01-booking-hours")
		desk.do(t, "save", chromedp.Click(css("#save-booking")))
		desk.waitText(t, "#toasts", "Booking settings saved")
		var st folio.SettingsView
		f.api(t, "GET", "/api/settings", nil, nil).decode(t, &st)
		if st.Booking.JitsiURL != "https://jitsi.owner.example" {
			t.Errorf("jitsiUrl after the save: %q", st.Booking.JitsiURL)
		}

		// /book offers exactly those hours, in Paris time, at once.
		var av struct{ Slots []struct{ Start string } }
		f.api(t, "GET", "/api/schedule/available?date="+date+"&timezone=Europe/Paris", nil, nil).decode(t, &av)
		var got []string
		for _, s := range av.Slots {
			st, err := time.Parse(time.RFC3339, s.Start)
			if err != nil {
				t.Fatalf("slot %q: %v", s.Start, err)
			}
			got = append(got, st.In(mustZone(t, "Europe/Paris")).Format("15:04"))
		}
		if want := []string{"09:00", "09:30", "14:00", "14:30"}; !slices.Equal(got, want) {
			t.Errorf("slots on %s in Paris: %v, want %v", date, got, want)
		}
		// The page shows the saved hours again after a reload.
		desk.do(t, "reload", chromedp.Reload(), chromedp.WaitVisible(css("#hours-editor")))
		if n := eval[int](t, desk, `document.querySelectorAll('#hours-editor .hours-day[data-day="tue"] .hours-range').length`); n != 2 {
			t.Errorf("Tuesday shows %d ranges after a reload, want 2", n)
		}
	})

	t.Run("sender of a booking's mail", func(t *testing.T) {
		desk.do(t, "mail settings", chromedp.Navigate(f.base+"/admin/#/settings/mail"), chromedp.WaitVisible(css("#settings-mail")),
			chromedp.SetValue(css("#set-mail-fromName"), "Olive at Folio"),
			chromedp.SetValue(css("#set-mail-fromAddress"), "olive@sender.example"),
			chromedp.Click(css("#save-mail")))
		desk.waitText(t, "#toasts", "Mail settings saved")
		var av struct{ Slots []struct{ Start string } }
		f.api(t, "GET", "/api/schedule/available?date="+date+"&timezone="+visitorZone, nil, nil).decode(t, &av)
		if len(av.Slots) == 0 {
			t.Fatalf("no free time on %s", date)
		}
		if res := f.api(t, "POST", "/api/schedule/book", map[string]any{"startISO": av.Slots[0].Start, "durationMinutes": 30,
			"timeZone": visitorZone, "attendeeName": "Grace Visitor", "attendeeEmail": "grace@example.com"}, nil); res.status != 200 {
			t.Fatalf("book: %d %s", res.status, res.body)
		}
		from := ""
		deadline := time.Now().Add(40 * time.Second)
		for from == "" && time.Now().Before(deadline) {
			files, _ := filepath.Glob(filepath.Join(f.dataDir, "outbox", "*.eml"))
			for _, name := range files {
				b, err := os.ReadFile(name)
				if err != nil || !strings.Contains(string(b), "grace@example.com") {
					continue
				}
				for _, line := range strings.Split(string(b), "\n") {
					if strings.HasPrefix(line, "From: ") {
						from = strings.TrimSpace(strings.TrimPrefix(line, "From: "))
					}
				}
			}
			if from == "" {
				time.Sleep(200 * time.Millisecond)
			}
		}
		if !strings.Contains(from, "olive@sender.example") || !strings.Contains(from, "Olive at Folio") {
			t.Errorf("the booking's mail is from %q, want Olive at Folio <olive@sender.example>", from)
		}
	})

	t.Run("a locked field names its variable", func(t *testing.T) {
		desk.do(t, "contact settings", chromedp.Navigate(f.base+"/admin/#/settings/contact"), chromedp.WaitVisible(css("#settings-contact")))
		if !eval[bool](t, desk, `document.querySelector('#set-contact-recipient').readOnly`) {
			t.Error("the contact address set by CONTACT_RECIPIENT can be edited")
		}
		desk.waitText(t, "#set-contact-recipient-locked", "CONTACT_RECIPIENT")
		desk.screenshot(t, f.site, "settings-02-locked")
	})

	t.Run("a secret is set, never shown; a failed test mail says why", func(t *testing.T) {
		const secret = "smtp-secret-for-the-test"
		desk.do(t, "an SMTP server nobody answers at", chromedp.Navigate(f.base+"/admin/#/settings/mail"), chromedp.WaitVisible(css("#settings-mail")),
			chromedp.SetValue(css("#set-mail-smtp-host"), "127.0.0.1"),
			chromedp.SetValue(css("#set-mail-smtp-port"), "1"),
			chromedp.SetValue(css("#set-mail-smtp-tls"), "none"),
			chromedp.SetValue(css("#set-mail-smtp-username"), "olive"),
			chromedp.SendKeys(css("#set-mail-smtp-password"), secret),
			chromedp.Click(css("#save-mail")))
		desk.waitText(t, "#toasts", "Mail settings saved")
		desk.do(t, "reload", chromedp.Reload(), chromedp.WaitVisible(css("#settings-mail")))
		desk.waitText(t, "#set-mail-smtp-password-state", "Set")
		if strings.Contains(eval[string](t, desk, `document.documentElement.outerHTML + [...document.querySelectorAll('input')].map((i) => i.value).join(' ')`), secret) {
			t.Error("the page shows the SMTP password")
		}
		desk.do(t, "send a test mail", chromedp.Click(css("#mail-test")))
		desk.waitText(t, "#mail-test-panel .status.error", "could not be sent")
		if got := desk.text(t, "#mail-test-panel .status"); !strings.Contains(strings.ToLower(got), "refused") && !strings.Contains(strings.ToLower(got), "connect") {
			t.Errorf("the failed test mail says %q, want the reason (connection refused)", got)
		}
		desk.top(t)
		desk.screenshot(t, f.site, "settings-03-mail-test-failed")
	})
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
