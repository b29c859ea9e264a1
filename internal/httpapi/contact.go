package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/foliohq/folio"
	foliomail "github.com/foliohq/folio/internal/mail"
)

// contactInput is the body of POST /api/contact (docs/api.md, "Contact and mail").
type contactInput struct {
	Name    string `json:"name"`
	Email   string `json:"email"`
	Subject string `json:"subject,omitempty"`
	Message string `json:"message"`
}

type contactSuccess struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}

// contactError is the contact route's own failure body, fixed by the spec: {error: <string>}.
type contactError struct {
	Error string `json:"error"`
}

type contactList struct {
	Messages   []folio.ContactMessage `json:"messages"`
	Pagination pagination             `json:"pagination"`
}

type outboxList struct {
	Items      []folio.OutboxEntry `json:"items"`
	Pagination pagination          `json:"pagination"`
}

// Limits of contact fields.
const (
	maxContactName    = 200
	maxContactEmail   = 320
	maxContactSubject = 200
	maxContactMessage = 10_000
)

// ContactStore is what the contact routes need of storage.
type ContactStore interface {
	// InsertContactMessage stores a message and its outbox item in one transaction.
	InsertContactMessage(ctx context.Context, m folio.ContactMessage, item foliomail.OutboxItem) error
	// ContactMessages lists stored messages, newest first, with their delivery status.
	ContactMessages(ctx context.Context, page, limit int) ([]folio.ContactMessage, int, error)
}

// contactAPI serves the contact form and the admin listings of its messages and of the mail outbox.
type contactAPI struct{ *Server }

func (s contactAPI) routes() []route {
	return []route{
		{Method: "POST", Pattern: "/api/contact", Handle: s.contact, Limit: limitHelperIP,
			Tag: "Contact", Summary: "Send a contact-form message to the owner (failures answer {error: string})",
			Body: contactInput{}, Status: http.StatusOK, Resp: contactSuccess{}, ErrorResp: contactError{}, Errors: []int{413, 503}},
		{Method: "GET", Pattern: "/api/contact/messages", Handle: s.listContactMessages, Level: folio.LevelAdmin,
			Tag: "Contact", Summary: "Stored contact messages, newest first, with their delivery status",
			Query: []param{pageParam, limitParam}, Status: http.StatusOK, Resp: contactList{}},
		{Method: "GET", Pattern: "/api/mail/outbox", Handle: s.listOutbox, Level: folio.LevelAdmin,
			Tag: "Contact", Summary: "The mail outbox: every stored mail with its delivery status (dead = given up)",
			Query:  []param{pageParam, limitParam, {Name: "status", Type: "string", Doc: "pending, sent, failed or dead"}},
			Status: http.StatusOK, Resp: outboxList{}},
	}
}

