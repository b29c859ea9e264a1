package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/identity"
	"github.com/foliohq/folio/internal/oidc"
)

// providersAPI serves sign-in with identity providers (docs/api.md, "Identity providers"): the
// public list, the start that sends the browser to the provider, the callback that signs in (or
// sends back to the sign-in page with the reason), and linking an account from Security. The
// flow's state, nonce and PKCE verifier are kept by the store under the state's hash, once; a
// cookie binds the state to the browser that started, so nobody can make a visitor finish a
// sign-in someone else began.
type providersAPI struct{ *Server }

// providerStateCookie carries the state of a provider sign-in from start to callback.
const providerStateCookie = "folio-provider-state"

// providerFlowMaxAge is how long a started provider sign-in can come back.
const providerFlowMaxAge = 10 * time.Minute

// defaultOIDC is the provider client of a Server without one.
var defaultOIDC = &oidc.Client{}

func (s providersAPI) routes() []route {
	return []route{
		{Method: "GET", Pattern: "/api/auth/providers", Handle: s.list,
			Tag: "Auth", Summary: "The sign-in methods the sign-in page offers: the identity providers {id, name} and whether sign-in links by mail are on",
			Status: http.StatusOK, Resp: providerList{}},
		{Method: "GET", Pattern: "/api/auth/oidc/{id}/start", Handle: s.start, Needs: needSessions, Audit: "-",
			Tag: "Auth", Summary: "Start signing in with an identity provider: 302 to the provider (state, nonce, PKCE S256); the provider sends the browser back to /api/auth/oidc/{id}/callback. A provider that cannot be reached: 302 to /admin/?error=<message>",
			Status: http.StatusFound, Errors: []int{404, 503}},
		{Method: "POST", Pattern: "/api/auth/oidc/{id}/link", Handle: s.link, Needs: needSessions, Level: folio.LevelRead, Audit: "auth.provider.link",
			Tag: "Auth", Summary: "Link an account at an identity provider to the caller (session only, from Security): answers {url}, where the browser signs in at the provider; the callback links the account and returns to /admin/",
			Status: http.StatusOK, Resp: providerRedirect{}, Errors: []int{404, 502, 503}},
		{Method: "GET", Pattern: "/api/auth/oidc/{id}/callback", Handle: s.callback, Needs: needSessions, AuditAlways: true, Audit: "auth.login.provider",
			Tag: "Auth", Summary: "The provider's return: signs in the user the account is linked to (or whose email the provider verified) and answers 302 to /admin/ with the session cookie, or 302 to /admin/?error=<message>. Never creates a user",
			Status: http.StatusFound, Errors: []int{503}},
	}
}

type providerItem struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type providerList struct {
	Providers  []providerItem `json:"providers"`
	EmailLinks bool           `json:"emailLinks" doc:"POST /api/auth/link mails sign-in links"`
}

type providerRedirect struct {
	URL string `json:"url" doc:"where to send the browser"`
}

