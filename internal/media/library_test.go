package media

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/blob"
)

// libraryStore is a media.Store in memory: the records, and the uses MediaUses answers.
type libraryStore struct {
	recs    map[string]folio.MediaRecord
	uses    []folio.MediaUse
	terms   []string
	deleted []string
}

func (s *libraryStore) RecordMedia(ctx context.Context, obj folio.MediaObject, source, prompt, createdBy string) error {
	s.recs[obj.Key] = folio.MediaRecord{MediaObject: obj, Source: source}
	return nil
}

func (s *libraryStore) Media(ctx context.Context, f folio.MediaFilter) ([]folio.MediaRecord, int, error) {
	return nil, len(s.recs), nil
}

func (s *libraryStore) MediaByURL(ctx context.Context, urls []string) ([]folio.MediaRecord, error) {
	return nil, nil
}

func (s *libraryStore) MediaByKey(ctx context.Context, key string) (folio.MediaRecord, error) {
	r, ok := s.recs[key]
	if !ok {
		return r, folio.Errorf(folio.ENOTFOUND, "not found")
	}
	return r, nil
}

func (s *libraryStore) MediaUses(ctx context.Context, terms []string) ([]folio.MediaUse, error) {
	s.terms = terms
	return s.uses, nil
}

func (s *libraryStore) DeleteMedia(ctx context.Context, key string, uses []folio.MediaUse) error {
	delete(s.recs, key)
	s.deleted = append(s.deleted, key)
	return nil
}

// testLibraryDelete uploads an image with variants into blobs and deletes it through Library:
// refused while used, then forced, after which neither the original nor a variant is stored.
func testLibraryDelete(t *testing.T, blobs folio.BlobStore) {
	ctx := context.Background()
	u := &Uploader{Store: blobs, TempDir: t.TempDir()}
	obj, err := u.FromReader(ctx, strings.NewReader(string(gpsJPEG(t, photo(700, 350), 1))), "trip.jpg", folio.BlobMeta{})
	if err != nil {
		t.Fatal(err)
	}
	if len(obj.Variants) != 2 {
		t.Fatalf("%d variants, want 2", len(obj.Variants))
	}
	keys := []string{obj.Key, obj.Variants[0].Key, obj.Variants[1].Key}
	t.Cleanup(func() {
		for _, k := range keys {
			blobs.Delete(ctx, k)
		}
	})
	store := &libraryStore{recs: map[string]folio.MediaRecord{}, uses: []folio.MediaUse{{Type: "post", ID: "p1", Title: "Trip"}}}
	store.RecordMedia(ctx, obj, "upload", "", "u1")
	lib := Library{Store: store, Blobs: blobs}

	err = lib.Delete(ctx, obj.Key, false)
	wantError(t, err, folio.ECONFLICT, 409, "post")
	if fe := err.(*folio.Error); fe.Details[0].ID != "p1" || fe.Details[0].Title != "Trip" {
		t.Errorf("details %+v", fe.Details)
	}
	for _, k := range keys {
		if ok, err := blobs.Exists(ctx, k); err != nil || !ok {
			t.Fatalf("%s gone after a refused delete (%v)", k, err)
		}
	}
	// The terms: the key and the variants' keys; the URLs hold them, so they add nothing.
	if want := keys; !reflect.DeepEqual(store.terms, want) {
		t.Errorf("uses looked up by %q, want %q", store.terms, want)
	}

	if err := lib.Delete(ctx, obj.Key, true); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if ok, err := blobs.Exists(ctx, k); err != nil || ok {
			t.Errorf("%s still stored after delete (%v)", k, err)
		}
	}
	if !reflect.DeepEqual(store.deleted, []string{obj.Key}) {
		t.Errorf("records deleted: %v", store.deleted)
	}
	wantError(t, lib.Delete(ctx, obj.Key, true), folio.ENOTFOUND, 0, "")
}

func TestLibraryDeleteLocal(t *testing.T) {
	t.Parallel()
	local, err := blob.NewLocal(t.TempDir(), "/media")
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	testLibraryDelete(t, local)
}

// TestLibraryDeleteS3 runs the same against the real S3-compatible server of FOLIO_TEST_S3_*.
func TestLibraryDeleteS3(t *testing.T) {
	t.Parallel()
	endpoint := os.Getenv("FOLIO_TEST_S3_ENDPOINT")
	if endpoint == "" {
		t.Skip("FOLIO_TEST_S3_ENDPOINT not set; run .ci/install-versitygw.sh and export FOLIO_TEST_S3_* to test against a real S3 server")
	}
	bucket := os.Getenv("FOLIO_TEST_S3_BUCKET")
	if bucket == "" {
		bucket = "folio-test"
	}
	s3, err := blob.NewS3(context.Background(), blob.S3Config{Endpoint: endpoint, Bucket: bucket, PathStyle: true,
		AccessKeyID: os.Getenv("FOLIO_TEST_S3_ACCESS_KEY"), SecretAccessKey: os.Getenv("FOLIO_TEST_S3_SECRET")})
	if err != nil {
		t.Fatal(err)
	}
	if err := s3.EnsureBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	testLibraryDelete(t, s3)
}

func TestNarrowest(t *testing.T) {
	t.Parallel()
	got := narrowest([]string{"a.png", "https://x/media/a.png", "", "a-w320.jpg", "https://x/media/a-w320.jpg", "a.png"})
	if want := []string{"a.png", "a-w320.jpg"}; !reflect.DeepEqual(got, want) {
		t.Errorf("narrowest = %q, want %q", got, want)
	}
}
