// Package media is folio's upload pipeline, independent of HTTP routing: it streams an upload
// to a temporary file while hashing and counting it, sniffs its type from the bytes against an
// allow-list, reads image dimensions, and stores it under a content-addressed key in a
// folio.BlobStore. ImageStudio runs AI image generation through the same pipeline.
package media

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	_ "image/gif" // DecodeConfig for GIF
	_ "image/jpeg"
	_ "image/png"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/gabriel-vasile/mimetype"
	_ "golang.org/x/image/webp" // DecodeConfig for WebP

	"github.com/foliohq/folio"
)

// DefaultMaxBytes is the default upload size cap (MEDIA_MAX_BYTES).
const DefaultMaxBytes = 10 << 20

// multipartSlack is how many bytes beyond MaxBytes a multipart body may carry for boundaries,
// part headers and small form fields before the whole request is refused as too large.
const multipartSlack = 1 << 20

// sniffLen is how many leading bytes the type detector looks at (mimetype's default limit).
const sniffLen = 3072

// AllowedTypes returns the allow-list of docs/api.md ("Media and AI images"): PNG, JPEG, GIF, WebP, AVIF and PDF, plus SVG
// when allowSVG is set (MEDIA_ALLOW_SVG; NB: SVG can carry scripts, the /media/ handler
// sandboxes it but other storage front ends may not).
func AllowedTypes(allowSVG bool) map[string]bool {
	m := map[string]bool{
		"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true,
		"image/avif": true, "application/pdf": true,
	}
	if allowSVG {
		m["image/svg+xml"] = true
	}
	return m
}

// Uploader turns uploaded bytes into a stored media object. The zero values of MaxBytes and
// Allowed mean DefaultMaxBytes and AllowedTypes(false); Store is required.
type Uploader struct {
	Store    folio.BlobStore
	MaxBytes int64
	Allowed  map[string]bool
	// TempDir holds uploads while they are checked; default os.TempDir(). Files are always removed.
	TempDir string
	// MaxPixels caps width × height of raster images (MEDIA_MAX_PIXELS); 0 means
	// DefaultMaxPixels. Checked from the header before any pixel is decoded.
	MaxPixels int64
	// DecodeBudget bounds, in bytes, the memory the image decodes of this Uploader hold at once
	// (each reserves its estimate, decodeCost, and waits for room); an image whose estimate
	// alone exceeds it is refused with 422. 0 means 6 bytes per pixel of MaxPixels.
	DecodeBudget int64

	budgetOnce sync.Once
	budget     *decodeBudget
}

func (u *Uploader) maxPixels() int64 {
	if u.MaxPixels > 0 {
		return u.MaxPixels
	}
	return DefaultMaxPixels
}

func (u *Uploader) maxBytes() int64 {
	if u.MaxBytes > 0 {
		return u.MaxBytes
	}
	return DefaultMaxBytes
}

func (u *Uploader) allowed() map[string]bool {
	if u.Allowed != nil {
		return u.Allowed
	}
	return AllowedTypes(false)
}

// FromMultipart reads a multipart/form-data request body as a stream (never
// ParseMultipartForm, so nothing is buffered in memory) and stores its first part named "file";
// other parts are skipped. Errors, all *folio.Error except storage failures:
//   - 400 VALIDATION_ERROR (field "file"): not multipart/form-data, malformed body, no "file"
//     part, an empty file, or a file name with path tricks (see CleanFilename);
//   - 413 PAYLOAD_TOO_LARGE: the file is larger than MaxBytes (or the body far larger);
//   - 415 UNSUPPORTED_MEDIA_TYPE: the bytes are not of an allowed type.
func (u *Uploader) FromMultipart(ctx context.Context, r *http.Request) (folio.MediaObject, error) {
	mediaType, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/form-data" {
		return folio.MediaObject{}, folio.BadRequest("file", "The request must be multipart/form-data with a file part named \"file\".")
	}
	if params["boundary"] == "" {
		return folio.MediaObject{}, folio.BadRequest("file", "The multipart Content-Type has no boundary.")
	}
	body := &cappedReader{r: r.Body, left: u.maxBytes() + multipartSlack}
	mr := multipart.NewReader(body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return folio.MediaObject{}, folio.BadRequest("file", "The multipart body has no part named \"file\".")
		}
		if err != nil {
			return folio.MediaObject{}, u.readError(ctx, err)
		}
		_, dparams, err := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
		if err != nil {
			part.Close()
			return folio.MediaObject{}, folio.BadRequest("file", "A multipart part has a malformed Content-Disposition header.")
		}
		if dparams["name"] != "file" {
			// Drain it so the reader moves on; the body cap bounds the work.
			if _, err := io.Copy(io.Discard, part); err != nil {
				return folio.MediaObject{}, u.readError(ctx, err)
			}
			continue
		}
		// NB: part.FileName() would apply filepath.Base and hide path tricks; read it raw.
		name, err := CleanFilename(dparams["filename"])
		if err != nil {
			part.Close()
			return folio.MediaObject{}, err
		}
		obj, err := u.store(ctx, part, name, nil)
		part.Close()
		return obj, err
	}
}

