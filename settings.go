package folio

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ScopeSettings is the change scope of the owner's settings: every instance reloads them when it
// hears it, so a change made on one takes effect on all at once.
const ScopeSettings = "settings"

// SecretSet is how settings answers show a secret that is set (an unset one is ""); the secret
// itself is never shown. A PUT that sends it back keeps the secret.
const SecretSet = "set"

// Settings are what the owner adjusts from the dashboard (docs/api.md, "Settings"): the site's
// public identity, booking, the mail sender and server, the contact recipient and analytics.
// Defaults come from the environment (internal/config), and a field whose variable is set is
// locked to it. A field's path is its JSON names joined by dots ("booking.hours.mon").
type Settings struct {
	Site      SiteSettings      `json:"site"`
	Booking   BookingSettings   `json:"booking"`
	Mail      MailSettings      `json:"mail"`
	Contact   ContactSettings   `json:"contact"`
	Analytics AnalyticsSettings `json:"analytics"`
	// Newsletter holds the owner's texts of subscriber mails (settings_newsletter.go).
	Newsletter NewsletterSettings `json:"newsletter"`
	Auth       AuthSettings       `json:"auth"`
}

// SiteSettings are the site's public identity: the host's name in mails and invitations, and
// the author address public post answers show. The signed-in users' profiles are accounts, never
// shown to visitors (docs/api.md, "Settings").
type SiteSettings struct {
	Name       string `json:"name" doc:"the site's name (fallback of the host's name)"`
	URL        string `json:"url" doc:"public URL of the site (FOLIO_SITE_URL)"`
	OwnerName  string `json:"ownerName" doc:"the host's name in mails and invitations; empty: the owner account's name"`
	OwnerEmail string `json:"ownerEmail" doc:"the public author address of posts (author.email); empty shows none"`
	PhotoURL   string `json:"photoUrl" doc:"http(s) URL of the owner's photo, or empty"`
}

// BookingSettings are the owner's booking rules.
type BookingSettings struct {
	Timezone         string      `json:"timezone" doc:"the owner's IANA time zone"`
	Hours            WeeklyHours `json:"hours" doc:"business hours per weekday in the owner's zone; an empty list closes the day"`
	BufferMinutes    int         `json:"bufferMinutes" doc:"free time kept around every busy interval, 0-240"`
	MinNoticeMinutes int         `json:"minNoticeMinutes" doc:"how long before its start a meeting may be booked at the latest"`
	HorizonDays      int         `json:"horizonDays" doc:"how many days ahead a meeting may be booked, 1-3650"`
	Reminders        []string    `json:"reminders" doc:"how long before a meeting the visitor gets a reminder: 24h, 1h, 15m, 2d…"`
	EmbedOrigins     []string    `json:"embedOrigins" doc:"https origins that may frame the /book page"`
	JitsiURL         string      `json:"jitsiUrl" doc:"Jitsi server of the jitsi meeting place (an http(s) URL without query or fragment; empty: https://meet.jit.si); each booking gets a room of its own there"`
}

// WeeklyHours are business hours per weekday.
type WeeklyHours struct {
	Mon []HoursRange `json:"mon"`
	Tue []HoursRange `json:"tue"`
	Wed []HoursRange `json:"wed"`
	Thu []HoursRange `json:"thu"`
	Fri []HoursRange `json:"fri"`
	Sat []HoursRange `json:"sat"`
	Sun []HoursRange `json:"sun"`
}

// Days returns the hours indexed by time.Weekday, as BookingConfig.Weekly takes them. The
// ranges are valid (Settings.Validate).
func (w WeeklyHours) Days() [7]DayHours {
	var out [7]DayHours
	for d, rs := range [7][]HoursRange{w.Sun, w.Mon, w.Tue, w.Wed, w.Thu, w.Fri, w.Sat} {
		for _, r := range rs {
			if a, b, err := r.Minutes(); err == nil {
				out[d].Ranges = append(out[d].Ranges, [2]int{a, b})
			}
		}
	}
	return out
}

