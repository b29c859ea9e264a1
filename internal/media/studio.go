package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/foliohq/folio"
)

// MaxPromptChars is the prompt limit of docs/api.md ("Media and AI images"), in characters,
// not bytes.
const MaxPromptChars = 4000

// DefaultImageSizes is the default IMAGE_ALLOWED_SIZES.
var DefaultImageSizes = []string{"1024x1024", "1024x1536", "1536x1024"}

// ImageStudio is the use case behind POST /api/ai/generate-image: validate, generate, copy the
// image into media storage, return its durable URL.
type ImageStudio struct {
	// Generator is the images API; nil means not configured (503 naming IMAGE_API_KEY).
	Generator folio.ImageGenerator
	Uploader  *Uploader
	// Model is recorded with the stored image.
	Model string
	// Sizes are the accepted sizes; the first is used when the request names none.
	// Empty means DefaultImageSizes.
	Sizes []string
}

// ParseSizes parses IMAGE_ALLOWED_SIZES: a comma list of <width>x<height>.
func ParseSizes(s string) ([]string, error) {
	var sizes []string
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		var w, h int
		if n, err := fmt.Sscanf(f, "%dx%d", &w, &h); err != nil || n != 2 || w <= 0 || h <= 0 || fmt.Sprintf("%dx%d", w, h) != f {
			return nil, fmt.Errorf("IMAGE_ALLOWED_SIZES: %q is not <width>x<height>", f)
		}
		sizes = append(sizes, f)
	}
	if len(sizes) == 0 {
		return nil, errors.New("IMAGE_ALLOWED_SIZES is empty")
	}
	return sizes, nil
}

func (s *ImageStudio) sizes() []string {
	if len(s.Sizes) > 0 {
		return s.Sizes
	}
	return DefaultImageSizes
}

// Validate applies the input rules of docs/api.md ("Media and AI images"): prompt required (400) and at most 4000
// characters (422); size one of the allowed sizes (422 listing them), empty meaning the first.
// It returns the size to use.
func (s *ImageStudio) Validate(prompt, size string) (string, error) {
	var v folio.Validation
	if strings.TrimSpace(prompt) == "" {
		v.Missing("prompt")
	} else if n := utf8.RuneCountInString(prompt); n > MaxPromptChars {
		v.Invalid("prompt", "must be at most %d characters (got %d)", MaxPromptChars, n)
	}
	if size == "" {
		size = s.sizes()[0]
	} else if !slices.Contains(s.sizes(), size) {
		v.Invalid("size", "must be one of %s", strings.Join(s.sizes(), ", "))
	}
	return size, v.Err()
}

// Generate creates the image and stores it, returning the response and the stored object. Errors: 503 SERVICE_UNAVAILABLE when no generator
// is configured; 400/422 VALIDATION_ERROR from Validate; what the generator returns (502
// UPSTREAM_ERROR, 422 for a prompt refused by the provider's content policy); 502 when the
// upstream's bytes are not an accepted image or are too large.
func (s *ImageStudio) Generate(ctx context.Context, prompt, size string) (folio.GeneratedImage, folio.MediaObject, error) {
	if s.Generator == nil {
		return folio.GeneratedImage{}, folio.MediaObject{}, folio.Errorf(folio.EUNAVAILABLE, "Image generation is not configured: set IMAGE_API_KEY.")
	}
	size, err := s.Validate(prompt, size)
	if err != nil {
		return folio.GeneratedImage{}, folio.MediaObject{}, err
	}
	data, _, revised, err := s.Generator.Generate(ctx, prompt, size)
	if err != nil {
		return folio.GeneratedImage{}, folio.MediaObject{}, err
	}
	extra := map[string]string{"prompt": prompt, "model": s.Model, "size": size, "source": "ai"}
	if revised != "" && revised != prompt {
		extra["revised-prompt"] = revised
	}
	if s.Model == "" {
		delete(extra, "model")
	}
	obj, err := s.Uploader.FromReader(ctx, bytes.NewReader(data), "", folio.BlobMeta{Extra: extra})
	if err != nil {
		switch folio.ErrorCode(err) {
		case folio.ETOOLARGE, folio.EUNSUPPORTED, folio.EINVALID:
			// The bad bytes came from the provider, not from our caller.
			return folio.GeneratedImage{}, folio.MediaObject{}, fmt.Errorf("media: generated image (%v): %w", err,
				folio.Errorf(folio.EUPSTREAM, "The image provider returned an unusable image."))
		}
		return folio.GeneratedImage{}, folio.MediaObject{}, err
	}
	return folio.GeneratedImage{ImageURL: obj.URL, Prompt: prompt}, obj, nil
}
