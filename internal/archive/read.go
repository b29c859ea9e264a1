package archive

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/blob"
	"github.com/foliohq/folio/internal/media"
)

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
