package folio

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func validSettings() Settings {
	return Settings{
		Site: SiteSettings{URL: "http://localhost:8080"},
		Booking: BookingSettings{Timezone: "America/New_York", Hours: WeeklyHoursOf(BusinessHours(9, 18, 1, 2, 3, 4, 5)),
			MinNoticeMinutes: 1440, HorizonDays: 60, Reminders: []string{"24h", "1h"}, EmbedOrigins: []string{}},
		Mail:      MailSettings{FromAddress: "folio@localhost", SMTP: SMTPSettings{Port: 587, TLS: "opportunistic"}},
		Analytics: AnalyticsSettings{Storage: "local"},
	}
}

// Ensure every field of Settings has exactly one rule, and every field of SettingsUpdate is a
// field of Settings of the same type: a field added to one and not the others fails here.
func TestSettingsFieldsHaveRulesAndUpdates(t *testing.T) {
	t.Parallel()
	leaves := map[string]reflect.Type{}
	settingsLeaves(reflect.ValueOf(&Settings{}).Elem(), "", func(p string, v reflect.Value) { leaves[p] = v.Type() })
	for p := range leaves {
		if settingRules[p] == nil {
			t.Errorf("%s has no rule", p)
		}
	}
	for p := range settingRules {
		if leaves[p] == nil {
			t.Errorf("rule %s names no field", p)
		}
	}
	// A fully present update: allocate every pointer.
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		for i := range v.NumField() {
			f := v.Field(i)
			f.Set(reflect.New(f.Type().Elem()))
			if f.Elem().Kind() == reflect.Struct {
				fill(f.Elem())
			}
		}
	}
	var u SettingsUpdate
	fill(reflect.ValueOf(&u).Elem())
	n := 0
	settingsLeaves(reflect.ValueOf(&u).Elem(), "", func(p string, v reflect.Value) {
		n++
		if leaves[p] != v.Type() {
			t.Errorf("update field %s is %v, the setting is %v", p, v.Type(), leaves[p])
		}
	})
	if n != len(leaves) {
		t.Errorf("the update has %d fields, the settings %d", n, len(leaves))
	}
}

func TestSettingsUpdateValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body   string
		fields []string // the details, in order; none: valid
	}{
		{`{}`, nil},
		{`{"booking":{"timezone":"Europe/Berlin","hours":{"mon":[{"start":"09:00","end":"12:00"},{"start":"13:00","end":"24:00"}],"sun":[]}}}`, nil},
		{`{"booking":{"timezone":"Mars/Olympus"}}`, []string{"booking.timezone"}},
		{`{"booking":{"timezone":"Local"}}`, []string{"booking.timezone"}},
		{`{"booking":{"hours":{"mon":[{"start":"9:00","end":"17:00"}]}}}`, []string{"booking.hours.mon[0].start"}},
		{`{"booking":{"hours":{"tue":[{"start":"09:00","end":"25:00"}]}}}`, []string{"booking.hours.tue[0].end"}},
		{`{"booking":{"hours":{"wed":[{"start":"17:00","end":"09:00"}]}}}`, []string{"booking.hours.wed[0].end"}},
		{`{"booking":{"hours":{"thu":[{"start":"24:00","end":"24:00"}]}}}`, []string{"booking.hours.thu[0].start"}},
		{`{"booking":{"hours":{"fri":[{"start":"09:00","end":"12:00"},{"start":"11:00","end":"14:00"}]}}}`, []string{"booking.hours.fri[1]"}},
		{`{"booking":{"bufferMinutes":-1,"minNoticeMinutes":-5,"horizonDays":0}}`, []string{"booking.bufferMinutes", "booking.minNoticeMinutes", "booking.horizonDays"}},
		{`{"booking":{"reminders":["24h","soon","1h","60m","0m","31d"]}}`, []string{"booking.reminders[1]", "booking.reminders[3]", "booking.reminders[4]", "booking.reminders[5]"}},
		{`{"booking":{"embedOrigins":["http://a.example","https://b.example/path","https://c.example","https://C.example/","https://*.example"]}}`,
			[]string{"booking.embedOrigins[0]", "booking.embedOrigins[1]", "booking.embedOrigins[3]", "booking.embedOrigins[4]"}},
		{`{"booking":{"jitsiUrl":"https://meet.example/?x=1"}}`, []string{"booking.jitsiUrl"}},
		{`{"booking":{"jitsiUrl":"https://meet.example/#room"}}`, []string{"booking.jitsiUrl"}},
		{`{"booking":{"jitsiUrl":"javascript:alert(1)//meet.example"}}`, []string{"booking.jitsiUrl"}},
		{`{"booking":{"jitsiUrl":"https://meet.example/rooms/"}}`, nil},
		{`{"booking":{"jitsiUrl":""}}`, nil},
		{`{"site":{"url":"ftp://x","photoUrl":"javascript:alert(1)","ownerEmail":"Ada <ada@example.com>","ownerName":"a\nb"}}`,
			[]string{"site.url", "site.ownerName", "site.ownerEmail", "site.photoUrl"}},
		{`{"site":{"url":""}}`, []string{"site.url"}},
		{`{"mail":{"fromAddress":"","smtp":{"host":"smtp://mail.example","port":0,"tls":"ssl","password":"a\r\nb"}}}`,
			[]string{"mail.fromAddress", "mail.smtp.host", "mail.smtp.port", "mail.smtp.password", "mail.smtp.tls"}},
		{`{"mail":{"fromAddress":"folio@localhost","smtp":{"host":"127.0.0.1","port":2525,"tls":"none"}}}`, nil},
		{`{"contact":{"recipient":"not an address"},"analytics":{"retentionDays":-1,"storage":"s3"}}`,
			[]string{"contact.recipient", "analytics.retentionDays", "analytics.storage"}},
		{`{"contact":{"recipient":""},"site":{"ownerEmail":""}}`, nil},
	}
	for _, tt := range tests {
		var u SettingsUpdate
		if err := json.Unmarshal([]byte(tt.body), &u); err != nil {
			t.Fatalf("%s: %v", tt.body, err)
		}
		err := u.Validate()
		if tt.fields == nil {
			if err != nil {
				t.Errorf("%s: %v, want valid", tt.body, err)
			}
			continue
		}
		var fe *Error
		if !errors.As(err, &fe) || fe.Code != EINVALID || !fe.RuleBroken {
			t.Errorf("%s: %v, want a 422", tt.body, err)
			continue
		}
		var got []string
		for _, d := range fe.Details {
			got = append(got, d.Field)
		}
		if !slices.Equal(got, tt.fields) {
			t.Errorf("%s: details %v, want %v", tt.body, got, tt.fields)
		}
	}
}

