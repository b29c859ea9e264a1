package archive

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/foliohq/folio"
)

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
