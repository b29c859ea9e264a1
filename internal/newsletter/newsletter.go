// Package newsletter lets readers follow the site by e-mail: double opt-in subscription and
// the owner's list (docs/api.md, "Subscribers").
package newsletter

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

// Defaults of Service.ConfirmTTL and Service.ResendInterval.
const (
	DefaultConfirmTTL = 7 * 24 * time.Hour
	// DefaultResendInterval is the least time between two confirmation mails to one address:
	// a form submitted again and again (by the reader or by someone else with their address)
	// sends one mail per interval, and the answer is the same either way.
	DefaultResendInterval = 15 * time.Minute
)

// ConfirmPath is where a confirmation link points under FOLIO_SITE_URL; the page there calls
// POST /api/subscribers/confirm/{token}.
const ConfirmPath = "/subscribe/confirm/"

// Service is the subscriber use case. Set the exported fields, then use it; it is safe for
// concurrent use.
type Service struct {
	Store Store
	// Mail and Outbox queue the confirmation mail in the transaction that stores the request.
	Mail   MailQueue
	Outbox OutboxTx
	// SiteURL is FOLIO_SITE_URL: confirm links are <SiteURL>/subscribe/confirm/<token>.
	SiteURL string
	// SiteName names the site in mails (default: SiteURL's host).
	SiteName string
	// ListMailto is the mailto address of List-Unsubscribe (CONTACT_RECIPIENT: the owner reads
	// those requests); empty leaves the mailto out.
	ListMailto folio.MailAddress
	// Settings, when set, gives the owner's settings in force: site.url, site.name and the
	// contact recipient (else the sender) then take the place of the three fields above, so a
	// change in the dashboard shows in the next mail.
	Settings func() folio.Settings
	// Now is the clock; default time.Now.
	Now func() time.Time
	// ConfirmTTL is how long a confirm link works; ResendInterval is the least time between
	// two confirmation mails to one address. Zero: the defaults.
	ConfirmTTL, ResendInterval time.Duration

	// EraseKey keys the hash kept of erased addresses (EmailHash); derived from the instance
	// secret, so it is the same on every instance.
	EraseKey []byte
	// EventsSecret is NEWSLETTER_EVENTS_SECRET, which signs the mail provider's bounce and
	// complaint events (events.go); empty refuses them.
	EventsSecret string

	// SendConfig is what mailing posts and digests needs (send.go); without it the service
	// only keeps the list.
	SendConfig
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// Subscribe handles a subscribe request. It returns nil whether the address was new, already
// subscribed or mailed a moment ago, so that the answer tells nothing about the list; a
// filled honeypot is ignored the same way.
func (s *Service) Subscribe(ctx context.Context, in folio.SubscribeInput) error {
	if err := in.Normalize(); err != nil {
		return err
	}
	if in.Website != "" {
		return nil
	}
	if s.Mail == nil || s.Outbox == nil {
		return errors.New("newsletter: no mail outbox")
	}
	now := s.now().UTC()
	token := NewToken()
	msg := s.confirmationMail(in, token)
	item, err := s.Mail.NewItem(msg)
	if err != nil {
		return err
	}
	_, err = s.Store.Subscribe(ctx, folio.Subscriber{ID: folio.NewID(), Email: in.Email, Name: in.Name, Source: in.Source,
		Status: folio.SubscriberPending, CreatedAt: now, UnsubscribeToken: NewToken()},
		Confirmation{TokenHash: TokenHash(token), ExpiresAt: now.Add(orDefault(s.ConfirmTTL, DefaultConfirmTTL)),
			MailedAt: now, ResendAfter: now.Add(-orDefault(s.ResendInterval, DefaultResendInterval))},
		func(tx *sql.Tx) error { return s.Outbox.InsertOutboxTx(ctx, tx, item) })
	return err
}

// Confirm confirms the subscription of a confirm link's token; unknown, used or expired: ENOTFOUND.
func (s *Service) Confirm(ctx context.Context, token string) (*folio.Subscriber, error) {
	if !ValidToken(token) {
		return nil, errNoToken
	}
	sub, err := s.Store.ConfirmSubscriber(ctx, TokenHash(token), s.now().UTC(), func(tx *sql.Tx, sub *folio.Subscriber) error {
		// The person confirmed from their own mailbox: an erased address may be imported again.
		if err := s.forgetErased(ctx, tx, sub.Email); err != nil {
			return err
		}
		item, err := s.Mail.NewItem(s.welcomeMail(sub))
		if err != nil {
			return err
		}
		return s.Outbox.InsertOutboxTx(ctx, tx, item)
	})
	if folio.IsNotFound(err) {
		return nil, errNoToken
	}
	return sub, err
}

// Unsubscribe unsubscribes the subscriber of an unsubscribe link's token (the one-click POST of
// RFC 8058 or the link's page); repeating it gives the same answer. Unknown: ENOTFOUND.
func (s *Service) Unsubscribe(ctx context.Context, token string) (*folio.Subscriber, error) {
	if !ValidToken(token) {
		return nil, errNoUnsubscribeToken
	}
	sub, err := s.Store.Unsubscribe(ctx, token, s.now().UTC())
	if folio.IsNotFound(err) {
		return nil, errNoUnsubscribeToken
	}
	return sub, err
}

var errNoUnsubscribeToken = folio.Errorf(folio.ENOTFOUND, "This unsubscribe link is unknown.")

// UnsubscribePath is where an unsubscribe link points under FOLIO_SITE_URL: a POST there
// unsubscribes (RFC 8058 one-click), a GET shows the page that does it.
const UnsubscribePath = "/unsubscribe/"

// listHeaders are the headers of every mail to a confirmed subscriber: List-Unsubscribe with
// the https link and a mailto (to ListMailto, the owner, who unsubscribes the sender by hand),
// and List-Unsubscribe-Post, which makes the https link one-click (RFC 8058).
func (s *Service) listHeaders(sub *folio.Subscriber) map[string]string {
	v := "<" + s.unsubscribeURL(sub) + ">"
	if mailto := s.listMailto(); mailto != "" {
		v += ", <mailto:" + mailto + "?subject=" + url.QueryEscape("unsubscribe "+sub.Email) + ">"
	}
	return map[string]string{"List-Unsubscribe": v, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}
}

func (s *Service) unsubscribeURL(sub *folio.Subscriber) string {
	return s.siteURL() + UnsubscribePath + sub.UnsubscribeToken
}

func (s *Service) siteURL() string {
	if s.Settings != nil {
		return strings.TrimRight(s.Settings().Site.URL, "/")
	}
	return strings.TrimRight(s.SiteURL, "/")
}

func (s *Service) listMailto() string {
	if s.Settings != nil {
		cur := s.Settings()
		if cur.Contact.Recipient != "" {
			return cur.Contact.Recipient
		}
		return cur.Mail.FromAddress
	}
	return s.ListMailto.Email
}

// welcomeMail greets a subscriber who confirmed, with the owner's text when they wrote one
// (settings newsletter.welcomeSubject and welcomeText). Like every mail to a subscriber, it
// carries the unsubscribe headers and a visible link.
func (s *Service) welcomeMail(sub *folio.Subscriber) *folio.MailMessage {
	site, link := s.siteName(), s.unsubscribeURL(sub)
	subject, custom := "Welcome to "+site, ""
	if s.Settings != nil {
		n := s.Settings().Newsletter
		if n.WelcomeSubject != "" {
			subject = strings.ReplaceAll(n.WelcomeSubject, "{site}", site)
		}
		custom = strings.ReplaceAll(n.WelcomeText, "{site}", site)
	}
	text := fmt.Sprintf("Thank you: your subscription to %s is confirmed, and new posts will come to this address.", site)
	body := "<p>" + html.EscapeString(text) + "</p>"
	if custom != "" {
		text, body = custom, paragraphs(custom)
	}
	text += fmt.Sprintf("\n\n-- \nUnsubscribe: %s\n", link)
	body += fmt.Sprintf(`<p style="color:#555555;font-size:13px">You receive this because you subscribed to %s. <a href="%s" style="color:#555555">Unsubscribe</a></p>`,
		html.EscapeString(site), html.EscapeString(link))
	headers := s.listHeaders(sub)
	headers["Auto-Submitted"] = "auto-generated"
	return &folio.MailMessage{
		To:      []folio.MailAddress{{Name: sub.Name, Email: sub.Email}},
		Subject: subject,
		Text:    text, HTML: body, Headers: headers,
	}
}

// paragraphs turns plain text into HTML paragraphs: blank lines separate them, a single line
// break stays one.
func paragraphs(text string) string {
	var b strings.Builder
	for _, para := range strings.Split(text, "\n\n") {
		if para = strings.TrimSpace(para); para != "" {
			b.WriteString("<p>" + strings.ReplaceAll(html.EscapeString(para), "\n", "<br>") + "</p>")
		}
	}
	return b.String()
}

// errNoToken never echoes the token: messages of errors are logged.
var errNoToken = folio.Errorf(folio.ENOTFOUND, "This confirmation link is unknown, used or expired.")

// List lists subscribers for the owner.
func (s *Service) List(ctx context.Context, f folio.SubscriberFilter, page, limit int) ([]folio.Subscriber, int, error) {
	f.Q = strings.TrimSpace(f.Q)
	if f.Status != "" && !folio.ValidSubscriberStatus(f.Status) {
		return nil, 0, folio.BadRequest("status", "must be pending, active, unsubscribed, bounced or complained")
	}
	return s.Store.Subscribers(ctx, f, page, limit)
}

// MaxImportRows bounds one CSV import.
const MaxImportRows = 100_000

// ImportResult is the outcome of an import: rows inserted, rows whose address was already on the
// list (left as they were), and the rows refused with why.
type ImportResult struct {
	Imported int           `json:"imported"`
	Skipped  int           `json:"skipped"`
	Invalid  []ImportError `json:"invalid"`
}

// ImportError names a refused CSV row (line 1 is the header).
type ImportError struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// Import adds the subscribers of a CSV file with a header row naming the columns: email
// (required), name, source and consent. A row whose consent is yes, true or 1 is active at once
// (the owner vouches the reader agreed); any other row is pending, which is never mailed until
// the reader subscribes and confirms. Addresses already on the list are left as they are.
func (s *Service) Import(ctx context.Context, r io.Reader) (*ImportResult, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, csvError(err, folio.BadRequest("", "The body must be CSV with a header row naming an email column."))
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	if _, ok := col["email"]; !ok {
		return nil, folio.BadRequest("", "The header row names no email column.")
	}
	field := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	now := s.now().UTC()
	res := &ImportResult{Invalid: []ImportError{}}
	seen := map[string]bool{}
	lines := map[string]int{} // subscriber id → CSV line
	var subs []folio.Subscriber
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(err, folio.BadRequest("", "Line %d is not valid CSV.", line))
		}
		if len(subs)+len(res.Invalid) >= MaxImportRows {
			return nil, folio.Errorf(folio.ETOOLARGE, "At most %d rows per import.", MaxImportRows)
		}
		in := folio.SubscribeInput{Email: field(rec, "email"), Name: field(rec, "name"), Source: field(rec, "source")}
		if err := in.Normalize(); err != nil {
			msg := err.Error()
			if fe, ok := err.(*folio.Error); ok && len(fe.Details) > 0 {
				msg = fe.Details[0].Field + " " + fe.Details[0].Message
			}
			res.Invalid = append(res.Invalid, ImportError{Line: line, Message: msg})
			continue
		}
		if seen[in.Email] {
			res.Skipped++
			continue
		}
		seen[in.Email] = true
		sub := folio.Subscriber{ID: folio.NewID(), Email: in.Email, Name: in.Name, Source: in.Source, Status: folio.SubscriberPending,
			CreatedAt: now, UnsubscribeToken: NewToken()}
		switch strings.ToLower(strings.TrimSpace(field(rec, "consent"))) {
		case "yes", "true", "1":
			sub.Status, sub.ConfirmedAt = folio.SubscriberActive, &now
		}
		subs = append(subs, sub)
		lines[sub.ID] = line
	}
	if subs, err = s.dropErased(ctx, subs, lines, res); err != nil {
		return nil, err
	}
	n, err := s.Store.ImportSubscribers(ctx, subs)
	if err != nil {
		return nil, err
	}
	res.Imported, res.Skipped = n, res.Skipped+len(subs)-n
	return res, nil
}

