package blob

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/foliohq/folio"
)

// testStore runs the folio.BlobStore contract against store. prefix keeps keys of one run apart
// from others on a shared server.
func testStore(t *testing.T, store folio.BlobStore, prefix string) {
	ctx := context.Background()

	t.Run("round trip with metadata", func(t *testing.T) {
		t.Parallel()
		key := prefix + "roundtrip.png"
		body := []byte("\x89PNG fake bytes")
		meta := folio.BlobMeta{
			ContentType:  "image/png",
			OriginalName: "Été à Paris.png",
			Extra:        map[string]string{"prompt": "a cat\non a mat, 日本語 =?x?=", "model": "gpt-image-1", "size": "1024x1024"},
		}
		mustPut(t, store, key, body, int64(len(body)), meta)
		got, gotMeta := mustGet(t, store, key)
		if !bytes.Equal(got, body) {
			t.Errorf("body = %q, want %q", got, body)
		}
		if gotMeta.ContentType != meta.ContentType || gotMeta.OriginalName != meta.OriginalName {
			t.Errorf("meta = %+v, want %+v", gotMeta, meta)
		}
		for k, v := range meta.Extra {
			if gotMeta.Extra[k] != v {
				t.Errorf("Extra[%q] = %q, want %q", k, gotMeta.Extra[k], v)
			}
		}
		if ok, err := store.Exists(ctx, key); err != nil || !ok {
			t.Errorf("Exists = %v, %v; want true", ok, err)
		}
	})

	t.Run("unknown size and a reader that is not seekable", func(t *testing.T) {
		t.Parallel()
		key := prefix + "nested/dir/unknown.bin"
		body := make([]byte, 300_000)
		rand.Read(body)
		if err := store.Put(ctx, key, iotest.OneByteReader(bytes.NewReader(body)), -1, folio.BlobMeta{ContentType: "application/pdf"}); err != nil {
			t.Fatalf("Put: %v", err)
		}
		got, meta := mustGet(t, store, key)
		if !bytes.Equal(got, body) {
			t.Errorf("body differs (got %d bytes, want %d)", len(got), len(body))
		}
		if meta.ContentType != "application/pdf" {
			t.Errorf("ContentType = %q", meta.ContentType)
		}
	})

	t.Run("overwrite replaces", func(t *testing.T) {
		t.Parallel()
		key := prefix + "overwrite.txt"
		mustPut(t, store, key, []byte("one"), 3, folio.BlobMeta{ContentType: "text/plain"})
		mustPut(t, store, key, []byte("second"), 6, folio.BlobMeta{ContentType: "text/plain", OriginalName: "b.txt"})
		got, meta := mustGet(t, store, key)
		if string(got) != "second" || meta.OriginalName != "b.txt" {
			t.Errorf("got %q %+v, want second, b.txt", got, meta)
		}
	})

	t.Run("delete and missing keys", func(t *testing.T) {
		t.Parallel()
		key := prefix + "delete.txt"
		mustPut(t, store, key, []byte("x"), 1, folio.BlobMeta{ContentType: "text/plain"})
		for i := range 2 { // deleting twice is fine
			if err := store.Delete(ctx, key); err != nil {
				t.Fatalf("Delete #%d: %v", i+1, err)
			}
		}
		if ok, err := store.Exists(ctx, key); err != nil || ok {
			t.Errorf("Exists after delete = %v, %v; want false", ok, err)
		}
		if _, _, err := store.Get(ctx, key); folio.ErrorCode(err) != folio.ENOTFOUND {
			t.Errorf("Get after delete: err = %v, want %s", err, folio.ENOTFOUND)
		}
		if ok, err := store.Exists(ctx, prefix+"never-written"); err != nil || ok {
			t.Errorf("Exists(never written) = %v, %v", ok, err)
		}
	})

	t.Run("size mismatch stores nothing", func(t *testing.T) {
		t.Parallel()
		key := prefix + "short.bin"
		err := store.Put(ctx, key, strings.NewReader("abc"), 10, folio.BlobMeta{ContentType: "text/plain"})
		if err == nil {
			t.Fatal("Put with a short body succeeded")
		}
		if ok, _ := store.Exists(ctx, key); ok {
			t.Error("a partial object is visible")
		}
	})

	t.Run("a failing reader stores nothing", func(t *testing.T) {
		t.Parallel()
		key := prefix + "failing.bin"
		boom := errors.New("boom")
		r := io.MultiReader(strings.NewReader("some bytes"), iotest.ErrReader(boom))
		if err := store.Put(ctx, key, r, -1, folio.BlobMeta{}); err == nil {
			t.Fatal("Put with a failing reader succeeded")
		}
		if ok, _ := store.Exists(ctx, key); ok {
			t.Error("a partial object is visible")
		}
	})

	t.Run("invalid keys are refused", func(t *testing.T) {
		t.Parallel()
		for _, key := range badKeys {
			err := store.Put(ctx, key, strings.NewReader("x"), 1, folio.BlobMeta{})
			if folio.ErrorCode(err) != folio.EINVALID {
				t.Errorf("Put(%q): err = %v, want %s", key, err, folio.EINVALID)
			}
			if _, _, err := store.Get(ctx, key); folio.ErrorCode(err) != folio.EINVALID {
				t.Errorf("Get(%q): err = %v, want %s", key, err, folio.EINVALID)
			}
			if err := store.Delete(ctx, key); folio.ErrorCode(err) != folio.EINVALID {
				t.Errorf("Delete(%q): err = %v, want %s", key, err, folio.EINVALID)
			}
			if _, err := store.Exists(ctx, key); folio.ErrorCode(err) != folio.EINVALID {
				t.Errorf("Exists(%q): err = %v, want %s", key, err, folio.EINVALID)
			}
		}
	})

	t.Run("cancelled context", func(t *testing.T) {
		t.Parallel()
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		key := prefix + "cancelled.bin"
		if err := store.Put(cctx, key, strings.NewReader("x"), 1, folio.BlobMeta{}); err == nil {
			t.Error("Put with a cancelled context succeeded")
		}
		if ok, _ := store.Exists(ctx, key); ok {
			t.Error("object stored despite cancelled context")
		}
	})
}

