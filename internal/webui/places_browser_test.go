package webui_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/foliohq/folio/internal/calendar/google"
	"github.com/foliohq/folio/internal/calendar/googlefake"
)

// TestBrowserBookPlaces books on a 390 px phone, with the Google provider (googlefake behind
// it): /book offers a chooser of the two kinds of meeting; a Google Meet type asks its question
// and ends with a Meet link; a phone type asks for the visitor's number, a choice and a required
// checkbox, marks what is missing where it is, and ends with the phone line and no Join button.
// The owner's list has the answers.
func TestBrowserBookPlaces(t *testing.T) {
	findChromium(t) // skip before starting anything when there is no browser
	const calendarID, saEmail = "owner@example.com", "folio@project.iam.gserviceaccount.com"
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	fake := googlefake.New(&key.PublicKey, saEmail, calendarID, google.Scopes)
	gsrv := httptest.NewServer(fake)
	t.Cleanup(gsrv.Close)
	s := startFolioWith(t, map[string]string{"CALENDAR_PROVIDER": "google", "PROVIDER_CALENDAR_ID": calendarID,
		"PROVIDER_SERVICE_ACCOUNT_EMAIL": saEmail, "PROVIDER_SERVICE_ACCOUNT_PRIVATE_KEY": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"PROVIDER_API_URL": gsrv.URL + "/calendar/v3/", "PROVIDER_TOKEN_URL": gsrv.URL + "/token"})
	for _, typ := range []map[string]any{
		{"slug": "meet-chat", "title": "Meet chat", "durationMinutes": 30, "description": "A **short** chat, see [my site](https://example.com/) <img src=x onerror=alert(1)>", "locations": []map[string]any{{"kind": "google_meet"}},
			"questions": []map[string]any{{"id": "about", "label": "What shall we talk about?", "kind": "text", "required": true}}},
		{"slug": "phone-call", "title": "Phone call", "durationMinutes": 30, "locations": []map[string]any{{"kind": "phone"}},
			"questions": []map[string]any{
				{"id": "topic", "label": "Topic", "kind": "choice", "required": true, "options": []string{"Design", "Code"}},
				{"id": "consent", "label": "I agree to be called", "kind": "checkbox", "required": true}}},
	} {
		if res := s.api(t, "POST", "/api/schedule/types", typ, nil); res.status != 201 {
			t.Fatalf("meeting type: %d %s", res.status, res.body)
		}
	}

	browserCtx := newBrowser(t)
	look := bookLook{name: "phone-light", phone: true}
	tb := newLookTab(t, browserCtx, look)
	axe := axeSource(t)
	shot := func(screen string) {
		t.Helper()
		checkBookScreen(t, tb, screen, look, axe)
		tb.screenshot(t, s, "book-places-"+screen)
	}
	date := bookingDate(t)

	// The chooser: one card per kind of meeting, each naming its place.
	tb.do(t, "open /book", chromedp.Navigate(s.base+"/book"), chromedp.WaitVisible(css("#step-choose")))
	tb.waitText(t, "#chooser", "Meet chat")
	for _, want := range []string{"Google Meet", "Phone call: the host calls you", "30 minutes"} {
		tb.waitText(t, "#chooser", want)
	}
	shot("1-chooser")

	// Google Meet with a question.
	tb.do(t, "choose Meet chat", chromedp.Click(css(`#chooser a[href="/book/meet-chat"]`)), chromedp.WaitVisible(css("#step-when")))
	if got := eval[string](t, tb, `location.pathname`); got != "/book/meet-chat" {
		t.Errorf("the chooser led to %s", got)
	}
	tb.waitText(t, "#fact-place", "Google Meet")
	// The Markdown description: its emphasis and link kept, nothing else of the HTML.
	if got := eval[string](t, tb, `[...document.querySelectorAll('#type-about strong, #type-about a[href="https://example.com/"], #type-about img')].map((e) => e.tagName).join(',')`); got != "STRONG,A" {
		t.Errorf("description elements: %q, want STRONG,A", got)
	}
	pickBookingDay(t, tb, date)
	chooseTime(t, tb, eval[string](t, tb, `document.querySelector('#slots button').dataset.start`))
	tb.do(t, "confirm the time", chromedp.Click(css("#time-confirm")), chromedp.WaitVisible(css("#details-form")))
	if !eval[bool](t, tb, `document.querySelector('#place-box').hidden`) {
		t.Error("a type with one video place asks where to meet")
	}
	tb.do(t, "details without the answer", chromedp.SendKeys(css("#name"), "Mia Meet"), chromedp.SendKeys(css("#email"), "mia@example.com"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#confirm').click()`))
	tb.waitText(t, "#q-about-error", "Please answer this question.")
	if got := eval[string](t, tb, `document.activeElement.id`); got != "q-about" {
		t.Errorf("focus after a missing answer: #%s", got)
	}
	shot("2-meet-question")
	tb.do(t, "answer and book", chromedp.SendKeys(css("#q-about"), "My portfolio"), chromedp.Click(css("#confirm")), chromedp.WaitVisible(css("#step-done")))
	tb.waitText(t, "#done-summary", "Google Meet")
	if href := eval[string](t, tb, `document.querySelector('#meet-link').href`); !strings.HasPrefix(href, "https://meet.google.com/") {
		t.Errorf("join button of a Meet booking: %q", href)
	}
	shot("3-meet-done")

	// Phone with the visitor's number, a choice and a required checkbox.
	tb.do(t, "open /book/phone-call", chromedp.Navigate(s.base+"/book/phone-call"), chromedp.WaitVisible(css("#step-when")))
	if !eval[bool](t, tb, `document.querySelector('#types-box').hidden`) {
		t.Error("the page of one type offers other types")
	}
	next, _ := time.Parse("2006-01-02", date)
	pickBookingDay(t, tb, next.AddDate(0, 0, 1).Format("2006-01-02"))
	chooseTime(t, tb, eval[string](t, tb, `document.querySelector('#slots button').dataset.start`))
	tb.do(t, "confirm the time", chromedp.Click(css("#time-confirm")), chromedp.WaitVisible(css("#place-phone")))
	tb.do(t, "details only", chromedp.SendKeys(css("#name"), "Pat Phone"), chromedp.SendKeys(css("#email"), "pat@example.com"),
		chromedp.SendKeys(css("#place-phone"), "12"), chromedp.Evaluate[chromedp.Void](`document.querySelector('#confirm').click()`))
	tb.waitText(t, "#place-phone-error", "Please enter a phone number")
	tb.waitText(t, "#q-topic-error", "Please answer this question.")
	tb.waitText(t, "#q-consent-error", "Please tick this box")
	if got := eval[string](t, tb, `document.activeElement.id`); got != "place-phone" {
		t.Errorf("focus after a bad number: #%s", got)
	}
	shot("4-phone-errors")
	tb.do(t, "fix and book", chromedp.Evaluate[chromedp.Void](`document.querySelector('#place-phone').value = ''`),
		chromedp.SendKeys(css("#place-phone"), "+44 20 7946 0958"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#q-topic').value = 'Code'`),
		chromedp.Click(css("#q-consent")), chromedp.Click(css("#confirm")), chromedp.WaitVisible(css("#step-done")))
	tb.waitText(t, "#done-summary", "Phone call: the host calls you at +44 20 7946 0958")
	if !eval[bool](t, tb, `document.querySelector('#meet-link').hidden`) {
		t.Error("a phone booking offers Join meeting")
	}
	shot("5-phone-done")
	// The manage view shows the place too.
	manage := eval[string](t, tb, `document.querySelector('#manage-link').href`)
	tb.do(t, "open the manage link", chromedp.Navigate(manage), chromedp.WaitVisible(css("#step-manage")))
	tb.waitText(t, "#manage-summary", "Phone call: the host calls you at +44 20 7946 0958")
	if !eval[bool](t, tb, `document.querySelector('#manage-meet').hidden`) {
		t.Error("the manage view of a phone booking offers Join meeting")
	}

	// The owner sees the answers and the places.
	var list struct {
		Bookings []struct {
			AttendeeEmail string
			Location      struct{ Kind, JoinURL string }
			Answers       []struct {
				ID    string
				Value any
			}
		}
	}
	res := s.api(t, "GET", "/api/schedule/bookings", nil, nil)
	if err := json.Unmarshal(res.body, &list); err != nil || len(list.Bookings) != 2 {
		t.Fatalf("bookings: %d %s", res.status, res.body)
	}
	for _, b := range list.Bookings {
		switch b.AttendeeEmail {
		case "mia@example.com":
			if b.Location.Kind != "google_meet" || len(b.Answers) != 1 || b.Answers[0].Value != "My portfolio" {
				t.Errorf("meet booking %+v", b)
			}
		case "pat@example.com":
			if b.Location.Kind != "phone" || len(b.Answers) != 2 || b.Answers[0].Value != "Code" || b.Answers[1].Value != true {
				t.Errorf("phone booking %+v", b)
			}
		}
	}
	// The dashboard's bookings screen shows the place and the answers.
	desk := newTab(t, browserCtx, ownerZone)
	signIn(t, desk, s.base)
	desk.do(t, "bookings", chromedp.Navigate(s.base+"/admin/#/bookings"), chromedp.WaitVisible(css("#bookings-table")))
	for _, want := range []string{"Google Meet", "What shall we talk about?: My portfolio", "Phone call: the host calls you at +44 20 7946 0958",
		"Topic: Code", "I agree to be called: yes"} {
		desk.waitText(t, "#bookings-table", want)
	}
	desk.screenshot(t, s, "book-places-6-dashboard")

	// The Meet was made by the provider (googlefake answers a conference request only).
	meets := 0
	for _, e := range fake.Events(calendarID) {
		if e.HangoutLink != "" {
			meets++
		}
	}
	if meets != 1 {
		t.Errorf("%d Google events with a Meet, want 1", meets)
	}
}

// TestBrowserMeetingTypePlaces defines a type with places, a question and limits on the
// dashboard, and checks that editing it again without changes keeps them (PUT replaces every
// field, so the form must carry them all).
func TestBrowserMeetingTypePlaces(t *testing.T) {
	findChromium(t) // skip before starting anything when there is no browser
	s := startFolio(t)
	browserCtx := newBrowser(t)
	desk := newTab(t, browserCtx, ownerZone)
	signIn(t, desk, s.base)
	desk.do(t, "meeting types", chromedp.Navigate(s.base+"/admin/#/schedule/types"), chromedp.WaitVisible(css("#type-form")))
	// A link place without its URL is refused at its field.
	desk.do(t, "a type with a bad link", chromedp.SendKeys(css("#type-form input[name=title]"), "Advice"),
		chromedp.Click(css("#type-form input[name=place-link]")), chromedp.Click(css("#type-form button[type=submit]")))
	desk.waitFor(t, "the link field marked", `document.querySelector('#type-form input[name=place-link-value]').getAttribute('aria-invalid') === 'true'`)
	desk.do(t, "fill the rest", chromedp.SendKeys(css("#type-form input[name=place-link-value]"), "https://zoom.example/j/9"),
		chromedp.Click(css("#type-form input[name=place-in_person]")), chromedp.SendKeys(css("#type-form input[name=place-in_person-value]"), "1 Main St"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#type-form input[name="limits.week"]').value = '4'`),
		chromedp.Click(css(".questions-fieldset > button")),
		chromedp.SendKeys(css(".question-row input[aria-label=Question]"), "Company name"),
		chromedp.Click(css(".question-row input[type=checkbox]")),
		chromedp.Click(css("#type-form button[type=submit]")))
	desk.waitText(t, "#types-table", "Advice")
	type typ struct {
		Locations []struct{ Kind, Value string }
		Questions []struct {
			ID, Label string
			Required  bool
		}
		Limits struct{ Week int }
	}
	read := func() typ {
		var res struct{ Types []typ }
		s.api(t, "GET", "/api/schedule/types", nil, nil).decode(t, &res)
		if len(res.Types) != 1 {
			t.Fatalf("types: %+v", res.Types)
		}
		return res.Types[0]
	}
	first := read()
	if len(first.Locations) != 2 || first.Locations[0].Value != "https://zoom.example/j/9" || first.Locations[1].Kind != "in_person" ||
		len(first.Questions) != 1 || first.Questions[0].ID != "company-name" || !first.Questions[0].Required || first.Limits.Week != 4 {
		t.Fatalf("saved type: %+v", first)
	}
	desk.do(t, "edit and save unchanged", chromedp.Evaluate[chromedp.Void](`document.querySelector('#edit-advice').click()`),
		chromedp.WaitVisible(css("#type-form .question-row")), chromedp.Click(css("#type-form button[type=submit]")))
	desk.waitFor(t, "the form to be reset", `!document.querySelector('#type-form .question-row')`)
	if again := read(); len(again.Locations) != 2 || len(again.Questions) != 1 || again.Questions[0].ID != "company-name" || again.Limits.Week != 4 {
		t.Fatalf("after an unchanged edit: %+v", again)
	}
	desk.screenshot(t, s, "admin-meeting-type-places")
}
