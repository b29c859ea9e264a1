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
	"image"
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
	// What decoding will cost (decodeCost): the JPEG frame; whether a PNG is interlaced and
	// has a tRNS chunk (grey then decodes to NRGBA); whether a WebP is lossless.
	JPEG         jpegFrame
	Interlaced   bool
	Transparency bool
	Lossless     bool
}

// jpegFrame is what a JPEG's SOF and APP segments say about how Go's decoder will hold it.
type jpegFrame struct {
	Components  int
	Progressive bool
	// Samples is the number of samples a pixel has with every component at its subsampling
	// (3 for 4:4:4 colour, 1.5 for 4:2:0, 1 for grey); MCUWidth and MCUHeight are the size of
	// a minimum coded unit, to which the decoder rounds its planes up.
	Samples             float64
	MCUWidth, MCUHeight int
	// Ratio is the chroma subsampling of a 3-component image, as image/jpeg names it
	// (ratioOK false: one it does not know, and will refuse).
	Ratio   image.YCbCrSubsampleRatio
	ratioOK bool
	// RGB is set when the decoder turns the colour into an RGBA image (Adobe transform 0 or
	// components named R, G, B, without JFIF), as it does for every 4-component image.
	RGB bool
	// names, jfif and adobe* are read to decide RGB.
	names              string
	jfif, adobeUnknown bool
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
	case m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC: // SOFn
		if out.JPEG.Components == 0 {
			out.JPEG.readSOF(m, payload)
		}
	case m == 0xE1: // EXIF or XMP
		if bytes.HasPrefix(payload, []byte("Exif\x00\x00")) {
			if o := exifOrientation(payload[6:]); o != 0 {
				out.Orientation = o
			}
		}
		keep = false
	case m == 0xE0:
		keep = bytes.HasPrefix(payload, []byte("JFIF\x00"))
		out.JPEG.jfif = out.JPEG.jfif || keep
	case m == 0xE2:
		keep = bytes.HasPrefix(payload, []byte("ICC_PROFILE\x00"))
	case m == 0xEE: // Adobe: colour transform
		if len(payload) >= 12 && bytes.HasPrefix(payload, []byte("Adobe")) {
			out.JPEG.adobeUnknown = payload[11] == 0
		}
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
		out.JPEG.decideRGB()
	}
	return false, nil
}

// readSOF reads a start-of-frame segment (marker m): the components and their sampling.
func (f *jpegFrame) readSOF(m byte, p []byte) {
	if len(p) < 6 {
		return
	}
	n := int(p[5])
	if n == 0 || len(p) < 6+3*n {
		return
	}
	hmax, vmax := 1, 1
	for i := range n {
		hv := p[6+3*i+1]
		hmax, vmax = max(hmax, int(hv>>4)), max(vmax, int(hv&15))
	}
	var samples float64
	var names []byte
	for i := range n {
		c := p[6+3*i:]
		samples += float64(int(c[1]>>4)*int(c[1]&15)) / float64(hmax*vmax)
		names = append(names, c[0])
	}
	*f = jpegFrame{Components: n, Progressive: m == 0xC2, Samples: samples, MCUWidth: 8 * hmax, MCUHeight: 8 * vmax,
		names: string(names), jfif: f.jfif, adobeUnknown: f.adobeUnknown}
	// image/jpeg's makeImg: the luma sampling factors over the first chroma component's.
	if n == 3 && p[10]>>4 != 0 && p[10]&15 != 0 {
		f.Ratio, f.ratioOK = jpegRatios[int(p[7]>>4/(p[10]>>4))<<4|int(p[7]&15/(p[10]&15))]
	}
}

// jpegRatios are the chroma subsamplings image/jpeg decodes, by horizontal<<4 | vertical factor.
var jpegRatios = map[int]image.YCbCrSubsampleRatio{
	0x11: image.YCbCrSubsampleRatio444, 0x12: image.YCbCrSubsampleRatio440,
	0x21: image.YCbCrSubsampleRatio422, 0x22: image.YCbCrSubsampleRatio420,
	0x41: image.YCbCrSubsampleRatio411, 0x42: image.YCbCrSubsampleRatio410,
}

// decideRGB applies image/jpeg's rule (isRGB, applyBlack) once the APP segments before the
// first scan are known.
func (f *jpegFrame) decideRGB() {
	f.RGB = f.Components == 4 || (f.Components == 3 && !f.jfif && (f.adobeUnknown || f.names == "RGB"))
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
		case typ == "IHDR" && n == 13:
			data := make([]byte, n+4)
			if _, err := io.ReadFull(br, data); err != nil {
				return out, errMalformed
			}
			out.Interlaced = data[12] != 0
			bw.Write(hdr[:])
			bw.Write(data)
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
			out.Transparency = out.Transparency || typ == "tRNS"
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
			out.Lossless = out.Lossless || c.fourcc == "VP8L"
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
	case "image/avif":
		s, err = StripAVIF(w, r)
	default:
		return stripped{Orientation: 1}, false, nil
	}
	if err != nil && !errors.Is(err, errMalformed) {
		err = fmt.Errorf("media: strip: %w", err)
	}
	return s, true, err
}
