package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/foliohq/folio"
)

// S3Config configures an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, versitygw, …).
type S3Config struct {
	// Endpoint is the service URL, e.g. "http://127.0.0.1:9000" or
	// "https://<account>.r2.cloudflarestorage.com"; empty means AWS S3 for Region.
	Endpoint string
	Bucket   string
	// Region defaults to "us-east-1" (R2 wants "auto").
	Region string
	// AccessKeyID and SecretAccessKey are static credentials; when both are empty the SDK's default
	// chain (environment, shared files, instance role) is used.
	AccessKeyID     string
	SecretAccessKey string
	// PublicBaseURL is where readers fetch objects (a CDN or the bucket's public domain); empty
	// means the endpoint's own address for the object.
	PublicBaseURL string
	// PathStyle addresses the bucket as endpoint/bucket/key instead of bucket.endpoint/key; MinIO
	// and versitygw need it.
	PathStyle bool
	// TempDir is where bodies of unknown length are spooled before upload; default os.TempDir().
	TempDir string
	// HTTPClient overrides the SDK's HTTP client.
	HTTPClient *http.Client
}

// S3 stores objects in one bucket of an S3-compatible service. Metadata travels as x-amz-meta-*
// headers: "original-name" and "extra-<key>" for each BlobMeta.Extra entry.
type S3 struct {
	client  *s3.Client
	bucket  string
	baseURL string
	tempDir string
}

var _ folio.BlobStore = (*S3)(nil) // compile-time check

// NewS3 builds the client; it does no network I/O (call EnsureBucket to check the bucket).
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	if cfg.Bucket == "" {
		return nil, errors.New("blob.NewS3: S3_BUCKET is not set")
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	opts := []func(*config.LoadOptions) error{
		config.WithRegion(cfg.Region),
		// NB: the SDK's default CRC trailer checksums on every PutObject are not understood by
		// every S3-compatible server; send checksums only where the API requires them.
		config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
	}
	if cfg.AccessKeyID != "" || cfg.SecretAccessKey != "" {
		opts = append(opts, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(cfg.AccessKeyID, cfg.SecretAccessKey, "")))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, config.WithHTTPClient(cfg.HTTPClient))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("blob.NewS3: %w", err)
	}
	var endpoint *url.URL
	if cfg.Endpoint != "" {
		endpoint, err = url.Parse(cfg.Endpoint)
		if err != nil || (endpoint.Scheme != "http" && endpoint.Scheme != "https") || endpoint.Host == "" {
			return nil, fmt.Errorf("blob.NewS3: S3_ENDPOINT %q is not an http(s) URL", cfg.Endpoint)
		}
	}
	client := s3.NewFromConfig(awsCfg, func(o *s3.Options) {
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
		o.UsePathStyle = cfg.PathStyle
	})
	return &S3{client: client, bucket: cfg.Bucket, baseURL: s3PublicBase(cfg, endpoint), tempDir: cfg.TempDir}, nil
}

// s3PublicBase is the URL prefix under which keys are publicly readable.
func s3PublicBase(cfg S3Config, endpoint *url.URL) string {
	switch {
	case cfg.PublicBaseURL != "":
		return strings.TrimRight(cfg.PublicBaseURL, "/")
	case endpoint == nil && cfg.PathStyle:
		return "https://s3." + cfg.Region + ".amazonaws.com/" + cfg.Bucket
	case endpoint == nil:
		return "https://" + cfg.Bucket + ".s3." + cfg.Region + ".amazonaws.com"
	case cfg.PathStyle:
		return strings.TrimRight(endpoint.String(), "/") + "/" + url.PathEscape(cfg.Bucket)
	default:
		u := *endpoint
		u.Host = cfg.Bucket + "." + u.Host
		return strings.TrimRight(u.String(), "/")
	}
}

