package identity

import (
	"context"
	"time"

	"github.com/foliohq/folio"
)

// CachedUser exposes the user cache's lookup to the package's external tests.
func CachedUser(s *Service, ctx context.Context, sub, email string, now time.Time) (*folio.User, error) {
	return s.user(ctx, sub, email, now)
}