// providerFlow is what the store keeps of a started sign-in.
type providerFlow struct {
	Provider string `json:"p"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
}

func (s providersAPI) client() *oidc.Client {
	if s.OIDC != nil {
		return s.OIDC
	}
	return defaultOIDC
}

func (s providersAPI) list(w http.ResponseWriter, r *http.Request) error {
	out := providerList{Providers: []providerItem{}}
	if s.Settings != nil {
		a := s.Settings.Current().Auth
		for _, p := range a.Providers {
			out.Providers = append(out.Providers, providerItem{ID: p.ID, Name: p.Name})
		}
		out.EmailLinks = a.EmailLinks
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, out)
}

// provider is the configured provider the path names.
func (s providersAPI) provider(r *http.Request) (folio.AuthProvider, error) {
	if s.Settings != nil {
		if p, ok := s.Settings.Current().Auth.Provider(r.PathValue("id")); ok {
			return p, nil
		}
	}
	return folio.AuthProvider{}, folio.Errorf(folio.ENOTFOUND, "No identity provider %q is configured.", r.PathValue("id"))
}

func (s providersAPI) redirectURL(r *http.Request, p folio.AuthProvider) string {
	return dashboardBase(s.Server, r) + "/api/auth/oidc/" + url.PathEscape(p.ID) + "/callback"
}

// begin stores a new flow for p and sets its state cookie; it returns the provider's URL.
func (s providersAPI) begin(w http.ResponseWriter, r *http.Request, p folio.AuthProvider, linkUserID string) (string, error) {
	f := oidc.NewFlow()
	to, err := s.client().AuthURL(r.Context(), p, s.redirectURL(r, p), f)
	if err != nil {
		return "", err
	}
	data, _ := json.Marshal(providerFlow{Provider: p.ID, Nonce: f.Nonce, Verifier: f.Verifier})
	if err := s.Identity.SaveProviderState(r.Context(), f.State, linkUserID, string(data), s.now().Add(providerFlowMaxAge).Unix()); err != nil {
		return "", err
	}
	http.SetCookie(w, &http.Cookie{Name: providerStateCookie, Value: f.State, Path: "/api/auth/oidc/", MaxAge: int(providerFlowMaxAge / time.Second),
		HttpOnly: true, Secure: s.Identity.secure, SameSite: http.SameSiteLaxMode})
	return to, nil
}

func (s providersAPI) start(w http.ResponseWriter, r *http.Request) error {
	p, err := s.provider(r)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	to, err := s.begin(w, r, p, "")
	if err != nil {
		// A browser followed a button here: it goes back to the sign-in page with the reason.
		var fe *folio.Error
		if !errors.As(err, &fe) || fe.Code == folio.EINTERNAL {
			return err
		}
		http.Redirect(w, r, "/admin/?error="+url.QueryEscape(fe.Message), http.StatusFound)
		return nil
	}
	http.Redirect(w, r, to, http.StatusFound)
	return nil
}

func (s providersAPI) link(w http.ResponseWriter, r *http.Request) error {
	if err := sessionOnly(r); err != nil {
		return err
	}
	p, err := s.provider(r)
	if err != nil {
		return err
	}
	to, err := s.begin(w, r, p, folio.ActorFrom(r.Context()).UserID)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, providerRedirect{URL: to})
}

// callback finishes the flow; every refusal goes back to the sign-in page with its reason.
func (s providersAPI) callback(w http.ResponseWriter, r *http.Request) error {
	// The state cookie has done its work whatever happens next.
	http.SetCookie(w, &http.Cookie{Name: providerStateCookie, Value: "", Path: "/api/auth/oidc/", MaxAge: -1, HttpOnly: true,
		Secure: s.Identity.secure, SameSite: http.SameSiteLaxMode})
	w.Header().Set("Cache-Control", "no-store")
	u, err := s.finish(r)
	if u != nil {
		auditSubject(r, u.ID, "")
	}
	if err != nil {
		msg := "The sign-in with the identity provider failed; try again."
		var fe *folio.Error
		if errors.As(err, &fe) && fe.Code != folio.EINTERNAL {
			msg = fe.Message
		} else {
			s.log(r).Warn("identity provider sign-in failed", "provider", r.PathValue("id"), "error", err.Error())
		}
		s.recordEvent(r, "auth.login.provider.refused", "", http.StatusUnauthorized)
		http.Redirect(w, r, "/admin/?error="+url.QueryEscape(msg), http.StatusFound)
		return nil
	}
	if _, err := s.Identity.issueSession(w, u); err != nil {
		return err
	}
	http.Redirect(w, r, "/admin/", http.StatusFound)
	return nil
}

func (s providersAPI) finish(r *http.Request) (*folio.User, error) {
	q := r.URL.Query()
	state := q.Get("state")
	c, err := r.Cookie(providerStateCookie)
	if state == "" || err != nil || c.Value != state {
		return nil, folio.Errorf(folio.EUNAUTHORIZED, "This sign-in was not started in this browser, or has expired; start again.")
	}
	linkUserID, data, err := s.Identity.TakeProviderState(r.Context(), state)
	if err != nil {
		return nil, err
	}
	var f providerFlow
	if err := json.Unmarshal([]byte(data), &f); err != nil || f.Provider != r.PathValue("id") {
		return nil, identity.ErrProviderState
	}
	p, err := s.provider(r)
	if err != nil {
		return nil, err
	}
	if e := q.Get("error"); e != "" {
		return nil, folio.Errorf(folio.EUNAUTHORIZED, "%s did not sign you in (%s).", p.Name, truncate(e, 100))
	}
	acct, err := s.client().Exchange(r.Context(), p, s.redirectURL(r, p), q.Get("code"), oidc.Flow{State: state, Nonce: f.Nonce, Verifier: f.Verifier})
	if errors.Is(err, oidc.ErrNonce) {
		return nil, folio.Errorf(folio.EUNAUTHORIZED, "%s answered a sign-in that does not belong to this one (wrong nonce); start again.", p.Name)
	}
	if err != nil {
		var fe *folio.Error
		if errors.As(err, &fe) {
			return nil, err
		}
		s.log(r).Warn("identity provider exchange failed", "provider", p.ID, "error", err.Error())
		return nil, folio.Errorf(folio.EUNAUTHORIZED, "%s did not accept the sign-in (the code was refused, expired or its token did not verify); start again.", p.Name)
	}
	return s.Identity.SignInExternal(r.Context(), identity.ExternalAccount{Provider: p.ID, Subject: acct.Subject, Email: acct.Email,
		EmailVerified: acct.EmailVerified}, linkUserID)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