// WeeklyHoursOf renders per-weekday ranges (index time.Weekday) as WeeklyHours; every day has
// a list, empty when closed.
func WeeklyHoursOf(days [7]DayHours) WeeklyHours {
	var rs [7][]HoursRange
	for d, day := range days {
		rs[d] = []HoursRange{}
		for _, r := range day.Ranges {
			rs[d] = append(rs[d], HoursRange{Start: clock(r[0]), End: clock(r[1])})
		}
	}
	return WeeklyHours{Sun: rs[0], Mon: rs[1], Tue: rs[2], Wed: rs[3], Thu: rs[4], Fri: rs[5], Sat: rs[6]}
}

func clock(minutes int) string { return fmt.Sprintf("%02d:%02d", minutes/60, minutes%60) }

// MailSettings are the sender of every mail and the server that delivers it.
type MailSettings struct {
	FromName    string       `json:"fromName" doc:"display name of the sender"`
	FromAddress string       `json:"fromAddress" doc:"sender address of every mail"`
	SMTP        SMTPSettings `json:"smtp"`
}

// SMTPSettings are the mail server. Its JSON form never carries the password: only SecretSet
// or "".
type SMTPSettings struct {
	Host     string `json:"host" doc:"SMTP server; empty writes mail as .eml files to the data directory"`
	Port     int    `json:"port" doc:"1-65535"`
	Username string `json:"username" doc:"empty sends without AUTH"`
	Password string `json:"password" doc:"never returned: \"set\" or \"\"; a PUT of \"set\" keeps the stored one"`
	TLS      string `json:"tls" doc:"opportunistic, starttls, tls or none"`
}

// MarshalJSON renders the settings with the password replaced by SecretSet or "".
func (s SMTPSettings) MarshalJSON() ([]byte, error) {
	type plain SMTPSettings
	if s.Password != "" {
		s.Password = SecretSet
	}
	return json.Marshal(plain(s))
}

// ContactSettings say where the owner's notices go.
type ContactSettings struct {
	Recipient string `json:"recipient" doc:"where contact messages and booking notices go; empty: the owner account's email"`
}

// SettingsView is the answer of GET and PUT /api/settings: the settings in force and the
// fields an environment variable sets, which a PUT cannot change.
type SettingsView struct {
	Settings
	Locked map[string]string `json:"locked" doc:"field path → the environment variable that sets it"`
}

// SettingsUpdate is the body of PUT /api/settings: any subset of the settings; absent fields
// keep their value. An hours day that is present replaces that day only.
type SettingsUpdate struct {
	Site      *SiteUpdate      `json:"site,omitempty"`
	Booking   *BookingUpdate   `json:"booking,omitempty"`
	Mail      *MailUpdate      `json:"mail,omitempty"`
	Contact   *ContactUpdate   `json:"contact,omitempty"`
	Analytics *AnalyticsUpdate `json:"analytics,omitempty"`
	// Newsletter changes the welcome mail's texts (settings_newsletter.go).
	Newsletter *NewsletterUpdate `json:"newsletter,omitempty"`
	Auth       *AuthUpdate       `json:"auth,omitempty"`
}

// SiteUpdate changes SiteSettings.
type SiteUpdate struct {
	Name       *string `json:"name,omitempty"`
	URL        *string `json:"url,omitempty"`
	OwnerName  *string `json:"ownerName,omitempty"`
	OwnerEmail *string `json:"ownerEmail,omitempty"`
	PhotoURL   *string `json:"photoUrl,omitempty"`
}

// BookingUpdate changes BookingSettings.
type BookingUpdate struct {
	Timezone         *string      `json:"timezone,omitempty"`
	Hours            *HoursUpdate `json:"hours,omitempty"`
	BufferMinutes    *int         `json:"bufferMinutes,omitempty"`
	MinNoticeMinutes *int         `json:"minNoticeMinutes,omitempty"`
	HorizonDays      *int         `json:"horizonDays,omitempty"`
	Reminders        *[]string    `json:"reminders,omitempty"`
	EmbedOrigins     *[]string    `json:"embedOrigins,omitempty"`
	JitsiURL         *string      `json:"jitsiUrl,omitempty"`
}

