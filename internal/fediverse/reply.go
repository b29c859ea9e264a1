package fediverse

import (
	"context"
	"html"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/foliohq/folio"
)

// MaxReplyLen bounds the owner's reply to a comment, in characters (Mastodon's own limit is 500
// by default; other servers take more, and a Note is not cut).
const MaxReplyLen = 5000

// ReplyInput is the owner's answer to a comment, in Markdown.
type ReplyInput struct {
	Content string `json:"content" doc:"the answer, Markdown (1-5000 characters)"`
}

// Note is a Note the site sends: the owner's reply to a comment from the fediverse.
type Note struct {
	Context      any       `json:"@context,omitempty"`
	ID           string    `json:"id"`
	Type         string    `json:"type"`
	AttributedTo string    `json:"attributedTo"`
	InReplyTo    string    `json:"inReplyTo"`
	Content      string    `json:"content"`
	URL          string    `json:"url"`
	Published    time.Time `json:"published"`
	To           []string  `json:"to"`
	Cc           []string  `json:"cc"`
	Tag          []Mention `json:"tag"`
}

// Mention tags the account a Note answers, so its server notifies it.
type Mention struct {
	Type string `json:"type"`
	Href string `json:"href"`
	Name string `json:"name,omitempty"`
}

// NoteID is the id (and URL) of the Note of the owner's reply with the given comment id.
func (s *Service) NoteID(replyID string) string { return s.siteURL() + "/ap/notes/" + replyID }

// Reply answers comment id with a Note: stored as an approved comment of the owner's (InReplyTo
// the comment), then delivered signed, through the job queue, to the author's inbox. Only a
// reply from the fediverse can be answered so (422 otherwise); the author's actor is read
// again for its inbox (502 when it cannot be).
func (s *Service) Reply(ctx context.Context, id string, in ReplyInput) (folio.Comment, error) {
	text := strings.TrimSpace(in.Content)
	if text == "" {
		return folio.Comment{}, folio.BadRequest("content", "is required")
	}
	if utf8.RuneCountInString(text) > MaxReplyLen {
		return folio.Comment{}, ruleBroken("content", "must be at most %d characters", MaxReplyLen)
	}
	parent, err := s.Store.Comment(ctx, id)
	if err != nil {
		return folio.Comment{}, err
	}
	if parent.Source != folio.CommentActivityPub || parent.InReplyTo != "" {
		return folio.Comment{}, ruleBroken("id", "only a reply from the fediverse can be answered with a Note")
	}
	authorID := parent.AuthorID
	if authorID == "" { // stored before authors were kept: the Note names its author
		var n note
		if err := s.fetch(ctx, parent.SourceID, &n); err != nil || n.AttributedTo == "" {
			return folio.Comment{}, folio.Errorf(folio.EUPSTREAM, "The comment's Note could not be read for its author.")
		}
		authorID = n.AttributedTo
	}
	var who remoteActor
	if err := s.fetch(ctx, authorID, &who); err != nil || who.Inbox == "" {
		return folio.Comment{}, folio.Errorf(folio.EUPSTREAM, "The author's actor document could not be read.")
	}
	profile, _ := who.URL.(string)
	if profile == "" {
		profile = authorID
	}
	handle := ""
	if u, err := url.Parse(authorID); err == nil && who.PreferredUsername != "" {
		handle = "@" + who.PreferredUsername + "@" + u.Host
	}
	now := s.now().UTC()
	reply := folio.Comment{ID: folio.NewID(), PostID: parent.PostID, Source: folio.CommentActivityPub, AuthorID: s.ActorID(),
		AuthorName: s.displayName(), AuthorURL: s.siteURL(), Status: folio.CommentApproved, InReplyTo: parent.ID,
		PublishedAt: now, CreatedAt: now}
	reply.SourceID, reply.URL = s.NoteID(reply.ID), s.NoteID(reply.ID)
	reply.Content = s.md.Sanitize(mentionHTML(profile, handle) + s.md.Render(text))
	if err := s.Store.SaveComment(ctx, reply); err != nil {
		return folio.Comment{}, err
	}
	n := s.note(reply, parent, authorID, handle)
	create := Activity{Context: ActivityStreams, ID: n.ID + "/activity", Type: "Create", Actor: s.ActorID(),
		Published: &n.Published, To: n.To, Cc: n.Cc, Object: n}
	if err := s.queue(ctx, "reply:"+reply.ID, who.Inbox, create); err != nil {
		return folio.Comment{}, err
	}
	return reply, nil
}

// mentionHTML is the paragraph that opens a reply: a link to the author, as Mastodon writes
// mentions.
func mentionHTML(profile, handle string) string {
	if handle == "" {
		return ""
	}
	return `<p><a href="` + html.EscapeString(profile) + `" class="u-url mention">` + html.EscapeString(handle) + `</a></p>`
}

// note is the Note of an owner's reply to parent, whose author is authorID: public, addressed
// to the author and mentioning it.
func (s *Service) note(reply, parent folio.Comment, authorID, handle string) Note {
	return Note{ID: reply.SourceID, Type: "Note", AttributedTo: s.ActorID(), InReplyTo: parent.SourceID,
		Content: reply.Content, URL: reply.URL, Published: reply.PublishedAt.UTC(),
		To: []string{authorID, publicAudience}, Cc: []string{s.followersURL()},
		Tag: []Mention{{Type: "Mention", Href: authorID, Name: handle}}}
}

// PublishedNote returns the Note of an owner's reply (GET /ap/notes/{id}), ENOTFOUND for any
// other comment.
func (s *Service) PublishedNote(ctx context.Context, id string) (Note, error) {
	reply, err := s.Store.Comment(ctx, id)
	if err == nil && (reply.InReplyTo == "" || reply.SourceID != s.NoteID(id)) {
		err = folio.Errorf(folio.ENOTFOUND, "No note %s.", id)
	}
	if err != nil {
		return Note{}, err
	}
	parent, err := s.Store.Comment(ctx, reply.InReplyTo)
	if err != nil {
		return Note{}, err
	}
	n := s.note(reply, parent, parent.AuthorID, "")
	n.Context = ActivityStreams
	return n, nil
}

// ruleBroken is a 422 naming field.
func ruleBroken(field, format string, args ...any) error {
	var v folio.Validation
	v.Invalid(field, format, args...)
	return v.Err()
}
