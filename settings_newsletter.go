package folio

import (
	"strings"
	"unicode/utf8"
)

// NewsletterSettings are the owner's texts of subscriber mails (docs/api.md, "Newsletters").
type NewsletterSettings struct {
	WelcomeSubject string `json:"welcomeSubject" doc:"subject of the welcome mail a subscriber gets after confirming; empty: Welcome to <site name>"`
	WelcomeText    string `json:"welcomeText" doc:"text of the welcome mail (plain text; blank lines separate paragraphs; {site} is the site's name); empty: the default text"`
}

// NewsletterUpdate changes NewsletterSettings.
type NewsletterUpdate struct {
	WelcomeSubject *string `json:"welcomeSubject,omitempty"`
	WelcomeText    *string `json:"welcomeText,omitempty"`
}

// Limits of the newsletter settings.
const (
	MaxWelcomeSubjectLen = 200
	MaxWelcomeTextLen    = 5000
)

// The rules of the newsletter group join settingRules here, beside their types.
func init() {
	settingRules["newsletter.welcomeSubject"] = settingText(MaxWelcomeSubjectLen)
	settingRules["newsletter.welcomeText"] = settingMultiline(MaxWelcomeTextLen)
}

// settingMultiline accepts text of several lines (no other control characters), trimmed.
func settingMultiline(max int) func(*Validation, string, *string) {
	return func(v *Validation, path string, s *string) {
		*s = strings.TrimSpace(strings.ReplaceAll(*s, "\r\n", "\n"))
		if utf8.RuneCountInString(*s) > max || hasControl(strings.NewReplacer("\n", "", "\t", "").Replace(*s)) || !utf8.ValidString(*s) {
			v.Invalid(path, "must be text of at most %d characters", max)
		}
	}
}