// HoursUpdate changes the business hours of the days present.
type HoursUpdate struct {
	Mon *[]HoursRange `json:"mon,omitempty"`
	Tue *[]HoursRange `json:"tue,omitempty"`
	Wed *[]HoursRange `json:"wed,omitempty"`
	Thu *[]HoursRange `json:"thu,omitempty"`
	Fri *[]HoursRange `json:"fri,omitempty"`
	Sat *[]HoursRange `json:"sat,omitempty"`
	Sun *[]HoursRange `json:"sun,omitempty"`
}

// MailUpdate changes MailSettings.
type MailUpdate struct {
	FromName    *string     `json:"fromName,omitempty"`
	FromAddress *string     `json:"fromAddress,omitempty"`
	SMTP        *SMTPUpdate `json:"smtp,omitempty"`
}

// SMTPUpdate changes SMTPSettings.
type SMTPUpdate struct {
	Host     *string `json:"host,omitempty"`
	Port     *int    `json:"port,omitempty"`
	Username *string `json:"username,omitempty"`
	Password *string `json:"password,omitempty"`
	TLS      *string `json:"tls,omitempty"`
}

// ContactUpdate changes ContactSettings.
type ContactUpdate struct {
	Recipient *string `json:"recipient,omitempty"`
}

// SettingsSecretFields are the paths of the secret fields: never shown, stored encrypted, and
// neither exported nor imported.
var SettingsSecretFields = []string{"mail.smtp.password"}

// SettingsDoc is the stored form of the fields the owner has set: field path → JSON value.
// Fields absent from it take their default.
type SettingsDoc map[string]json.RawMessage

// Fields returns the paths of the fields present in u, in declaration order.
func (u *SettingsUpdate) Fields() []string {
	var out []string
	settingsLeaves(reflect.ValueOf(u).Elem(), "", func(path string, _ reflect.Value) { out = append(out, path) })
	return out
}

// Values returns the fields present in u as a document.
func (u *SettingsUpdate) Values() (SettingsDoc, error) {
	doc := SettingsDoc{}
	var err error
	settingsLeaves(reflect.ValueOf(u).Elem(), "", func(path string, leaf reflect.Value) {
		if err == nil {
			doc[path], err = json.Marshal(leaf.Interface())
		}
	})
	return doc, err
}

// Validate normalizes the present fields (trimmed text, canonical reminders and origins) and
// checks them; every problem names its field's path ("booking.hours.mon[0].start"). A field
// present with a wrong JSON type is the decoder's 400; a rule broken is a 422.
func (u *SettingsUpdate) Validate() error { return checkSettings(reflect.ValueOf(u).Elem()) }

// Validate normalizes and checks every field, as SettingsUpdate.Validate does.
func (s *Settings) Validate() error { return checkSettings(reflect.ValueOf(s).Elem()) }

// Set gives the field at path the JSON value raw, checked and normalized as Validate does.
// An unknown path, a value of the wrong type or a broken rule is an error and changes nothing.
func (s *Settings) Set(path string, raw json.RawMessage) error {
	var target reflect.Value
	settingsLeaves(reflect.ValueOf(s).Elem(), "", func(p string, leaf reflect.Value) {
		if p == path {
			target = leaf
		}
	})
	if !target.IsValid() {
		return fmt.Errorf("settings: no field %q", path)
	}
	val := reflect.New(target.Type())
	if err := json.Unmarshal(raw, val.Interface()); err != nil {
		return fmt.Errorf("settings: %s: %w", path, err)
	}
	var v Validation
	checkSetting(&v, path, val.Elem())
	if err := v.Err(); err != nil {
		return err
	}
	target.Set(val.Elem())
	return nil
}

