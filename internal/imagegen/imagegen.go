// Package imagegen is a client of OpenAI-compatible image generation APIs
// (POST {base}/images/generations), implementing folio.ImageGenerator.
//
// Decisions:
//   - response_format: models named gpt-image-* always answer with b64_json and reject the
//     parameter, so it is left out for them; for every other model (dall-e-2/3 and most
//     compatible servers) "b64_json" is asked for, which saves a second download. Either way
//     the client accepts data[0].b64_json, data[0].url (downloaded, size-capped, without the
//     API key) and a url that is a data: URI.
//   - Failures are 502 UPSTREAM_ERROR with a fixed, safe message; the upstream's own message is
//     never passed on because some providers echo part of the key in it. The wrapped error
//     names the upstream status and error code for the log.
//   - A url answer is fetched only from public addresses, redirects included (internal/netguard):
//     the URL is the upstream's to choose, and following it blindly would let a compromised or
//     malicious provider make folio read its own loopback or private network (SSRF). Config.
//     Download opts out for a provider on the operator's own network (IMAGE_ALLOW_PRIVATE).
//   - A prompt the provider refuses under its content policy (content_policy_violation,
//     moderation_blocked) is 422 VALIDATION_ERROR on field "prompt": the caller can fix it by
//     rephrasing, so it is not reported as an outage.
package imagegen

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/netguard"
)

// Defaults of Config.
const (
	DefaultBaseURL       = "https://api.openai.com/v1"
	DefaultModel         = "gpt-image-1"
	DefaultTimeout       = 120 * time.Second // gpt-image-1 often needs close to a minute
	DefaultMaxImageBytes = 20 << 20
)

// Config configures a Client. Only APIKey is required.
type Config struct {
	BaseURL string // IMAGE_API_BASE_URL, up to and including the version, e.g. ".../v1"
	APIKey  string // IMAGE_API_KEY (secret)
	Model   string // IMAGE_MODEL
	// Timeout bounds one Generate call, including downloading a url answer (IMAGE_TIMEOUT).
	Timeout    time.Duration
	HTTPClient *http.Client
	// MaxImageBytes caps the decoded or downloaded image.
	MaxImageBytes int64
	// Download is the address policy of image URLs the API answers with. The zero value lets
	// only public addresses through, on every redirect hop; AllowPrivate is IMAGE_ALLOW_PRIVATE.
	// HTTPClient is not used for these downloads.
	Download netguard.Policy
}

// Client calls the images API. It is safe for concurrent use.
type Client struct {
	base     *url.URL
	apiKey   string
	model    string
	timeout  time.Duration
	http     *http.Client
	fetch    *http.Client // downloads of url answers, through the address guard
	maxBytes int64
}

var _ folio.ImageGenerator = (*Client)(nil) // compile-time check

// New checks cfg and fills in defaults. A missing API key is an error naming IMAGE_API_KEY:
// the caller then leaves image generation unconfigured (503).
func New(cfg Config) (*Client, error) {
	if cfg.APIKey == "" {
		return nil, errors.New("imagegen: IMAGE_API_KEY is not set")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	base, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("imagegen: IMAGE_API_BASE_URL %q is not an http(s) URL", cfg.BaseURL)
	}
	c := &Client{base: base, apiKey: cfg.APIKey, model: cfg.Model, timeout: cfg.Timeout,
		http: cfg.HTTPClient, maxBytes: cfg.MaxImageBytes, fetch: cfg.Download.Client(0)} // the context bounds it
	if c.model == "" {
		c.model = DefaultModel
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.maxBytes <= 0 {
		c.maxBytes = DefaultMaxImageBytes
	}
	return c, nil
}

// Model is the model the client asks for.
func (c *Client) Model() string { return c.model }

type generateRequest struct {
	Model          string `json:"model"`
	Prompt         string `json:"prompt"`
	N              int    `json:"n"`
	Size           string `json:"size"`
	ResponseFormat string `json:"response_format,omitempty"`
}

type generateResponse struct {
	Data []struct {
		B64JSON       string `json:"b64_json"`
		URL           string `json:"url"`
		RevisedPrompt string `json:"revised_prompt"`
	} `json:"data"`
}

type apiError struct {
	Error struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"` // a string or null; some servers send numbers
	} `json:"error"`
}

