package blob

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/foliohq/folio"
)

// Directories inside the local root that hold the store's own files. Their names start with
// '.', which ValidateKey refuses, so no key can reach them and the handler never serves them.
const (
	localMetaDir = ".meta"
	localTmpDir  = ".tmp"
)

// Local stores objects as files under one directory. Object bytes live at <dir>/<key>, their
// metadata in a JSON sidecar at <dir>/.meta/<key>.json. All file access goes through an os.Root,
// so neither a crafted key nor a symlink planted in the directory can reach outside it.
type Local struct {
	root    *os.Root
	baseURL string
	// MountPath is the URL path prefix Handler strips before looking up a key; default "/media/".
	MountPath string
}

var _ folio.BlobStore = (*Local)(nil) // compile-time check

// localMeta is the sidecar JSON of one object.
type localMeta struct {
	ContentType  string            `json:"contentType"`
	OriginalName string            `json:"originalName,omitempty"`
	Extra        map[string]string `json:"extra,omitempty"`
	Size         int64             `json:"size"`
	SHA256       string            `json:"sha256"`
}

// NewLocal opens (creating it when missing) the directory dir as a store whose objects are
// publicly reachable at publicBaseURL + "/" + key; publicBaseURL defaults to "/media".
// Close releases the directory handle.
func NewLocal(dir, publicBaseURL string) (*Local, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("blob.NewLocal: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("blob.NewLocal: %w", err)
	}
	for _, d := range []string{localMetaDir, localTmpDir} {
		if err := root.MkdirAll(d, 0o755); err != nil {
			root.Close()
			return nil, fmt.Errorf("blob.NewLocal: %w", err)
		}
	}
	if publicBaseURL == "" {
		publicBaseURL = "/media"
	}
	return &Local{root: root, baseURL: strings.TrimRight(publicBaseURL, "/"), MountPath: "/media/"}, nil
}

// Close releases the store's directory handle.
func (l *Local) Close() error { return l.root.Close() }

// URL returns publicBaseURL + "/" + key with each segment escaped.
func (l *Local) URL(key string) string { return joinURL(l.baseURL, key) }

// Put writes the object to a temporary file in the store and renames it into place, so a
// reader never sees a partial object. When size ≥ 0 a body of any other length is an error and
// nothing is stored.
func (l *Local) Put(ctx context.Context, key string, r io.Reader, size int64, meta folio.BlobMeta) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	tmpName := path.Join(localTmpDir, rand.Text())
	perm := os.FileMode(0o644)
	if strings.HasPrefix(key, PrivatePrefix) {
		perm = 0o600 // database snapshots hold password hashes and secrets
	}
	f, err := l.root.OpenFile(tmpName, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("blob.Local.Put: %w", err)
	}
	defer l.root.Remove(tmpName) // no-op after the rename
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), ctxReader{ctx, r})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("blob.Local.Put: %w", err)
	}
	if size >= 0 && n != size {
		return fmt.Errorf("blob.Local.Put: body has %d bytes, want %d", n, size)
	}
	if dir := path.Dir(key); dir != "." {
		if err := l.root.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("blob.Local.Put: %w", err)
		}
	}
	m := localMeta{ContentType: meta.ContentType, OriginalName: meta.OriginalName, Extra: meta.Extra,
		Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}
	// The sidecar goes first: once the object is visible its metadata is too.
	if err := l.writeMeta(key, m); err != nil {
		return fmt.Errorf("blob.Local.Put: %w", err)
	}
	if err := l.root.Rename(tmpName, key); err != nil {
		return fmt.Errorf("blob.Local.Put: %w", err)
	}
	return nil
}

func (l *Local) writeMeta(key string, m localMeta) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	metaName := path.Join(localMetaDir, key+".json")
	if err := l.root.MkdirAll(path.Dir(metaName), 0o755); err != nil {
		return err
	}
	tmpName := path.Join(localTmpDir, rand.Text())
	if err := l.root.WriteFile(tmpName, b, 0o644); err != nil {
		return err
	}
	if err := l.root.Rename(tmpName, metaName); err != nil {
		l.root.Remove(tmpName)
		return err
	}
	return nil
}

func (l *Local) readMeta(key string) (localMeta, error) {
	var m localMeta
	b, err := l.root.ReadFile(path.Join(localMetaDir, key+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return localMeta{ContentType: "application/octet-stream"}, nil
	}
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("metadata of %q: %w", key, err)
	}
	return m, nil
}