func TestSettingsUpdateNormalizes(t *testing.T) {
	t.Parallel()
	var u SettingsUpdate
	body := `{"site":{"url":"https://ada.example/ ","name":"  Ada's site "},
		"booking":{"reminders":["1d","90m","1h30m0s"," 15m"],"embedOrigins":["https://Blog.Example/"],"hours":{"sat":null}},
		"mail":{"smtp":{"password":" spaced "}}}`
	if err := json.Unmarshal([]byte(body), &u); err != nil {
		t.Fatal(err)
	}
	err := u.Validate()
	if err == nil || !strings.Contains(err.Error(), "booking.reminders[2]") {
		t.Fatalf("90m and 1h30m are one reminder: %v", err)
	}
	(*u.Booking.Reminders) = slices.Delete(*u.Booking.Reminders, 2, 3)
	if err := u.Validate(); err != nil {
		t.Fatal(err)
	}
	if *u.Site.URL != "https://ada.example" || *u.Site.Name != "Ada's site" || *u.Mail.SMTP.Password != " spaced " {
		t.Errorf("site %q %q, password %q", *u.Site.URL, *u.Site.Name, *u.Mail.SMTP.Password)
	}
	if !slices.Equal(*u.Booking.Reminders, []string{"24h", "90m", "15m"}) || !slices.Equal(*u.Booking.EmbedOrigins, []string{"https://blog.example"}) {
		t.Errorf("reminders %v, origins %v", *u.Booking.Reminders, *u.Booking.EmbedOrigins)
	}
	if got := u.Fields(); !slices.Equal(got, []string{"site.name", "site.url", "booking.reminders", "booking.embedOrigins", "mail.smtp.password"}) {
		t.Errorf("Fields() = %v (a null day is absent)", got)
	}
}

// Ensure the password never leaves in JSON, whatever marshals the settings.
func TestSettingsJSONHidesThePassword(t *testing.T) {
	t.Parallel()
	s := validSettings()
	s.Mail.SMTP.Password = "hunter2-very-secret"
	for _, v := range []any{s, &s, SettingsView{Settings: s}, s.Mail} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "hunter2") || !strings.Contains(string(b), `"password":"set"`) {
			t.Errorf("%T: %s", v, b)
		}
	}
	s.Mail.SMTP.Password = ""
	if b, _ := json.Marshal(s); !strings.Contains(string(b), `"password":""`) {
		t.Errorf("unset password: %s", b)
	}
	if s.Mail.SMTP.Password != "" {
		t.Error("marshalling changed the settings")
	}
}

