package webui_test

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserContent drives the dashboard's search boxes, the media library's uploads (several
// files at once with progress, drag and drop, paste) and its variants/srcset, and images in the
// post editor (the library picker, paste, drop; the preview's srcset).
func TestBrowserContent(t *testing.T) {
	findChromium(t) // skip before starting anything when there is no browser
	s := startFolio(t)
	browserCtx := newBrowser(t)
	desk := newTab(t, browserCtx, visitorZone)
	signIn(t, desk, s.base)

	t.Run("search", func(t *testing.T) {
		for _, p := range []map[string]any{
			{"title": "Crème brûlée diary", "content": "Burnt <b>sugar</b> and caramel notes.", "status": "draft"},
			{"title": "Unrelated", "content": "Nothing to see.", "status": "published"},
		} {
			if res := s.api(t, "POST", "/api/blog", p, nil); res.status != 201 {
				t.Fatalf("create post: %d %s", res.status, res.body)
			}
		}
		desk.do(t, "search posts",
			chromedp.Navigate(s.base+"/admin/#/posts"), chromedp.WaitVisible(css("#post-search")),
			chromedp.SendKeys(css("#post-search"), "CREME caram"))
		desk.waitFor(t, "the draft in the results, highlighted",
			`[...document.querySelectorAll('#post-search-results mark')].some((m) => m.textContent === 'caramel')`)
		if got := desk.text(t, "#post-search-results a"); got != "Crème brûlée diary" {
			t.Errorf("hit: %q", got)
		}
		// The post's own markup is text in the snippet, never an element.
		if n := eval[int](t, desk, `document.querySelectorAll('#post-search-results b').length`); n != 0 {
			t.Errorf("content markup became %d elements", n)
		}
		desk.screenshot(t, s, "content-01-post-search")
		desk.do(t, "open the hit", chromedp.Click(css("#post-search-results a")), chromedp.WaitVisible(css("#post-form")))

		if res := s.api(t, "POST", "/api/projects", map[string]any{"title": "Électron dashboard", "description": "Desktop app", "status": "draft"}, nil); res.status != 201 {
			t.Fatalf("create project: %d %s", res.status, res.body)
		}
		desk.do(t, "search projects",
			chromedp.Navigate(s.base+"/admin/#/projects"), chromedp.WaitVisible(css("#project-search")),
			chromedp.SendKeys(css("#project-search"), "electron"))
		desk.waitText(t, "#project-search-results", "Électron dashboard")
	})

	t.Run("media", func(t *testing.T) {
		dir := t.TempDir()
		wide, square := filepath.Join(dir, "wide.png"), filepath.Join(dir, "square.png")
		writeSizedPNG(t, wide, 700, 350)
		writeSizedPNG(t, square, 500, 500)
		// Choosing files uploads them at once (no second button to press).
		desk.do(t, "upload two files at once",
			chromedp.Navigate(s.base+"/admin/#/media"), chromedp.WaitVisible(css("#upload-form")),
			chromedp.SetUploadFiles(css("#upload-file"), []string{wide, square}))
		desk.waitFor(t, "both uploads done", `document.querySelectorAll('#upload-queue li.ok').length === 2`)
		if n := eval[int](t, desk, `[...document.querySelectorAll('#upload-queue progress')].filter((p) => p.value === 1).length`); n != 2 {
			t.Errorf("%d full progress bars, want 2", n)
		}
		desk.waitFor(t, "the library with srcsets",
			`[...document.querySelectorAll('#media-grid img')].some((i) => (i.getAttribute('srcset') || '').includes(' 320w') && i.getAttribute('srcset').includes(' 700w'))`)
		desk.screenshot(t, s, "content-02-media-uploaded")

		// Drag and drop: a file dropped on the drop zone.
		desk.do(t, "drop a file", chromedp.Evaluate[chromedp.Void](`(async () => {
			const c = document.createElement('canvas'); c.width = 400; c.height = 300;
			const g = c.getContext('2d'); g.fillStyle = '#c33'; g.fillRect(0, 0, 400, 300);
			const blob = await new Promise((r) => c.toBlob(r, 'image/png'));
			const dt = new DataTransfer(); dt.items.add(new File([blob], 'dropped.png', { type: 'image/png' }));
			document.querySelector('#dropzone').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
		})()`))
		desk.waitFor(t, "the dropped file uploaded", `document.querySelectorAll('#upload-queue li.ok').length === 3`)
		// Paste: an image on the clipboard pasted anywhere on the page.
		desk.do(t, "paste an image", chromedp.Evaluate[chromedp.Void](`(async () => {
			const c = document.createElement('canvas'); c.width = 360; c.height = 200;
			const g = c.getContext('2d'); g.fillStyle = '#33c'; g.fillRect(0, 0, 360, 200);
			const blob = await new Promise((r) => c.toBlob(r, 'image/png'));
			const dt = new DataTransfer(); dt.items.add(new File([blob], 'image.png', { type: 'image/png' }));
			document.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
		})()`))
		desk.waitFor(t, "the pasted image uploaded", `document.querySelectorAll('#upload-queue li.ok').length === 4`)
		desk.waitFor(t, "four images in the library", `document.querySelectorAll('#media-grid figure').length >= 4`)

		// Copy srcset (in the tile's menu) copies the variants and the original at their widths.
		desk.do(t, "copy a srcset", chromedp.Evaluate[chromedp.Void](`(() => {
			const fig = [...document.querySelectorAll('#media-grid figure')].find((f) => f.textContent.includes('700×350'));
			window.__copied = '';
			navigator.clipboard.writeText = async (t) => { window.__copied = t; };
			fig.querySelector('.menu-button').click();
		})()`), menuPlaced(), chromedp.Click(css(`.menu:popover-open [id^="copy-srcset-"]`)))
		desk.waitFor(t, "the srcset on the clipboard", `/ 320w, .* 640w, .* 700w$/.test(window.__copied)`)

		// Delete (in the tile's menu): a project shows the 500×500 image, so the server refuses
		// and names it; the person deletes it anyway.
		url := eval[string](t, desk, `[...document.querySelectorAll('#media-grid figure')].find((f) => f.textContent.includes('500×500')).dataset.key`)
		if res := s.api(t, "POST", "/api/projects", map[string]any{"title": "Gradient study", "description": "d",
			"images": []map[string]any{{"url": url, "alt": "a gradient", "type": "screenshot"}}}, nil); res.status != 201 {
			t.Fatalf("create project: %d %s", res.status, res.body)
		}
		desk.openMenu(t, fmt.Sprintf(`#media-grid figure[data-key=%s] .menu-button`, jsString(url)))
		desk.do(t, "delete the image", chromedp.Click(css(`.menu:popover-open [id^="delete-"]`)),
			chromedp.WaitVisible(css("#confirm-dialog")), chromedp.Click(css("#confirm-ok")))
		desk.waitText(t, "#media-uses", "Project “Gradient study”")
		desk.screenshot(t, s, "content-03-media-in-use")
		desk.do(t, "delete it anyway", chromedp.Click(css("#media-force")))
		desk.waitFor(t, "the image gone from the library", `document.querySelectorAll('#media-grid figure').length === 3 &&
			![...document.querySelectorAll('#media-grid figure')].some((f) => f.textContent.includes('500×500'))`)

		// A file the server refuses is listed with its reason, where the summary says, and its
		// bar does not pretend it arrived.
		bad := filepath.Join(dir, "notes.txt")
		if err := os.WriteFile(bad, []byte("not an image"), 0o644); err != nil {
			t.Fatal(err)
		}
		desk.do(t, "upload a text file", chromedp.SetUploadFiles(css("#upload-file"), []string{bad}))
		desk.waitText(t, "#upload-summary", "marked in the list above")
		if got := eval[string](t, desk, `[...document.querySelectorAll('#upload-queue li.error')].map((l) => l.textContent).join('|')`); !strings.Contains(got, "notes.txt") || !strings.Contains(got, "not accepted") {
			t.Errorf("the failed upload says %q", got)
		}
		if n := eval[int](t, desk, `document.querySelectorAll('#upload-queue li.error progress').length`); n != 0 {
			t.Errorf("the failed upload still has %d progress bar(s)", n)
		}
		// The list's position: the summary comes after it.
		if !eval[bool](t, desk, `!!(document.querySelector('#upload-queue').compareDocumentPosition(document.querySelector('#upload-summary')) & Node.DOCUMENT_POSITION_FOLLOWING)`) {
			t.Error("the summary is not below the list it points to")
		}
		desk.screenshot(t, s, "content-03b-media-upload-failed")

		// Search finds files by name.
		desk.do(t, "search the library", chromedp.SendKeys(css("#media-search"), "WIDE"))
		desk.waitFor(t, "only wide.png", `document.querySelectorAll('#media-grid figure').length === 1 && document.querySelector('#media-grid figure').textContent.includes('wide.png')`)
	})

	t.Run("images in the post editor", func(t *testing.T) {
		desk.do(t, "new post", chromedp.Navigate(s.base+"/admin/#/posts/new"), chromedp.WaitVisible(css("#post-content")),
			chromedp.SendKeys(css("#post-form input[name=title]"), "Pictures"),
			chromedp.SendKeys(css("#post-content"), "Before.\n"))
		// The Image button opens the library; choosing an image writes its Markdown.
		desk.do(t, "insert from the library", chromedp.Click(css("#insert-image")), chromedp.WaitVisible(css("#media-picker")))
		desk.waitFor(t, "the library in the picker", `[...document.querySelectorAll('#picker-grid button')].some((b) => b.title === 'wide.png')`)
		desk.do(t, "search the picker", chromedp.SendKeys(css("#picker-search"), "wide"))
		desk.waitFor(t, "only the match", `document.querySelectorAll('#picker-grid button').length === 1`)
		desk.screenshot(t, s, "content-03-media-picker")
		desk.do(t, "choose it", chromedp.Click(css(`#picker-grid button[title="wide.png"]`)))
		desk.waitFor(t, "the image's Markdown", `/!\[wide\]\(http[^)]+\.png\)/.test(document.querySelector('#post-content').value)`)
		// Pasting and dropping an image upload it and write its Markdown where the text is.
		file := func(name, color string) string {
			return `(async () => {
				const c = document.createElement('canvas'); c.width = 420; c.height = 280;
				const g = c.getContext('2d'); g.fillStyle = '` + color + `'; g.fillRect(0, 0, 420, 280);
				const blob = await new Promise((r) => c.toBlob(r, 'image/png'));
				const dt = new DataTransfer(); dt.items.add(new File([blob], '` + name + `', { type: 'image/png' }));
				return dt; })()`
		}
		desk.do(t, "paste an image", chromedp.Evaluate[chromedp.Void](`(async () => {
			const dt = await `+file("pasted-shot.png", "#2a2")+`;
			const area = document.querySelector('#post-content');
			area.focus(); area.setSelectionRange(area.value.length, area.value.length);
			area.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
		})()`))
		desk.waitFor(t, "the pasted image's Markdown", `/!\[pasted shot\]\(http[^)]+\)/.test(document.querySelector('#post-content').value)`)
		desk.do(t, "drop an image", chromedp.Evaluate[chromedp.Void](`(async () => {
			const dt = await `+file("dropped-photo.png", "#a2a")+`;
			document.querySelector('#post-content').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
		})()`))
		desk.waitFor(t, "the dropped image's Markdown", `/!\[dropped photo\]\(http[^)]+\)/.test(document.querySelector('#post-content').value)`)
		if eval[bool](t, desk, `document.querySelector('#post-content').value.includes('Uploading')`) {
			t.Error("an upload's placeholder is left in the text")
		}
		// The preview (the server's renderer) gives the library image its srcset, as published.
		desk.do(t, "preview", chromedp.Click(css(`#editor-view [data-value="preview"]`)))
		desk.waitFor(t, "the responsive image in the preview", `[...document.querySelectorAll('#post-preview img')].some((i) =>
			/ 320w, .* 640w, .* 700w$/.test(i.getAttribute('srcset') || '') && i.getAttribute('width') === '700' && i.complete && i.naturalWidth > 0)`)
		desk.screenshot(t, s, "content-04-editor-images")
		desk.do(t, "back to writing", chromedp.Click(css(`#editor-view [data-value="write"]`)))
	})
}

// writeSizedPNG writes an opaque w×h PNG with a gradient.
func writeSizedPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{R: uint8(x), G: uint8(y), B: 128, A: 255})
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}
