package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/blob"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/imagegen"
	"github.com/foliohq/folio/internal/media"
	"github.com/foliohq/folio/internal/netguard"
)

// openMediaStore opens the configured media storage (MEDIA_STORAGE); files serves it under
// /media/ when it is local, nil otherwise. Export, import and backups use it too.
func openMediaStore(ctx context.Context, cfg *config.Config) (folio.BlobStore, http.Handler, error) {
	if cfg.MediaStorage == "s3" {
		s3, err := blob.NewS3(ctx, blob.S3Config{Endpoint: cfg.S3Endpoint, Bucket: cfg.S3Bucket, Region: cfg.S3Region,
			AccessKeyID: cfg.S3AccessKeyID, SecretAccessKey: cfg.S3SecretAccessKey, PublicBaseURL: cfg.S3PublicBaseURL,
			PathStyle: cfg.S3ForcePathStyle})
		if err != nil {
			return nil, nil, fmt.Errorf("media storage (S3_*): %w", err)
		}
		return s3, nil, nil
	}
	base := cfg.MediaPublicURL
	if base == "" {
		base = cfg.SiteURL + "/media"
	}
	local, err := blob.NewLocal(filepath.Join(cfg.DataDir, "media"), base)
	if err != nil {
		return nil, nil, fmt.Errorf("media storage (FOLIO_DATA_DIR): %w", err)
	}
	return local, local.Handler(), nil
}

// newUploader is the upload pipeline into store (MEDIA_*), which import uses too.
func newUploader(cfg *config.Config, store folio.BlobStore) (*media.Uploader, error) {
	tmp := filepath.Join(cfg.DataDir, "tmp")
	if err := os.MkdirAll(tmp, 0o750); err != nil {
		return nil, fmt.Errorf("media temp directory (FOLIO_DATA_DIR): %w", err)
	}
	return &media.Uploader{Store: store, MaxBytes: cfg.MediaMaxBytes, Allowed: media.AllowedTypes(cfg.MediaAllowSVG),
		TempDir: tmp, MaxPixels: cfg.MediaMaxPixels}, nil
}

// mediaPart is serve's media: the storage, the upload pipeline and image generation.
type mediaPart struct {
	Store folio.BlobStore
	// Files serves local media under /media/ (nil when media lives in S3).
	Files    http.Handler
	Uploader *media.Uploader
	// Studio generates images; its Generator is nil (503) without IMAGE_API_KEY.
	Studio *media.ImageStudio
}

// newMedia opens the media storage and builds the upload pipeline and image generation over it.
func newMedia(ctx context.Context, cfg *config.Config) (*mediaPart, error) {
	store, files, err := openMediaStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	up, err := newUploader(cfg, store)
	if err != nil {
		return nil, err
	}
	var gen folio.ImageGenerator
	if cfg.ImageAPIKey != "" {
		g, err := imagegen.New(imagegen.Config{BaseURL: cfg.ImageAPIBaseURL, APIKey: cfg.ImageAPIKey, Model: cfg.ImageModel, Timeout: cfg.ImageTimeout,
			Download: netguard.Policy{AllowPrivate: cfg.ImageAllowPrivate}})
		if err != nil {
			return nil, fmt.Errorf("image generation (IMAGE_*): %w", err)
		}
		gen = g
	}
	return &mediaPart{Store: store, Files: files, Uploader: up,
		Studio: &media.ImageStudio{Uploader: up, Model: cfg.ImageModel, Sizes: cfg.ImageAllowedSizes, Generator: gen}}, nil
}