// dropErased takes out of subs the addresses erased at their owner's request (reported in
// res.Invalid with their line): only the person, by subscribing and confirming, brings them back.
func (s *Service) dropErased(ctx context.Context, subs []folio.Subscriber, lines map[string]int, res *ImportResult) ([]folio.Subscriber, error) {
	hashes := make([]string, len(subs))
	for i, sub := range subs {
		hashes[i] = s.EmailHash(sub.Email)
	}
	erased, err := s.Store.ErasedAmong(ctx, hashes)
	if err != nil || len(erased) == 0 {
		return subs, err
	}
	kept := subs[:0]
	for i, sub := range subs {
		if erased[hashes[i]] {
			res.Invalid = append(res.Invalid, ImportError{Line: lines[sub.ID], Message: "email was erased at its owner's request; only they can subscribe it again"})
			continue
		}
		kept = append(kept, sub)
	}
	return kept, nil
}

// csvError is bad when err is the CSV's fault (a parse error, an empty body), else err: a
// failed read (a body over its limit) is the caller's to report.
func csvError(err error, bad error) error {
	var pe *csv.ParseError
	if err == io.EOF || errors.As(err, &pe) {
		return bad
	}
	return err
}

// Erase deletes the subscriber id and everything kept of them but a keyed hash of the address
// (EmailHash), so that an import of it is refused until the person subscribes again.
func (s *Service) Erase(ctx context.Context, id string) error {
	return s.Store.EraseSubscriber(ctx, id, s.EmailHash, s.now().UTC())
}

