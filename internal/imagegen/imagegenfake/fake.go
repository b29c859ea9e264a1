// Package imagegenfake is an in-process stand-in for an OpenAI-compatible images API. It
// checks requests the way the real API does (method, path, bearer key, JSON body, required
// fields, n, size, prompt length, response_format rules per model) and answers with a real PNG
// of the requested size as b64_json, as a url it serves itself, or as a data: URL, or fails on
// purpose (500, 429, slow, malformed, content policy).
package imagegenfake

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Mode chooses how the fake answers a valid request.
type Mode int

const (
	// ModeAuto answers as the real API: b64_json for gpt-image-* models, else what
	// response_format asked for (url by default).
	ModeAuto          Mode = iota
	ModeB64                // data[0].b64_json
	ModeURL                // data[0].url pointing at a PNG the fake serves
	ModeDataURL            // data[0].url as data:image/png;base64,…
	ModeServerError        // 500 with an OpenAI error body
	ModeRateLimit          // 429 insufficient_quota / rate_limit_exceeded
	ModeSlow               // never answers until the client gives up
	ModeMalformed          // 200 with truncated JSON
	ModeBadBase64          // 200 with b64_json that is not base64
	ModeEmpty              // 200 with "data": []
	ModeContentPolicy      // 400 content_policy_violation
	ModeBrokenURL          // data[0].url pointing at a 404
	ModeNotImage           // 200 b64_json of an HTML page
)

// Request is one accepted generation request as the fake decoded it.
type Request struct {
	Model          string
	Prompt         string
	N              int
	Size           string
	ResponseFormat string
}

// Server is the fake API. Use BaseURL as IMAGE_API_BASE_URL.
type Server struct {
	*httptest.Server
	apiKey string
	// MaxPromptChars is the prompt limit (DALL·E 3's 4000 by default).
	MaxPromptChars int
	// Sizes are the accepted sizes.
	Sizes map[string]bool

	mu        sync.Mutex
	mode      Mode
	requests  []Request
	downloads []http.Header
	files     map[string][]byte
	pngs      map[string][]byte
	release   chan struct{}
}

// New starts a fake that accepts apiKey. Close it when done.
func New(apiKey string) *Server {
	s := &Server{
		apiKey:         apiKey,
		MaxPromptChars: 4000,
		Sizes: map[string]bool{"256x256": true, "512x512": true, "1024x1024": true, "1024x1536": true,
			"1536x1024": true, "1792x1024": true, "1024x1792": true, "auto": true},
		files:   map[string][]byte{},
		pngs:    map[string][]byte{},
		release: make(chan struct{}),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/images/generations", s.generate)
	mux.HandleFunc("GET /files/{name}", s.file)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		apiErr(w, 404, "invalid_request_error", "", "Invalid URL ("+r.Method+" "+r.URL.Path+")")
	})
	s.Server = httptest.NewServer(mux)
	return s
}

// Close releases slow requests and stops the server.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.release:
	default:
		close(s.release)
	}
	s.mu.Unlock()
	s.Server.Close()
}

// BaseURL is the API base including the version, like https://api.openai.com/v1.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// SetMode changes how later requests are answered.
func (s *Server) SetMode(m Mode) {
	s.mu.Lock()
	s.mode = m
	s.mu.Unlock()
}

// Requests returns the accepted requests so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Downloads returns the request headers of every image download from the fake's file URLs.
func (s *Server) Downloads() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.downloads...)
}

// apiErr writes an OpenAI-style error body.
func apiErr(w http.ResponseWriter, status int, typ, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	var c any
	if code != "" {
		c = code
	}
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": c}})
}

