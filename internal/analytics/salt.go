package analytics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

var errNoSalt = errors.New("analytics: no salt")

// Storage is the tracker's storage mode in force (Options.Storage).
func (s *Service) Storage() string {
	if s.storage != nil && s.storage() == StorageNone {
		return StorageNone
	}
	return StorageLocal
}

// TrackingScript is the tracking script for the storage mode in force.
func (s *Service) TrackingScript() []byte {
	if s.Storage() == StorageNone {
		return scriptNone
	}
	return Script
}

// currentSalt returns the salt of the window of the rotation (day, week or month) containing
// now, agreeing on it with the other instances through the database on the first use of each
// window.
func (s *Service) currentSalt(ctx context.Context, now time.Time, rotation string) ([]byte, error) {
	w := windowKey(rotation, now.In(s.loc))
	s.saltMu.Lock()
	defer s.saltMu.Unlock()
	if w == s.saltWindow && s.salt != nil {
		return s.salt, nil
	}
	var b [32]byte
	if _, err := io.ReadFull(s.rand, b[:]); err != nil {
		return nil, fmt.Errorf("analytics: salt: %w", err)
	}
	stored, err := s.store.AnalyticsSalt(ctx, w, fmt.Sprintf("%x", b))
	if err != nil {
		return nil, err
	}
	if stored == "" {
		return nil, errNoSalt
	}
	s.saltWindow, s.salt = w, []byte(stored)
	return s.salt, nil
}
