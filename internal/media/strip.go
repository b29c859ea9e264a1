package media

// Metadata strippers (docs/api.md, "Media and AI images"): an uploaded photo must not carry its EXIF
// block (GPS position, camera serial), XMP, IPTC or comments into storage. Each stripper copies
// the container structure and drops the metadata pieces without touching the compressed image
// data, so stripping is lossless; the EXIF orientation is read before it is dropped so the
// pipeline can apply it to the pixels.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// errMalformed is returned for a file whose container structure cannot be followed.
var errMalformed = errors.New("media: malformed image structure")

// stripped is what a stripper learned while copying.
type stripped struct {
	// Orientation is the EXIF orientation (1–8) found in the dropped metadata, 1 when none.
	Orientation int
	// Frames counts the images of a GIF (more than one: animated).
	Frames int
}

// StripJPEG copies a JPEG without its metadata: APP1 (EXIF, XMP), APP13 (IPTC/Photoshop), COM,
// APP2 other than an ICC profile, APP0 other than JFIF, APP3–APP12 and APP15, and anything after
// EOI (some phones append more data there). DQT/DHT/SOF/SOS, the entropy-coded data, JFIF, the
// ICC profile and Adobe APP14 (which decides the colour transform) are copied byte for byte.
func StripJPEG(w io.Writer, r io.Reader) (stripped, error) {
	out := stripped{Orientation: 1}
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	var soi [2]byte
	if _, err := io.ReadFull(br, soi[:]); err != nil || soi != [2]byte{0xFF, 0xD8} {
		return out, errMalformed
	}
	bw.Write(soi[:])
	inScan := false
	for {
		if inScan {
			// Entropy-coded data: copy up to the next 0xFF, then look at what follows it.
			chunk, err := br.ReadSlice(0xFF)
			if err == bufio.ErrBufferFull {
				bw.Write(chunk)
				continue
			}
			if err != nil {
				return out, errMalformed
			}
			bw.Write(chunk[:len(chunk)-1])
			m, err := br.ReadByte()
			for err == nil && m == 0xFF { // fill bytes before a marker
				m, err = br.ReadByte()
			}
			if err != nil {
				return out, errMalformed
			}
			if m == 0x00 || (m >= 0xD0 && m <= 0xD7) { // stuffed byte or restart marker
				bw.Write([]byte{0xFF, m})
				continue
			}
			inScan = false
			if done, err := jpegMarker(bw, br, m, &out, &inScan); err != nil || done {
				return out, errors.Join(err, bw.Flush())
			}
			continue
		}
		b, err := br.ReadByte()
		if err != nil || b != 0xFF {
			return out, errMalformed
		}
		m, err := br.ReadByte()
		for err == nil && m == 0xFF {
			m, err = br.ReadByte()
		}
		if err != nil {
			return out, errMalformed
		}
		if done, err := jpegMarker(bw, br, m, &out, &inScan); err != nil || done {
			return out, errors.Join(err, bw.Flush())
		}
	}
}

// jpegMarker handles the marker m (its 0xFF already read): copies or drops its segment. It
// reports done after EOI.
func jpegMarker(bw *bufio.Writer, br *bufio.Reader, m byte, out *stripped, inScan *bool) (bool, error) {
	switch {
	case m == 0xD9: // EOI: the end; whatever follows is dropped
		bw.Write([]byte{0xFF, 0xD9})
		return true, nil
	case m == 0x01 || (m >= 0xD0 && m <= 0xD7):
		bw.Write([]byte{0xFF, m})
		return false, nil
	case m == 0xD8 || m == 0x00:
		return false, errMalformed
	}
	var lb [2]byte
	if _, err := io.ReadFull(br, lb[:]); err != nil {
		return false, errMalformed
	}
	n := int(binary.BigEndian.Uint16(lb[:]))
	if n < 2 {
		return false, errMalformed
	}
	payload := make([]byte, n-2)
	if _, err := io.ReadFull(br, payload); err != nil {
		return false, errMalformed
	}
	keep := true
	switch {
	case m == 0xE1: // EXIF or XMP
		if bytes.HasPrefix(payload, []byte("Exif\x00\x00")) {
			if o := exifOrientation(payload[6:]); o != 0 {
				out.Orientation = o
			}
		}
		keep = false
	case m == 0xE0:
		keep = bytes.HasPrefix(payload, []byte("JFIF\x00"))
	case m == 0xE2:
		keep = bytes.HasPrefix(payload, []byte("ICC_PROFILE\x00"))
	case m == 0xEE: // Adobe: colour transform
	case m >= 0xE3 && m <= 0xEF, m == 0xFE: // other APPn (APP13 IPTC included), COM
		keep = false
	}
	if keep {
		bw.Write([]byte{0xFF, m})
		bw.Write(lb[:])
		bw.Write(payload)
	}
	if m == 0xDA {
		*inScan = true
	}
	return false, nil
}

