package newsletter

import (
	"context"

	"github.com/foliohq/folio"
)

// The preferences page (/subscribe/preferences/<token>, linked from every mail and from the
// unsubscribe page): what a subscriber receives — every new post, a weekly digest, or nothing.
// The token is the one of the mail's unsubscribe link: whoever holds the mail may choose.

// Preferences returns what the subscriber of an unsubscribe token receives.
func (s *Service) Preferences(ctx context.Context, token string) (*folio.SubscriberPreferences, error) {
	if !ValidToken(token) {
		return nil, errNoUnsubscribeToken
	}
	sub, err := s.Store.SubscriberByToken(ctx, token)
	if folio.IsNotFound(err) {
		return nil, errNoUnsubscribeToken
	}
	if err != nil {
		return nil, err
	}
	return preferencesOf(sub), nil
}

// SetPreferences changes what the subscriber of an unsubscribe token receives. Choosing posts or
// the digest after unsubscribing makes a subscriber who had confirmed active again (they hold a
// link from their own mailbox); a bounced or complained address stays as it is.
func (s *Service) SetPreferences(ctx context.Context, token, preference string) (*folio.SubscriberPreferences, error) {
	if !folio.ValidPreference(preference) {
		var v folio.Validation
		v.Invalid("preference", "must be posts, digest or none")
		return nil, v.Err()
	}
	if !ValidToken(token) {
		return nil, errNoUnsubscribeToken
	}
	sub, err := s.Store.SetPreference(ctx, token, preference, preference != folio.PreferenceNone, s.now().UTC())
	if folio.IsNotFound(err) {
		return nil, errNoUnsubscribeToken
	}
	if err != nil {
		return nil, err
	}
	return preferencesOf(sub), nil
}

func preferencesOf(sub *folio.Subscriber) *folio.SubscriberPreferences {
	return &folio.SubscriberPreferences{Email: sub.Email, Status: sub.Status, Preference: sub.Preference}
}
