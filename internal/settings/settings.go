// Package settings is the owner's settings use case (docs/api.md, "Settings"): it merges the
// environment's defaults, the fields the owner set (stored as one document) and the fields an
// environment variable locks, validates changes, keeps the settings in force in memory, reloads
// them when another instance changed them (folio.ScopeSettings) and tells its subscribers, so a
// change takes effect on every instance without a restart.
package settings

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
)

// ErrStale is what Store.SaveSettingsDocument returns when the stored document is no longer
// at the version the caller read.
var ErrStale = errors.New("settings: the stored document changed since it was read")

// Store keeps the settings document.
type Store interface {
	// SettingsDocument returns the stored document and its version (0 before the first save).
	SettingsDocument(ctx context.Context) (folio.SettingsDoc, int64, error)
	// SaveSettingsDocument replaces the document when the stored version is still version,
	// making it version+1, and announces folio.ScopeSettings after the commit; when another
	// save came first it changes nothing and returns ErrStale.
	SaveSettingsDocument(ctx context.Context, doc folio.SettingsDoc, version int64) error
	// FirstOwner returns the oldest account with the owner role, or ENOTFOUND.
	FirstOwner(ctx context.Context) (*folio.User, error)
}

// Options configure a Service.
type Options struct {
	// Defaults are the settings before the owner changed any: the environment's values and
	// the variables' defaults (internal/config).
	Defaults folio.Settings
	// Locked maps the path of each field an environment variable sets ("booking.hours") to the
	// variable; the variable's value is in Defaults and the owner cannot change it.
	Locked map[string]string
	// Secret is the instance secret (NEXTAUTH_SECRET) the key of stored secrets is derived from;
	// PreviousSecret (NEXTAUTH_SECRET_PREVIOUS) is the one before a rotation: what it sealed is
	// read, and sealed again under Secret at start.
	Secret, PreviousSecret string
	Logger                 *slog.Logger
	// HTTPIssuers (FOLIO_ENV=development) lets an identity provider's issuer be http on any
	// host; otherwise http is for loopback hosts only.
	HTTPIssuers bool
}

// Service serves the settings; it is safe for concurrent use.
type Service struct {
	store    Store
	defaults folio.Settings
	locked   map[string]string
	http     bool // Options.HTTPIssuers
	sealer   *auth.Sealer
	log      *slog.Logger

	cur  atomic.Pointer[version]
	mu   sync.Mutex // orders the versions applied and the calls of subscribers
	subs []func(folio.Settings)
}

// version is the settings in force and the stored document's version they come from.
type version struct {
	settings folio.Settings
	n        int64
}

// New loads the stored settings over the defaults.
func New(ctx context.Context, store Store, o Options) (*Service, error) {
	sealer, err := auth.NewSealer(secretLabel, o.Secret, o.PreviousSecret)
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Service{store: store, defaults: o.Defaults, locked: map[string]string{}, sealer: sealer, log: log, http: o.HTTPIssuers}
	maps.Copy(s.locked, o.Locked)
	if err := s.Reload(ctx); err != nil {
		return nil, err
	}
	if err := s.resealSecrets(ctx); err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	return s, nil
}

// Current returns the settings in force.
func (s *Service) Current() folio.Settings { return s.cur.Load().settings }

// View returns the settings in force with the locked fields.
func (s *Service) View() folio.SettingsView {
	cur := s.Current()
	cur.Auth = cur.Auth.Masked()
	return folio.SettingsView{Settings: cur, Locked: maps.Clone(s.locked)}
}

// Subscribe calls fn with the settings in force now and after every change, in the order of the
// changes and never twice at once. fn must not call Subscribe.
func (s *Service) Subscribe(fn func(folio.Settings)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs = append(s.subs, fn)
	fn(s.Current())
}

// Changed reloads the settings when scope is theirs (or "*": everything may have changed),
// after this or another instance saved them.
func (s *Service) Changed(ctx context.Context, scope string) {
	if scope != folio.ScopeSettings && scope != "*" {
		return
	}
	if err := s.Reload(ctx); err != nil {
		s.log.Error("settings not reloaded; the previous ones stay in force", "error", err.Error())
	}
}

// Reload reads the stored document and puts it in force, unless a newer one already is.
func (s *Service) Reload(ctx context.Context) error {
	doc, n, err := s.store.SettingsDocument(ctx)
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	s.apply(s.merge(doc), n)
	return nil
}

