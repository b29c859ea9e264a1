// Package settingstest holds the conformance suite that every settings.Store (the SQL ones on
// both engines included) must pass.
package settingstest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/settings"
)

// Store is a settings.Store that can also create users, so the suite can set up the owner
// account FirstOwner finds.
type Store interface {
	settings.Store
	CreateUser(ctx context.Context, in *folio.UserInput, passwordHash string) (*folio.User, error)
}

// TestStore runs the suite; open returns a new, empty store for each subtest.
func TestStore(t *testing.T, open func(t *testing.T) Store) {
	t.Run("Document", func(t *testing.T) { testDocument(t, open(t)) })
	t.Run("ConcurrentSaves", func(t *testing.T) { testConcurrentSaves(t, open(t)) })
	t.Run("FirstOwner", func(t *testing.T) { testFirstOwner(t, open(t)) })
}

func testDocument(t *testing.T, s Store) {
	ctx := context.Background()
	doc, n, err := s.SettingsDocument(ctx)
	if err != nil || len(doc) != 0 || n != 0 {
		t.Fatalf("fresh store: %v, version %d, %v; want an empty document at version 0", doc, n, err)
	}
	want := folio.SettingsDoc{
		"booking.timezone":  json.RawMessage(`"Europe/Berlin"`),
		"booking.hours.mon": json.RawMessage(`[{"start":"09:00","end":"12:00"}]`),
		"site.name":         json.RawMessage(`"Zoë's \"site\""`),
	}
	if err := s.SaveSettingsDocument(ctx, want, 0); err != nil {
		t.Fatal(err)
	}
	got, n, err := s.SettingsDocument(ctx)
	if err != nil || n != 1 || !same(got, want) {
		t.Fatalf("after one save: %s, version %d, %v; want %s at version 1", show(got), n, err, show(want))
	}
	// A save based on version 0 came too late: it changes nothing.
	if err := s.SaveSettingsDocument(ctx, folio.SettingsDoc{"site.name": json.RawMessage(`"late"`)}, 0); !errors.Is(err, settings.ErrStale) {
		t.Errorf("stale save: %v, want ErrStale", err)
	}
	if got, n, _ = s.SettingsDocument(ctx); n != 1 || !same(got, want) {
		t.Errorf("after the stale save: %s, version %d", show(got), n)
	}
	// A save replaces the whole document.
	next := folio.SettingsDoc{"contact.recipient": json.RawMessage(`"owner@example.com"`)}
	if err := s.SaveSettingsDocument(ctx, next, 1); err != nil {
		t.Fatal(err)
	}
	if got, n, _ = s.SettingsDocument(ctx); n != 2 || !same(got, next) {
		t.Errorf("after the second save: %s, version %d; want %s at 2", show(got), n, show(next))
	}
}

// testConcurrentSaves: writers that read, add their field and save, retrying on ErrStale, all
// see their field kept: the version check makes the read-modify-write safe.
func testConcurrentSaves(t *testing.T, s Store) {
	ctx := context.Background()
	const writers = 8
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				doc, n, err := s.SettingsDocument(ctx)
				if err != nil {
					errs <- err
					return
				}
				next := folio.SettingsDoc{}
				for k, v := range doc {
					next[k] = v
				}
				next[fmt.Sprintf("field.%d", i)] = json.RawMessage(`true`)
				switch err := s.SaveSettingsDocument(ctx, next, n); {
				case errors.Is(err, settings.ErrStale):
					continue
				case err != nil:
					errs <- err
				}
				return
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	doc, n, err := s.SettingsDocument(ctx)
	if err != nil || len(doc) != writers || n != writers {
		t.Errorf("after %d concurrent writers: %s at version %d, %v; want every field at version %d", writers, show(doc), n, err, writers)
	}
}

func testFirstOwner(t *testing.T, s Store) {
	ctx := context.Background()
	if _, err := s.FirstOwner(ctx); !folio.IsNotFound(err) {
		t.Errorf("without users: %v, want NOT_FOUND", err)
	}
	if _, err := s.CreateUser(ctx, &folio.UserInput{Email: "ed@example.com", Name: "Ed Editor", Role: folio.RoleEditor}, "h"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FirstOwner(ctx); !folio.IsNotFound(err) {
		t.Errorf("with an editor only: %v, want NOT_FOUND", err)
	}
	first, err := s.CreateUser(ctx, &folio.UserInput{Email: "olivia@example.com", Name: "Olivia Owner", Role: folio.RoleOwner}, "h")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateUser(ctx, &folio.UserInput{Email: "otto@example.com", Name: "Otto Owner", Role: folio.RoleOwner}, "h"); err != nil {
		t.Fatal(err)
	}
	u, err := s.FirstOwner(ctx)
	if err != nil || u.ID != first.ID || u.Email != "olivia@example.com" || u.Name != "Olivia Owner" {
		t.Errorf("FirstOwner = %+v, %v; want the oldest owner", u, err)
	}
}

func same(a, b folio.SettingsDoc) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		var x, y any
		if json.Unmarshal(v, &x) != nil || json.Unmarshal(b[k], &y) != nil || fmt.Sprint(x) != fmt.Sprint(y) {
			return false
		}
	}
	return true
}

func show(d folio.SettingsDoc) string {
	b, _ := json.Marshal(d)
	return string(b)
}