// Validate checks every value of the document as Settings.Set would take it.
func (d SettingsDoc) Validate() error {
	var scratch Settings
	var v Validation
	for path, raw := range d {
		if err := scratch.Set(path, raw); err != nil {
			var fe *Error
			if errors.As(err, &fe) && len(fe.Details) > 0 {
				v.Invalid(fe.Details[0].Field, "%s", fe.Details[0].Message)
			} else {
				v.Invalid(path, "is not a setting or has the wrong type")
			}
		}
	}
	return v.Err()
}

// WithoutSecrets returns the document without the secret fields.
func (d SettingsDoc) WithoutSecrets() SettingsDoc {
	out := make(SettingsDoc, len(d))
	for k, v := range d {
		out[k] = v
	}
	for _, k := range SettingsSecretFields {
		delete(out, k)
	}
	return out
}

// settingsLeaves calls fn with the path and the (settable) value of every leaf of v, a Settings
// or a SettingsUpdate: every leaf of a Settings, the present ones of an update. Leaves are the
// fields that are not structs (hours ranges are a leaf: a day's list).
func settingsLeaves(v reflect.Value, prefix string, fn func(path string, leaf reflect.Value)) {
	t := v.Type()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		f := v.Field(i)
		if f.Kind() == reflect.Pointer {
			if f.IsNil() {
				continue
			}
			f = f.Elem()
		}
		if f.Kind() == reflect.Struct {
			settingsLeaves(f, path, fn)
			continue
		}
		fn(path, f)
	}
}

// checkSettings applies checkSetting to every leaf of v (a Settings or a SettingsUpdate).
func checkSettings(v reflect.Value) error {
	var val Validation
	settingsLeaves(v, "", func(path string, leaf reflect.Value) { checkSetting(&val, path, leaf) })
	return val.Err()
}

// checkSetting applies the rule of path to leaf, normalizing it in place.
func checkSetting(v *Validation, path string, leaf reflect.Value) {
	rule, ok := settingRules[path]
	if !ok {
		v.Invalid(path, "is not a setting")
		return
	}
	switch r := rule.(type) {
	case func(*Validation, string, *string):
		r(v, path, leaf.Addr().Interface().(*string))
	case func(*Validation, string, *int):
		r(v, path, leaf.Addr().Interface().(*int))
	case func(*Validation, string, *[]string):
		r(v, path, leaf.Addr().Interface().(*[]string))
	case func(*Validation, string, *[]HoursRange):
		r(v, path, leaf.Addr().Interface().(*[]HoursRange))
	case func(*Validation, string, *bool):
		r(v, path, leaf.Addr().Interface().(*bool))
	case func(*Validation, string, *float64):
		r(v, path, leaf.Addr().Interface().(*float64))
	default: // the rules of settings_auth.go
		reflect.ValueOf(r).Call([]reflect.Value{reflect.ValueOf(v), reflect.ValueOf(path), leaf.Addr()})
	}
}

// Limits of settings fields.
const (
	MaxSettingsNameLen   = 100
	MaxReminders         = 10
	MaxEmbedOrigins      = 20
	MaxDayRanges         = 10
	MaxReminderBefore    = 30 * 24 * time.Hour
	maxSettingsSecretLen = 1024
)