// open opens the regular file stored under key; a missing key or a directory is
// RESOURCE_NOT_FOUND.
func (l *Local) open(key string) (*os.File, fs.FileInfo, error) {
	if err := ValidateKey(key); err != nil {
		return nil, nil, err
	}
	f, err := l.root.Open(key)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, folio.Errorf(folio.ENOTFOUND, "Media object not found.")
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, folio.Errorf(folio.ENOTFOUND, "Media object not found.")
	}
	return f, fi, nil
}

// Get opens the object stored under key.
func (l *Local) Get(ctx context.Context, key string) (io.ReadCloser, folio.BlobMeta, error) {
	f, _, err := l.open(key)
	if err != nil {
		return nil, folio.BlobMeta{}, wrapNotValidation("blob.Local.Get", err)
	}
	m, err := l.readMeta(key)
	if err != nil {
		f.Close()
		return nil, folio.BlobMeta{}, fmt.Errorf("blob.Local.Get: %w", err)
	}
	return f, folio.BlobMeta{ContentType: m.ContentType, OriginalName: m.OriginalName, Extra: m.Extra}, nil
}

// Delete removes the object and its metadata.
func (l *Local) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	for _, name := range []string{key, path.Join(localMetaDir, key+".json")} {
		if err := l.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("blob.Local.Delete: %w", err)
		}
	}
	return nil
}

// Exists reports whether a regular file is stored under key.
func (l *Local) Exists(ctx context.Context, key string) (bool, error) {
	if err := ValidateKey(key); err != nil {
		return false, err
	}
	fi, err := l.root.Stat(key)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("blob.Local.Exists: %w", err)
	}
	return fi.Mode().IsRegular(), nil
}

// Handler serves stored objects for GET and HEAD at MountPath + key, with the stored content
// type (the one sniffed when the object was stored, never derived from the name or the bytes
// here), the sandboxing MediaCSP, Content-Disposition: attachment for what is not Inline, an ETag (the SHA-256 of the bytes), Range and conditional requests (http.ServeContent),
// and headers that let browsers and CDNs cache forever (keys are content-addressed, so the bytes
// under a key never change). Directories, unknown keys and keys that try to leave the store are
// 404. Mount it as mux.Handle("GET /media/", local.Handler()).
func (l *Local) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		key, ok := strings.CutPrefix(r.URL.Path, l.MountPath)
		if !ok || ValidateKey(key) != nil || strings.HasPrefix(key, PrivatePrefix) {
			http.NotFound(w, r)
			return
		}
		f, fi, err := l.open(key)
		if err != nil {
			// Missing, or refused by os.Root (a symlink leading out of the store): either way
			// there is nothing here for a visitor.
			http.NotFound(w, r)
			return
		}
		defer f.Close()
		m, err := l.readMeta(key)
		if err != nil {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		h := w.Header()
		contentType := servedType(m.ContentType)
		h.Set("Content-Type", contentType)
		h.Set("X-Content-Type-Options", "nosniff")
		// A file opened directly (an SVG, an HTML file that came in some other way) must not run
		// anything in the site's origin, nor load anything.
		h.Set("Content-Security-Policy", MediaCSP)
		if !Inline(contentType) {
			h.Set("Content-Disposition", "attachment")
		}
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		if m.SHA256 != "" {
			h.Set("ETag", `"`+m.SHA256+`"`)
		}
		http.ServeContent(w, r, "", fi.ModTime(), f)
	})
}

// PrivatePrefix starts the keys of objects that are never served to visitors: database
// snapshots (BACKUP_INTERVAL) live under it, beside the media but not public.
const PrivatePrefix = "backups/"

// List returns the keys that start with prefix (a directory path ending in "/"), sorted.
func (l *Local) List(ctx context.Context, prefix string) ([]string, error) {
	dir := strings.TrimSuffix(prefix, "/")
	if err := ValidateKey(dir); err != nil {
		return nil, err
	}
	var out []string
	err := fs.WalkDir(l.root.FS(), dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dir {
			return fs.SkipDir
		}
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			out = append(out, p)
		}
		return ctx.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("blob.Local.List: %w", err)
	}
	sort.Strings(out)
	return out, nil
}

// joinURL appends key, each segment path-escaped, to base.
func joinURL(base, key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return base + "/" + strings.Join(segs, "/")
}

// wrapNotValidation wraps infrastructure errors with the operation name and passes folio errors
// (not found, bad key) through unchanged.
func wrapNotValidation(op string, err error) error {
	var fe *folio.Error
	if errors.As(err, &fe) {
		return err
	}
	return fmt.Errorf("%s: %w", op, err)
}

// ctxReader stops a long copy once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
