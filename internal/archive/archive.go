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
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/blob"
	"github.com/foliohq/folio/internal/media"
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

// Archive is a read, checked archive. Posts and media files are read again, one at a time, when
// it is applied, so what it holds in memory stays small whatever the archive's size.
type Archive struct {
	Projects []*folio.Project
	Profile  *folio.User
	Media    []folio.MediaEntry
	Settings folio.SettingsDoc    // nil when the archive has none
	posts    []*zip.File          // the posts/<slug>.md entries
	files    map[string]*zip.File // media key → entry
	// used counts the bytes inflated so far, against max.
	used, max int64
}

// Posts is the number of posts in the archive.
func (a *Archive) Posts() int { return len(a.posts) }

// Read parses and checks an archive without touching any database: every entry name must be
// one the archive format has, every document must parse and pass the API's rules for its
// fields, every media record must have its file and every media file its record. Nothing is
// taken from the headers' sizes: each entry is inflated through a limit (MaxPostFileBytes,
// MaxDocumentBytes, the upload size for media) and everything inflated counts against maxBytes
// (≤ 0: DefaultMaxBytes). A refused archive is a VALIDATION_ERROR naming the entry.
func Read(r io.ReaderAt, size, maxBytes int64) (*Archive, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, invalid("", "not a zip archive: %v", err)
	}
	if len(zr.File) > MaxEntries {
		return nil, invalid("", "more than %d entries", MaxEntries)
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	a := &Archive{files: map[string]*zip.File{}, max: maxBytes}
	seen := map[string]bool{}
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
			p, err := a.readPost(f, true)
			if err != nil {
				return nil, err
			}
			if err := checkPost(name, p); err != nil {
				return nil, err
			}
			a.posts = append(a.posts, f)
		case name == "projects.json":
			if err := a.readJSON(f, &a.Projects); err != nil {
				return nil, err
			}
			for i, p := range a.Projects {
				if p == nil {
					return nil, invalid(name, "project %d is null", i)
				}
				if p.Technologies == nil {
					p.Technologies = []string{}
				}
				if p.Images == nil {
					p.Images = []folio.ProjectImage{}
				}
				if err := checkProject(i, p); err != nil {
					return nil, err
				}
			}
		case name == "profile.json":
			if err := a.readJSON(f, &a.Profile); err != nil {
				return nil, err
			}
			if err := checkProfile(a.Profile); err != nil {
				return nil, err
			}
		case name == "media.json":
			if err := a.readJSON(f, &a.Media); err != nil {
				return nil, err
			}
		case name == "settings.json":
			if err := a.readJSON(f, &a.Settings); err != nil {
				return nil, err
			}
			a.Settings = a.Settings.WithoutSecrets() // secrets are never imported
			if err := a.Settings.Validate(); err != nil {
				return nil, invalid(name, "%v", err)
			}
		default:
			return nil, invalid(name, "not an entry of a folio archive")
		}
	}
	// Every file under media/ is a listed object or one of its variants, and every object has its
	// file. Variants' files are not used: the upload pipeline makes them again from the object.
	listed := map[string]bool{}
	for i, m := range a.Media {
		if err := checkMedia(i, m); err != nil {
			return nil, err
		}
		if a.files[m.Key] == nil {
			return nil, invalid("media.json", "media/%s is missing", m.Key)
		}
		listed[m.Key] = true
		for _, v := range m.Variants {
			listed[v.Key] = true
		}
	}
	for key := range a.files {
		if !listed[key] {
			return nil, invalid("media/"+key, "not listed in media.json")
		}
	}
	return a, nil
}

// spend counts n more inflated bytes of entry against the archive's bound.
func (a *Archive) spend(entry string, n int64) error {
	a.used += n
	if a.used > a.max {
		return invalid(entry, "the archive inflates to more than %d bytes (folio import --max-bytes)", a.max)
	}
	return nil
}