// settingRules holds the rule of every leaf of Settings (a test checks that each has one).
var settingRules = map[string]any{
	"site.name":                settingText(MaxSettingsNameLen),
	"site.url":                 settingURL(true),
	"site.ownerName":           settingText(MaxSettingsNameLen),
	"site.ownerEmail":          settingAddress(false),
	"site.photoUrl":            settingURL(false),
	"booking.timezone":         settingZone,
	"booking.hours.mon":        settingHours,
	"booking.hours.tue":        settingHours,
	"booking.hours.wed":        settingHours,
	"booking.hours.thu":        settingHours,
	"booking.hours.fri":        settingHours,
	"booking.hours.sat":        settingHours,
	"booking.hours.sun":        settingHours,
	"booking.bufferMinutes":    settingInt(0, 240),
	"booking.minNoticeMinutes": settingInt(0, 365*24*60),
	"booking.horizonDays":      settingInt(1, 3650),
	"booking.reminders":        settingReminders,
	"booking.embedOrigins":     settingOrigins,
	"booking.jitsiUrl":         settingJitsiURL,
	"mail.fromName":            settingText(MaxSettingsNameLen),
	"mail.fromAddress":         settingAddress(true),
	"mail.smtp.host":           settingHost,
	"mail.smtp.port":           settingInt(1, 65535),
	"mail.smtp.username":       settingText(256),
	"mail.smtp.password":       settingSecret,
	"mail.smtp.tls":            settingOneOf("opportunistic", "starttls", "tls", "none"),
	"contact.recipient":        settingAddress(false),
	"analytics.retentionDays":  settingInt(0, 36500),
	"analytics.storage":        settingOneOf("local", "none"),
}

func settingText(max int) func(*Validation, string, *string) {
	return func(v *Validation, path string, s *string) {
		*s = strings.TrimSpace(*s)
		if utf8.RuneCountInString(*s) > max || hasControl(*s) || !utf8.ValidString(*s) {
			v.Invalid(path, "must be at most %d characters on one line", max)
		}
	}
}

func settingURL(required bool) func(*Validation, string, *string) {
	return func(v *Validation, path string, s *string) {
		*s = strings.TrimSpace(*s)
		switch {
		case *s == "" && !required:
		case len(*s) > MaxURLLen || !isHTTPURL(*s):
			v.Invalid(path, "must be an http or https URL")
		case path == "site.url":
			*s = strings.TrimRight(*s, "/")
		}
	}
}

// settingAddress accepts a bare address (local@domain, no display name); hosts without a dot
// (owner@localhost) are fine for a sender or recipient on one's own network.
func settingAddress(required bool) func(*Validation, string, *string) {
	return func(v *Validation, path string, s *string) {
		*s = strings.TrimSpace(*s)
		if *s == "" && !required {
			return
		}
		a, err := mail.ParseAddress(*s)
		if err != nil || a.Name != "" || a.Address != *s || len(*s) > MaxEmailLen || strings.ContainsAny(*s, "<> \r\n") {
			v.Invalid(path, "must be an email address such as ada@example.com")
		}
	}
}

func settingZone(v *Validation, path string, s *string) {
	*s = strings.TrimSpace(*s)
	if _, err := LoadZone(*s); err != nil {
		v.Invalid(path, "must be an IANA time zone name, like Europe/Berlin")
	}
}

func settingInt(min, max int) func(*Validation, string, *int) {
	return func(v *Validation, path string, n *int) {
		if *n < min || *n > max {
			v.Invalid(path, "must be a whole number from %d to %d", min, max)
		}
	}
}

func settingOneOf(allowed ...string) func(*Validation, string, *string) {
	return func(v *Validation, path string, s *string) {
		*s = strings.TrimSpace(*s)
		for _, a := range allowed {
			if *s == a {
				return
			}
		}
		v.Invalid(path, "must be one of %s", strings.Join(allowed, ", "))
	}
}

// settingSecret is kept as given (a password may start or end with a space).
func settingSecret(v *Validation, path string, s *string) {
	if len(*s) > maxSettingsSecretLen || strings.ContainsAny(*s, "\r\n\x00") {
		v.Invalid(path, "must be at most %d bytes on one line", maxSettingsSecretLen)
	}
}