func TestSettingsSetAndDocuments(t *testing.T) {
	t.Parallel()
	s := validSettings()
	if err := s.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if err := s.Set("booking.hours.mon", json.RawMessage(`[{"start":"10:00","end":"11:00"}]`)); err != nil {
		t.Fatal(err)
	}
	if got := s.Booking.Hours.Days()[time.Monday].Ranges; !slices.Equal(got, [][2]int{{600, 660}}) {
		t.Errorf("Monday = %v", got)
	}
	if got := s.Booking.Hours.Days()[time.Tuesday].Ranges; !slices.Equal(got, [][2]int{{540, 1080}}) {
		t.Errorf("Tuesday = %v", got)
	}
	for path, raw := range map[string]string{"booking.timezone": `"Nowhere/City"`, "booking.horizonDays": `"ten"`, "site.nope": `1`} {
		before := s
		if err := s.Set(path, json.RawMessage(raw)); err == nil {
			t.Errorf("Set(%s, %s) = nil", path, raw)
		}
		if !reflect.DeepEqual(before, s) {
			t.Errorf("a refused Set(%s) changed the settings", path)
		}
	}
	doc := SettingsDoc{"booking.timezone": json.RawMessage(`"Europe/Berlin"`), "mail.smtp.password": json.RawMessage(`"x"`)}
	if err := doc.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := doc.WithoutSecrets(); len(got) != 1 || got["booking.timezone"] == nil || len(doc) != 2 {
		t.Errorf("WithoutSecrets = %v (the original keeps its %d fields)", got, len(doc))
	}
	if err := (SettingsDoc{"booking.timezone": json.RawMessage(`"Nowhere/City"`), "x.y": json.RawMessage(`1`)}).Validate(); err == nil ||
		!strings.Contains(err.Error(), "booking.timezone") && !strings.Contains(err.Error(), "x.y") {
		t.Errorf("bad document: %v", err)
	}
}

func TestReminders(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"24h": "24h", "1d": "24h", "2d": "48h", "15m": "15m", "90m": "90m", "1h30m": "90m", "720h": "720h"} {
		d, err := ParseReminder(in)
		if err != nil || FormatReminder(d) != want {
			t.Errorf("ParseReminder(%q) = %v, %v; formatted %q, want %q", in, d, err, FormatReminder(d), want)
		}
	}
	for _, in := range []string{"", "0m", "30s", "90s", "721h", "31d", "-1h", "1x", "d"} {
		if _, err := ParseReminder(in); err == nil {
			t.Errorf("ParseReminder(%q) accepted", in)
		}
	}
}

// FuzzSettingsUpdate: validation never panics, and what it accepts, Settings.Set takes as is.
func FuzzSettingsUpdate(f *testing.F) {
	f.Add(`{"booking":{"hours":{"mon":[{"start":"09:00","end":"17:00"}]},"reminders":["24h"]}}`)
	f.Add(`{"site":{"url":"https://a.example"},"mail":{"smtp":{"host":"mail.example","port":465}}}`)
	f.Add(`{"booking":{"embedOrigins":["https://a.example/"],"timezone":"Asia/Kolkata"}}`)
	f.Fuzz(func(t *testing.T, body string) {
		var u SettingsUpdate
		if json.Unmarshal([]byte(body), &u) != nil || u.Validate() != nil {
			return
		}
		doc, err := u.Values()
		if err != nil {
			t.Fatal(err)
		}
		s := validSettings()
		for path, raw := range doc {
			if err := s.Set(path, raw); err != nil {
				t.Fatalf("validated %s = %s refused by Set: %v", path, raw, err)
			}
		}
	})
}

// TestSettingsListMessages: the list fields (reminders, embed origins) say exactly what is wrong
// with an entry, a repeat and a list too long.
func TestSettingsListMessages(t *testing.T) {
	t.Parallel()
	many := func(n int, f func(i int) string) string {
		var parts []string
		for i := range n {
			parts = append(parts, `"`+f(i)+`"`)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	tests := []struct{ body, want string }{
		{`{"booking":{"reminders":["soon","1h","60m"]}}`,
			"booking.reminders[0]: must be a time before the meeting from 1m to 720h, like 24h, 1h or 15m; booking.reminders[2]: repeats an earlier reminder"},
		{`{"booking":{"reminders":` + many(MaxReminders+1, func(i int) string { return strconv.Itoa(i+1) + "m" }) + `}}`,
			"booking.reminders: must have at most 10 reminders"},
		{`{"booking":{"embedOrigins":["http://a.example","https://b.example","https://B.example/"]}}`,
			"booking.embedOrigins[0]: must be an https origin such as https://example.com (no path); booking.embedOrigins[2]: repeats an earlier origin"},
		{`{"booking":{"embedOrigins":` + many(MaxEmbedOrigins+1, func(i int) string { return "https://" + strconv.Itoa(i) + ".example" }) + `}}`,
			"booking.embedOrigins: must have at most 20 origins"},
	}
	for _, tt := range tests {
		var u SettingsUpdate
		if err := json.Unmarshal([]byte(tt.body), &u); err != nil {
			t.Fatalf("%s: %v", tt.body, err)
		}
		var fe *Error
		if err := u.Validate(); !errors.As(err, &fe) {
			t.Fatalf("%s: %v, want a validation error", tt.body, err)
		}
		var got []string
		for _, d := range fe.Details {
			got = append(got, d.Field+": "+d.Message)
		}
		if g := strings.Join(got, "; "); g != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.body, g, tt.want)
		}
	}
}
