package httpapi

import (
	"context"
	"net/http"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/mail"
)

// mailTestAnswer is the body of a delivered test mail.
type mailTestAnswer struct {
	OK bool `json:"ok"`
}

// settingsAPI serves the owner's settings (docs/api.md, "Settings"): read, change any subset,
// and send a test mail through the mail settings in force.
type settingsAPI struct{ *Server }

func (s settingsAPI) routes() []route {
	return []route{
		{Method: "GET", Pattern: "/api/settings", Handle: s.getSettings, Level: folio.LevelAdmin, Needs: needSettings,
			Tag: "Settings", Summary: "The settings in force (secrets only as \"set\" or \"\") and the fields environment variables lock",
			Status: http.StatusOK, Resp: folio.SettingsView{}, Errors: []int{503}},
		{Method: "PUT", Pattern: "/api/settings", Handle: s.putSettings, Level: folio.LevelAdmin, Needs: needSettings, Audit: "settings.update",
			Tag: "Settings", Summary: "Change any subset of the settings; every instance applies them at once. A locked field is 422 naming its variable",
			Body: folio.SettingsUpdate{}, Status: http.StatusOK, Resp: folio.SettingsView{}, Errors: []int{413, 422, 503}},
		{Method: "POST", Pattern: "/api/settings/mail/test", Handle: s.testMail, Level: folio.LevelAdmin, Needs: needSettings, Audit: "settings.mail_test",
			Tag: "Settings", Summary: "Send one mail to the owner through the mail settings in force; 502 quotes the mail server's answer or the network or TLS failure",
			Status: http.StatusOK, Resp: mailTestAnswer{}, Errors: []int{502, 503}},
	}
}

func (s settingsAPI) getSettings(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, s.Settings.View())
}

func (s settingsAPI) putSettings(w http.ResponseWriter, r *http.Request) error {
	var in folio.SettingsUpdate
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	// The audit entry names the fields changed (never their values).
	auditSubject(r, "", auditFields(in.Fields()))
	v, err := s.Settings.Update(r.Context(), &in)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, v)
}

// auditFields joins field paths for an audit entry's resourceId, within its column's reach.
func auditFields(fields []string) string {
	out := ""
	for _, f := range fields {
		if len(out)+len(f)+1 > 200 {
			return out + ",…"
		}
		if out != "" {
			out += ","
		}
		out += f
	}
	return out
}

// testMail sends one mail to the owner through the mailer in force, not through the outbox: the
// answer is this attempt's, and a failed test is not retried later.
func (s settingsAPI) testMail(w http.ResponseWriter, r *http.Request) error {
	if s.Outbox == nil {
		return folio.Errorf(folio.EUNAVAILABLE, "Mail is not configured on this server.")
	}
	owner := s.Settings.Owner(r.Context())
	m := &folio.MailMessage{To: []folio.MailAddress{folio.MailAddress(owner)}, Subject: "folio: test mail",
		Text:    "This mail was sent by folio to test its mail settings. They work.\n",
		Headers: map[string]string{"Auto-Submitted": "auto-generated"}}
	if err := s.Outbox.Mailer.Send(r.Context(), m); err != nil {
		s.log(r).Warn("test mail failed", "error", err.Error())
		return folio.Errorf(folio.EUPSTREAM, "The test mail to %s failed: %s.", owner.Email, mail.Explain(err))
	}
	return writeJSON(w, http.StatusOK, mailTestAnswer{OK: true})
}

// owner is who the site speaks for (settings.Service.Owner); nothing without settings.
func (s *Server) owner(ctx context.Context) folio.Participant {
	if s.Settings == nil {
		return folio.Participant{}
	}
	return s.Settings.Owner(ctx)
}

// publicAuthor gives a post the author address public answers show (callers below write
// access): site.ownerEmail, empty when unset, never the sign-in address of the account that wrote
// it (docs/api.md, "Settings"). The dashboard's callers keep seeing the writer's account.
func (s *Server) publicAuthor(r *http.Request, p *folio.PostSummary) {
	if canSeeDrafts(r) {
		return
	}
	p.Author.Email = ""
	if s.Settings != nil {
		p.Author.Email = s.Settings.Current().Site.OwnerEmail
	}
}