// FromReader stores the bytes of src under the same rules as FromMultipart (size cap, sniffed
// type, content-addressed key). name is the original file name to keep (may be empty; checked
// by CleanFilename); meta.Extra is kept with the object, meta.ContentType and
// meta.OriginalName are ignored (the type is sniffed, the name is name).
func (u *Uploader) FromReader(ctx context.Context, src io.Reader, name string, meta folio.BlobMeta) (folio.MediaObject, error) {
	name, err := CleanFilename(name)
	if err != nil {
		return folio.MediaObject{}, err
	}
	return u.store(ctx, src, name, meta.Extra)
}

// store runs the pipeline: temp file + size cap → sniff → for raster images: dimensions and the
// pixel limit (from the header, before any decoding), metadata stripped (lossless), the decode
// budget, EXIF orientation applied, variants and blurhash; for AVIF: metadata stripped →
// content address of the cleaned bytes → Put.
func (u *Uploader) store(ctx context.Context, src io.Reader, name string, extra map[string]string) (folio.MediaObject, error) {
	if u.Store == nil {
		return folio.MediaObject{}, errors.New("media: Uploader.Store is nil")
	}
	tmp, err := os.CreateTemp(u.TempDir, "folio-upload-*")
	if err != nil {
		return folio.MediaObject{}, fmt.Errorf("media: temp file: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()

	h := sha256.New()
	var head headBuffer
	n, err := copyCapped(ctx, tmp, h, &head, src, u.maxBytes())
	if err != nil {
		return folio.MediaObject{}, u.readError(ctx, err)
	}
	if n == 0 {
		return folio.MediaObject{}, folio.BadRequest("file", "The file is empty.")
	}

	contentType, ext, ok := u.sniff(head.b)
	if !ok {
		return folio.MediaObject{}, folio.Errorf(folio.EUNSUPPORTED,
			"The file type %s is not accepted; allowed: %s.", mimetype.Detect(head.b).String(), u.allowedList())
	}
	obj := folio.MediaObject{Size: n, ContentType: contentType, Filename: name, Variants: []folio.MediaVariant{}}
	final, sum := tmp, h.Sum(nil)
	var processed *processedImage
	switch {
	case isRasterImage(contentType):
		processed, err = u.processImage(ctx, tmp, contentType, &obj)
	case contentType == "image/avif":
		processed, _, err = u.stripToTemp(tmp, contentType) // metadata only: Go has no AVIF decoder
	}
	if err != nil {
		return folio.MediaObject{}, err
	}
	var variants []encodedVariant
	if processed != nil {
		defer processed.remove()
		final, sum, obj.Size = processed.file, processed.sum, processed.size
		variants = processed.variants
		obj.Blurhash = processed.blurhash
	}

	hexSum := hex.EncodeToString(sum)
	obj.Key = hexSum + ext
	obj.URL = u.Store.URL(obj.Key)
	if obj.Filename == "" {
		obj.Filename = obj.Key
	}
	for _, v := range variants {
		key := fmt.Sprintf("%s-w%d%s", hexSum, v.width, v.ext)
		obj.Variants = append(obj.Variants, folio.MediaVariant{Width: v.width, Height: v.height, URL: u.Store.URL(key), Key: key})
	}
	// Same bytes, same key: a repeated upload stores nothing new. NB: the object keeps the
	// original name and metadata of its first upload.
	exists, err := u.Store.Exists(ctx, obj.Key)
	if err != nil {
		return folio.MediaObject{}, fmt.Errorf("media: %w", err)
	}
	if !exists {
		if _, err := final.Seek(0, io.SeekStart); err != nil {
			return folio.MediaObject{}, fmt.Errorf("media: %w", err)
		}
		meta := folio.BlobMeta{ContentType: contentType, OriginalName: name, Extra: extra}
		if err := u.Store.Put(ctx, obj.Key, final, obj.Size, meta); err != nil {
			return folio.MediaObject{}, fmt.Errorf("media: storing %s: %w", obj.Key, err)
		}
	}
	for i, v := range variants {
		key := obj.Variants[i].Key
		if ok, err := u.Store.Exists(ctx, key); err != nil {
			return folio.MediaObject{}, fmt.Errorf("media: %w", err)
		} else if ok {
			continue
		}
		meta := folio.BlobMeta{ContentType: v.contentType, OriginalName: name}
		if err := u.Store.Put(ctx, key, bytes.NewReader(v.data), int64(len(v.data)), meta); err != nil {
			return folio.MediaObject{}, fmt.Errorf("media: storing %s: %w", key, err)
		}
	}
	return obj, nil
}

// sniff finds the first type in the detected type's ancestry that is allowed, so that, for
// example, an animated PNG (image/apng, a child of image/png) is accepted and served as PNG.
func (u *Uploader) sniff(head []byte) (contentType, ext string, ok bool) {
	allowed := u.allowed()
	for m := mimetype.Detect(head); m != nil; m = m.Parent() {
		t, _, _ := strings.Cut(m.String(), ";")
		if allowed[t] {
			return t, m.Extension(), true
		}
	}
	return "", "", false
}

func (u *Uploader) allowedList() string {
	var names []string
	for _, t := range []string{"image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "application/pdf", "image/svg+xml"} {
		if u.allowed()[t] {
			names = append(names, t)
		}
	}
	return strings.Join(names, ", ")
}

func isRasterImage(contentType string) bool {
	switch contentType {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false // AVIF has no decoder in the standard library or x/image: no dimensions
}

// readError classifies a failure while reading the upload.
func (u *Uploader) readError(ctx context.Context, err error) error {
	var fe *folio.Error
	switch {
	case errors.As(err, &fe):
		return err
	case errors.Is(err, errTooLarge):
		return &folio.Error{Code: folio.ETOOLARGE,
			Message: fmt.Sprintf("The file is larger than the %s limit.", humanBytes(u.maxBytes()))}
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, errWrite):
		return fmt.Errorf("media: writing temp file: %w", err)
	}
	return folio.BadRequest("file", "The multipart body is malformed or was cut off.")
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d-byte", n)
}

var (
	errTooLarge = errors.New("media: upload too large")
	errWrite    = errors.New("media: write failed")
)

// copyCapped copies src to dst and h, keeping its first sniffLen bytes in head, and fails with
// errTooLarge as soon as more than max bytes arrive. Write failures wrap errWrite.
func copyCapped(ctx context.Context, dst io.Writer, h hash.Hash, head *headBuffer, src io.Reader, max int64) (int64, error) {
	buf := make([]byte, 64<<10)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		k, rerr := src.Read(buf)
		if k > 0 {
			n += int64(k)
			if n > max {
				return n, errTooLarge
			}
			if _, err := dst.Write(buf[:k]); err != nil {
				return n, fmt.Errorf("%w: %w", errWrite, err)
			}
			h.Write(buf[:k])
			head.Write(buf[:k])
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return n, rerr
		}
	}
}

// headBuffer keeps the first sniffLen bytes written to it.
type headBuffer struct{ b []byte }

func (hb *headBuffer) Write(p []byte) {
	if room := sniffLen - len(hb.b); room > 0 {
		hb.b = append(hb.b, p[:min(room, len(p))]...)
	}
}

// cappedReader fails with errTooLarge once more than left bytes have been read.
type cappedReader struct {
	r    io.Reader
	left int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n, errTooLarge
	}
	return n, err
}