// contact validates, stores the message with its mail, sends it at once and answers with the
// outcome (docs/api.md, "Contact and mail"). A failed send loses nothing: the message stays
// stored and the outbox retries the mail.
func (s contactAPI) contact(w http.ResponseWriter, r *http.Request) error {
	fail := func(status int, msg string) error {
		return writeJSON(w, status, contactError{Error: msg})
	}
	var in contactInput
	body := http.MaxBytesReader(w, r.Body, maxJSONBody)
	if err := json.NewDecoder(body).Decode(&in); err != nil {
		var mbe *http.MaxBytesError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &mbe):
			return fail(http.StatusRequestEntityTooLarge, "The message is too large.")
		case errors.As(err, &te) && te.Field != "":
			return fail(http.StatusBadRequest, fmt.Sprintf("The field %s must be a string.", te.Field))
		default:
			return fail(http.StatusBadRequest, "The request body must be a JSON object with name, email and message.")
		}
	}
	in.Name, in.Email, in.Subject = strings.TrimSpace(in.Name), strings.TrimSpace(in.Email), strings.TrimSpace(in.Subject)
	var missing []string
	for _, f := range []struct{ name, value string }{{"name", in.Name}, {"email", in.Email}, {"message", in.Message}} {
		if strings.TrimSpace(f.value) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return fail(http.StatusBadRequest, "Missing required fields: "+strings.Join(missing, ", ")+".")
	}
	for _, f := range []struct{ name, value string }{{"name", in.Name}, {"email", in.Email}, {"subject", in.Subject}} {
		if strings.ContainsAny(f.value, "\r\n\x00") {
			return fail(http.StatusBadRequest, "The field "+f.name+" must be a single line.")
		}
	}
	if strings.Contains(in.Message, "\x00") {
		return fail(http.StatusBadRequest, "The field message must not contain NUL characters.")
	}
	addr, err := mail.ParseAddress(in.Email)
	if err != nil || addr.Address != in.Email || addr.Name != "" {
		return fail(http.StatusBadRequest, "The email address is not valid.")
	}
	for _, f := range []struct {
		name  string
		value string
		max   int
	}{{"name", in.Name, maxContactName}, {"email", in.Email, maxContactEmail}, {"subject", in.Subject, maxContactSubject}, {"message", in.Message, maxContactMessage}} {
		if !utf8.ValidString(f.value) || utf8.RuneCountInString(f.value) > f.max {
			return fail(http.StatusBadRequest, fmt.Sprintf("The field %s must be valid text of at most %d characters.", f.name, f.max))
		}
	}
	if s.Outbox == nil || s.Settings == nil {
		return fail(http.StatusInternalServerError, "The message could not be sent: mail is not configured.")
	}

	subject := "Contact Form: " + in.Subject
	if in.Subject == "" {
		subject = "Contact Form: Message from " + in.Name
	}
	text := fmt.Sprintf("Name: %s\nEmail: %s\n\nMessage:\n%s\n", in.Name, in.Email, in.Message)
	htmlBody := fmt.Sprintf("<p><strong>Name:</strong> %s<br><strong>Email:</strong> %s</p><p><strong>Message:</strong></p><p>%s</p>",
		html.EscapeString(in.Name), html.EscapeString(in.Email), strings.ReplaceAll(html.EscapeString(in.Message), "\n", "<br>"))
	msg := &folio.MailMessage{
		To:      []folio.MailAddress{folio.MailAddress(s.owner(r.Context()))},
		ReplyTo: &folio.MailAddress{Name: in.Name, Email: in.Email},
		Subject: subject, Text: text, HTML: htmlBody,
	}
	record := folio.ContactMessage{ID: folio.NewID(), Name: in.Name, Email: in.Email, Subject: in.Subject, Message: in.Message, CreatedAt: s.now().UTC()}
	stored := false
	_, err = s.Outbox.SendNowStoring(r.Context(), msg, func(ctx context.Context, item foliomail.OutboxItem) error {
		err := s.Contact.InsertContactMessage(ctx, record, item)
		stored = err == nil
		return err
	})
	if err != nil && !stored {
		var fe *folio.Error
		if errors.As(err, &fe) && fe.Code == folio.EINVALID {
			// The message was refused before anything was stored (e.g. a header rule).
			return fail(http.StatusBadRequest, "The message could not be accepted: "+fe.Message)
		}
		// Nothing was kept, so the visitor must not be told it will be delivered.
		s.log(r).Error("contact message could not be stored", "error", err.Error())
		return fail(http.StatusServiceUnavailable, "The message could not be saved right now. Please try again in a moment.")
	}
	if err != nil {
		s.recordConversion(r, folio.ConversionContact, record.ID)
		s.log(r).Warn("contact message stored but not sent; the outbox will retry", "contact_id", record.ID, "error", err.Error())
		return fail(http.StatusInternalServerError, "The message failed to send. It was saved and will be delivered later.")
	}
	s.recordConversion(r, folio.ConversionContact, record.ID)
	return writeJSON(w, http.StatusOK, contactSuccess{Success: true, Message: "Message sent successfully."})
}

func (s contactAPI) listContactMessages(w http.ResponseWriter, r *http.Request) error {
	page, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	items, total, err := s.Contact.ContactMessages(r.Context(), page, limit)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, contactList{Messages: items, Pagination: newPagination(page, limit, total)})
}

func (s contactAPI) listOutbox(w http.ResponseWriter, r *http.Request) error {
	page, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	status := r.URL.Query().Get("status")
	switch status {
	case "", foliomail.OutboxPending, foliomail.OutboxSent, foliomail.OutboxFailed, foliomail.OutboxDead:
	default:
		return folio.BadRequest("status", "must be pending, sent, failed or dead")
	}
	items, total, err := s.OutboxLog.OutboxEntries(r.Context(), status, page, limit)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, outboxList{Items: items, Pagination: newPagination(page, limit, total)})
}