// EnsureBucket creates the bucket when it does not exist yet.
func (s *S3) EnsureBucket(ctx context.Context) error {
	_, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(s.bucket)})
	if err == nil {
		return nil
	}
	if !isNotFound(err) {
		return fmt.Errorf("blob.S3.EnsureBucket: %w", err)
	}
	if _, err := s.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(s.bucket)}); err != nil {
		// Another instance (or test) may have created it between the two calls.
		var owned *types.BucketAlreadyOwnedByYou
		if errors.As(err, &owned) {
			return nil
		}
		return fmt.Errorf("blob.S3.EnsureBucket: %w", err)
	}
	return nil
}

// URL returns the public base + "/" + key with each segment escaped.
func (s *S3) URL(key string) string { return joinURL(s.baseURL, key) }

// Put uploads the object in one PutObject request. A seekable body of known size (the media
// pipeline's temp file) is sent as is; any other body is first spooled to a temp file, because
// a signed single-part upload needs its length up front.
func (s *S3) Put(ctx context.Context, key string, r io.Reader, size int64, meta folio.BlobMeta) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	body, isSeeker := r.(io.ReadSeeker)
	if !isSeeker || size < 0 {
		f, err := os.CreateTemp(s.tempDir, "folio-s3-*")
		if err != nil {
			return fmt.Errorf("blob.S3.Put: %w", err)
		}
		defer os.Remove(f.Name())
		defer f.Close()
		n, err := io.Copy(f, ctxReader{ctx, r})
		if err != nil {
			return fmt.Errorf("blob.S3.Put: spooling: %w", err)
		}
		if size >= 0 && n != size {
			return fmt.Errorf("blob.S3.Put: body has %d bytes, want %d", n, size)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("blob.S3.Put: %w", err)
		}
		body, size = f, n
	} else if n, err := remaining(body); err != nil {
		return fmt.Errorf("blob.S3.Put: %w", err)
	} else if n != size {
		// Caught here: a short body would otherwise stall the request until it times out.
		return fmt.Errorf("blob.S3.Put: body has %d bytes, want %d", n, size)
	}
	contentType := servedType(meta.ContentType)
	in := &s3.PutObjectInput{
		Bucket: aws.String(s.bucket),
		Key:    aws.String(key),
		// The anonymous struct hides Close: the transport must not close the caller's file.
		Body:          struct{ io.ReadSeeker }{body},
		ContentLength: aws.Int64(size),
		ContentType:   aws.String(contentType),
		CacheControl:  aws.String("public, max-age=31536000, immutable"),
		Metadata:      encodeS3Meta(meta),
	}
	if !Inline(contentType) {
		// S3 serves the object with the headers stored with it: what the local handler sends
		// (docs/operations.md; the CSP and nosniff headers are the CDN's to add).
		in.ContentDisposition = aws.String("attachment")
	}
	_, err := s.client.PutObject(ctx, in)
	if err != nil {
		return fmt.Errorf("blob.S3.Put: %w", err)
	}
	return nil
}

// Get streams the object.
func (s *S3) Get(ctx context.Context, key string) (io.ReadCloser, folio.BlobMeta, error) {
	if err := ValidateKey(key); err != nil {
		return nil, folio.BlobMeta{}, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		if isNotFound(err) {
			return nil, folio.BlobMeta{}, folio.Errorf(folio.ENOTFOUND, "Media object not found.")
		}
		return nil, folio.BlobMeta{}, fmt.Errorf("blob.S3.Get: %w", err)
	}
	meta := decodeS3Meta(out.Metadata)
	meta.ContentType = aws.ToString(out.ContentType)
	return out.Body, meta, nil
}

// Delete removes the object; S3 treats deleting a missing key as success.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil && !isNotFound(err) {
		return fmt.Errorf("blob.S3.Delete: %w", err)
	}
	return nil
}

// List returns the keys that start with prefix, sorted.
func (s *S3) List(ctx context.Context, prefix string) ([]string, error) {
	var out []string
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: aws.String(s.bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("blob.S3.List: %w", err)
		}
		for _, o := range page.Contents {
			out = append(out, aws.ToString(o.Key))
		}
	}
	sort.Strings(out)
	return out, nil
}

