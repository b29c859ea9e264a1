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
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/blob"
)

// entryTime is the modification time of every entry: fixed, so archives of equal content are
// equal byte for byte.
var entryTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Limits of what Read accepts.
const (
	MaxEntries       = 100_000
	MaxDocumentBytes = 16 << 20 // one post, projects.json, profile.json, media.json, settings.json
)

// FrontMatter is a post's YAML header: every field of the post but its content.
type FrontMatter struct {
	ID                      string         `yaml:"id"`
	Slug                    string         `yaml:"slug"`
	Title                   string         `yaml:"title"`
	Excerpt                 string         `yaml:"excerpt"`
	Category                string         `yaml:"category"`
	Tags                    []string       `yaml:"tags"`
	Status                  string         `yaml:"status"`
	PublishedAt             *time.Time     `yaml:"publishedAt"`
	CreatedAt               time.Time      `yaml:"createdAt"`
	UpdatedAt               time.Time      `yaml:"updatedAt"`
	Author                  Author         `yaml:"author"`
	ExtblogID               string         `yaml:"extblogId"`
	Series                  string         `yaml:"series"`
	SEO                     *SEO           `yaml:"seo"`
	Settings                *Settings      `yaml:"settings"`
	ScheduledAt             *time.Time     `yaml:"scheduledAt"`
	CrossPlatformPublishing *CrossPlatform `yaml:"crossPlatformPublishing"`
	ArchivedAt              *time.Time     `yaml:"archivedAt"`
}

// Author is a post's author in the front matter.
type Author struct {
	ID    string `yaml:"id"`
	Name  string `yaml:"name"`
	Email string `yaml:"email"`
}

// SEO mirrors folio.PostSEO.
type SEO struct {
	Title       string `yaml:"title"`
	Description string `yaml:"description"`
	Image       string `yaml:"image"`
}

// Settings mirrors folio.PostSettings.
type Settings struct {
	EnableComments  bool `yaml:"enableComments"`
	EnableReactions bool `yaml:"enableReactions"`
	Newsletter      bool `yaml:"newsletter"`
}

// CrossPlatform mirrors folio.CrossPlatformPublishing.
type CrossPlatform struct {
	Extblog bool `yaml:"extblog"`
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := t.UTC()
	return &v
}

func frontMatter(p *folio.Post) FrontMatter {
	fm := FrontMatter{ID: p.ID, Slug: p.Slug, Title: p.Title, Excerpt: p.Excerpt, Category: p.Category, Tags: p.Tags,
		Status: p.Status, PublishedAt: utc(p.PublishedAt), CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC(),
		Author: Author{ID: p.Author.ID, Name: p.Author.Name, Email: p.Author.Email}, ExtblogID: p.ExtblogID,
		Series: p.Series, ScheduledAt: utc(p.ScheduledAt), ArchivedAt: utc(p.ArchivedAt)}
	if fm.Tags == nil {
		fm.Tags = []string{}
	}
	if p.SEO != nil {
		fm.SEO = &SEO{Title: p.SEO.Title, Description: p.SEO.Description, Image: p.SEO.Image}
	}
	if p.Settings != nil {
		fm.Settings = &Settings{EnableComments: p.Settings.EnableComments, EnableReactions: p.Settings.EnableReactions, Newsletter: p.Settings.Newsletter}
	}
	if p.CrossPlatformPublishing != nil {
		fm.CrossPlatformPublishing = &CrossPlatform{Extblog: p.CrossPlatformPublishing.Extblog}
	}
	return fm
}

