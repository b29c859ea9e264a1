package media

import (
	"context"
	"image/png"
	"strings"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/blob"
	"github.com/foliohq/folio/internal/imagegen"
	"github.com/foliohq/folio/internal/imagegen/imagegenfake"
	"github.com/foliohq/folio/internal/netguard"
)

// stubGenerator answers every Generate with fixed bytes or a fixed error and records the call.
type stubGenerator struct {
	data    []byte
	revised string
	err     error
	prompt  string
	size    string
}

func (g *stubGenerator) Generate(ctx context.Context, prompt, size string) ([]byte, string, string, error) {
	g.prompt, g.size = prompt, size
	return g.data, "image/png", g.revised, g.err
}

func TestImageStudio(t *testing.T) {
	t.Parallel()
	pngData := pngBytes(t, 16, 16)
	upstream := folio.Errorf(folio.EUPSTREAM, "The image API failed.")
	tests := []struct {
		name      string
		gen       *stubGenerator
		noGen     bool
		sizes     []string
		prompt    string
		size      string
		wantCode  string
		wantState int
		wantField string
		wantSize  string
		wantInMsg string
	}{
		{name: "ok", gen: &stubGenerator{data: pngData, revised: "a fluffy cat"}, prompt: "a cat", size: "1024x1536", wantSize: "1024x1536"},
		{name: "default size is the first allowed", gen: &stubGenerator{data: pngData}, prompt: "a cat", wantSize: "1024x1024"},
		{name: "custom sizes", gen: &stubGenerator{data: pngData}, sizes: []string{"512x512"}, prompt: "a cat", size: "512x512", wantSize: "512x512"},
		{name: "not configured", noGen: true, prompt: "a cat", wantCode: folio.EUNAVAILABLE, wantInMsg: "IMAGE_API_KEY"},
		{name: "missing prompt", gen: &stubGenerator{data: pngData}, prompt: "  ", wantCode: folio.EINVALID, wantState: 400, wantField: "prompt"},
		{name: "prompt of 4000 chars", gen: &stubGenerator{data: pngData}, prompt: strings.Repeat("é", 4000), wantSize: "1024x1024"},
		{name: "prompt too long", gen: &stubGenerator{data: pngData}, prompt: strings.Repeat("é", 4001), wantCode: folio.EINVALID, wantState: 422, wantField: "prompt"},
		{name: "size outside the list", gen: &stubGenerator{data: pngData}, prompt: "a cat", size: "1792x1024", wantCode: folio.EINVALID, wantState: 422, wantField: "size", wantInMsg: "1024x1024, 1024x1536, 1536x1024"},
		{name: "upstream error passes through", gen: &stubGenerator{err: upstream}, prompt: "a cat", wantCode: folio.EUPSTREAM},
		{name: "upstream sends text", gen: &stubGenerator{data: []byte("<html>oops</html>")}, prompt: "a cat", wantCode: folio.EUPSTREAM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u, store := mustUploader(t)
			s := &ImageStudio{Uploader: u, Model: "gpt-image-1", Sizes: tt.sizes}
			if !tt.noGen {
				s.Generator = tt.gen
			}
			got, _, err := s.Generate(context.Background(), tt.prompt, tt.size)
			if tt.wantCode != "" {
				wantError(t, err, tt.wantCode, tt.wantState, tt.wantField)
				if !strings.Contains(err.Error(), tt.wantInMsg) {
					t.Errorf("error %q does not mention %q", err, tt.wantInMsg)
				}
				if store.puts != 0 {
					t.Error("stored an object on failure")
				}
				return
			}
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if got.Prompt != tt.prompt || !strings.HasPrefix(got.ImageURL, "https://cdn.test/media/") {
				t.Errorf("got %+v", got)
			}
			if tt.gen.size != tt.wantSize {
				t.Errorf("generator got size %q, want %q", tt.gen.size, tt.wantSize)
			}
			key := strings.TrimPrefix(got.ImageURL, "https://cdn.test/media/")
			m := store.meta[key]
			if m.Extra["prompt"] != tt.prompt || m.Extra["model"] != "gpt-image-1" || m.Extra["size"] != tt.wantSize {
				t.Errorf("stored meta = %+v", m.Extra)
			}
			if tt.gen.revised != "" && m.Extra["revised-prompt"] != tt.gen.revised {
				t.Errorf("revised prompt not kept: %+v", m.Extra)
			}
		})
	}
}

func TestParseSizes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{"1024x1024,1024x1536, 1536x1024", "1024x1024 1024x1536 1536x1024", false},
		{"512x512", "512x512", false},
		{"", "", true},
		{"1024", "", true},
		{"1024x", "", true},
		{"0x10", "", true},
		{"01024x1024", "", true},
		{"1024x1024x1", "", true},
	}
	for _, tt := range tests {
		got, err := ParseSizes(tt.in)
		if (err != nil) != tt.wantErr || strings.Join(got, " ") != tt.want {
			t.Errorf("ParseSizes(%q) = %q, %v; want %q, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestImageStudioEndToEnd runs the real client against the fake images API and stores into
// local disk storage, for each answer shape the API can give.
func TestImageStudioEndToEnd(t *testing.T) {
	t.Parallel()
	for name, mode := range map[string]imagegenfake.Mode{"b64_json": imagegenfake.ModeB64, "url": imagegenfake.ModeURL, "data URL": imagegenfake.ModeDataURL} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fake := imagegenfake.New("sk-e2e-key-123456")
			defer fake.Close()
			fake.SetMode(mode)
			// The fake serves its url answers on loopback: allowed explicitly, as IMAGE_ALLOW_PRIVATE does.
			gen, err := imagegen.New(imagegen.Config{BaseURL: fake.BaseURL(), APIKey: "sk-e2e-key-123456", Model: "dall-e-2",
				Download: netguard.Policy{AllowPrivate: true}})
			if err != nil {
				t.Fatal(err)
			}
			store, err := blob.NewLocal(t.TempDir(), "/media")
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			s := &ImageStudio{Generator: gen, Uploader: &Uploader{Store: store, TempDir: t.TempDir()}, Model: gen.Model()}
			got, _, err := s.Generate(context.Background(), "a lighthouse", "1536x1024")
			if err != nil {
				t.Fatal(err)
			}
			key := strings.TrimPrefix(got.ImageURL, "/media/")
			rc, meta, err := store.Get(context.Background(), key)
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			cfg, err := png.DecodeConfig(rc)
			if err != nil || cfg.Width != 1536 || cfg.Height != 1024 {
				t.Errorf("stored image: %v %dx%d", err, cfg.Width, cfg.Height)
			}
			if meta.ContentType != "image/png" || meta.Extra["prompt"] != "a lighthouse" || meta.Extra["model"] != "dall-e-2" || meta.Extra["size"] != "1536x1024" {
				t.Errorf("meta = %+v", meta)
			}
		})
	}
}
