package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"mime/multipart"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/foliohq/folio"
)

// importBomb writes a zip of o.bombPosts posts of 16 MiB each (one repeated letter, so about
// 16 KiB each compressed) and runs `folio import` on it, reporting the import process's peak RSS.
func importBomb(s *server, o options) error {
	path := filepath.Join(s.dir, "bomb.zip")
	if err := writeBomb(path, o.bombPosts); err != nil {
		return err
	}
	st, _ := os.Stat(path)
	cmd := s.folio("import", path)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var peak int64
	var err error
	for waiting := true; waiting; {
		select {
		case err = <-done:
			waiting = false
		case <-time.After(20 * time.Millisecond):
			if v, e := procKB(cmd.Process.Pid, "VmHWM:"); e == nil {
				peak = max(peak, v)
			}
		}
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		peak = max(peak, ru.Maxrss*1024) // Linux reports kilobytes: VmHWM at exit
	}
	outcome := "imported"
	if err != nil {
		outcome = "refused: " + firstLine(stderr.String())
	}
	fmt.Printf("import: zip bomb of %d × 16 MiB posts (%.2f MB on disk): peak RSS of folio import %.1f MiB in %s (%s)\n",
		o.bombPosts, float64(st.Size())/1e6, mib(peak), time.Since(t0).Round(time.Millisecond), outcome)
	return nil
}

func writeBomb(path string, posts int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for i := range posts {
		w, err := zw.Create(fmt.Sprintf("posts/bomb-%d.md", i))
		if err != nil {
			return err
		}
		head := fmt.Sprintf("---\nid: %s\nslug: bomb-%d\ntitle: Bomb %d\nstatus: published\n---\n", folio.NewID(), i, i)
		io.WriteString(w, head)
		left := 16<<20 - len(head) - 64 // just under the importer's 16 MiB document bound
		for left > 0 {
			n := min(left, len(chunk))
			if _, err := w.Write(chunk[:n]); err != nil {
				return err
			}
			left -= n
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

// uploadHugePNG uploads a 7000×7000 16-bit RGBA PNG (49 megapixels, under the default 50 MP
// bound) and reports the server's RSS before, at its peak during the upload and 5 s after.
func uploadHugePNG(s *server, o options) error {
	img, err := hugePNG(7000, 7000)
	if err != nil {
		return err
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "huge.png")
	fw.Write(img)
	mw.Close()
	time.Sleep(time.Second)
	before, _ := procKB(s.pid, "VmRSS:")
	// Reset the peak (VmHWM) to the current RSS, so what follows is the upload's own peak.
	if err := os.WriteFile("/proc/"+strconv.Itoa(s.pid)+"/clear_refs", []byte("5"), 0); err != nil {
		return err
	}
	t0 := time.Now()
	res, err := s.do("POST", "/api/media/upload", body.Bytes(), "Authorization", "Bearer "+s.key, "Content-Type", mw.FormDataContentType())
	if err != nil {
		return err
	}
	answer := status(res)
	elapsed := time.Since(t0)
	peak, _ := procKB(s.pid, "VmHWM:")
	time.Sleep(5 * time.Second)
	after, _ := procKB(s.pid, "VmRSS:")
	fmt.Printf("upload: 7000×7000 16-bit PNG (%.2f MB): %.120v in %s; server RSS %.1f MiB before, %.1f MiB peak, %.1f MiB 5 s after\n",
		float64(len(img))/1e6, answer, elapsed.Round(time.Millisecond), mib(before), mib(peak), mib(after))
	return nil
}

// hugePNG encodes a w×h 16-bit RGBA PNG of zeros, streaming its rows into the compressor.
func hugePNG(w, h int) ([]byte, error) {
	var idat bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&idat, zlib.BestCompression)
	row := make([]byte, 1+w*8) // filter type 0, then 8 bytes a pixel
	for range h {
		if _, err := zw.Write(row); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 16, 6 // bit depth 16, colour type RGBA
	for _, c := range []struct {
		typ  string
		data []byte
	}{{"IHDR", ihdr}, {"IDAT", idat.Bytes()}, {"IEND", nil}} {
		binary.Write(&out, binary.BigEndian, uint32(len(c.data)))
		crc := crc32.NewIEEE()
		crc.Write([]byte(c.typ))
		crc.Write(c.data)
		out.WriteString(c.typ)
		out.Write(c.data)
		binary.Write(&out, binary.BigEndian, crc.Sum32())
	}
	return out.Bytes(), nil
}

// procKB reads a "Name: N kB" line of /proc/PID/status, in bytes.
func procKB(pid int, name string) (int64, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fs := strings.Fields(sc.Text()); len(fs) >= 2 && fs[0] == name {
			kb, err := strconv.ParseInt(fs[1], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", name, pid)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}
