package folio

import "time"

// MediaEntry is one media row as an archive carries it (media.json), the storage key included.
type MediaEntry struct {
	Key         string    `json:"key"`
	URL         string    `json:"url"`
	Filename    string    `json:"filename"`
	Size        int64     `json:"size"`
	ContentType string    `json:"contentType"`
	Width       int       `json:"width,omitempty"`
	Height      int       `json:"height,omitempty"`
	Source      string    `json:"source"`
	Prompt      string    `json:"prompt,omitempty"`
	CreatedBy   string    `json:"createdBy,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
	// Variants are the resized copies stored beside the object (their files are in the archive
	// too); Blurhash its placeholder.
	Variants []MediaVariantEntry `json:"variants,omitempty"`
	Blurhash string              `json:"blurhash,omitempty"`
}

// MediaVariantEntry is one variant of a media object in an archive.
type MediaVariantEntry struct {
	Width  int    `json:"width"`
	Height int    `json:"height"`
	URL    string `json:"url"`
	Key    string `json:"key"`
}
