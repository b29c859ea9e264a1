package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/media"
)

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
