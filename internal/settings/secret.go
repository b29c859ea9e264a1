package settings

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"

	"github.com/foliohq/folio"
)

// secretLabel is the HKDF label of the settings' secrets (auth.Sealer): their key is not the key
// of any other secret folio derives from the instance secret. A sealed value is the secret field's
// JSON string "v1:…"; its path is the associated data, so a value cannot be moved to another field.
// The empty secret is stored as "".
const secretLabel = "folio settings secrets v1"

// sealJSON turns the JSON string of a secret field into the JSON string of its sealed form.
// A field that is not a string (the providers' list) is sealed as its JSON text.
func (s *Service) sealJSON(path string, raw json.RawMessage) (json.RawMessage, error) {
	var plain string
	if !wholeJSON(path) {
		if err := json.Unmarshal(raw, &plain); err != nil {
			return nil, err
		}
	} else if plain = string(raw); plain == "null" || plain == "[]" {
		plain = ""
	}
	if plain == "" {
		return json.Marshal("")
	}
	return json.Marshal(s.sealer.Seal(path, plain))
}

// wholeJSON reports whether the secret field at path is sealed as its JSON text.
func wholeJSON(path string) bool { return path == "auth.providers" }

// openJSON is sealJSON undone; current is false when a previous instance secret sealed it.
func (s *Service) openJSON(path string, raw json.RawMessage) (json.RawMessage, bool, error) {
	var sealed string
	if err := json.Unmarshal(raw, &sealed); err != nil {
		return nil, false, err
	}
	if sealed == "" {
		if wholeJSON(path) {
			return json.RawMessage("[]"), true, nil
		}
		return raw, true, nil
	}
	plain, current, err := s.sealer.Open(path, sealed)
	if err != nil {
		return nil, false, err
	}
	if wholeJSON(path) {
		return json.RawMessage(plain), current, nil
	}
	b, err := json.Marshal(plain)
	return b, current, err
}

// resealSecrets seals again, under the current instance secret, the stored secrets that a
// previous one (NEXTAUTH_SECRET_PREVIOUS) sealed, so that secret can be dropped.
func (s *Service) resealSecrets(ctx context.Context) error {
	for {
		doc, n, err := s.store.SettingsDocument(ctx)
		if err != nil {
			return err
		}
		next, resealed := maps.Clone(doc), 0
		for _, path := range folio.SettingsSecretFields {
			raw, ok := doc[path]
			if !ok {
				continue
			}
			plain, current, err := s.openJSON(path, raw)
			if err != nil || current {
				continue // unreadable ones stay as they are (merge logs them)
			}
			if next[path], err = s.sealJSON(path, plain); err != nil {
				return err
			}
			resealed++
		}
		if resealed == 0 {
			return nil
		}
		err = s.store.SaveSettingsDocument(ctx, next, n)
		if errors.Is(err, ErrStale) {
			continue
		}
		if err == nil {
			s.log.Info("encrypted stored settings secrets again under NEXTAUTH_SECRET", "fields", resealed)
			s.apply(s.merge(next), n+1)
		}
		return err
	}
}

// isSecret reports whether the field at path is a secret.
func isSecret(path string) bool { return slices.Contains(folio.SettingsSecretFields, path) }