var hostnameRule = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$`)

// settingHost accepts a host name or an IP address, without scheme or port.
func settingHost(v *Validation, path string, s *string) {
	*s = strings.TrimSpace(*s)
	if *s != "" && net.ParseIP(*s) == nil && (len(*s) > 253 || !hostnameRule.MatchString(*s)) {
		v.Invalid(path, "must be a host name or IP address, without scheme or port (the port is mail.smtp.port)")
	}
}

func settingHours(v *Validation, path string, rs *[]HoursRange) {
	if *rs == nil {
		*rs = []HoursRange{}
	}
	if len(*rs) > MaxDayRanges {
		v.Invalid(path, "must have at most %d ranges", MaxDayRanges)
		return
	}
	var seen [][2]int
	for i, r := range *rs {
		at := indexed(path, i)
		from, err := hhmm(r.Start)
		if err != nil || from == 24*60 {
			v.Invalid(at+".start", "must be a time of day HH:MM from 00:00 to 23:59")
			continue
		}
		to, err := hhmm(r.End)
		switch {
		case err != nil:
			v.Invalid(at+".end", "must be a time of day HH:MM, 24:00 for the end of the day")
			continue
		case to <= from:
			v.Invalid(at+".end", "must be after start %s", r.Start)
			continue
		}
		for _, s := range seen {
			if from < s[1] && s[0] < to {
				v.Invalid(at, "overlaps another range of the day")
			}
		}
		seen = append(seen, [2]int{from, to})
	}
}

// ParseReminder reads how long before a meeting a reminder goes: a whole number of days, hours
// or minutes ("2d", "24h", "15m") or a Go duration ("1h30m"), from 1 minute to 30 days, in whole
// minutes.
func ParseReminder(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	var err error
	if n, ok := strings.CutSuffix(s, "d"); ok {
		var days int
		days, err = strconv.Atoi(n)
		d = time.Duration(days) * 24 * time.Hour
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d < time.Minute || d > MaxReminderBefore || d%time.Minute != 0 {
		return 0, fmt.Errorf("%q is not a time before the meeting from 1m to 720h, like 24h, 1h or 15m", s)
	}
	return d, nil
}

// FormatReminder is the canonical form of a reminder: whole hours as "24h", else minutes "90m".
func FormatReminder(d time.Duration) string {
	if d%time.Hour == 0 {
		return strconv.Itoa(int(d/time.Hour)) + "h"
	}
	return strconv.Itoa(int(d/time.Minute)) + "m"
}

func settingReminders(v *Validation, path string, list *[]string) {
	settingList(v, path, list, MaxReminders, "reminder", "must be a time before the meeting from 1m to 720h, like 24h, 1h or 15m",
		func(s string) (string, bool) {
			d, err := ParseReminder(s)
			return FormatReminder(d), err == nil
		})
}

// settingOrigins accepts https origins (scheme and host, no path), which CSP frame-ancestors
// names as they are.
func settingOrigins(v *Validation, path string, list *[]string) {
	settingList(v, path, list, MaxEmbedOrigins, "origin", "must be an https origin such as https://example.com (no path)", httpsOrigin)
}

// settingList checks a list field of at most max entries (each a what): every entry is replaced
// by its canonical form; an entry canonical refuses (invalid says why), or whose form repeats an
// earlier entry's, is named in the error. A missing list becomes an empty one.
func settingList(v *Validation, path string, list *[]string, max int, what, invalid string, canonical func(string) (string, bool)) {
	if *list == nil {
		*list = []string{}
	}
	if len(*list) > max {
		v.Invalid(path, "must have at most %d %ss", max, what)
		return
	}
	seen := map[string]bool{}
	for i, s := range *list {
		c, ok := canonical(s)
		switch {
		case !ok:
			v.Invalid(indexed(path, i), "%s", invalid)
		case seen[c]:
			v.Invalid(indexed(path, i), "repeats an earlier %s", what)
		default:
			seen[c] = true
			(*list)[i] = c
		}
	}
}

func httpsOrigin(s string) (string, bool) {
	s = strings.TrimSpace(s)
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") ||
		u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(s, " ;,'\"*") || len(s) > MaxURLLen {
		return "", false
	}
	return "https://" + strings.ToLower(u.Host), true
}