var badKeys = []string{
	"", "/abs.png", "../x.png", "a/../../x.png", "a/..", "..", ".", "./a", "a//b", "a/", `a\b.png`,
	"a\x00b", "a\nb", ".meta/x.json", ".tmp/x", "a/.hidden", "\xff\xfe", strings.Repeat("a", 1025),
}

func mustPut(t *testing.T, store folio.BlobStore, key string, body []byte, size int64, meta folio.BlobMeta) {
	t.Helper()
	if err := store.Put(context.Background(), key, bytes.NewReader(body), size, meta); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
	t.Cleanup(func() { store.Delete(context.Background(), key) })
}

func mustGet(t *testing.T, store folio.BlobStore, key string) ([]byte, folio.BlobMeta) {
	t.Helper()
	rc, meta, err := store.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("Get(%q): read: %v", key, err)
	}
	return b, meta
}

func FuzzValidateKey(f *testing.F) {
	for _, k := range append(badKeys, "abc.png", "a/b/c.pdf", "日本.png", "a..b") {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		if ValidateKey(key) != nil {
			return
		}
		if strings.HasPrefix(key, "/") || strings.Contains(key, `\`) || strings.ContainsRune(key, 0) {
			t.Fatalf("accepted unsafe key %q", key)
		}
		for _, seg := range strings.Split(key, "/") {
			if seg == "" || seg == "." || seg == ".." || seg[0] == '.' {
				t.Fatalf("accepted key %q with segment %q", key, seg)
			}
		}
	})
}
