package blob

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/foliohq/folio"
)

// mustS3 connects to the S3-compatible server named by FOLIO_TEST_S3_* (versitygw in CI, see
// .ci/install-versitygw.sh) and creates the bucket when missing.
func mustS3(t *testing.T) *S3 {
	t.Helper()
	endpoint := os.Getenv("FOLIO_TEST_S3_ENDPOINT")
	if endpoint == "" {
		t.Skip("FOLIO_TEST_S3_ENDPOINT not set; run .ci/install-versitygw.sh and export FOLIO_TEST_S3_* to test against a real S3 server")
	}
	bucket := os.Getenv("FOLIO_TEST_S3_BUCKET")
	if bucket == "" {
		bucket = "folio-test"
	}
	s, err := NewS3(context.Background(), S3Config{
		Endpoint:        endpoint,
		Bucket:          bucket,
		AccessKeyID:     os.Getenv("FOLIO_TEST_S3_ACCESS_KEY"),
		SecretAccessKey: os.Getenv("FOLIO_TEST_S3_SECRET"),
		PathStyle:       true,
		TempDir:         t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureBucket(context.Background()); err != nil {
		t.Fatalf("EnsureBucket: %v", err)
	}
	return s
}

func TestS3Conformance(t *testing.T) {
	t.Parallel()
	s := mustS3(t)
	testStore(t, s, "test-"+folio.NewID()+"/")
}

// TestS3AttachmentDisposition checks that objects that are not images, audio, video or PDF are
// stored with Content-Disposition: attachment, which S3 then sends to every reader.
func TestS3AttachmentDisposition(t *testing.T) {
	t.Parallel()
	s := mustS3(t)
	prefix := "test-" + folio.NewID() + "/"
	for key, want := range map[string]string{"page.html": "attachment", "pic.png": "", "doc.pdf": ""} {
		ct := map[string]string{"page.html": "text/html", "pic.png": "image/png", "doc.pdf": "application/pdf"}[key]
		mustPut(t, s, prefix+key, []byte("x"), 1, folio.BlobMeta{ContentType: ct})
		out, err := s.client.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(prefix + key)})
		if err != nil {
			t.Fatal(err)
		}
		if got := aws.ToString(out.ContentDisposition); got != want {
			t.Errorf("%s: Content-Disposition = %q, want %q", key, got, want)
		}
		if got := aws.ToString(out.ContentType); got != ct {
			t.Errorf("%s: Content-Type = %q, want %q", key, got, ct)
		}
	}
}

func TestS3LongMetadataIsTruncatedNotRefused(t *testing.T) {
	t.Parallel()
	s := mustS3(t)
	key := "test-" + folio.NewID() + "/long.png"
	prompt := strings.Repeat("é a long prompt ", 250) // 4000 runes, 4250 bytes
	mustPut(t, s, key, []byte("x"), 1, folio.BlobMeta{ContentType: "image/png",
		Extra: map[string]string{"prompt": prompt, "model": "gpt-image-1", "size": "1024x1024"}})
	_, meta := mustGet(t, s, key)
	if meta.Extra["model"] != "gpt-image-1" || meta.Extra["size"] != "1024x1024" {
		t.Errorf("short values lost: %+v", meta.Extra)
	}
	if p := meta.Extra["prompt"]; p == "" || !strings.HasPrefix(prompt, p) {
		t.Errorf("prompt = %q, want a non-empty prefix of the original", p)
	}
}

func TestEncodeS3MetaBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		meta folio.BlobMeta
	}{
		{"ascii", folio.BlobMeta{OriginalName: "a.png", Extra: map[string]string{"prompt": strings.Repeat("x", 5000)}}},
		{"utf8", folio.BlobMeta{OriginalName: strings.Repeat("日", 900), Extra: map[string]string{"prompt": strings.Repeat("é", 4000), "size": "1024x1024"}}},
		{"invalid utf8", folio.BlobMeta{OriginalName: "\xff\xfe", Extra: map[string]string{"k": "a\r\nb"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			enc := encodeS3Meta(tt.meta)
			total := 0
			for k, v := range enc {
				total += len(k) + len(v)
				for i := 0; i < len(v); i++ {
					if v[i] < 0x20 || v[i] >= 0x7f {
						t.Fatalf("value of %s has byte %#x, not printable ASCII", k, v[i])
					}
				}
			}
			if total > 2048 {
				t.Errorf("metadata totals %d bytes, over AWS's 2 KB", total)
			}
			dec := decodeS3Meta(enc)
			if tt.meta.Extra["size"] != "" && dec.Extra["size"] != tt.meta.Extra["size"] {
				t.Errorf("size lost: %+v", dec.Extra)
			}
		})
	}
}

func TestS3PublicBase(t *testing.T) {
	t.Parallel()
	mustURL := func(s string) *url.URL { u, _ := url.Parse(s); return u }
	tests := []struct {
		name     string
		cfg      S3Config
		endpoint *url.URL
		want     string
	}{
		{"public base wins", S3Config{PublicBaseURL: "https://cdn.example.com/m/", Bucket: "b"}, mustURL("http://127.0.0.1:7070"), "https://cdn.example.com/m/k.png"},
		{"path style endpoint", S3Config{Bucket: "b", PathStyle: true}, mustURL("http://127.0.0.1:7070"), "http://127.0.0.1:7070/b/k.png"},
		{"virtual host endpoint", S3Config{Bucket: "b"}, mustURL("https://acct.r2.cloudflarestorage.com"), "https://b.acct.r2.cloudflarestorage.com/k.png"},
		{"aws", S3Config{Bucket: "b", Region: "eu-west-1"}, nil, "https://b.s3.eu-west-1.amazonaws.com/k.png"},
		{"aws path style", S3Config{Bucket: "b", Region: "eu-west-1", PathStyle: true}, nil, "https://s3.eu-west-1.amazonaws.com/b/k.png"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := joinURL(s3PublicBase(tt.cfg, tt.endpoint), "k.png"); got != tt.want {
				t.Errorf("URL = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNewS3Config(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if _, err := NewS3(ctx, S3Config{}); err == nil {
		t.Error("NewS3 without a bucket succeeded")
	}
	_, err := NewS3(ctx, S3Config{Bucket: "b", Endpoint: "ftp://x", SecretAccessKey: "topsecret"})
	if err == nil {
		t.Fatal("NewS3 with an ftp endpoint succeeded")
	}
	if strings.Contains(err.Error(), "topsecret") {
		t.Errorf("error leaks the secret: %v", err)
	}
}
