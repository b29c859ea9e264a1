package extblog

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// TokenSource supplies the platform API token for each request, so a rotated token is used
// without a restart. Token must be safe for concurrent use and must never put the token into
// an error.
type TokenSource interface {
	Token() (string, error)
}

// StaticToken is a token fixed at start-up (EXTBLOG_API_TOKEN).
type StaticToken string

// Token returns the token.
func (t StaticToken) Token() (string, error) { return string(t), nil }

// FileToken reads the token from a file (EXTBLOG_API_TOKEN_FILE, e.g. a mounted secret) and
// reads it again whenever the file's modification time or size changes, so rotating the
// secret file rotates the token. Surrounding whitespace is trimmed.
type FileToken struct {
	path string

	mu      sync.Mutex
	token   string
	modTime time.Time
	size    int64
	loaded  bool
}

// NewFileToken returns a FileToken for path. The file is first read on the first Token call.
func NewFileToken(path string) *FileToken { return &FileToken{path: path} }

// Token returns the file's current token. A missing, unreadable or empty file is an error that
// names the path only.
func (f *FileToken) Token() (string, error) {
	fi, err := os.Stat(f.path)
	if err != nil {
		return "", fmt.Errorf("extblog: token file: %w", pathOnly(err))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.loaded && fi.ModTime().Equal(f.modTime) && fi.Size() == f.size {
		return f.token, nil
	}
	b, err := os.ReadFile(f.path)
	if err != nil {
		return "", fmt.Errorf("extblog: token file: %w", pathOnly(err))
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("extblog: token file %s is empty", f.path)
	}
	f.token, f.modTime, f.size, f.loaded = tok, fi.ModTime(), fi.Size(), true
	return tok, nil
}

// Reload forgets the cached token so the next Token call reads the file again, whatever its
// modification time says (for a reload signal).
func (f *FileToken) Reload() {
	f.mu.Lock()
	f.loaded = false
	f.mu.Unlock()
}

// pathOnly keeps an *os.PathError's operation, path and cause; nothing else of the file.
func pathOnly(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return &os.PathError{Op: pe.Op, Path: pe.Path, Err: pe.Err}
	}
	return err
}

// Reloadable is a TokenSource whose underlying source can be swapped at run time, e.g. from a
// SIGHUP handler after the configuration was read again.
type Reloadable struct {
	mu  sync.RWMutex
	src TokenSource
}

// NewReloadable returns a Reloadable that starts with src.
func NewReloadable(src TokenSource) *Reloadable { return &Reloadable{src: src} }

// Swap replaces the underlying source; requests started afterwards use it.
func (r *Reloadable) Swap(src TokenSource) {
	r.mu.Lock()
	r.src = src
	r.mu.Unlock()
}

// Token returns the current source's token.
func (r *Reloadable) Token() (string, error) {
	r.mu.RLock()
	src := r.src
	r.mu.RUnlock()
	if src == nil {
		return "", errors.New("extblog: no token source")
	}
	return src.Token()
}

// Reload asks the current source to read its token again when it can (a FileToken can); a
// reload signal handler calls it.
func (r *Reloadable) Reload() {
	r.mu.RLock()
	src := r.src
	r.mu.RUnlock()
	if rl, ok := src.(interface{ Reload() }); ok {
		rl.Reload()
	}
}