// readPost reads and parses posts/<slug>.md; count says whether its bytes count against the
// archive's bound (the first read does, Apply's second read of the same entry does not).
func (a *Archive) readPost(f *zip.File, count bool) (*folio.Post, error) {
	name := f.Name
	s := strings.TrimSuffix(strings.TrimPrefix(name, "posts/"), ".md")
	if !folio.ValidSlug(s) {
		return nil, invalid(name, "the file name is not a valid slug")
	}
	b, err := readDoc(f, MaxPostFileBytes)
	if err != nil {
		return nil, err
	}
	if count {
		if err := a.spend(name, int64(len(b))); err != nil {
			return nil, err
		}
	}
	p, err := UnmarshalPost(b)
	if err != nil {
		return nil, invalid(name, "%v", err)
	}
	if p.Slug != s || p.ID == "" {
		return nil, invalid(name, "the front matter needs an id and the slug of the file name")
	}
	return p, nil
}

func invalid(entry, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if entry == "" {
		return folio.BadRequest("archive", "The archive is refused: %s.", msg)
	}
	return folio.BadRequest("archive", "The archive is refused: %s: %s.", entry, msg)
}

// refused is a validation error of the API's rules as a refusal naming the entry (and the item
// in it, when the entry holds several): "posts/a.md: content must be at most 500000 characters".
func refused(entry, item string, err error) error {
	var fe *folio.Error
	if !errors.As(err, &fe) || len(fe.Details) == 0 {
		return err
	}
	parts := make([]string, len(fe.Details))
	for i, d := range fe.Details {
		parts[i] = d.Field + " " + d.Message
	}
	return invalid(entry, "%s%s", item, strings.Join(parts, "; "))
}

// checkPost applies the API's rules for a post (folio.PostInput.Validate, as on create) to an
// imported one, and bounds what the API never takes from a caller (id, author).
func checkPost(entry string, p *folio.Post) error {
	in := folio.PostInput{Title: &p.Title, Slug: &p.Slug, Content: &p.Content, Excerpt: &p.Excerpt, Category: &p.Category,
		Tags: &p.Tags, Status: &p.Status, Series: &p.Series, SEO: p.SEO, Settings: p.Settings}
	if err := in.Validate(true); err != nil {
		return refused(entry, "", err)
	}
	switch {
	case len(p.ID) > maxIDLen || len(p.Author.ID) > maxIDLen || len(p.ExtblogID) > maxIDLen:
		return invalid(entry, "an id is longer than %d bytes", maxIDLen)
	case utf8.RuneCountInString(p.Author.Name) > folio.MaxUserNameLen || len(p.Author.Email) > folio.MaxEmailLen:
		return invalid(entry, "the author's name or email is too long")
	}
	return nil
}

// checkProject applies folio.ProjectInput.Validate to the i-th project of projects.json.
func checkProject(i int, p *folio.Project) error {
	item := fmt.Sprintf("project %d: ", i)
	if p.ID == "" || len(p.ID) > maxIDLen {
		return invalid("projects.json", "%sthe id is empty or longer than %d bytes", item, maxIDLen)
	}
	in := folio.ProjectInput{Title: &p.Title, Description: &p.Description, LongDescription: &p.LongDescription,
		Technologies: &p.Technologies, Status: &p.Status, DemoURL: &p.DemoURL, SourceURL: &p.SourceURL, Images: &p.Images}
	return refused("projects.json", item, in.Validate())
}

// checkProfile applies folio.ProfileUpdate.Validate to the owner's profile, whose id, email and
// role also make the user an import may create.
func checkProfile(u *folio.User) error {
	switch {
	case u == nil || u.ID == "" || len(u.ID) > maxIDLen:
		return invalid("profile.json", "the profile needs an id of at most %d bytes", maxIDLen)
	case !folio.ValidEmail(u.Email):
		return invalid("profile.json", "email must be a plain email address")
	case u.Role != "" && !u.Role.Valid():
		return invalid("profile.json", "role must be owner or editor")
	}
	in := folio.ProfileUpdate{Name: &u.Name, Bio: &u.Bio, Location: &u.Location, Website: &u.Website}
	return refused("profile.json", "", in.Validate())
}