func (fm FrontMatter) post(content string) *folio.Post {
	p := &folio.Post{Content: content}
	p.ID, p.Slug, p.Title, p.Excerpt, p.Category, p.Tags, p.Status = fm.ID, fm.Slug, fm.Title, fm.Excerpt, fm.Category, fm.Tags, fm.Status
	if p.Tags == nil {
		p.Tags = []string{}
	}
	p.PublishedAt, p.CreatedAt, p.UpdatedAt = utc(fm.PublishedAt), fm.CreatedAt.UTC(), fm.UpdatedAt.UTC()
	p.Author = folio.PostAuthor{ID: fm.Author.ID, Name: fm.Author.Name, Email: fm.Author.Email}
	p.ExtblogID, p.Series, p.ScheduledAt, p.ArchivedAt = fm.ExtblogID, fm.Series, utc(fm.ScheduledAt), utc(fm.ArchivedAt)
	if fm.SEO != nil {
		p.SEO = &folio.PostSEO{Title: fm.SEO.Title, Description: fm.SEO.Description, Image: fm.SEO.Image}
	}
	if fm.Settings != nil {
		p.Settings = &folio.PostSettings{EnableComments: fm.Settings.EnableComments, EnableReactions: fm.Settings.EnableReactions, Newsletter: fm.Settings.Newsletter}
	}
	if fm.CrossPlatformPublishing != nil {
		p.CrossPlatformPublishing = &folio.CrossPlatformPublishing{Extblog: fm.CrossPlatformPublishing.Extblog}
	}
	return p
}

// MarshalPost renders a post file: "---", the front matter, "---", the content as stored.
func MarshalPost(p *folio.Post) ([]byte, error) {
	y, err := yaml.Marshal(frontMatter(p))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(y)
	b.WriteString("---\n")
	b.WriteString(p.Content)
	return b.Bytes(), nil
}

// UnmarshalPost parses a post file made by MarshalPost.
func UnmarshalPost(data []byte) (*folio.Post, error) {
	s := string(data)
	if !strings.HasPrefix(s, "---\n") {
		return nil, errors.New("no front matter (the file must start with ---)")
	}
	end := strings.Index(s[4:], "\n---\n")
	if end < 0 {
		return nil, errors.New("the front matter is not closed by ---")
	}
	var fm FrontMatter
	dec := yaml.NewDecoder(strings.NewReader(s[4 : 4+end+1]))
	dec.KnownFields(true)
	if err := dec.Decode(&fm); err != nil {
		return nil, fmt.Errorf("front matter: %w", err)
	}
	return fm.post(s[4+end+5:]), nil
}

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

// Export writes the archive of everything in db (and the media files in store) to w.
func Export(ctx context.Context, db Source, store folio.BlobStore, w io.Writer) error {
	posts, err := db.AllPosts(ctx)
	if err != nil {
		return err
	}
	projects, err := db.AllProjects(ctx)
	if err != nil {
		return err
	}
	media, err := db.AllMedia(ctx)
	if err != nil {
		return err
	}
	settings, _, err := db.SettingsDocument(ctx)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	add := func(name string, method uint16, body io.Reader) error {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: entryTime})
		if err != nil {
			return err
		}
		_, err = io.Copy(f, body)
		return err
	}
	addJSON := func(name string, v any) error {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		return add(name, zip.Deflate, bytes.NewReader(append(b, '\n')))
	}
	// Entries in name order: media.json, media/…, posts/…, profile.json, projects.json,
	// settings.json.
	if err := addJSON("media.json", media); err != nil {
		return err
	}
	if store != nil {
		for _, m := range media {
			// The object and its variants ("<sha>-w640.jpg" sorts before "<sha>.jpg"), in name order.
			keys := []string{m.Key}
			for _, v := range m.Variants {
				keys = append(keys, v.Key)
			}
			sort.Strings(keys)
			for _, key := range keys {
				rc, _, err := store.Get(ctx, key)
				if err != nil {
					return fmt.Errorf("archive: media %s: %w", key, err)
				}
				err = add("media/"+key, zip.Store, rc) // media is compressed already
				rc.Close()
				if err != nil {
					return err
				}
			}
		}
	}
	sort.Slice(posts, func(i, j int) bool { return posts[i].Slug < posts[j].Slug })
	for _, p := range posts {
		b, err := MarshalPost(p)
		if err != nil {
			return err
		}
		if err := add("posts/"+p.Slug+".md", zip.Deflate, bytes.NewReader(b)); err != nil {
			return err
		}
	}
	profile, err := db.OwnerProfile(ctx)
	if err != nil && !folio.IsNotFound(err) {
		return err
	}
	if profile != nil {
		if err := addJSON("profile.json", profile); err != nil {
			return err
		}
	}
	if err := addJSON("projects.json", projects); err != nil {
		return err
	}
	if settings = settings.WithoutSecrets(); len(settings) > 0 {
		if err := addJSON("settings.json", settings); err != nil {
			return err
		}
	}
	return zw.Close()
}

