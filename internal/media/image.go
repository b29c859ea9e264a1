package media

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"os"

	"github.com/foliohq/folio"
)

// Encoding of what the pipeline writes: a photo turned upright is re-encoded once at high
// quality; variants at the usual web quality.
const (
	orientedJPEGQuality = 95
	variantJPEGQuality  = 82
)

// encodedVariant is a variant ready to store.
type encodedVariant struct {
	width, height    int
	data             []byte
	contentType, ext string
}

// processedImage is the cleaned image and what was made of it.
type processedImage struct {
	file     *os.File // the bytes to store (the caller removes it)
	sum      []byte   // their SHA-256
	size     int64
	variants []encodedVariant
	blurhash string
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// processImage checks the pixel limit, strips the metadata, reserves the decode's memory from
// the budget (decodeCost), applies the orientation and makes the variants of the raster image
// in tmp. It sets obj.Width and obj.Height.
func (u *Uploader) processImage(ctx context.Context, tmp *os.File, contentType string, obj *folio.MediaObject) (*processedImage, error) {
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("media: %w", err)
	}
	cfg, format, err := image.DecodeConfig(tmp)
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, unreadable(contentType)
	}
	// The header decides, before any pixel is decoded: a small file may declare a huge canvas
	// (a decompression bomb).
	if int64(cfg.Width)*int64(cfg.Height) > u.maxPixels() {
		return nil, &folio.Error{Code: folio.EINVALID, RuleBroken: true,
			Message: fmt.Sprintf("The image is %d×%d pixels; at most %d pixels are accepted.", cfg.Width, cfg.Height, u.maxPixels()),
			Details: []folio.FieldError{{Field: "file", Message: fmt.Sprintf("more than %d pixels", u.maxPixels())}}}
	}
	obj.Width, obj.Height = cfg.Width, cfg.Height

	out, st, err := u.stripToTemp(tmp, contentType)
	if err != nil {
		return nil, err
	}
	clean := out.file
	fail := func(err error) (*processedImage, error) {
		out.remove()
		return nil, err
	}

	turn := st.Orientation != 1 && (contentType == "image/jpeg" || contentType == "image/png")
	release, err := u.decodeBudget().reserve(ctx, decodeCost(cfg, format, st, turn), cfg)
	if err != nil {
		return fail(err)
	}
	defer release()

	if _, err := clean.Seek(0, io.SeekStart); err != nil {
		return fail(fmt.Errorf("media: %w", err))
	}
	img, _, err := image.Decode(clean)
	if err != nil {
		// The header was read and the structure walked, but the pixels do not decode: an
		// animated WebP (x/image/webp reads still images only) or a damaged file. It is kept,
		// cleaned, as the original only: no variants, no blurhash, orientation as stored.
		return out, nil
	}
	if turn {
		// Apply the orientation to the pixels: JPEG is re-encoded once at quality 95 (Go has no
		// lossless DCT-domain rotation), PNG is re-encoded losslessly. WebP keeps its pixels
		// as stored (no WebP encoder in Go) — see docs/api.md.
		img = orient(img, st.Orientation)
		if err := clean.Truncate(0); err != nil {
			return fail(fmt.Errorf("media: %w", err))
		}
		if _, err := clean.Seek(0, io.SeekStart); err != nil {
			return fail(fmt.Errorf("media: %w", err))
		}
		h := sha256.New()
		var cw countWriter
		w := io.MultiWriter(clean, h, &cw)
		if contentType == "image/jpeg" {
			err = jpeg.Encode(w, img, &jpeg.Options{Quality: orientedJPEGQuality})
		} else {
			err = png.Encode(w, img)
		}
		if err != nil {
			return fail(fmt.Errorf("media: re-encoding turned image: %w", err))
		}
		out.sum, out.size = h.Sum(nil), cw.n
		obj.Width, obj.Height = img.Bounds().Dx(), img.Bounds().Dy()
	}

	animated := contentType == "image/gif" && st.Frames > 1
	if animated {
		// An animation keeps its original only; the blurhash comes from the first frame.
		_, out.blurhash = makeVariants(shrinkForHash(img))
		return out, nil
	}
	opaque := isOpaque(img)
	resized, hash := makeVariants(img)
	img = nil // the variants no longer need the full-size image
	out.blurhash = hash
	for _, v := range resized {
		var buf bytes.Buffer
		ev := encodedVariant{width: v.Rect.Dx(), height: v.Rect.Dy()}
		if opaque {
			ev.contentType, ev.ext = "image/jpeg", ".jpg"
			err = jpeg.Encode(&buf, v, &jpeg.Options{Quality: variantJPEGQuality})
		} else {
			ev.contentType, ev.ext = "image/png", ".png"
			err = png.Encode(&buf, v)
		}
		if err != nil {
			return fail(fmt.Errorf("media: encoding variant: %w", err))
		}
		ev.data = buf.Bytes()
		out.variants = append(out.variants, ev)
	}
	return out, nil
}

// stripToTemp copies tmp without its metadata (stripMetadata) to a new temporary file, which
// the caller removes (processedImage.remove), with the SHA-256 and size of the cleaned bytes.
func (u *Uploader) stripToTemp(tmp *os.File, contentType string) (*processedImage, stripped, error) {
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return nil, stripped{}, fmt.Errorf("media: %w", err)
	}
	clean, err := os.CreateTemp(u.TempDir, "folio-clean-*")
	if err != nil {
		return nil, stripped{}, fmt.Errorf("media: temp file: %w", err)
	}
	out := &processedImage{file: clean}
	h := sha256.New()
	var cw countWriter
	st, _, err := stripMetadata(contentType, io.MultiWriter(clean, h, &cw), tmp)
	if err != nil {
		out.remove()
		if errors.Is(err, errMalformed) {
			return nil, st, unreadable(contentType)
		}
		return nil, st, err
	}
	out.sum, out.size = h.Sum(nil), cw.n
	return out, st, nil
}

// remove closes and deletes the cleaned file.
func (p *processedImage) remove() {
	p.file.Close()
	os.Remove(p.file.Name())
}

// unreadable is the answer to a file that sniffs as an image type but cannot be read as one.
func unreadable(contentType string) error {
	return folio.Errorf(folio.EUNSUPPORTED, "The file starts like %s but is not a readable image.", contentType)
}

// shrinkForHash returns img itself when it is already narrower than the smallest variant
// width, else a copy 32 pixels wide, so makeVariants makes no variant of it.
func shrinkForHash(img image.Image) image.Image {
	if img.Bounds().Dx() < VariantWidths[0] {
		return img
	}
	return resizeWidth(img, 32)
}
