// Package archive exports a folio site's content into one zip and imports it back (docs/api.md,
// "Export"):
//
//	posts/<slug>.md   one post: YAML front matter with every field, then the Markdown content
//	projects.json     every project, as the API shows them
//	profile.json      the owner's profile
//	media.json        the media library's records (storage keys, sizes, who and when)
//	media/<key>       the media files
//	settings.json     the settings the owner changed (field path → value), secrets left out
//
// The archive is deterministic (entries sorted, fixed modification times), so export → import
// into an empty site → export gives the same bytes. Import is idempotent: ids and slugs are
// kept and rows are replaced by id. Reading refuses every path trick (absolute names, "..",
// backslashes, duplicates, unknown entries) and bounds what it inflates.
package archive

import (
	"context"
	"time"

	"github.com/foliohq/folio"
)

// entryTime is the modification time of every entry: fixed, so archives of equal content are
// equal byte for byte.
var entryTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Limits of what Read and Apply accept.
const (
	MaxEntries = 100_000
	// MaxPostFileBytes bounds one posts/<slug>.md as it is inflated, before it is parsed: the
	// longest content the API accepts (folio.MaxPostContentLen characters of at most 4 bytes)
	// and 64 KiB of front matter.
	MaxPostFileBytes = 4*folio.MaxPostContentLen + 64<<10
	// MaxDocumentBytes bounds projects.json, profile.json, media.json and settings.json.
	MaxDocumentBytes = 16 << 20
	// DefaultMaxBytes bounds everything an archive inflates to (folio import --max-bytes).
	DefaultMaxBytes = 4 << 30
	// maxIDLen bounds the ids an archive carries (folio's are 36-character UUIDs).
	maxIDLen = 100
)

// Source is what Export reads.
type Source interface {
	AllPosts(ctx context.Context) ([]*folio.Post, error)
	AllProjects(ctx context.Context) ([]*folio.Project, error)
	AllMedia(ctx context.Context) ([]folio.MediaEntry, error)
	// OwnerProfile returns the site owner's profile, or ENOTFOUND when there is no owner yet.
	OwnerProfile(ctx context.Context) (*folio.User, error)
	// SettingsDocument returns the settings the owner changed and their version.
	SettingsDocument(ctx context.Context) (folio.SettingsDoc, int64, error)
}

// Importer is what Apply writes to: each call replaces the row with the same id.
type Importer interface {
	ImportProfile(ctx context.Context, u *folio.User) error
	ImportProject(ctx context.Context, p *folio.Project) error
	ImportPost(ctx context.Context, p *folio.Post) error
	ImportMedia(ctx context.Context, m folio.MediaEntry) error
	// ImportSettings replaces the stored settings by doc (which holds no secret), keeping the
	// stored secrets.
	ImportSettings(ctx context.Context, doc folio.SettingsDoc) error
}
