package mail

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
)

func TestEMLDirWritesParseableFiles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data", "outbox") // created on first use
	var logBuf bytes.Buffer
	d := NewEMLDir(dir, slog.New(slog.NewTextHandler(&logBuf, nil)))
	d.From = testSender
	clock := testNow
	d.Now = func() time.Time { return clock }

	if err := d.Send(context.Background(), richMessage()); err != nil {
		t.Fatalf("Send rich: %v", err)
	}
	clock = clock.Add(time.Second)
	secret := plainMessage()
	secret.Text = "your reset token is tok_SENSITIVE_123"
	if err := d.Send(context.Background(), secret); err != nil {
		t.Fatalf("Send plain: %v", err)
	}

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 2 || !slices.IsSorted(names) {
		t.Fatalf("outbox holds %v, want exactly two sorted .eml files (no temp files)", names)
	}
	for _, n := range names {
		if !strings.HasSuffix(n, ".eml") || strings.HasPrefix(n, ".") {
			t.Errorf("file %q is not a final .eml", n)
		}
	}
	if !strings.HasPrefix(names[0], "20261122T093000Z-") {
		t.Errorf("first file %q does not start with its UTC time", names[0])
	}

	raw, err := os.ReadFile(filepath.Join(dir, names[0]))
	if err != nil {
		t.Fatal(err)
	}
	p := parseMail(t, raw)
	checkRich(t, p)
	if !p.Date.Equal(testNow) {
		t.Errorf("Date = %v, want %v", p.Date, testNow)
	}

	raw, err = os.ReadFile(filepath.Join(dir, names[1]))
	if err != nil {
		t.Fatal(err)
	}
	if p := parseMail(t, raw); crlfToLF(p.Parts[0].Body) != secret.Text {
		t.Errorf("second file body = %q", p.Parts[0].Body)
	}

	logs := logBuf.String()
	if n := strings.Count(logs, "mail written to outbox"); n != 2 {
		t.Errorf("%d log lines, want 2:\n%s", n, logs)
	}
	for _, want := range []string{"owner@folio.test, archive@folio.test", "Hello", filepath.Join(dir, names[1])} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, "tok_SENSITIVE_123") {
		t.Errorf("log contains the message body:\n%s", logs)
	}
}

// Ensure a reader that polls the outbox for *.eml files, as a script or mail client does, only
// ever opens complete messages while others are being written (the browser tests once read a
// half-written temporary file that matched the pattern).
func TestEMLDirReaderSeesWholeMessages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	d := NewEMLDir(dir, nil)
	d.From = testSender
	const sends = 200
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < sends; i++ {
			if err := d.Send(context.Background(), richMessage()); err != nil {
				t.Errorf("Send: %v", err)
				return
			}
		}
	}()
	bad := ""
	for finished := false; !finished && bad == ""; {
		select {
		case <-done:
			finished = true
		default:
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err == nil {
				_, err = netmail.ReadMessage(bytes.NewReader(raw))
			}
			if err != nil || !bytes.HasSuffix(raw, []byte("--\r\n")) {
				bad = fmt.Sprintf("%s matched *.eml but holds %d bytes, not a whole message (%v)", filepath.Base(f), len(raw), err)
				break
			}
		}
	}
	<-done // the sender uses t and the directory: let it finish first
	if bad != "" {
		t.Fatal(bad)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.eml")); len(files) != sends {
		t.Errorf("%d .eml files, want %d", len(files), sends)
	}
}

func TestEMLDirFailures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	d := NewEMLDir(dir, nil)

	bad := plainMessage()
	bad.Subject = "x\r\nBcc: victim@evil.test"
	if err := d.Send(context.Background(), bad); !folio.IsPermanentMailError(err) {
		t.Errorf("injected subject: err = %v, want permanent", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := d.Send(ctx, plainMessage()); err == nil || folio.IsPermanentMailError(err) {
		t.Errorf("cancelled ctx: err = %v, want temporary", err)
	}

	// A file where the directory should be: the write fails, temporarily.
	blocked := filepath.Join(dir, "blocked")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := NewEMLDir(blocked, nil).Send(context.Background(), plainMessage())
	if err == nil || folio.IsPermanentMailError(err) {
		t.Errorf("unwritable dir: err = %v, want temporary", err)
	}

	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 { // only "blocked"
		t.Errorf("dir holds %d entries after failures, want 1", len(entries))
	}

	// The default sender applies when none is configured.
	d2 := NewEMLDir(filepath.Join(dir, "ok"), nil)
	if err := d2.Send(context.Background(), plainMessage()); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "ok", "*.eml"))
	if len(files) != 1 {
		t.Fatalf("files = %v", files)
	}
	raw, _ := os.ReadFile(files[0])
	if p := parseMail(t, raw); p.From[0].Address != DefaultFrom.Email {
		t.Errorf("From = %v, want %v", p.From, DefaultFrom)
	}
}
