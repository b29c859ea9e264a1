package httpapi

import (
	"context"
	"io"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/media"
)

// The stores the kernel and the resources of this file's neighbours use, each as narrow as its
// user; internal/cli passes the SQL stores in.

// Pinger tells whether the database answers (GET /readyz).
type Pinger interface {
	Ping(ctx context.Context) error
}

// Notifier tells every instance that a cache scope changed (the extblog listing).
type Notifier interface {
	Notify(ctx context.Context, scope string) error
}

// MediaLibrary records stored media, lists and searches them, finds the images a post shows (for
// their srcset, blog.go) and what uses them (mediaAPI).
type MediaLibrary = media.Store

// WebhookStore keeps the outgoing webhooks and their delivery logs (webhookAPI).
type WebhookStore interface {
	CreateWebhook(ctx context.Context, h folio.Webhook, secret string) error
	Webhooks(ctx context.Context) ([]folio.Webhook, error)
	Webhook(ctx context.Context, id string) (folio.Webhook, string, error)
	DeleteWebhook(ctx context.Context, id string) error
	QueueTestDelivery(ctx context.Context, hookID string, data any) (string, error)
	OutgoingDelivery(ctx context.Context, id string) (folio.OutgoingDelivery, error)
	WebhookDeliveries(ctx context.Context, hookID string, page, limit int) ([]folio.WebhookDelivery, int, error)
}

// AuditLog lists the audit log's entries (auditAPI); audit.Writer writes them.
type AuditLog interface {
	AuditEntries(ctx context.Context, f folio.AuditFilter) ([]folio.AuditEntry, int, error)
}

// Exporter writes the whole-site archive (posts, projects, the profile and the media files of
// media) as a zip to w (exportAPI; internal/archive).
type Exporter interface {
	Export(ctx context.Context, media folio.BlobStore, w io.Writer) error
}

// UserDirectory counts the users, for whether the instance still needs its first (dashboardAPI),
// and lists them, so the audit log can name the people in it (auditAPI).
type UserDirectory interface {
	CountUsers(ctx context.Context) (int, error)
	Users(ctx context.Context) ([]*folio.User, error)
}

// OutboxLog lists the mail outbox's items with their delivery status (GET /api/mail/outbox).
type OutboxLog interface {
	OutboxEntries(ctx context.Context, status string, page, limit int) ([]folio.OutboxEntry, int, error)
}

// CommentStore lists and moderates comments and counts posts' reactions (commentsAPI).
type CommentStore interface {
	Comments(ctx context.Context, f folio.CommentFilter) ([]folio.Comment, int, error)
	Comment(ctx context.Context, id string) (folio.Comment, error)
	SetCommentStatus(ctx context.Context, id, status string) error
	Reactions(ctx context.Context, postID string) (folio.Reactions, error)
}
