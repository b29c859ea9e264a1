package webui_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/foliohq/folio/internal/foliotest"
)

// pickBookingDay moves the /book month view to the month of date and clicks that day, then waits
// for its free times.
func pickBookingDay(t *testing.T, tb *tab, date string) {
	t.Helper()
	sel := fmt.Sprintf(`#days button[data-date=%s]`, jsString(date))
	for i := 0; i < 3; i++ {
		tb.waitFor(t, "the month view", `document.querySelector('#days').dataset.loading === 'false'`)
		if eval[bool](t, tb, fmt.Sprintf(`!!document.querySelector(%s)`, jsString(sel))) {
			break
		}
		tb.do(t, "next month", chromedp.Click(css("#next-month")))
	}
	tb.waitFor(t, "the day "+date+" to have free times", fmt.Sprintf(`!!document.querySelector(%s)`, jsString(sel+`.free:not([disabled])`)))
	tb.do(t, "pick "+date, chromedp.Click(css(sel)))
	tb.waitFor(t, "the times of "+date, fmt.Sprintf(`document.querySelector('#slots').dataset.date === %s && !!document.querySelector('#slots button')`, jsString(date)))
}

var manageLinkRE = regexp.MustCompile(`https?://[^\s"<>]+/book/manage/[A-Za-z0-9_-]{22,}`)

