package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/identity"
)

// signInLinkAPI serves sign-in links by mail (docs/api.md, "Sign-in links"): asking for one
// always answers 202, whether or not the address has an account (or links are off), and the
// dashboard spends the link's secret, which travels in the URL's fragment so that no server or
// proxy log ever sees it.
type signInLinkAPI struct{ *Server }

// SignInLinkFragment is the fragment key of a sign-in link: <NEXTAUTH_URL>/admin/#signin-link=<secret>.
const SignInLinkFragment = "signin-link"

func (s signInLinkAPI) routes() []route {
	return []route{
		{Method: "POST", Pattern: "/api/auth/link", Handle: s.request, Needs: needSessions, Limit: limitHelperIP, AuditAlways: true, Audit: "auth.link.request",
			Tag: "Auth", Summary: "Ask for a sign-in link by mail: answers 202 whatever the address; when it has an account and the owner turned sign-in links on (settings auth.emailLinks), a mail brings a link that signs in once within 15 minutes. Counts toward the account's sign-in limit",
			Body: identity.LinkRequest{}, Status: http.StatusAccepted, Resp: linkAccepted{}, Errors: []int{413, 503}},
		{Method: "POST", Pattern: "/api/auth/link/verify", Handle: s.verify, Needs: needSessions, Limit: limitSignIn, AuditAlways: true, Audit: "auth.login.link",
			Tag: "Auth", Summary: "Sign in with a sign-in link's secret (the dashboard reads it from the link's #signin-link= fragment): sets the session cookie and returns {user}; a link works once",
			Body: linkVerify{}, Status: http.StatusOK, Resp: loginResponse{}, Errors: []int{401, 403, 413, 503}},
	}
}

type linkAccepted struct {
	Message string `json:"message"`
}

type linkVerify struct {
	Token string `json:"token" doc:"the secret of the link"`
}

func (s signInLinkAPI) request(w http.ResponseWriter, r *http.Request) error {
	var in identity.LinkRequest
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	accepted := linkAccepted{Message: "If this address belongs to an account that may sign in by link, a link is on its way; it works once within 15 minutes."}
	if s.Settings == nil || !s.Settings.Current().Auth.EmailLinks {
		if err := in.Validate(); err != nil {
			return err
		}
		return writeJSON(w, http.StatusAccepted, accepted)
	}
	u, token, err := s.Identity.RequestSignInLink(r.Context(), &in, s.signInAttempts(w, r))
	if err != nil {
		return err
	}
	if u != nil {
		auditSubject(r, u.ID, "")
		if err := s.mailSignInLink(r, u, token); err != nil {
			// The answer stays the same; the cause is in the log.
			s.log(r).Error("sign-in link not mailed", "user_id", u.ID, "error", err.Error())
		}
	}
	return writeJSON(w, http.StatusAccepted, accepted)
}

// mailSignInLink queues the mail with the link for u.
func (s signInLinkAPI) mailSignInLink(r *http.Request, u *folio.User, token string) error {
	if s.Outbox == nil {
		return fmt.Errorf("no mail outbox")
	}
	site := s.Settings.Current().Site.Name
	if site == "" {
		site = "folio"
	}
	link := dashboardBase(s.Server, r) + "/admin/#" + SignInLinkFragment + "=" + token
	text := fmt.Sprintf("Hello %s,\n\nsomeone (hopefully you) asked to sign in to %s. Open this link to sign in:\n\n%s\n\n"+
		"It works once, within 15 minutes. If you did not ask for it, ignore this mail: nobody can sign in without the link.\n",
		u.Name, site, link)
	return s.Outbox.Send(context.WithoutCancel(r.Context()), &folio.MailMessage{To: []folio.MailAddress{{Name: u.Name, Email: u.Email}},
		Subject: "Your sign-in link for " + site, Text: text, Headers: map[string]string{"Auto-Submitted": "auto-generated"}})
}

// dashboardBase is where the dashboard is served: NEXTAUTH_URL, or the origin the request came to.
func dashboardBase(s *Server, r *http.Request) string {
	if s.Identity != nil && s.Identity.cfg.BaseURL != "" {
		return strings.TrimRight(s.Identity.cfg.BaseURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (s signInLinkAPI) verify(w http.ResponseWriter, r *http.Request) error {
	id := s.Identity
	if err := id.checkOrigin(r); err != nil {
		return err
	}
	var in linkVerify
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	u, err := id.SignInWithLink(r.Context(), in.Token, s.signInAttempts(w, r))
	if u != nil {
		auditSubject(r, u.ID, "")
	}
	if err != nil {
		return err
	}
	if _, err := id.issueSession(w, u); err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, loginResponse{User: u})
}