// checkMedia checks the i-th record of media.json: its key, and the fields the import keeps
// (the rest comes from the file).
func checkMedia(i int, m folio.MediaEntry) error {
	item := fmt.Sprintf("media %d: ", i)
	if err := blob.ValidateKey(m.Key); err != nil {
		return invalid("media.json", "%sinvalid media key %q", item, m.Key)
	}
	for _, v := range m.Variants {
		if err := blob.ValidateKey(v.Key); err != nil {
			return invalid("media.json", "%sinvalid variant key %q", item, v.Key)
		}
	}
	if _, err := media.CleanFilename(m.Filename); err != nil {
		return refused("media.json", item, err)
	}
	switch {
	case m.Source != "upload" && m.Source != "ai":
		return invalid("media.json", "%ssource must be upload or ai", item)
	case utf8.RuneCountInString(m.Prompt) > media.MaxPromptChars:
		return invalid("media.json", "%sprompt must be at most %d characters", item, media.MaxPromptChars)
	case len(m.CreatedBy) > maxIDLen:
		return invalid("media.json", "%screatedBy is longer than %d bytes", item, maxIDLen)
	}
	return nil
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

// readDoc inflates a document entry, refusing it beyond max bytes (whatever its header says).
func readDoc(f *zip.File, max int64) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, invalid(f.Name, "%v", err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		return nil, invalid(f.Name, "%v", err)
	}
	if int64(len(b)) > max {
		return nil, invalid(f.Name, "larger than %d bytes", max)
	}
	return b, nil
}

func (a *Archive) readJSON(f *zip.File, v any) error {
	b, err := readDoc(f, MaxDocumentBytes)
	if err != nil {
		return err
	}
	if err := a.spend(f.Name, int64(len(b))); err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return invalid(f.Name, "%v", err)
	}
	return nil
}

// Summary counts what an import wrote.
type Summary struct {
	Posts, Projects, Media int
	Profile, Settings      bool
	// Renamed counts the media files whose key in the archive was not their content address:
	// they are stored under it, and posts and projects referring to the old key are rewritten.
	Renamed int
}

// Apply writes a read archive into db, replacing rows with the same ids; applying it again
// changes nothing. Media go first, each through up exactly as an upload: its type is sniffed
// from its bytes against the allow-list, image metadata is stripped, it is stored under the
// content address of the result with variants made afresh, so nothing of the archive's keys,
// types or variant files is trusted and no key outside the media namespace can be written.
// Where a key changes, posts and projects referring to the old key are rewritten to the new
// one. A refused media file stops the import before any row is written.
func (a *Archive) Apply(ctx context.Context, db Importer, up *media.Uploader) (Summary, error) {
	var s Summary
	renamed := map[string]string{}
	stored := make([]folio.MediaEntry, 0, len(a.Media))
	for _, m := range a.Media {
		obj, err := a.upload(ctx, up, m)
		if err != nil {
			return s, err
		}
		e := folio.MediaEntry{Key: obj.Key, URL: obj.URL, Filename: obj.Filename, Size: obj.Size, ContentType: obj.ContentType,
			Width: obj.Width, Height: obj.Height, Source: m.Source, Prompt: m.Prompt, CreatedBy: m.CreatedBy, CreatedAt: m.CreatedAt,
			Blurhash: obj.Blurhash}
		for _, v := range obj.Variants {
			e.Variants = append(e.Variants, folio.MediaVariantEntry(v))
		}
		stored = append(stored, e)
		if m.Key != obj.Key {
			renamed[m.Key] = obj.Key
			s.Renamed++
		}
		// A reference to an old variant goes to the new variant of the same width, else to the object.
		for _, v := range m.Variants {
			to := obj.Key
			for _, nv := range obj.Variants {
				if nv.Width == v.Width {
					to = nv.Key
				}
			}
			if v.Key != to {
				renamed[v.Key] = to
			}
		}
	}
	for _, m := range stored {
		if err := db.ImportMedia(ctx, m); err != nil {
			return s, err
		}
		s.Media++
	}
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
	for i, p := range a.Projects {
		p.Description = renameRefs(p.Description, renamed)
		p.LongDescription = renameRefs(p.LongDescription, renamed)
		for j := range p.Images {
			p.Images[j].URL = renameRefs(p.Images[j].URL, renamed)
		}
		if err := checkProject(i, p); err != nil {
			return s, err
		}
		if err := db.ImportProject(ctx, p); err != nil {
			return s, err
		}
		s.Projects++
	}
	for _, f := range a.posts {
		p, err := a.readPost(f, false)
		if err != nil {
			return s, err
		}
		p.Content = renameRefs(p.Content, renamed)
		p.Excerpt = renameRefs(p.Excerpt, renamed)
		if p.SEO != nil {
			p.SEO.Image = renameRefs(p.SEO.Image, renamed)
		}
		if err := checkPost(f.Name, p); err != nil {
			return s, err
		}
		if err := db.ImportPost(ctx, p); err != nil {
			return s, err
		}
		s.Posts++
	}
	return s, nil
}