// Archive is a read, checked archive; media file bodies are read when applied.
type Archive struct {
	Posts    []*folio.Post
	Projects []*folio.Project
	Profile  *folio.User
	Media    []folio.MediaEntry
	Settings folio.SettingsDoc    // nil when the archive has none
	files    map[string]*zip.File // media key → entry
}

// Read parses and checks an archive without touching any database: every entry name must be
// one the archive format has, every document must parse, and every media record must have its
// file. A refused archive is a VALIDATION_ERROR naming the entry.
func Read(r io.ReaderAt, size int64) (*Archive, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, invalid("", "not a zip archive: %v", err)
	}
	if len(zr.File) > MaxEntries {
		return nil, invalid("", "more than %d entries", MaxEntries)
	}
	a := &Archive{files: map[string]*zip.File{}}
	seen := map[string]bool{}
	slugs := map[string]bool{}
	for _, f := range zr.File {
		name := f.Name
		if err := checkName(name); err != nil {
			return nil, invalid(name, "%v", err)
		}
		if seen[name] {
			return nil, invalid(name, "appears twice")
		}
		seen[name] = true
		switch {
		case strings.HasSuffix(name, "/") && (name == "posts/" || name == "media/"):
			continue // a directory entry some zip tools add
		case strings.HasPrefix(name, "media/"):
			key := strings.TrimPrefix(name, "media/")
			if err := blob.ValidateKey(key); err != nil {
				return nil, invalid(name, "not a media key")
			}
			a.files[key] = f
		case strings.HasPrefix(name, "posts/") && strings.HasSuffix(name, ".md"):
			s := strings.TrimSuffix(strings.TrimPrefix(name, "posts/"), ".md")
			if !folio.ValidSlug(s) {
				return nil, invalid(name, "the file name is not a valid slug")
			}
			b, err := readDoc(f)
			if err != nil {
				return nil, invalid(name, "%v", err)
			}
			p, err := UnmarshalPost(b)
			if err != nil {
				return nil, invalid(name, "%v", err)
			}
			if p.Slug != s || p.ID == "" || (p.Status != folio.PostPublished && p.Status != folio.PostDraft) || slugs[p.Slug] {
				return nil, invalid(name, "the front matter needs an id, a status (published or draft) and the slug of the file name")
			}
			slugs[p.Slug] = true
			a.Posts = append(a.Posts, p)
		case name == "projects.json":
			if err := readJSON(f, &a.Projects); err != nil {
				return nil, invalid(name, "%v", err)
			}
			for i, p := range a.Projects {
				if p == nil || p.ID == "" || p.Title == "" {
					return nil, invalid(name, "project %d has no id or title", i)
				}
				if p.Technologies == nil {
					p.Technologies = []string{}
				}
				if p.Images == nil {
					p.Images = []folio.ProjectImage{}
				}
			}
		case name == "profile.json":
			if err := readJSON(f, &a.Profile); err != nil {
				return nil, invalid(name, "%v", err)
			}
			if a.Profile == nil || a.Profile.ID == "" || a.Profile.Email == "" {
				return nil, invalid(name, "the profile needs an id and an email")
			}
		case name == "media.json":
			if err := readJSON(f, &a.Media); err != nil {
				return nil, invalid(name, "%v", err)
			}
		case name == "settings.json":
			if err := readJSON(f, &a.Settings); err != nil {
				return nil, invalid(name, "%v", err)
			}
			a.Settings = a.Settings.WithoutSecrets() // secrets are never imported
			if err := a.Settings.Validate(); err != nil {
				return nil, invalid(name, "%v", err)
			}
		default:
			return nil, invalid(name, "not an entry of a folio archive")
		}
	}
	for _, m := range a.Media {
		if err := blob.ValidateKey(m.Key); err != nil {
			return nil, invalid("media.json", "invalid media key %q", m.Key)
		}
		if a.files[m.Key] == nil {
			return nil, invalid("media.json", "media/%s is missing", m.Key)
		}
		for _, v := range m.Variants {
			if blob.ValidateKey(v.Key) != nil || a.files[v.Key] == nil {
				return nil, invalid("media.json", "variant media/%s is missing or invalid", v.Key)
			}
		}
	}
	return a, nil
}