// Exists asks for the object's headers.
func (s *S3) Exists(ctx context.Context, key string) (bool, error) {
	if err := ValidateKey(key); err != nil {
		return false, err
	}
	_, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err == nil {
		return true, nil
	}
	if isNotFound(err) {
		return false, nil
	}
	return false, fmt.Errorf("blob.S3.Exists: %w", err)
}

// remaining returns the number of bytes from rs's current offset to its end, leaving the offset
// where it was.
func remaining(rs io.Seeker) (int64, error) {
	cur, err := rs.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, err
	}
	end, err := rs.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, err
	}
	if _, err := rs.Seek(cur, io.SeekStart); err != nil {
		return 0, err
	}
	return end - cur, nil
}

func isNotFound(err error) bool {
	var re *smithyhttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() == http.StatusNotFound
}

// s3MetaBudget stays under AWS's 2 KB limit on the user metadata of one object (keys plus values).
const s3MetaBudget = 2000

const (
	s3MetaOriginalName = "original-name"
	s3MetaExtraPrefix  = "extra-"
)

// encodeS3Meta turns meta into x-amz-meta-* pairs. Header values must be printable ASCII, so
// anything else is RFC 2047 encoded (what AWS recommends). NB: values that would push the total
// past AWS's 2 KB limit are truncated — a 4000-character prompt does not fit in full.
func encodeS3Meta(meta folio.BlobMeta) map[string]string {
	out := map[string]string{}
	budget := s3MetaBudget
	add := func(k, v string) {
		if v == "" {
			return
		}
		enc := encodeS3Value(v)
		if len(k)+len(enc) > budget {
			enc = truncateS3Value(v, budget-len(k))
		}
		if enc == "" {
			return
		}
		out[k] = enc
		budget -= len(k) + len(enc)
	}
	// Short values first, so one long prompt or name cannot crowd out model and size.
	entries := [][2]string{{s3MetaOriginalName, meta.OriginalName}}
	for k, v := range meta.Extra {
		entries = append(entries, [2]string{s3MetaExtraPrefix + strings.ToLower(k), v})
	}
	slices.SortFunc(entries, func(a, b [2]string) int {
		if d := len(a[1]) - len(b[1]); d != 0 {
			return d
		}
		return strings.Compare(a[0], b[0])
	})
	for _, e := range entries {
		add(e[0], e[1])
	}
	return out
}

// truncateS3Value returns the longest encoded prefix of v (whole runes) that fits in max bytes.
func truncateS3Value(v string, max int) string {
	if max <= 0 {
		return ""
	}
	runes := []rune(v)
	lo, hi := 0, len(runes) // invariant: prefix of lo runes fits
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if len(encodeS3Value(string(runes[:mid]))) <= max {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return ""
	}
	return encodeS3Value(string(runes[:lo]))
}

func encodeS3Value(v string) string {
	plain := !strings.Contains(v, "=?") && strings.TrimSpace(v) == v
	for i := 0; plain && i < len(v); i++ {
		plain = v[i] >= 0x20 && v[i] < 0x7f
	}
	if plain {
		return v
	}
	if !utf8.ValidString(v) {
		v = strings.ToValidUTF8(v, "\uFFFD")
	}
	return mime.BEncoding.Encode("utf-8", v)
}

func decodeS3Meta(m map[string]string) folio.BlobMeta {
	var meta folio.BlobMeta
	dec := new(mime.WordDecoder)
	for k, v := range m {
		if d, err := dec.DecodeHeader(v); err == nil {
			v = d
		}
		k = strings.ToLower(k)
		switch {
		case k == s3MetaOriginalName:
			meta.OriginalName = v
		case strings.HasPrefix(k, s3MetaExtraPrefix):
			if meta.Extra == nil {
				meta.Extra = map[string]string{}
			}
			meta.Extra[strings.TrimPrefix(k, s3MetaExtraPrefix)] = v
		}
	}
	return meta
}