// exifOrientation reads tag 0x0112 of IFD0 from a TIFF structure; 0 when absent or invalid.
func exifOrientation(tiff []byte) int {
	if len(tiff) < 8 {
		return 0
	}
	var bo binary.ByteOrder
	switch string(tiff[:4]) {
	case "II*\x00":
		bo = binary.LittleEndian
	case "MM\x00*":
		bo = binary.BigEndian
	default:
		return 0
	}
	off := int64(bo.Uint32(tiff[4:8]))
	if off < 8 || off+2 > int64(len(tiff)) {
		return 0
	}
	count := int64(bo.Uint16(tiff[off:]))
	for i := int64(0); i < count; i++ {
		e := off + 2 + i*12
		if e+12 > int64(len(tiff)) {
			return 0
		}
		if bo.Uint16(tiff[e:]) == 0x0112 && bo.Uint16(tiff[e+2:]) == 3 {
			if v := int(bo.Uint16(tiff[e+8:])); v >= 1 && v <= 8 {
				return v
			}
			return 0
		}
	}
	return 0
}

// pngDropped are the ancillary PNG chunks that carry metadata: text, EXIF and the timestamp.
var pngDropped = map[string]bool{"tEXt": true, "zTXt": true, "iTXt": true, "eXIf": true, "tIME": true}

// StripPNG copies a PNG without its tEXt, zTXt, iTXt, eXIf and tIME chunks and without anything
// after IEND. Every other chunk (pixels, palette, colour space, animation) is copied with its CRC.
func StripPNG(w io.Writer, r io.Reader) (stripped, error) {
	out := stripped{Orientation: 1}
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	sig := make([]byte, 8)
	if _, err := io.ReadFull(br, sig); err != nil || string(sig) != "\x89PNG\r\n\x1a\n" {
		return out, errMalformed
	}
	bw.Write(sig)
	for {
		var hdr [8]byte
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return out, errMalformed
		}
		n := int64(binary.BigEndian.Uint32(hdr[:4]))
		if n > 1<<31-1 {
			return out, errMalformed
		}
		typ := string(hdr[4:8])
		switch {
		case typ == "eXIf" && n <= 1<<20:
			data := make([]byte, n+4)
			if _, err := io.ReadFull(br, data); err != nil {
				return out, errMalformed
			}
			if o := exifOrientation(data[:n]); o != 0 {
				out.Orientation = o
			}
		case pngDropped[typ]:
			if _, err := io.CopyN(io.Discard, br, n+4); err != nil {
				return out, errMalformed
			}
		default:
			bw.Write(hdr[:])
			if _, err := io.CopyN(bw, br, n+4); err != nil {
				return out, errMalformed
			}
		}
		if typ == "IEND" {
			return out, bw.Flush()
		}
	}
}

// WebP VP8X flags that announce metadata chunks.
const (
	vp8xEXIF = 0x08
	vp8xXMP  = 0x04
)

// StripWebP copies a WebP without its EXIF and XMP chunks, clears their flags in the VP8X
// header and fixes the RIFF size. The image chunks (VP8, VP8L, ALPH, ANIM/ANMF, ICCP) are copied
// unchanged. r must be seekable: the new size is known only after a first pass.
func StripWebP(w io.Writer, r io.ReadSeeker) (stripped, error) {
	out := stripped{Orientation: 1}
	var hdr [12]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil || string(hdr[:4]) != "RIFF" || string(hdr[8:12]) != "WEBP" {
		return out, errMalformed
	}
	riffEnd := int64(binary.LittleEndian.Uint32(hdr[4:8])) + 8
	type chunk struct {
		fourcc string
		off    int64 // of the data
		size   int64 // without padding
	}
	var chunks []chunk
	pos := int64(12)
	newSize := int64(4) // "WEBP"
	for pos+8 <= riffEnd {
		var ch [8]byte
		if _, err := r.Seek(pos, io.SeekStart); err != nil {
			return out, err
		}
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			if len(chunks) > 0 && errors.Is(err, io.EOF) {
				break // RIFF size larger than the file: stop at the last whole chunk
			}
			return out, errMalformed
		}
		c := chunk{fourcc: string(ch[:4]), off: pos + 8, size: int64(binary.LittleEndian.Uint32(ch[4:8]))}
		padded := c.size + c.size&1
		switch c.fourcc {
		case "EXIF":
			if c.size <= 1<<20 {
				data := make([]byte, c.size)
				if _, err := io.ReadFull(r, data); err == nil {
					data = bytes.TrimPrefix(data, []byte("Exif\x00\x00"))
					if o := exifOrientation(data); o != 0 {
						out.Orientation = o
					}
				}
			}
		case "XMP ":
		default:
			chunks = append(chunks, c)
			newSize += 8 + padded
		}
		pos += 8 + padded
	}
	if len(chunks) == 0 {
		return out, errMalformed
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	copy(hdr[:4], "RIFF")
	binary.LittleEndian.PutUint32(hdr[4:8], uint32(newSize))
	bw.Write(hdr[:])
	for _, c := range chunks {
		var ch [8]byte
		copy(ch[:4], c.fourcc)
		binary.LittleEndian.PutUint32(ch[4:], uint32(c.size))
		bw.Write(ch[:])
		if _, err := r.Seek(c.off, io.SeekStart); err != nil {
			return out, err
		}
		padded := c.size + c.size&1
		if c.fourcc == "VP8X" && c.size >= 1 {
			var flags [1]byte
			if _, err := io.ReadFull(r, flags[:]); err != nil {
				return out, errMalformed
			}
			bw.WriteByte(flags[0] &^ (vp8xEXIF | vp8xXMP))
			padded--
		}
		n, err := io.CopyN(bw, r, padded)
		if err != nil {
			// A missing final padding byte is common; write it so the output is well formed.
			if errors.Is(err, io.EOF) && n == padded-1 && c.size&1 == 1 {
				bw.WriteByte(0)
				continue
			}
			return out, errMalformed
		}
	}
	return out, bw.Flush()
}