func invalid(entry, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if entry == "" {
		return folio.BadRequest("archive", "The archive is refused: %s.", msg)
	}
	return folio.BadRequest("archive", "The archive is refused: %s: %s.", entry, msg)
}

// checkName refuses names that could leave the archive's tree when extracted or that are not
// in canonical form.
func checkName(name string) error {
	switch {
	case name == "" || len(name) > 1024:
		return errors.New("empty or overlong name")
	case strings.ContainsAny(name, "\\\x00:"):
		return errors.New("backslash, colon or NUL in the name")
	case strings.HasPrefix(name, "/"):
		return errors.New("absolute name")
	}
	clean := path.Clean(name)
	if strings.HasSuffix(name, "/") {
		clean += "/"
	}
	if clean != name || clean == ".." || strings.HasPrefix(clean, "../") || strings.Contains(name, "/../") {
		return errors.New("the name is not canonical (., .. or repeated slashes)")
	}
	return nil
}

func readDoc(f *zip.File) ([]byte, error) {
	if f.UncompressedSize64 > MaxDocumentBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxDocumentBytes)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, MaxDocumentBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxDocumentBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxDocumentBytes)
	}
	return b, nil
}

func readJSON(f *zip.File, v any) error {
	b, err := readDoc(f)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// Summary counts what an import wrote.
type Summary struct {
	Posts, Projects, Media int
	Profile, Settings      bool
}

// Apply writes a read archive into db and its media files into store (nil: media skipped),
// replacing rows with the same ids. Applying it again changes nothing.
func (a *Archive) Apply(ctx context.Context, db Importer, store folio.BlobStore, maxMediaBytes int64) (Summary, error) {
	var s Summary
	if a.Profile != nil {
		if err := db.ImportProfile(ctx, a.Profile); err != nil {
			return s, err
		}
		s.Profile = true
	}
	if a.Settings != nil {
		if err := db.ImportSettings(ctx, a.Settings); err != nil {
			return s, err
		}
		s.Settings = true
	}
	for _, p := range a.Projects {
		if err := db.ImportProject(ctx, p); err != nil {
			return s, err
		}
		s.Projects++
	}
	for _, p := range a.Posts {
		if err := db.ImportPost(ctx, p); err != nil {
			return s, err
		}
		s.Posts++
	}
	if store == nil {
		return s, nil
	}
	put := func(key, contentType string) error {
		f := a.files[key]
		if maxMediaBytes > 0 && f.UncompressedSize64 > uint64(maxMediaBytes) {
			return invalid("media/"+key, "larger than %d bytes", maxMediaBytes)
		}
		rc, err := f.Open()
		if err != nil {
			return invalid("media/"+key, "%v", err)
		}
		var body io.Reader = rc
		if maxMediaBytes > 0 {
			body = io.LimitReader(rc, maxMediaBytes)
		}
		err = store.Put(ctx, key, body, int64(f.UncompressedSize64), folio.BlobMeta{ContentType: contentType})
		rc.Close()
		if err != nil {
			return fmt.Errorf("archive: store media %s: %w", key, err)
		}
		return nil
	}
	for _, m := range a.Media {
		if err := put(m.Key, m.ContentType); err != nil {
			return s, err
		}
		m.URL = store.URL(m.Key) // where this site serves it (the archive may come from another)
		variants := make([]folio.MediaVariantEntry, len(m.Variants))
		for i, v := range m.Variants {
			ct := "image/jpeg"
			if strings.HasSuffix(v.Key, ".png") {
				ct = "image/png"
			}
			if err := put(v.Key, ct); err != nil {
				return s, err
			}
			v.URL = store.URL(v.Key)
			variants[i] = v
		}
		m.Variants = variants
		if err := db.ImportMedia(ctx, m); err != nil {
			return s, err
		}
		s.Media++
	}
	return s, nil
}
