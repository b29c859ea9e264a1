package httpapi

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// phoneJPEG is a w×h JPEG with an EXIF block holding a GPS marker, as a phone writes it.
func phoneJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{R: uint8(x), G: uint8(y), B: 90, A: 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	exif := []byte("Exif\x00\x00II*\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00GPSLatitude=48.8566N")
	seg := append([]byte{0xFF, 0xE1}, binary.BigEndian.AppendUint16(nil, uint16(len(exif)+2))...)
	return append(append(append([]byte{}, b.Bytes()[:2]...), append(seg, exif...)...), b.Bytes()[2:]...)
}

func TestMediaVariantsRoute(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts := newMediaServer(t, db, nil)
		ts.Uploader.MaxBytes = 1 << 20
		v := newOpenAPIValidator(t, ts)
		ct, body := multipartBody(t, "file", "phone.jpg", phoneJPEG(t, 700, 350))
		res := ts.do("POST", "/api/media/upload", "write", body, "Content-Type", ct)
		if res.Status != http.StatusCreated {
			t.Fatalf("upload: %d %s", res.Status, res.Body)
		}
		v.check("POST", "/api/media/upload", res)
		type variant struct {
			Width, Height int
			URL           string
		}
		var obj struct {
			URL      string
			Variants []variant
			Blurhash string
		}
		json.Unmarshal(res.Body, &obj)
		if len(obj.Variants) != 2 || obj.Variants[0].Width != 320 || obj.Variants[0].Height != 160 || obj.Variants[1].Width != 640 || obj.Blurhash == "" {
			t.Fatalf("upload result %s", res.Body)
		}
		for _, u := range append([]string{obj.URL}, obj.Variants[0].URL, obj.Variants[1].URL) {
			served := ts.do("GET", strings.TrimPrefix(u, "http://folio.test"), "", nil)
			if served.Status != 200 || served.Header.Get("Content-Type") != "image/jpeg" || bytes.Contains(served.Body, []byte("GPS")) ||
				bytes.Contains(served.Body, []byte("Exif")) {
				t.Errorf("%s: %d %v (metadata left: %v)", u, served.Status, served.Header, bytes.Contains(served.Body, []byte("GPS")))
			}
		}
		list := ts.do("GET", "/api/media", "write", nil)
		v.check("GET", "/api/media", list)
		var ml struct {
			Media []struct {
				URL      string
				Variants []variant
				Blurhash string
			}
		}
		json.Unmarshal(list.Body, &ml)
		if len(ml.Media) != 1 || len(ml.Media[0].Variants) != 2 || ml.Media[0].Variants[1] != obj.Variants[1] || ml.Media[0].Blurhash != obj.Blurhash {
			t.Errorf("media list: %s", list.Body)
		}
		// The object's key is what DELETE /api/media/{key} takes; its variants' keys stay inside.
		var raw struct {
			Media []struct {
				Key      string
				Variants []map[string]any
			}
		}
		json.Unmarshal(list.Body, &raw)
		if len(raw.Media) != 1 || !strings.HasSuffix(obj.URL, "/"+raw.Media[0].Key) || raw.Media[0].Variants[0]["key"] != nil {
			t.Errorf("keys in the list: %s", list.Body)
		}

		// A PNG declaring 60000×60000 pixels: 422 before any decoding.
		ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 60000), 60000)
		ihdr = append(ihdr, 8, 2, 0, 0, 0)
		chunk := func(typ string, data []byte) []byte {
			c := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
			c = append(c, typ...)
			c = append(c, data...)
			return binary.BigEndian.AppendUint32(c, crc32.ChecksumIEEE(append([]byte(typ), data...)))
		}
		bomb := append([]byte("\x89PNG\r\n\x1a\n"), chunk("IHDR", ihdr)...)
		bomb = append(bomb, chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})...)
		bomb = append(bomb, chunk("IEND", nil)...)
		ct, body = multipartBody(t, "file", "bomb.png", bomb)
		res = ts.do("POST", "/api/media/upload", "write", body, "Content-Type", ct)
		if res.Status != 422 || res.errorCode(t) != "VALIDATION_ERROR" {
			t.Errorf("bomb: %d %s", res.Status, res.Body)
		}
		v.check("POST", "/api/media/upload", res)
	})
}

// An image of the media library in a post is rendered responsive wherever the post's HTML is
// served (the post, the editor's preview), and the library is searchable by file name.
func TestPostImagesFromTheLibrary(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts := newMediaServer(t, db, nil)
		ts.Uploader.MaxBytes = 1 << 20
		v := newOpenAPIValidator(t, ts)
		ct, body := multipartBody(t, "file", "Harbour_at_dawn.jpg", phoneJPEG(t, 700, 350))
		res := ts.do("POST", "/api/media/upload", "write", body, "Content-Type", ct)
		if res.Status != http.StatusCreated {
			t.Fatalf("upload: %d %s", res.Status, res.Body)
		}
		var obj struct {
			URL      string
			Variants []struct {
				Width int
				URL   string
			}
		}
		json.Unmarshal(res.Body, &obj)
		if len(obj.Variants) != 2 {
			t.Fatalf("upload result %s", res.Body)
		}
		wantSet := `srcset="` + obj.Variants[0].URL + ` 320w, ` + obj.Variants[1].URL + ` 640w, ` + obj.URL + ` 700w"`
		src := "Intro.\n\n![The harbour](" + obj.URL + ")\n\n![Elsewhere](https://img.example.org/x.png)"

		post := ts.do("POST", "/api/posts", "write", map[string]any{"title": "With a photo", "content": src})
		if post.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", post.Status, post.Body)
		}
		id := post.json(t)["id"].(string)
		for _, got := range []string{
			post.json(t)["contentHtml"].(string),
			ts.do("GET", "/api/posts/"+id, "write", nil).json(t)["contentHtml"].(string),
			ts.do("POST", "/api/blog/preview", "write", map[string]string{"content": src}).json(t)["html"].(string),
		} {
			if !strings.Contains(got, wantSet) || !strings.Contains(got, `width="700" height="350" loading="lazy"`) {
				t.Errorf("library image not responsive: %s\nwant %s", got, wantSet)
			}
			if !strings.Contains(got, `<img src="https://img.example.org/x.png" alt="Elsewhere">`) {
				t.Errorf("an outside image changed: %s", got)
			}
		}

		for q, want := range map[string]int{"harbour": 1, "HARBOUR_AT": 1, "dusk": 0, "%": 0} {
			list := ts.do("GET", "/api/media?q="+url.QueryEscape(q), "write", nil)
			v.check("GET", "/api/media", list)
			var ml struct {
				Media      []struct{ Filename string }
				Pagination struct{ Total int }
			}
			json.Unmarshal(list.Body, &ml)
			if len(ml.Media) != want || ml.Pagination.Total != want {
				t.Errorf("q=%s: %s, want %d", q, list.Body, want)
			}
		}
	})
}
