package folio

import (
	"net"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"
)

// AuthSettings are the ways to sign in beside a password (docs/api.md, "Passkeys, identity
// providers, sign-in links"): identity providers and sign-in links by mail.
type AuthSettings struct {
	Providers  []AuthProvider `json:"providers" doc:"OpenID Connect providers (and the GitHub preset) users may sign in with; clientSecret is shown as \"set\" or \"\""`
	EmailLinks bool           `json:"emailLinks" doc:"users may ask for a sign-in link by mail (POST /api/auth/link)"`
}

// AuthProvider is an identity provider. Type "oidc" (the default) reads the provider's discovery
// document at <issuer>/.well-known/openid-configuration; "github" is GitHub's OAuth app (not
// OpenID Connect), whose issuer is implied.
type AuthProvider struct {
	ID           string `json:"id" doc:"1–32 lower-case letters, digits and dashes; part of the callback URL /api/auth/oidc/{id}/callback"`
	Name         string `json:"name" doc:"what the sign-in button says"`
	Type         string `json:"type,omitempty" doc:"oidc (default) or github"`
	Issuer       string `json:"issuer" doc:"the issuer URL (https; http only for loopback or with FOLIO_ENV=development)"`
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret" doc:"write-only: answers show \"set\" or \"\"; sending \"set\" keeps the stored one"`
}

// AuthUpdate changes AuthSettings; providers are replaced as a whole list.
type AuthUpdate struct {
	Providers  *[]AuthProvider `json:"providers,omitempty"`
	EmailLinks *bool           `json:"emailLinks,omitempty"`
}

// MaxAuthProviders is how many identity providers the settings hold.
const MaxAuthProviders = 10

// GitHubIssuer is the issuer of the "github" provider type.
const GitHubIssuer = "https://github.com"

// Masked returns the providers with each secret shown as SecretSet or "", never nil.
func (a AuthSettings) Masked() AuthSettings {
	out := a
	out.Providers = make([]AuthProvider, len(a.Providers))
	for i, p := range a.Providers {
		if p.ClientSecret != "" {
			p.ClientSecret = SecretSet
		}
		out.Providers[i] = p
	}
	return out
}

// Provider returns the provider with the given id.
func (a AuthSettings) Provider(id string) (AuthProvider, bool) {
	for _, p := range a.Providers {
		if p.ID == id {
			return p, true
		}
	}
	return AuthProvider{}, false
}

// The rules of the auth group join settingRules here; the providers' list is sealed at rest as a
// whole, since it holds the client secrets.
func init() {
	settingRules["auth.providers"] = settingProviders
	settingRules["auth.emailLinks"] = func(*Validation, string, *bool) {}
	SettingsSecretFields = append(SettingsSecretFields, "auth.providers")
}

var providerIDRule = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)

func settingProviders(v *Validation, path string, list *[]AuthProvider) {
	if len(*list) > MaxAuthProviders {
		v.Invalid(path, "must hold at most %d providers", MaxAuthProviders)
		return
	}
	seen := map[string]bool{}
	for i := range *list {
		p := &(*list)[i]
		at := path + "[" + itoa(i) + "]."
		p.ID, p.Name, p.Type = strings.TrimSpace(p.ID), strings.TrimSpace(p.Name), strings.TrimSpace(p.Type)
		p.Issuer, p.ClientID = strings.TrimRight(strings.TrimSpace(p.Issuer), "/"), strings.TrimSpace(p.ClientID)
		switch {
		case !providerIDRule.MatchString(p.ID):
			v.Invalid(at+"id", "must be 1–32 lower-case letters, digits and dashes")
		case seen[p.ID]:
			v.Invalid(at+"id", "is used by another provider")
		}
		seen[p.ID] = true
		if p.Name == "" || utf8.RuneCountInString(p.Name) > MaxSettingsNameLen || hasControl(p.Name) {
			v.Invalid(at+"name", "must be 1–%d characters on one line", MaxSettingsNameLen)
		}
		switch p.Type {
		case "", "oidc":
			p.Type = "oidc"
			if !validIssuer(p.Issuer) {
				v.Invalid(at+"issuer", "must be an http or https URL without query or fragment")
			}
		case "github":
			p.Issuer = GitHubIssuer
		default:
			v.Invalid(at+"type", "must be oidc or github")
		}
		if p.ClientID == "" || len(p.ClientID) > 256 || hasControl(p.ClientID) {
			v.Invalid(at+"clientId", "must be 1–256 characters on one line")
		}
		if len(p.ClientSecret) > maxSettingsSecretLen || strings.ContainsAny(p.ClientSecret, "\r\n\x00") {
			v.Invalid(at+"clientSecret", "must be at most %d bytes on one line", maxSettingsSecretLen)
		}
	}
}

// validIssuer accepts an absolute http or https URL; CheckIssuerSchemes then keeps http to
// loopback hosts outside development.
func validIssuer(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil || len(s) > MaxURLLen {
		return false
	}
	return u.Scheme == "https" || u.Scheme == "http"
}

// CheckIssuerSchemes refuses an http issuer on a host that is not loopback: a provider is reached
// over https, but for one on the same machine (or with FOLIO_ENV=development, which skips this
// check).
func CheckIssuerSchemes(list []AuthProvider) error {
	var v Validation
	for i, p := range list {
		if u, err := url.Parse(strings.TrimSpace(p.Issuer)); err == nil && u.Scheme == "http" && !IsLoopbackHost(u.Hostname()) && p.Type != "github" {
			v.Invalid("auth.providers["+itoa(i)+"].issuer", "must be https (http only for a loopback host, or with FOLIO_ENV=development)")
		}
	}
	return v.Err()
}

// IsLoopbackHost reports whether host is localhost or a loopback address.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