// ExportPage is how many subscribers Export reads per query.
const ExportPage = 1000

// Export calls fn with every subscriber, newest first.
func (s *Service) Export(ctx context.Context, fn func(folio.Subscriber) error) error {
	for page := 1; ; page++ {
		subs, _, err := s.Store.Subscribers(ctx, folio.SubscriberFilter{}, page, ExportPage)
		if err != nil {
			return err
		}
		for _, sub := range subs {
			if err := fn(sub); err != nil {
				return err
			}
		}
		if len(subs) < ExportPage {
			return nil
		}
	}
}

func (s *Service) siteName() string {
	if s.Settings != nil && s.Settings().Site.Name != "" {
		return s.Settings().Site.Name
	}
	if s.SiteName != "" {
		return s.SiteName
	}
	name := strings.TrimPrefix(strings.TrimPrefix(s.siteURL(), "https://"), "http://")
	return strings.TrimRight(name, "/")
}

// confirmationMail is the double opt-in mail. It carries no text of the requester's but their
// name, which stays out of the subject.
func (s *Service) confirmationMail(in folio.SubscribeInput, token string) *folio.MailMessage {
	link := s.siteURL() + ConfirmPath + token
	site := s.siteName()
	greeting := "Hello,"
	if in.Name != "" {
		greeting = "Hello " + in.Name + ","
	}
	text := fmt.Sprintf("%s\n\nPlease confirm that you want to receive new posts from %s by e-mail:\n\n%s\n\n"+
		"The link works for 7 days. If you did not ask for this, ignore this mail: nothing more will be sent.\n", greeting, site, link)
	body := fmt.Sprintf(`<p>%s</p><p>Please confirm that you want to receive new posts from %s by e-mail:</p>`+
		`<p><a href="%s" style="display:inline-block;padding:10px 18px;background:#1f6feb;color:#ffffff;text-decoration:none;border-radius:6px">Confirm my subscription</a></p>`+
		`<p style="color:#555555">Or open %s<br>The link works for 7 days. If you did not ask for this, ignore this mail: nothing more will be sent.</p>`,
		html.EscapeString(greeting), html.EscapeString(site), html.EscapeString(link), html.EscapeString(link))
	return &folio.MailMessage{
		To:      []folio.MailAddress{{Name: in.Name, Email: in.Email}},
		Subject: "Confirm your subscription to " + site,
		Text:    text, HTML: body,
		Headers: map[string]string{"Auto-Submitted": "auto-generated"},
	}
}

// NewToken returns a new bearer token: 256 random bits, base64url.
func NewToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// TokenHash is what is stored of a token: its SHA-256, hex. A token has 256 random bits, so an
// unsalted hash is enough to make a leaked table useless.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// ValidToken reports whether s looks like a token (base64url, 16-128 characters); other
// strings are answered 404 without a query.
func ValidToken(s string) bool {
	if len(s) < 16 || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}