// StripGIF copies a GIF without comment extensions and application extensions other than the
// animation loop (NETSCAPE2.0, ANIMEXTS1.0), so XMP and other application data go. Graphic
// control and plain-text extensions and all image data are copied; anything after the trailer is
// dropped. Frames counts the images.
func StripGIF(w io.Writer, r io.Reader) (stripped, error) {
	out := stripped{Orientation: 1}
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	head := make([]byte, 13)
	if _, err := io.ReadFull(br, head); err != nil || (string(head[:6]) != "GIF87a" && string(head[:6]) != "GIF89a") {
		return out, errMalformed
	}
	bw.Write(head)
	if head[10]&0x80 != 0 {
		if _, err := io.CopyN(bw, br, 3<<((head[10]&7)+1)); err != nil {
			return out, errMalformed
		}
	}
	for {
		b, err := br.ReadByte()
		if err != nil {
			return out, errMalformed
		}
		switch b {
		case 0x3B: // trailer
			bw.WriteByte(b)
			return out, bw.Flush()
		case 0x2C: // image descriptor
			desc := make([]byte, 9)
			if _, err := io.ReadFull(br, desc); err != nil {
				return out, errMalformed
			}
			bw.WriteByte(b)
			bw.Write(desc)
			if desc[8]&0x80 != 0 {
				if _, err := io.CopyN(bw, br, 3<<((desc[8]&7)+1)); err != nil {
					return out, errMalformed
				}
			}
			lzw, err := br.ReadByte()
			if err != nil {
				return out, errMalformed
			}
			bw.WriteByte(lzw)
			if err := gifSubBlocks(bw, br, nil); err != nil {
				return out, err
			}
			out.Frames++
		case 0x21: // extension
			label, err := br.ReadByte()
			if err != nil {
				return out, errMalformed
			}
			switch label {
			case 0xF9, 0x01: // graphic control, plain text
				bw.Write([]byte{b, label})
				if err := gifSubBlocks(bw, br, nil); err != nil {
					return out, err
				}
			case 0xFF: // application: keep the animation loop only
				var raw []byte
				if err := gifSubBlocks(nil, br, &raw); err != nil {
					return out, err
				}
				if len(raw) > 0 && int(raw[0])+1 <= len(raw) && raw[len(raw)-1] == 0 {
					if id := string(raw[1 : 1+int(raw[0])]); id == "NETSCAPE2.0" || id == "ANIMEXTS1.0" {
						bw.Write([]byte{b, label})
						bw.Write(raw)
					}
				}
			default: // comment and unknown extensions
				if err := gifSubBlocks(nil, br, nil); err != nil {
					return out, err
				}
			}
		default:
			return out, errMalformed
		}
	}
}

// maxAppExtension bounds how much of an application extension is held in memory; the loop
// extension is 19 bytes, larger ones are dropped anyway.
const maxAppExtension = 4096

// gifSubBlocks copies (w != nil) or skips a sequence of data sub-blocks up to its terminator.
// With raw set, it also collects the raw blocks (size bytes included) up to maxAppExtension.
func gifSubBlocks(w io.Writer, br *bufio.Reader, raw *[]byte) error {
	var buf [255]byte
	for {
		n, err := br.ReadByte()
		if err != nil {
			return errMalformed
		}
		if _, err := io.ReadFull(br, buf[:n]); err != nil {
			return errMalformed
		}
		if w != nil {
			w.Write([]byte{n})
			w.Write(buf[:n])
		}
		if raw != nil && len(*raw) < maxAppExtension {
			*raw = append(append(*raw, n), buf[:n]...)
		}
		if n == 0 {
			return nil
		}
	}
}

// stripMetadata runs the stripper of contentType; ok is false for types without one.
func stripMetadata(contentType string, w io.Writer, r io.ReadSeeker) (s stripped, ok bool, err error) {
	switch contentType {
	case "image/jpeg":
		s, err = StripJPEG(w, r)
	case "image/png":
		s, err = StripPNG(w, r)
	case "image/webp":
		s, err = StripWebP(w, r)
	case "image/gif":
		s, err = StripGIF(w, r)
	default:
		return stripped{Orientation: 1}, false, nil
	}
	if err != nil && !errors.Is(err, errMalformed) {
		err = fmt.Errorf("media: strip: %w", err)
	}
	return s, true, err
}
