package folio

import (
	"context"
	"io"
	"time"
)

// BlobMeta is what a BlobStore keeps next to an object's bytes.
type BlobMeta struct {
	// ContentType is the sniffed MIME type; the store serves the object with it.
	ContentType string
	// OriginalName is the uploader's sanitised file name (base name only), kept for display.
	OriginalName string
	// Extra holds free-form string metadata: for AI images "prompt", "model" and "size".
	// Keys are lower-case ASCII letters, digits and '-'; values are any UTF-8 text.
	Extra map[string]string
}

// BlobStore keeps media objects under content-addressed keys such as "<sha256hex>.png".
//
// Keys are relative, '/'-separated, and never contain "..", a backslash, NUL or a leading '/':
// implementations reject such keys with a VALIDATION_ERROR. Every method is safe for
// concurrent use.
type BlobStore interface {
	// Put stores size bytes read from r under key, replacing any object with that key. size is
	// -1 when unknown. A failure leaves no partial object visible under key.
	Put(ctx context.Context, key string, r io.Reader, size int64, meta BlobMeta) error
	// Get opens the object; the caller closes the reader. A missing key is RESOURCE_NOT_FOUND.
	Get(ctx context.Context, key string) (io.ReadCloser, BlobMeta, error)
	// Delete removes the object; deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// Exists reports whether an object is stored under key.
	Exists(ctx context.Context, key string) (bool, error)
	// URL is the public, durable address of the object under key (no I/O, no check).
	URL(key string) string
}

// MediaObject is the result of a media upload (201 of POST /api/media/upload): the durable URL of
// the stored object and what was sniffed from it. Width and height are set for raster images.
type MediaObject struct {
	URL         string `json:"url"`
	Filename    string `json:"filename"`
	Size        int64  `json:"size"`
	ContentType string `json:"contentType"`
	Width       int    `json:"width,omitempty"`
	Height      int    `json:"height,omitempty"`
	// Variants are smaller copies of a raster image for responsive images (srcset), ascending
	// width; empty for other files, animated GIFs and images narrower than the smallest width.
	Variants []MediaVariant `json:"variants"`
	// Blurhash is a short placeholder of a raster image (https://blurha.sh), 4×3 components.
	Blurhash string `json:"blurhash,omitempty"`
	// Key is the storage key of the object: what DELETE /api/media/{key} takes.
	Key string `json:"key"`
}

// MediaVariant is a resized copy of an uploaded image, stored beside it.
type MediaVariant struct {
	Width  int    `json:"width"`
	Height int    `json:"height"`
	URL    string `json:"url"`
	// Key is the storage key of the variant; not part of the response.
	Key string `json:"-"`
}

// GeneratedImage is the response of POST /api/ai/generate-image.
type GeneratedImage struct {
	ImageURL string `json:"imageUrl"`
	Prompt   string `json:"prompt"`
}

// ImageGenerator creates an image from a text prompt through an outside images API.
type ImageGenerator interface {
	// Generate returns the encoded image bytes, their MIME type (as the upstream declared it;
	// callers sniff it again) and the prompt the upstream says it actually used (may be empty).
	// Upstream failures, time-outs and malformed answers are UPSTREAM_ERROR; the error message
	// never contains credentials.
	Generate(ctx context.Context, prompt, size string) (data []byte, contentType, revisedPrompt string, err error)
}

// MediaFilter selects media to list: Query matches the file name or the generation prompt
// (case-insensitive, anywhere in them); Page and Limit page the newest-first list.
type MediaFilter struct {
	Query       string
	Page, Limit int
}

// MediaRecord is a stored media object as the media library lists it.
type MediaRecord struct {
	MediaObject
	Source    string    `json:"source"` // upload or ai
	Prompt    string    `json:"prompt,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// MediaUse is a post or project that shows a media object: its content, social image (posts) or
// images (projects) mention the object's key or URL, or a variant's.
type MediaUse struct {
	Type  string // "post" or "project"
	ID    string
	Title string
}