// Update validates u, refuses a locked field (422 naming its variable), stores the fields
// present (the secrets encrypted) and puts the result in force. A secret sent as
// folio.SecretSet keeps the stored one.
func (s *Service) Update(ctx context.Context, u *folio.SettingsUpdate) (folio.SettingsView, error) {
	if m := u.Mail; m != nil && m.SMTP != nil && m.SMTP.Password != nil && *m.SMTP.Password == folio.SecretSet {
		m.SMTP.Password = nil
	}
	if a := u.Auth; a != nil && a.Providers != nil {
		keepProviderSecrets(*a.Providers, s.Current().Auth)
	}
	// A locked field is refused for its lock, whatever its value.
	var v folio.Validation
	for _, f := range u.Fields() {
		if name := s.lockedBy(f); name != "" {
			v.Invalid(f, "is set by the environment variable %s; change it there", name)
		}
	}
	if err := v.Err(); err != nil {
		return folio.SettingsView{}, err
	}
	if err := u.Validate(); err != nil {
		return folio.SettingsView{}, err
	}
	if a := u.Auth; a != nil && a.Providers != nil && !s.http {
		if err := folio.CheckIssuerSchemes(*a.Providers); err != nil {
			return folio.SettingsView{}, err
		}
	}
	values, err := u.Values()
	if err != nil {
		return folio.SettingsView{}, err
	}
	if len(values) == 0 {
		return s.View(), nil
	}
	for _, path := range folio.SettingsSecretFields {
		if raw, ok := values[path]; ok {
			if values[path], err = s.sealJSON(path, raw); err != nil {
				return folio.SettingsView{}, err
			}
		}
	}
	// Read, merge and save until no other save came between: concurrent changes of different
	// fields, on any instance, all stay.
	for attempt := 1; ; attempt++ {
		doc, n, err := s.store.SettingsDocument(ctx)
		if err != nil {
			return folio.SettingsView{}, err
		}
		next := maps.Clone(doc)
		if next == nil {
			next = folio.SettingsDoc{}
		}
		maps.Copy(next, values)
		err = s.store.SaveSettingsDocument(ctx, next, n)
		if errors.Is(err, ErrStale) && attempt < 10 {
			continue
		}
		if err != nil {
			return folio.SettingsView{}, err
		}
		s.apply(s.merge(next), n+1)
		return s.View(), nil
	}
}

// Owner is who mails and invitations speak for, and where the owner's notices go: the name is
// site.ownerName, else the owner account's name, else the site's name; the address is
// contact.recipient, else the owner account's email, else the sender's address (before any
// account exists).
func (s *Service) Owner(ctx context.Context) folio.Participant {
	cur := s.Current()
	p := folio.Participant{Name: cur.Site.OwnerName, Email: cur.Contact.Recipient}
	if p.Name == "" || p.Email == "" {
		u, err := s.store.FirstOwner(ctx)
		switch {
		case err == nil:
			p.Name = cmp(p.Name, u.Name)
			p.Email = cmp(p.Email, u.Email)
		case !folio.IsNotFound(err):
			s.log.Warn("owner account not read; the host's name or address falls back further", "error", err.Error())
		}
	}
	p.Name = cmp(p.Name, cur.Site.Name)
	p.Email = cmp(p.Email, cur.Mail.FromAddress)
	return p
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// lockedBy returns the variable that locks the field at path ("" when none does); a lock on
// "booking.hours" covers each day.
func (s *Service) lockedBy(path string) string {
	for field, name := range s.locked {
		if path == field || strings.HasPrefix(path, field+".") {
			return name
		}
	}
	return ""
}

// merge returns the defaults with the stored fields that no variable locks. A stored field that
// no longer reads (a secret under another instance secret, a field of a later version) keeps its
// default and is logged.
func (s *Service) merge(doc folio.SettingsDoc) folio.Settings {
	out := s.defaults
	for _, path := range slices.Sorted(maps.Keys(doc)) {
		if s.lockedBy(path) != "" {
			continue
		}
		raw := doc[path]
		if isSecret(path) {
			var err error
			if raw, _, err = s.openJSON(path, raw); err != nil {
				s.log.Warn("a stored secret setting cannot be decrypted: NEXTAUTH_SECRET changed without NEXTAUTH_SECRET_PREVIOUS? Enter it again", "field", path)
				continue
			}
		}
		if err := out.Set(path, raw); err != nil {
			s.log.Warn("a stored setting is ignored", "field", path, "error", err.Error())
		}
	}
	return out
}

// apply puts settings of stored version n in force and tells the subscribers, unless settings of
// that or a later version are in force already.
func (s *Service) apply(st folio.Settings, n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur := s.cur.Load(); cur != nil && cur.n >= n {
		return
	}
	s.cur.Store(&version{settings: st, n: n})
	for _, fn := range s.subs {
		fn(st)
	}
}

// keepProviderSecrets gives each provider whose clientSecret is folio.SecretSet the stored secret
// of the provider with its id ("" when there is none), as the dashboard sends back what it was
// shown.
func keepProviderSecrets(list []folio.AuthProvider, cur folio.AuthSettings) {
	for i := range list {
		if list[i].ClientSecret == folio.SecretSet {
			old, _ := cur.Provider(strings.TrimSpace(list[i].ID))
			list[i].ClientSecret = old.ClientSecret
		}
	}
}
