package httpapi

import (
	"net/http"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/identity"
)

// accountAPI serves the signed-in user's profile and the API keys (docs/api.md, "Authentication
// and permissions").
type accountAPI struct{ *Server }

func (s accountAPI) routes() []route {
	return []route{
		{Method: "GET", Pattern: "/api/user/profile", Handle: s.getProfile, Level: folio.LevelRead,
			Tag: "User", Summary: "The caller's profile (a key acts for the user who owns it)", Status: http.StatusOK, Resp: folio.User{}, Errors: []int{404}},
		{Method: "PUT", Pattern: "/api/user/profile", Handle: s.updateProfile, Level: folio.LevelWrite,
			Tag: "User", Summary: "Update the caller's name, bio, location and website (present fields replace, absent ones stay)",
			Body: folio.ProfileUpdate{}, Status: http.StatusOK, Resp: folio.User{}, Errors: []int{404, 413, 422}},
		{Method: "GET", Pattern: "/api/keys", Handle: s.listAPIKeys, Level: folio.LevelAdmin,
			Tag: "API keys", Summary: "List the API keys that are not revoked, newest first", Status: http.StatusOK, Resp: apiKeyList{}},
		{Method: "POST", Pattern: "/api/keys", Handle: s.createAPIKey, Level: folio.LevelAdmin, Audit: "apikey.create",
			Tag: "API keys", Summary: "Create an API key for the caller's user; the secret is in the response and never shown again",
			Body: folio.APIKeyInput{}, Status: http.StatusCreated, Resp: createdAPIKey{}, Errors: []int{404, 413, 422}},
		{Method: "DELETE", Pattern: "/api/keys/{id}", Handle: s.revokeAPIKey, Level: folio.LevelAdmin, Audit: "apikey.revoke",
			Tag: "API keys", Summary: "Revoke an API key; it stops working at once", Status: http.StatusNoContent, Errors: []int{404}},
	}
}

// apiKeyView is the API's apiKey object (docs/api.md, "Authentication and permissions").
type apiKeyView struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Level      string     `json:"level" doc:"read, write or admin"`
	Prefix     string     `json:"prefix" doc:"the first characters of the secret, to tell keys apart"`
	CreatedAt  time.Time  `json:"createdAt"`
	ExpiresAt  *time.Time `json:"expiresAt" nullable:"true"`
	LastUsedAt *time.Time `json:"lastUsedAt" nullable:"true"`
}

type apiKeyList struct {
	Keys []apiKeyView `json:"keys"`
}

type createdAPIKey struct {
	Key    string     `json:"key" doc:"the secret; shown this once, send it as Authorization: Bearer <key>"`
	APIKey apiKeyView `json:"apiKey"`
}

func viewAPIKey(k *folio.APIKey) apiKeyView {
	return apiKeyView{ID: k.ID, Name: k.Name, Level: k.Level.String(), Prefix: k.Prefix, CreatedAt: k.CreatedAt,
		ExpiresAt: k.ExpiresAt, LastUsedAt: k.LastUsedAt}
}

func (s accountAPI) getProfile(w http.ResponseWriter, r *http.Request) error {
	u, err := s.accounts().Profile(r.Context(), folio.ActorFrom(r.Context()).UserID)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, u)
}

func (s accountAPI) updateProfile(w http.ResponseWriter, r *http.Request) error {
	var in folio.ProfileUpdate
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	u, err := s.accounts().UpdateProfile(r.Context(), folio.ActorFrom(r.Context()).UserID, &in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, u)
}

func (s accountAPI) listAPIKeys(w http.ResponseWriter, r *http.Request) error {
	keys, err := s.accounts().APIKeys(r.Context())
	if err != nil {
		return err
	}
	out := apiKeyList{Keys: make([]apiKeyView, 0, len(keys))}
	for _, k := range keys {
		out.Keys = append(out.Keys, viewAPIKey(k))
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, out)
}

func (s accountAPI) createAPIKey(w http.ResponseWriter, r *http.Request) error {
	var in folio.APIKeyInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	secret, k, err := s.accounts().CreateAPIKey(r.Context(), folio.ActorFrom(r.Context()).UserID, &in)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Location", "/api/keys/"+k.ID)
	return writeJSON(w, http.StatusCreated, createdAPIKey{Key: secret, APIKey: viewAPIKey(k)})
}

func (s accountAPI) revokeAPIKey(w http.ResponseWriter, r *http.Request) error {
	if err := s.accounts().RevokeAPIKey(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// accounts is the identity service: the Identity's, or, on a server without sessions, Accounts.
func (s *Server) accounts() *identity.Service {
	if s.Identity != nil {
		return s.Identity.Service
	}
	return s.Accounts
}
