package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/blob"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/httpapi"
	"github.com/foliohq/folio/internal/imagegen"
	"github.com/foliohq/folio/internal/media"
)

// wireMedia gives srv its media storage, upload pipeline and image generation.
func wireMedia(ctx context.Context, cfg *config.Config, srv *httpapi.Server) error {
	var store folio.BlobStore
	switch cfg.MediaStorage {
	case "s3":
		s3, err := blob.NewS3(ctx, blob.S3Config{Endpoint: cfg.S3Endpoint, Bucket: cfg.S3Bucket, Region: cfg.S3Region,
			AccessKeyID: cfg.S3AccessKeyID, SecretAccessKey: cfg.S3SecretAccessKey, PublicBaseURL: cfg.S3PublicBaseURL,
			PathStyle: cfg.S3ForcePathStyle})
		if err != nil {
			return fmt.Errorf("media storage (S3_*): %w", err)
		}
		store = s3
	default:
		base := cfg.MediaPublicURL
		if base == "" {
			base = cfg.SiteURL + "/media"
		}
		local, err := blob.NewLocal(filepath.Join(cfg.DataDir, "media"), base)
		if err != nil {
			return fmt.Errorf("media storage (FOLIO_DATA_DIR): %w", err)
		}
		store = local
		srv.MediaFiles = local.Handler()
	}
	tmp := filepath.Join(cfg.DataDir, "tmp")
	if err := os.MkdirAll(tmp, 0o750); err != nil {
		return fmt.Errorf("media temp directory (FOLIO_DATA_DIR): %w", err)
	}
	srv.Uploader = &media.Uploader{Store: store, MaxBytes: cfg.MediaMaxBytes, Allowed: media.AllowedTypes(cfg.MediaAllowSVG),
		TempDir: tmp, MaxPixels: cfg.MediaMaxPixels}
	srv.ImageStudio = &media.ImageStudio{Uploader: srv.Uploader, Model: cfg.ImageModel, Sizes: cfg.ImageAllowedSizes}
	if cfg.ImageAPIKey != "" {
		gen, err := imagegen.New(imagegen.Config{BaseURL: cfg.ImageAPIBaseURL, APIKey: cfg.ImageAPIKey, Model: cfg.ImageModel, Timeout: cfg.ImageTimeout})
		if err != nil {
			return fmt.Errorf("image generation (IMAGE_*): %w", err)
		}
		srv.ImageStudio.Generator = gen
	}
	return nil
}
