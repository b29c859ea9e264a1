package settings_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/settings"
)

// Ensure identity providers are validated field by field, their secrets are write-only (shown
// as "set", kept when "set" is sent back, sealed at rest with the whole list) and survive a
// reload.
func TestAuthProviders(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	s := open(t, db, nil, secret)
	if _, err := update(t, s, `{"auth":{"providers":[{"id":"a","name":"A","issuer":"http://idp.example","clientId":"c"}]}}`); len(details(err)) != 1 ||
		details(err)[0].Field != "auth.providers[0].issuer" || !strings.Contains(details(err)[0].Message, "FOLIO_ENV=development") {
		t.Errorf("http issuer on a public host: %v", err)
	}
	_, err := update(t, s, `{"auth":{"providers":[{"id":"Bad Id","name":"","issuer":"ftp://idp.example","clientId":""},
		{"id":"x","name":"X","type":"saml","clientId":"c"}]}}`)
	want := map[string]bool{"auth.providers[0].id": true, "auth.providers[0].name": true, "auth.providers[0].issuer": true,
		"auth.providers[0].clientId": true, "auth.providers[1].type": true}
	got := map[string]bool{}
	for _, d := range details(err) {
		got[d.Field] = true
	}
	for f := range want {
		if !got[f] {
			t.Errorf("no error for %s: %v", f, err)
		}
	}

	v, err := update(t, s, `{"auth":{"emailLinks":true,"providers":[
		{"id":"kc","name":"Keycloak","issuer":"https://sso.example/realms/main/","clientId":"folio","clientSecret":"s3cret"},
		{"id":"github","name":"GitHub","type":"github","clientId":"gh","clientSecret":"gh-secret"},
		{"id":"local","name":"Local","issuer":"http://127.0.0.1:9999","clientId":"c"}]}}`)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	if strings.Contains(string(b), "s3cret") || !strings.Contains(string(b), `"clientSecret":"set"`) || !v.Auth.EmailLinks {
		t.Errorf("view: %s", b)
	}
	if p := v.Auth.Providers; len(p) != 3 || p[0].Issuer != "https://sso.example/realms/main" || p[1].Issuer != folio.GitHubIssuer || p[2].ClientSecret != "" {
		t.Errorf("providers: %+v", p)
	}
	doc, _, err := db.Settings.SettingsDocument(context.Background())
	if err != nil || strings.Contains(string(doc["auth.providers"]), "s3cret") || strings.Contains(string(doc["auth.providers"]), "Keycloak") {
		t.Errorf("stored providers not sealed: %s %v", doc["auth.providers"], err)
	}

	// "set" keeps the stored secret; a changed one replaces it.
	if _, err := update(t, s, `{"auth":{"providers":[{"id":"kc","name":"Keycloak 2","issuer":"https://sso.example/realms/main","clientId":"folio","clientSecret":"set"},
		{"id":"github","name":"GitHub","type":"github","clientId":"gh","clientSecret":"new"}]}}`); err != nil {
		t.Fatal(err)
	}
	re := open(t, db, nil, secret)
	kc, _ := re.Current().Auth.Provider("kc")
	gh, _ := re.Current().Auth.Provider("github")
	if kc.ClientSecret != "s3cret" || kc.Name != "Keycloak 2" || gh.ClientSecret != "new" || !re.Current().Auth.EmailLinks {
		t.Errorf("after reload: %+v %+v", kc, gh)
	}
}

// Ensure FOLIO_ENV=development (Options.HTTPIssuers) accepts an http issuer on any host.
func TestAuthProvidersHTTPInDevelopment(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	s, err := settings.New(context.Background(), db.Settings, settings.Options{Defaults: defaults(), Secret: secret, HTTPIssuers: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := update(t, s, `{"auth":{"providers":[{"id":"a","name":"A","issuer":"http://keycloak:8080/realms/x","clientId":"c"}]}}`); err != nil {
		t.Errorf("http issuer in development: %v", err)
	}
}