// upload runs one media file through the upload pipeline, keeping its original file name.
func (a *Archive) upload(ctx context.Context, up *media.Uploader, m folio.MediaEntry) (folio.MediaObject, error) {
	entry := "media/" + m.Key
	f := a.files[m.Key]
	rc, err := f.Open()
	if err != nil {
		return folio.MediaObject{}, invalid(entry, "%v", err)
	}
	defer rc.Close()
	r := &entryReader{r: rc, a: a, entry: entry}
	obj, err := up.FromReader(ctx, r, m.Filename, folio.BlobMeta{})
	var fe *folio.Error
	switch {
	case err == nil:
		return obj, nil
	case r.err != nil:
		return folio.MediaObject{}, r.err
	case errors.As(err, &fe):
		return folio.MediaObject{}, invalid(entry, "%s", strings.TrimSuffix(fe.Message, "."))
	}
	return folio.MediaObject{}, fmt.Errorf("archive: %s: %w", entry, err)
}

// entryReader counts what a media entry inflates to against the archive's bound, and turns
// inflation errors into refusals naming the entry (the upload pipeline would call them a
// malformed body).
type entryReader struct {
	r     io.Reader
	a     *Archive
	entry string
	err   error
}

func (e *entryReader) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.r.Read(p)
	if serr := e.a.spend(e.entry, int64(n)); serr != nil {
		e.err = serr
		return n, serr
	}
	if err != nil && err != io.EOF {
		e.err = invalid(e.entry, "%v", err)
		return n, e.err
	}
	return n, err
}

// renameRefs rewrites references to renamed media keys in s. A key counts where it follows a
// '/' and runs to the end of the URL (the end of s, white space, a quote, a bracket, '?', '#',
// '|', ',' or '`'), so "/media/photo.jpg" and "https://cdn.example/photo.jpg?w=1" change and
// "/media/photo.jpg.bak" does not.
func renameRefs(s string, renamed map[string]string) string {
	if len(renamed) == 0 {
		return s
	}
	longest := 0
	for k := range renamed {
		longest = max(longest, len(k))
	}
	var b strings.Builder
	last, end := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != '/' {
			continue
		}
		if end <= i { // the end of the URL this '/' is in (the same for every '/' in it)
			for end = i + 1; end < len(s) && !isRefEnd(s[end]); end++ {
			}
		}
		if end-i-1 > longest {
			continue
		}
		if to, ok := renamed[s[i+1:end]]; ok {
			b.WriteString(s[last : i+1])
			b.WriteString(to)
			last = end
			i = end - 1
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isRefEnd(c byte) bool { return strings.IndexByte(" \t\r\n\"'()<>[]?#|,`", c) >= 0 }
