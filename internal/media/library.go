package media

import (
	"context"
	"fmt"
	"strings"

	"github.com/foliohq/folio"
)

// Store is what the media library needs of storage: the records of stored objects and the posts
// and projects that show them (mediatest holds its conformance suite).
type Store interface {
	// RecordMedia remembers a stored object; the same key again keeps its first record.
	RecordMedia(ctx context.Context, obj folio.MediaObject, source, prompt, createdBy string) error
	// Media lists records, newest first, with the total count; f.Query keeps those whose file
	// name or prompt contains it, in any case (LIKE wildcards are literal).
	Media(ctx context.Context, f folio.MediaFilter) ([]folio.MediaRecord, int, error)
	// MediaByURL returns the records whose URL is one of urls (the images a post shows, for
	// their srcset), in no particular order; unknown URLs are left out.
	MediaByURL(ctx context.Context, urls []string) ([]folio.MediaRecord, error)
	// MediaByKey returns the record of key, or ENOTFOUND.
	MediaByKey(ctx context.Context, key string) (folio.MediaRecord, error)
	// MediaUses lists the posts whose content or social image and the projects whose images or
	// long description contain any of terms, posts first.
	MediaUses(ctx context.Context, terms []string) ([]folio.MediaUse, error)
	// DeleteMedia removes the record of key (ENOTFOUND when missing) and announces the change
	// of the scopes of uses (their cached responses show the object).
	DeleteMedia(ctx context.Context, key string, uses []folio.MediaUse) error
}

// Library deletes stored media: the object, its variants and its record, unless posts or
// projects still use it.
type Library struct {
	Store Store
	Blobs folio.BlobStore
}

// Delete removes the object stored under key with its variants and its record. While a post or
// project uses it (by the key or URL of the object or of a variant), it is a 409 CONFLICT whose
// details list them, unless force is set. An unknown key is 404.
//
// The files go first: a failure then leaves the record, and deleting again finishes the job
// (deleting a missing file is no error), where the other order could leave files no record
// points to.
func (l Library) Delete(ctx context.Context, key string, force bool) error {
	rec, err := l.Store.MediaByKey(ctx, key)
	if err != nil {
		return err
	}
	terms := []string{rec.Key, rec.URL}
	for _, v := range rec.Variants {
		terms = append(terms, v.Key, v.URL)
	}
	uses, err := l.Store.MediaUses(ctx, narrowest(terms))
	if err != nil {
		return err
	}
	if len(uses) > 0 && !force {
		by := "1 post or project"
		if len(uses) > 1 {
			by = fmt.Sprintf("%d posts or projects", len(uses))
		}
		e := &folio.Error{Code: folio.ECONFLICT,
			Message: fmt.Sprintf("The file is shown by %s (details); remove it from them first, or delete it anyway with ?force=true.", by)}
		for _, u := range uses {
			e.Details = append(e.Details, folio.FieldError{Field: u.Type, ID: u.ID, Title: u.Title,
				Message: fmt.Sprintf("The %s %q (%s) shows this file.", u.Type, u.Title, u.ID)})
		}
		return e
	}
	for _, k := range append(variantKeys(rec.Variants), rec.Key) {
		if err := l.Blobs.Delete(ctx, k); err != nil {
			return fmt.Errorf("media: deleting %s: %w", k, err)
		}
	}
	return l.Store.DeleteMedia(ctx, key, uses)
}

func variantKeys(vs []folio.MediaVariant) []string {
	out := make([]string, 0, len(vs)+1)
	for _, v := range vs {
		out = append(out, v.Key)
	}
	return out
}

// narrowest drops empty terms and those containing another (an URL holds its key): whatever
// contains the longer one contains the shorter.
func narrowest(terms []string) []string {
	var out []string
	for i, t := range terms {
		redundant := t == ""
		for j, o := range terms {
			redundant = redundant || (o != "" && j != i && strings.Contains(t, o) && (t != o || j < i))
		}
		if !redundant {
			out = append(out, t)
		}
	}
	return out
}
