package booking

import (
	"context"
	"database/sql"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/invite"
	"github.com/foliohq/folio/internal/mail"
)

// confirmationItems renders the visitor's and the owner's confirmation with the invite
// attached. A mail that cannot be built is logged and left out: mail never fails a booking.
func (s *Service) confirmationItems(ev folio.CalendarEvent, b *folio.Booking, visitorLoc *time.Location, now time.Time) []mail.OutboxItem {
	ev.ID = b.ID // the invite's UID is the booking's, as on the CalDAV and local calendars
	return s.bookingMails(invite.Booked, ev, b, visitorLoc, now, invite.Extras{}, true)
}

// bookingMails renders the visitor's and (when toOwner) the owner's mail of kind. The visitor
// gets the requester-free view (invite.ForVisitor) in both the text and the invite. A mail that
// cannot be built is logged and left out.
func (s *Service) bookingMails(kind invite.Kind, ev folio.CalendarEvent, b *folio.Booking, visitorLoc *time.Location, now time.Time, x invite.Extras, toOwner bool) []mail.OutboxItem {
	if s.Mail == nil || s.Outbox == nil {
		return nil
	}
	if visitorLoc == nil {
		visitorLoc = s.config().Location
	}
	method := "REQUEST"
	if kind == invite.Cancelled {
		method = "CANCEL"
	}
	visitor := folio.MailAddress{Name: b.AttendeeName, Email: b.AttendeeEmail}
	owner := folio.MailAddress(ev.Organizer)
	var items []mail.OutboxItem
	for _, forOwner := range []bool{false, true} {
		if forOwner && !toOwner {
			continue
		}
		to, replyTo, view := visitor, owner, invite.ForVisitor(ev)
		x.Answers = nil
		if forOwner {
			to, replyTo, view = owner, visitor, ev
			x.Answers = b.Answers // the visitor's answers go to the owner only
		}
		if to.Email == "" {
			continue
		}
		c, err := invite.BookingMail(kind, view, s.config().Location, visitorLoc, forOwner, x)
		if err != nil {
			s.log().Error("booking: mail not rendered", "booking_id", b.ID, "kind", string(kind), "error", err.Error())
			continue
		}
		m := &folio.MailMessage{To: []folio.MailAddress{to}, Subject: c.Subject, Text: c.Text, HTML: c.HTML,
			Headers: map[string]string{"Auto-Submitted": "auto-generated"}}
		if kind != invite.Reminder {
			ics, err := invite.InviteICS(view, method, now)
			if err != nil {
				s.log().Error("booking: invite not rendered", "booking_id", b.ID, "error", err.Error())
				continue
			}
			m.Attachments = []folio.MailAttachment{{Filename: "invite.ics", ContentType: "text/calendar; method=" + method + "; charset=UTF-8", Data: ics}}
		}
		if replyTo.Email != "" {
			m.ReplyTo = &replyTo
		}
		it, err := s.Mail.NewItem(m)
		if err != nil {
			s.log().Error("booking: mail not queued", "booking_id", b.ID, "for_owner", forOwner, "error", err.Error())
			continue
		}
		items = append(items, it)
	}
	return items
}

func (s *Service) insertMails(ctx context.Context, tx *sql.Tx, items []mail.OutboxItem) error {
	for _, it := range items {
		if err := s.Outbox.InsertOutboxTx(ctx, tx, it); err != nil {
			return err
		}
	}
	return nil
}
