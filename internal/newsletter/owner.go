package newsletter

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"

	"github.com/foliohq/folio"
)

// The owner's newsletter tools: a post's progress, its preview and a test mail, and the erase
// that keeps only a keyed hash of the address.

// Progress reports a post's newsletter option and how far its mailing is.
func (s *Service) Progress(ctx context.Context, postID string) (folio.NewsletterProgress, error) {
	if _, err := s.Posts.Post(ctx, postID); err != nil {
		return folio.NewsletterProgress{}, err
	}
	return s.Sends.NewsletterProgress(ctx, postID)
}

// Preview is the newsletter mail of a post as a subscriber would get it (the links in its
// footer point at the subscribe page: the preview has no subscriber).
func (s *Service) Preview(ctx context.Context, postID string) (*folio.NewsletterPreview, error) {
	p, err := s.Posts.Post(ctx, postID)
	if err != nil {
		return nil, err
	}
	m := s.PostMail(p, Recipient{Name: "Reader", Email: "reader@example.com"})
	return &folio.NewsletterPreview{Subject: m.Subject, HTML: m.HTML, Text: m.Text}, nil
}

// SendTest mails the newsletter of a post, drafts included, to to (the owner asking), through
// the outbox, with "[Test]" before the subject.
func (s *Service) SendTest(ctx context.Context, postID string, to folio.MailAddress) error {
	p, err := s.Posts.Post(ctx, postID)
	if err != nil {
		return err
	}
	if to.Email == "" {
		return &folio.Error{Code: folio.EINVALID, RuleBroken: true, Message: "Your account has no e-mail address to send the test to (a key with no user, or a user without an address)."}
	}
	m := s.PostMail(p, Recipient{Name: to.Name, Email: to.Email})
	m.Subject = "[Test] " + m.Subject
	_, err = s.Mail.Enqueue(ctx, m)
	return err
}

// EmailHash is the keyed hash kept of an erased address: HMAC-SHA256 under EraseKey, so the
// table alone does not give the addresses back (an unkeyed hash of an address is guessable).
func (s *Service) EmailHash(email string) string {
	mac := hmac.New(sha256.New, s.EraseKey)
	mac.Write([]byte(email))
	return hex.EncodeToString(mac.Sum(nil))
}

// forgetErased drops the erased mark of an address whose owner confirmed a subscription
// themselves, in the confirmation's transaction.
func (s *Service) forgetErased(ctx context.Context, tx *sql.Tx, email string) error {
	return s.Store.ForgetErased(ctx, tx, s.EmailHash(email))
}