// waitForMail returns an .eml of the outbox that contains every want (quoted-printable soft line
// breaks undone), with its decoded, unfolded text/calendar part appended.
func waitForMail(t *testing.T, s *site, want ...string) string {
	t.Helper()
	deadline := time.Now().Add(40 * time.Second)
	for time.Now().Before(deadline) {
		files, _ := filepath.Glob(filepath.Join(s.dataDir, "outbox", "*.eml"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			text := strings.NewReplacer("=\r\n", "", "=3D", "=").Replace(string(b)) + "\n" + unfoldICS(calendarPart(t, b))
			ok := true
			for _, w := range want {
				ok = ok && strings.Contains(text, w)
			}
			if ok {
				return text
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("no .eml in the outbox contains all of %q", want)
	return ""
}

// TestBrowserBookingLifecycle: a visitor on a phone books, opens the manage link from the
// confirmation .eml, moves the meeting to another day with the same picker, then cancels it
// with a reason; the mails carry METHOD:REQUEST and METHOD:CANCEL updates of the same UID.
func TestBrowserBookingLifecycle(t *testing.T) {
	findChromium(t) // skip before starting anything when there is no browser
	t.Run("sqlite", func(t *testing.T) { browseBookingLifecycle(t, startFolio(t)) })
	t.Run("postgres", func(t *testing.T) {
		if foliotest.PostgresURL() == "" {
			t.Skip("PostgreSQL part skipped: set FOLIO_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)")
		}
		browseBookingLifecycle(t, startFolioWith(t, map[string]string{"DATABASE_URL": foliotest.PostgresSchema(t)}))
	})
}

// browseBookingLifecycle books on a phone, follows the manage link of the .eml to reschedule and
// cancel, and drives the dashboard's schedule screens, against the site s.
func browseBookingLifecycle(t *testing.T, s *site) {
	browserCtx := newBrowser(t)
	phone := newTab(t, browserCtx, visitorZone, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile))
	date := bookingDate(t)

	// Book: the time first, the details last.
	phone.do(t, "open /book", chromedp.Navigate(s.base+"/book"), chromedp.WaitVisible(css("#step-when")))
	if hidden := eval[bool](t, phone, `document.querySelector('#step-details').hidden`); !hidden {
		t.Error("the details form shows before a time is chosen")
	}
	pickBookingDay(t, phone, date)
	phone.screenshot(t, s, "30-book-month-phone")
	if w := eval[int](t, phone, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("page width on a 390 px phone: got %d px", w)
	}
	first := eval[string](t, phone, `document.querySelector('#slots button').dataset.start`)
	phone.do(t, "choose a time", chromedp.Click(css("#slots button")), chromedp.Click(css("#time-confirm")), chromedp.WaitVisible(css("#details-form")))
	phone.do(t, "details", chromedp.SendKeys(css("#name"), "Mia Mover"), chromedp.SendKeys(css("#email"), "mia@example.com"),
		chromedp.SendKeys(css("#description"), "Private note for the host"), chromedp.Click(css("#confirm")), chromedp.WaitVisible(css("#step-done")))
	if href := eval[string](t, phone, `document.querySelector('#manage-link').href`); !strings.Contains(href, "/book/manage/") {
		t.Errorf("the done step's manage link: %q", href)
	}

	// The manage link, from the visitor's confirmation mail.
	confirmation := waitForMail(t, s, "mia@example.com", "Confirmed:", "/book/manage/")
	link := manageLinkRE.FindString(confirmation)
	if link == "" {
		t.Fatalf("no manage link in the confirmation:\n%s", confirmation)
	}
	if strings.Contains(confirmation, "Private note for the host") {
		t.Error("the visitor's confirmation carries the requester's free text")
	}
	token := link[strings.LastIndex(link, "/")+1:]
	phone.do(t, "open the manage link", chromedp.Navigate(link), chromedp.WaitVisible(css("#step-manage")))
	phone.waitText(t, "#manage-summary", "Mia Mover")
	if vis := eval[bool](t, phone, `getComputedStyle(document.querySelector('#steps')).display !== 'none'`); vis {
		t.Error("the manage view shows the booking steps")
	}
	phone.screenshot(t, s, "31-book-manage-phone")

	// Move it to the next day with the same picker: a tap chooses, Confirm moves.
	phone.do(t, "pick a new time", chromedp.Click(css("#manage-reschedule")), chromedp.WaitVisible(css("#step-when")))
	next := time.Now()
	if d, err := time.Parse("2006-01-02", date); err == nil {
		next = d.AddDate(0, 0, 1)
	}
	pickBookingDay(t, phone, next.Format("2006-01-02"))
	target := eval[string](t, phone, `document.querySelector('#slots button').dataset.start`)
	phone.do(t, "choose the new time", chromedp.Click(css("#slots button")))
	phone.waitText(t, "#time-confirm", "Confirm new time")
	phone.do(t, "confirm the move", chromedp.Click(css("#time-confirm")), chromedp.WaitVisible(css("#step-manage")))
	phone.waitText(t, "#status", "Moved to")
	var st struct{ Status, StartTime string }
	s.api(t, "GET", "/api/schedule/bookings/"+token, nil, nil).decode(t, &st)
	if st.Status != "confirmed" || st.StartTime != target || st.StartTime == first {
		t.Errorf("after the move: %+v, want the start %s", st, target)
	}
	moved := waitForMail(t, s, "mia@example.com", "Rescheduled:", "METHOD:REQUEST", "SEQUENCE:1")
	if !strings.Contains(moved, "/book/manage/"+token) {
		t.Error("the reschedule mail lacks the (unchanged) manage link")
	}

	// Cancel with a reason.
	phone.do(t, "open cancel", chromedp.Click(css("#manage-cancel-open")), chromedp.WaitVisible(css("#cancel-form")))
	phone.do(t, "cancel", chromedp.SendKeys(css("#cancel-reason"), "Plans changed"), chromedp.Click(css("#cancel-confirm")))
	phone.waitText(t, "#status", "Your meeting is cancelled")
	phone.waitText(t, "#manage-note", "was cancelled")
	phone.screenshot(t, s, "32-book-cancelled-phone")
	s.api(t, "GET", "/api/schedule/bookings/"+token, nil, nil).decode(t, &st)
	if st.Status != "cancelled" {
		t.Errorf("after the cancel: %+v", st)
	}
	waitForMail(t, s, "mia@example.com", "Cancelled:", "METHOD:CANCEL", "SEQUENCE:2")
	owner := waitForMail(t, s, "Cancelled:", "Reason given: Plans changed")
	if !strings.Contains(owner, "METHOD:CANCEL") {
		t.Error("the owner's cancel mail has no METHOD:CANCEL invite")
	}
	// The owner's screens: a meeting type, a day off, and the bookings list with cancel.
	desk := newTab(t, browserCtx, ownerZone)
	signIn(t, desk, s.base)
	desk.do(t, "meeting types", chromedp.Navigate(s.base+"/admin/#/schedule/types"), chromedp.WaitVisible(css("#types-table")))
	desk.waitText(t, "#types-table", "30min")
	desk.do(t, "new type", chromedp.SendKeys(css("#type-form input[name=title]"), "Quick intro"),
		chromedp.SetValue(css("#type-form input[name=durationMinutes]"), "15"),
		chromedp.SetValue(css("#type-form input[name=maxPerDay]"), "2"),
		chromedp.Click(css("#type-form button[type=submit]")))
	desk.waitText(t, "#types-table", "quick-intro")
	desk.screenshot(t, s, "33-meeting-types")
	var types struct{ Types []struct{ Slug string } }
	s.api(t, "GET", "/api/schedule/types", nil, nil).decode(t, &types)
	if len(types.Types) != 1 || types.Types[0].Slug != "quick-intro" {
		t.Errorf("types after the dashboard created one: %+v", types)
	}
	desk.do(t, "days off", chromedp.Navigate(s.base+"/admin/#/schedule/availability"), chromedp.WaitVisible(css("#overrides-calendar")))
	day := eval[string](t, desk, `document.querySelectorAll('#overrides-calendar button')[14].dataset.date`)
	desk.do(t, "pick a day", chromedp.Click(css(fmt.Sprintf(`#overrides-calendar button[data-date=%s]`, jsString(day)))), chromedp.WaitVisible(css("#override-form")),
		chromedp.Click(css("#override-closed")))
	desk.waitText(t, "main .status", "day off")
	desk.waitFor(t, "the day marked closed", fmt.Sprintf(`document.querySelector('#overrides-calendar button[data-date=%s]').classList.contains('closed')`, jsString(day)))
	desk.screenshot(t, s, "34-days-off")
	var ovs struct {
		Overrides []struct {
			Date   string
			Closed bool
		}
	}
	s.api(t, "GET", "/api/schedule/overrides?from="+day+"&to="+day, nil, nil).decode(t, &ovs)
	if len(ovs.Overrides) != 1 || !ovs.Overrides[0].Closed {
		t.Errorf("override of %s: %+v", day, ovs)
	}
	// A booking made through the API, cancelled from the list.
	s.api(t, "DELETE", "/api/schedule/types/quick-intro", nil, nil)
	res := s.api(t, "POST", "/api/schedule/book", map[string]any{"startISO": target, "durationMinutes": 30, "timeZone": visitorZone,
		"attendeeName": "Otto Other", "attendeeEmail": "otto@example.com"}, nil)
	if res.status != 200 {
		t.Fatalf("API booking: %d %s", res.status, res.body)
	}
	// The former "All bookings" address leads to Bookings, which lists every booking.
	desk.do(t, "all bookings", chromedp.Navigate(s.base+"/admin/#/schedule/bookings"), chromedp.WaitVisible(css("#bookings-table")))
	desk.waitText(t, "#bookings-table", "Otto Other")
	desk.do(t, "Otto's actions", chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('#bookings-table tbody tr')]
		.find((r) => r.textContent.includes('Otto Other')).querySelector('.menu-button').click()`),
		menuPlaced(), chromedp.Click(css(`.menu:popover-open [id^="cancel-"]`)), chromedp.WaitVisible(css("#cancel-booking-dialog")))
	desk.do(t, "cancel Otto", chromedp.SendKeys(css("#cancel-reason"), "Double-booked"), chromedp.Click(css("#cancel-confirm")))
	desk.waitText(t, "#toasts", "Cancelled the meeting with Otto Other")
	desk.screenshot(t, s, "35-all-bookings")
	var list struct {
		Bookings []struct{ AttendeeName, CancelReason, CancelledBy string }
	}
	s.api(t, "GET", "/api/schedule/bookings?status=cancelled", nil, nil).decode(t, &list)
	found := false
	for _, b := range list.Bookings {
		found = found || (b.AttendeeName == "Otto Other" && b.CancelledBy == "owner" && b.CancelReason == "Double-booked")
	}
	if !found {
		t.Errorf("cancelled bookings after the dashboard cancel: %+v", list)
	}

	// Opening the link again shows the cancelled booking, with no actions.
	phone.do(t, "reload", chromedp.Reload(), chromedp.WaitVisible(css("#step-manage")))
	phone.waitText(t, "#manage-note", "was cancelled")
	if vis := eval[bool](t, phone, `getComputedStyle(document.querySelector('#manage-actions')).display !== 'none'`); vis {
		t.Error("a cancelled booking still offers cancel and reschedule")
	}
}