// Generate asks for one image of the given size. See the package comment for the errors.
func (c *Client) Generate(ctx context.Context, prompt, size string) ([]byte, string, string, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	in := generateRequest{Model: c.model, Prompt: prompt, N: 1, Size: size}
	if !strings.HasPrefix(c.model, "gpt-image") {
		in.ResponseFormat = "b64_json"
	}
	body, err := json.Marshal(in)
	if err != nil {
		return nil, "", "", fmt.Errorf("imagegen: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base.String()+"/images/generations", bytes.NewReader(body))
	if err != nil {
		return nil, "", "", fmt.Errorf("imagegen: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, "", "", c.transportError(parent, ctx, "request", err)
	}
	defer resp.Body.Close()
	// b64 grows the image by 4/3; allow some JSON around it.
	raw, err := readCapped(resp.Body, c.maxBytes/3*4+64<<10)
	if err != nil {
		return nil, "", "", c.transportError(parent, ctx, "reading answer", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, "", "", c.statusError(resp.StatusCode, raw)
	}
	var out generateResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, "", "", upstream("malformed answer: %v", err)
	}
	if len(out.Data) == 0 {
		return nil, "", "", upstream("answer has no data")
	}
	d := out.Data[0]
	var data []byte
	var contentType string
	switch {
	case d.B64JSON != "":
		data, err = decodeBase64(d.B64JSON)
		if err != nil {
			return nil, "", "", upstream("b64_json: %v", err)
		}
	case strings.HasPrefix(d.URL, "data:"):
		contentType, data, err = ParseDataURL(d.URL)
		if err != nil {
			return nil, "", "", upstream("data URL: %v", err)
		}
	case d.URL != "":
		data, contentType, err = c.download(parent, ctx, d.URL)
		if err != nil {
			return nil, "", "", err
		}
	default:
		return nil, "", "", upstream("answer has neither b64_json nor url")
	}
	if int64(len(data)) > c.maxBytes {
		return nil, "", "", upstream("image of %d bytes is over the %d-byte cap", len(data), c.maxBytes)
	}
	if len(data) == 0 {
		return nil, "", "", upstream("image is empty")
	}
	if contentType == "" || contentType == "application/octet-stream" {
		contentType = http.DetectContentType(data)
	}
	return data, contentType, d.RevisedPrompt, nil
}

// download fetches an image the API handed out by URL. The API key is not sent: such URLs are
// pre-signed and often on another host.
func (c *Client) download(parent, ctx context.Context, raw string) ([]byte, string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, "", upstream("image url is not an http(s) URL")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", upstream("image url: %v", err)
	}
	resp, err := c.fetch.Do(req)
	if err != nil {
		if errors.Is(err, netguard.ErrForbidden) {
			return nil, "", fmt.Errorf("imagegen: downloading image: %w: %w", err,
				folio.Errorf(folio.EUPSTREAM, "The image provider answered with a URL on a non-public address; it was not fetched."))
		}
		return nil, "", c.transportError(parent, ctx, "downloading image", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", upstream("downloading image: HTTP %d", resp.StatusCode)
	}
	data, err := readCapped(resp.Body, c.maxBytes)
	if err != nil {
		return nil, "", c.transportError(parent, ctx, "downloading image", err)
	}
	ct, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	return data, strings.TrimSpace(ct), nil
}

var errTooBig = errors.New("answer too large")

// readCapped reads all of r, failing with errTooBig beyond max bytes.
func readCapped(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, errTooBig
	}
	return b, nil
}

// transportError tells a caller that went away (its context) from an upstream that was too
// slow (our timeout) or unreachable.
func (c *Client) transportError(parent, ctx context.Context, what string, err error) error {
	switch {
	case parent.Err() != nil:
		return fmt.Errorf("imagegen: %s: %w", what, parent.Err())
	case ctx.Err() != nil:
		return fmt.Errorf("imagegen: %s: timed out after %s: %w", what, c.timeout,
			folio.Errorf(folio.EUPSTREAM, "The image provider did not answer in time."))
	case errors.Is(err, errTooBig):
		return upstream("%s: over the size cap", what)
	}
	// NB: err names the URL, which holds no secret (the key travels in a header).
	return fmt.Errorf("imagegen: %s: %v: %w", what, err,
		folio.Errorf(folio.EUPSTREAM, "The image provider could not be reached."))
}

// statusError maps a non-200 answer. Only the error type and code are kept for the log: the
// message may quote part of the key. They are upstream text too, so each is kept only when it
// looks like an identifier and holds no piece of the key (keyPiece).
func (c *Client) statusError(status int, raw []byte) error {
	var e apiError
	_ = json.Unmarshal(raw, &e)
	code := strings.Trim(string(e.Error.Code), `"`)
	detail := fmt.Sprintf("imagegen: HTTP %d (type %q, code %q)", status, c.loggable(e.Error.Type), c.loggable(code))
	var fe *folio.Error
	switch {
	case code == "content_policy_violation" || code == "moderation_blocked" || e.Error.Type == "image_generation_user_error":
		fe = &folio.Error{Code: folio.EINVALID, RuleBroken: true,
			Message: "The image provider refused this prompt under its content policy.",
			Details: []folio.FieldError{{Field: "prompt", Message: "was refused by the image provider's content policy"}}}
	case status == http.StatusTooManyRequests:
		fe = folio.Errorf(folio.EUPSTREAM, "The image provider is rate limiting or out of quota; try again later.")
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		fe = folio.Errorf(folio.EUPSTREAM, "The image provider rejected the configured credentials.")
	case status >= 500:
		fe = folio.Errorf(folio.EUPSTREAM, "The image provider failed (HTTP %d).", status)
	default:
		fe = folio.Errorf(folio.EUPSTREAM, "The image provider rejected the request (HTTP %d).", status)
	}
	return fmt.Errorf("%s: %w", detail, fe)
}

// loggable is s when it is a short identifier ([A-Za-z0-9_.-], at most 64 bytes) free of the
// key's pieces as providers print them (its first three and last four characters), else a
// placeholder.
func (c *Client) loggable(s string) string {
	if len(s) > 64 || strings.TrimLeft(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != "" {
		return "(withheld)"
	}
	if k := c.apiKey; len(k) >= 8 && (strings.Contains(s, k[len(k)-4:]) || strings.Contains(s, k[:3])) {
		return "(withheld)"
	}
	return s
}

func upstream(format string, args ...any) error {
	return fmt.Errorf("imagegen: %s: %w", fmt.Sprintf(format, args...),
		folio.Errorf(folio.EUPSTREAM, "The image provider sent an unusable answer."))
}

// decodeBase64 accepts standard base64 with or without padding, ignoring line breaks.
func decodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
}

// ParseDataURL decodes an RFC 2397 data: URL, returning its media type (without parameters,
// "text/plain" when absent) and bytes. Both base64 and percent-encoded payloads are accepted.
func ParseDataURL(s string) (mediaType string, data []byte, err error) {
	rest, ok := strings.CutPrefix(s, "data:")
	if !ok {
		return "", nil, errors.New("not a data: URL")
	}
	header, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return "", nil, errors.New("data: URL without ','")
	}
	params := strings.Split(header, ";")
	mediaType = strings.ToLower(strings.TrimSpace(params[0]))
	isBase64 := false
	for _, p := range params[1:] {
		if strings.EqualFold(strings.TrimSpace(p), "base64") {
			isBase64 = true
		}
	}
	if mediaType == "" {
		mediaType = "text/plain"
	}
	if strings.ContainsAny(mediaType, " \t\"") || !strings.Contains(mediaType, "/") {
		return "", nil, fmt.Errorf("bad media type %q", mediaType)
	}
	p, err := url.PathUnescape(payload) // base64 payloads too: some encoders escape '+', '/', '='
	if err != nil {
		return "", nil, err
	}
	if !isBase64 {
		return mediaType, []byte(p), nil
	}
	data, err = decodeBase64(p)
	if err != nil {
		return "", nil, err
	}
	return mediaType, data, nil
}