func (s *Server) generate(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		apiErr(w, 405, "invalid_request_error", "", "Method not allowed.")
		return
	}
	auth := r.Header.Get("Authorization")
	key, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || key == "" {
		apiErr(w, 401, "invalid_request_error", "", "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth.")
		return
	}
	if key != s.apiKey {
		// Like the real API, quote a redacted fragment of the key: clients must not pass this on.
		apiErr(w, 401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided: "+redact(key)+".")
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		apiErr(w, 400, "invalid_request_error", "", "Invalid Content-Type header ("+ct+"), expected application/json.")
		return
	}
	var in struct {
		Model          *string `json:"model"`
		Prompt         *string `json:"prompt"`
		N              *int    `json:"n"`
		Size           *string `json:"size"`
		ResponseFormat *string `json:"response_format"`
		Quality        *string `json:"quality"`
		Style          *string `json:"style"`
		User           *string `json:"user"`
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		apiErr(w, 400, "invalid_request_error", "", "We could not parse the JSON body of your request: "+err.Error())
		return
	}
	req := Request{N: 1, Size: "1024x1024"}
	switch {
	case in.Model == nil || *in.Model == "":
		apiErr(w, 400, "invalid_request_error", "", "You must provide a model parameter.")
		return
	case in.Prompt == nil || *in.Prompt == "":
		apiErr(w, 400, "invalid_request_error", "", "Missing required parameter: 'prompt'.")
		return
	case utf8.RuneCountInString(*in.Prompt) > s.MaxPromptChars:
		apiErr(w, 400, "invalid_request_error", "", fmt.Sprintf("Invalid 'prompt': string too long. Expected a string with maximum length %d.", s.MaxPromptChars))
		return
	}
	req.Model, req.Prompt = *in.Model, *in.Prompt
	if in.N != nil {
		if *in.N < 1 || *in.N > 10 {
			apiErr(w, 400, "invalid_request_error", "", "Invalid 'n': must be between 1 and 10.")
			return
		}
		req.N = *in.N
	}
	if in.Size != nil {
		if !s.Sizes[*in.Size] {
			apiErr(w, 400, "invalid_request_error", "", fmt.Sprintf("Invalid value: '%s'. Supported values are listed in the docs.", *in.Size))
			return
		}
		req.Size = *in.Size
	}
	gptImage := strings.HasPrefix(req.Model, "gpt-image")
	if in.ResponseFormat != nil {
		if gptImage {
			apiErr(w, 400, "invalid_request_error", "unknown_parameter", "Unknown parameter: 'response_format'.")
			return
		}
		if *in.ResponseFormat != "url" && *in.ResponseFormat != "b64_json" {
			apiErr(w, 400, "invalid_request_error", "", "Invalid value for 'response_format': must be 'url' or 'b64_json'.")
			return
		}
		req.ResponseFormat = *in.ResponseFormat
	}

	s.mu.Lock()
	s.requests = append(s.requests, req)
	mode := s.mode
	s.mu.Unlock()
	if mode == ModeAuto {
		switch {
		case gptImage || req.ResponseFormat == "b64_json":
			mode = ModeB64
		default:
			mode = ModeURL
		}
	}

	w.Header().Set("Content-Type", "application/json")
	img := s.pngOf(req.Size)
	item := map[string]any{}
	if strings.HasPrefix(req.Model, "dall-e-3") {
		item["revised_prompt"] = "A detailed rendering of " + req.Prompt
	}
	switch mode {
	case ModeServerError:
		apiErr(w, 500, "server_error", "", "The server had an error while processing your request.")
		return
	case ModeRateLimit:
		apiErr(w, 429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota, please check your plan and billing details.")
		return
	case ModeContentPolicy:
		apiErr(w, 400, "invalid_request_error", "content_policy_violation", "Your request was rejected as a result of our safety system.")
		return
	case ModeSlow:
		select {
		case <-r.Context().Done():
		case <-s.release:
		}
		return
	case ModeMalformed:
		w.Write([]byte(`{"created": 1, "data": [{"b64_json": "iVBO`))
		return
	case ModeEmpty:
		w.Write([]byte(`{"created": 1, "data": []}`))
		return
	case ModeBadBase64:
		item["b64_json"] = "!!! not base64 !!!"
	case ModeNotImage:
		item["b64_json"] = base64.StdEncoding.EncodeToString([]byte("<!doctype html><html><body>hi</body></html>"))
	case ModeB64:
		item["b64_json"] = base64.StdEncoding.EncodeToString(img)
	case ModeDataURL:
		item["url"] = "data:image/png;base64," + base64.StdEncoding.EncodeToString(img)
	case ModeURL:
		s.mu.Lock()
		name := strconv.Itoa(len(s.files)) + ".png"
		s.files[name] = img
		s.mu.Unlock()
		item["url"] = s.URL + "/files/" + name
	case ModeBrokenURL:
		item["url"] = s.URL + "/files/missing.png"
	}
	json.NewEncoder(w).Encode(map[string]any{"created": 1700000000, "data": []any{item}})
}

func (s *Server) file(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.downloads = append(s.downloads, r.Header.Clone())
	b, ok := s.files[r.PathValue("name")]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Write(b)
}

// pngOf returns a PNG of the given <w>x<h> size ("auto" means 1024x1024).
func (s *Server) pngOf(size string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.pngs[size]; ok {
		return b
	}
	w, h := 1024, 1024
	fmt.Sscanf(size, "%dx%d", &w, &h)
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	img.Set(w/2, h/2, color.NRGBA{R: 200, G: 40, B: 90, A: 255})
	var buf bytes.Buffer
	png.Encode(&buf, img)
	s.pngs[size] = buf.Bytes()
	return buf.Bytes()
}

func redact(key string) string {
	if len(key) <= 8 {
		return "****"
	}
	return key[:3] + "*****" + key[len(key)-4:]
}
