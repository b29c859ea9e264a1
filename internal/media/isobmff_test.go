package media

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foliohq/folio"
)

// The AVIF files in testdata were made with libavif's avifenc from a PNG, with an Exif block
// written by ExifTool (camera make FolioTestCam, GPS 48.85837 N 2.294481 E) and an XMP packet
// (dc:creator Folio Tester): gps.avif (one colour item), gps-alpha.avif (colour and alpha
// items), gps-anim.avif (a two-frame sequence with alpha: tracks whose meta boxes carry the
// metadata items again).
var avifFiles = []string{"gps.avif", "gps-alpha.avif", "gps-anim.avif"}

// avifSecrets are bytes of the metadata that must not survive: the Exif header, the camera
// make, the GPS IFD tag (0x8825, big-endian as ExifTool writes it), the XMP packet.
var avifSecrets = []string{"Exif\x00\x00", "MM\x00*", "FolioTestCam", "\x88\x25\x00\x04", "xmpmeta", "Folio Tester", "SECRET"}

// cleanAVIF is testdata/gps.avif stripped: an AVIF the pipeline stores unchanged.
func cleanAVIF(t testing.TB) []byte {
	t.Helper()
	var out bytes.Buffer
	if _, err := StripAVIF(&out, bytes.NewReader(readTestdata(t, "gps.avif"))); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// itemTypes lists the item types of every meta box of an ISOBMFF file, walking the boxes
// itself (independently of the stripper): "mime:<content type>" for MIME items.
func itemTypes(t *testing.T, b []byte) []string {
	t.Helper()
	var out []string
	var walk func(b []byte, depth int)
	walk = func(b []byte, depth int) {
		for len(b) >= 8 {
			size, head := int(binary.BigEndian.Uint32(b)), 8
			if size == 1 && len(b) >= 16 {
				size, head = int(binary.BigEndian.Uint64(b[8:])), 16
			}
			typ := string(b[4:8])
			if size < head || size > len(b) || depth > 8 {
				t.Fatalf("box %q of size %d in %d bytes", typ, size, len(b))
			}
			body := b[head:size]
			switch typ {
			case "meta":
				walk(body[4:], depth+1)
			case "moov", "trak":
				walk(body, depth+1)
			case "iinf":
				skip := 6
				if body[0] > 0 {
					skip = 8
				}
				walk(body[skip:], depth+1)
			case "infe":
				if body[0] < 2 {
					t.Fatalf("infe version %d", body[0])
				}
				p := body[4+2+2:]
				if body[0] == 3 {
					p = body[4+4+2:]
				}
				it := string(p[:4])
				if it == "mime" {
					name := p[4:]
					ct := name[bytes.IndexByte(name, 0)+1:]
					it += ":" + string(ct[:bytes.IndexByte(ct, 0)])
				}
				out = append(out, it)
			}
			b = b[size:]
		}
	}
	walk(b, 0)
	return out
}

// itemData returns the bytes of every item of every meta box of b, keyed by meta index and item
// ID, and the bytes at each chunk offset of its tracks, as the stripper's parser locates them.
func itemData(t *testing.T, b []byte) (map[[2]uint32][]byte, [][]byte) {
	t.Helper()
	s := &isoStripper{r: bytes.NewReader(b)}
	if err := s.parseFile(int64(len(b))); err != nil {
		t.Fatalf("parsing: %v", err)
	}
	items := map[[2]uint32][]byte{}
	for mi, m := range s.metas {
		for _, it := range m.locs {
			origin := uint64(0)
			if it.construction == 1 {
				origin = uint64(m.idatStart)
			}
			var data []byte
			for _, e := range it.extents {
				start := origin + it.base.v + e[0].v
				data = append(data, b[start:start+e[1].v]...)
			}
			items[[2]uint32{uint32(mi), it.id}] = data
		}
	}
	var chunks [][]byte
	for _, c := range s.chunks {
		chunks = append(chunks, b[c.v:min(c.v+16, uint64(len(b)))])
	}
	return items, chunks
}

// checkStripped asserts that out is in without its metadata: no Exif or XMP item and none of
// their bytes, every other item's bytes and every chunk unchanged, stripping again a no-op.
func checkStripped(t *testing.T, in, out []byte) {
	t.Helper()
	for _, it := range itemTypes(t, out) {
		if it == "Exif" || it == "mime:"+xmpMIME {
			t.Errorf("a %s item survived", it)
		}
	}
	for _, secret := range avifSecrets {
		if bytes.Contains(out, []byte(secret)) {
			t.Errorf("%q survived stripping", secret)
		}
	}
	before, chunksBefore := itemData(t, in)
	after, chunksAfter := itemData(t, out)
	kept := 0
	for k, data := range after {
		if !bytes.Equal(data, before[k]) {
			t.Errorf("item %d of meta %d: %d bytes differ from the original's %d", k[1], k[0], len(data), len(before[k]))
		}
		kept++
	}
	if kept == 0 {
		t.Error("no item left")
	}
	if len(chunksAfter) != len(chunksBefore) {
		t.Fatalf("%d chunks, had %d", len(chunksAfter), len(chunksBefore))
	}
	for i := range chunksAfter {
		if !bytes.Equal(chunksAfter[i], chunksBefore[i]) {
			t.Errorf("chunk %d moved without its offset", i)
		}
	}
	var again bytes.Buffer
	if _, err := StripAVIF(&again, bytes.NewReader(out)); err != nil || !bytes.Equal(again.Bytes(), out) {
		t.Errorf("stripping the output again: %v, changed %v", err, !bytes.Equal(again.Bytes(), out))
	}
}

func TestStripAVIF(t *testing.T) {
	t.Parallel()
	for _, name := range avifFiles {
		t.Run(name, func(t *testing.T) {
			in := readTestdata(t, name)
			types := strings.Join(itemTypes(t, in), " ")
			if !strings.Contains(types, "Exif") || !strings.Contains(types, "mime:"+xmpMIME) || !bytes.Contains(in, []byte("FolioTestCam")) {
				t.Fatalf("test file lacks its metadata: items %s", types)
			}
			var out bytes.Buffer
			if _, err := StripAVIF(&out, bytes.NewReader(in)); err != nil {
				t.Fatal(err)
			}
			checkStripped(t, in, out.Bytes())
			avifdecSame(t, in, out.Bytes())
		})
	}
}

// avifdecSame decodes both files with libavif's avifdec, when installed, and compares every
// frame: the stripped file must be valid and show the same pixels.
func avifdecSame(t *testing.T, in, out []byte) {
	t.Helper()
	bin, err := exec.LookPath("avifdec")
	if err != nil {
		t.Log("avifdec not installed (apt-get install libavif-bin): decoding not checked")
		return
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := write("in.avif", in), write("out.avif", out)
	info, err := exec.Command(bin, "--info", b).CombinedOutput()
	if err != nil || !bytes.Contains(info, []byte("Exif Metadata  : Absent")) || !bytes.Contains(info, []byte("XMP Metadata   : Absent")) {
		t.Fatalf("avifdec --info on the stripped file: %v\n%s", err, info)
	}
	frames := bytes.Count(info, []byte("Decoded frame ["))
	for i := range frames {
		idx := string(rune('0' + i))
		pa, pb := filepath.Join(dir, "a"+idx+".png"), filepath.Join(dir, "b"+idx+".png")
		for _, c := range [][]string{{"--index", idx, a, pa}, {"--index", idx, b, pb}} {
			if o, err := exec.Command(bin, c...).CombinedOutput(); err != nil {
				t.Fatalf("avifdec %v: %v\n%s", c, err, o)
			}
		}
		x, _ := os.ReadFile(pa)
		y, _ := os.ReadFile(pb)
		if !bytes.Equal(x, y) {
			t.Errorf("frame %d decodes differently after stripping", i)
		}
	}
}

// heifBox is a box for building test files; full boxes start their body with version and flags.
type heifBox struct {
	typ   string
	body  []byte
	kids  []heifBox
	large bool // a 64-bit size
}

func (b heifBox) bytes() []byte {
	var body []byte
	body = append(body, b.body...)
	for _, k := range b.kids {
		body = append(body, k.bytes()...)
	}
	if b.large {
		out := binary.BigEndian.AppendUint32(nil, 1)
		out = append(out, b.typ...)
		out = binary.BigEndian.AppendUint64(out, uint64(16+len(body)))
		return append(out, body...)
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
	return append(append(out, b.typ...), body...)
}

func u16(v int) []byte { return binary.BigEndian.AppendUint16(nil, uint16(v)) }
func u32(v int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// heifParts are the pieces of a synthetic HEIF file that tests change.
type heifParts struct {
	exifLen  int       // length of the Exif item's extent (default: the Exif bytes)
	primary  int       // pitm (default 1)
	refs     []heifBox // iref children (default: Exif and XMP describe item 1, item 4 is its thumbnail)
	dropMeta bool
}

// heifFile builds an image whose Exif lies first in a 64-bit mdat and whose items are located
// from a base offset (the mdat's payload), an XMP item and a thumbnail in idat, an ipma entry
// for the Exif item, and an XMP uuid box at the top level: the stripper's harder cases.
func heifFile(p heifParts) []byte {
	exif := cat([]byte("Exif\x00\x00MM\x00*"), []byte("\x88\x25\x00\x04 SECRET GPS 48.85 N"))
	image := []byte("AV1-IMAGE-DATA-0123456789")
	xmp := []byte("<x:xmpmeta>SECRET Folio Tester</x:xmpmeta>")
	thumb := []byte("THMB")
	if p.exifLen == 0 {
		p.exifLen = len(exif)
	}
	if p.primary == 0 {
		p.primary = 1
	}
	if p.refs == nil {
		p.refs = []heifBox{
			{typ: "cdsc", body: cat(u16(2), u16(1), u16(1))},
			{typ: "cdsc", body: cat(u16(3), u16(1), u16(1))},
			{typ: "thmb", body: cat(u16(4), u16(1), u16(1))},
		}
	}
	ftyp := heifBox{typ: "ftyp", body: []byte("avif\x00\x00\x00\x00avifmif1miaf")}
	build := func(mdatPayload int) (heifBox, heifBox) {
		infe := func(id int, typ, ct string) heifBox {
			body := cat([]byte{2, 0, 0, 0}, u16(id), u16(0), []byte(typ), []byte("\x00"))
			if ct != "" {
				body = append(body, ct+"\x00"...)
			}
			return heifBox{typ: "infe", body: body}
		}
		iloc := cat([]byte{1, 0, 0, 0}, []byte{0x44, 0x40}, u16(4),
			u16(1), u16(0), u16(0), u32(mdatPayload), u16(1), u32(len(exif)), u32(len(image)),
			u16(2), u16(0), u16(0), u32(mdatPayload), u16(1), u32(0), u32(p.exifLen),
			u16(3), u16(1), u16(0), u32(0), u16(1), u32(0), u32(len(xmp)),
			u16(4), u16(1), u16(0), u32(0), u16(1), u32(len(xmp)), u32(len(thumb)))
		meta := heifBox{typ: "meta", body: []byte{0, 0, 0, 0}, kids: []heifBox{
			{typ: "hdlr", body: cat([]byte{0, 0, 0, 0}, u32(0), []byte("pict"), make([]byte, 12), []byte("\x00"))},
			{typ: "pitm", body: cat([]byte{0, 0, 0, 0}, u16(p.primary))},
			{typ: "iloc", body: iloc},
			{typ: "iinf", body: cat([]byte{0, 0, 0, 0}, u16(4)), kids: []heifBox{
				infe(1, "av01", ""), infe(2, "Exif", ""), infe(3, "mime", xmpMIME), infe(4, "av01", "")}},
			{typ: "iref", body: []byte{0, 0, 0, 0}, kids: p.refs},
			{typ: "iprp", kids: []heifBox{
				{typ: "ipco", kids: []heifBox{{typ: "ispe", body: cat([]byte{0, 0, 0, 0}, u32(64), u32(48))}}},
				{typ: "ipma", body: cat([]byte{0, 0, 0, 0}, u32(3), u16(1), []byte{1, 0x81}, u16(2), []byte{1, 0x01}, u16(4), []byte{1, 0x81})},
			}},
			{typ: "idat", body: cat(xmp, thumb)},
		}}
		return meta, heifBox{typ: "uuid", body: cat([]byte("\xbe\x7a\xcf\xcb\x97\xa9\x42\xe8\x9c\x71\x99\x94\x91\xe3\xaf\xac"), xmp)}
	}
	meta, uuid := build(0)
	head := len(ftyp.bytes()) + len(meta.bytes()) + len(uuid.bytes())
	meta, uuid = build(head + 16)
	mdat := heifBox{typ: "mdat", body: cat(exif, image), large: true}
	if p.dropMeta {
		return cat(ftyp.bytes(), mdat.bytes())
	}
	return cat(ftyp.bytes(), meta.bytes(), uuid.bytes(), mdat.bytes())
}

func TestStripAVIFHarderLayouts(t *testing.T) {
	t.Parallel()
	in := heifFile(heifParts{})
	if got := strings.Join(itemTypes(t, in), " "); got != "av01 Exif mime:"+xmpMIME+" av01" {
		t.Fatalf("test file items: %s", got)
	}
	var out bytes.Buffer
	if _, err := StripAVIF(&out, bytes.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	b := out.Bytes()
	checkStripped(t, in, b)
	items, _ := itemData(t, b)
	if string(items[[2]uint32{0, 1}]) != "AV1-IMAGE-DATA-0123456789" || string(items[[2]uint32{0, 4}]) != "THMB" || len(items) != 2 {
		t.Errorf("items after stripping: %v", items)
	}
	if bytes.Contains(b, []byte("uuid")) || !bytes.Contains(b, []byte("thmb")) || bytes.Contains(b, []byte("cdsc")) {
		t.Error("want the uuid box and the cdsc references gone, the thumbnail reference kept")
	}
}

func TestStripAVIFRefuses(t *testing.T) {
	t.Parallel()
	valid := heifFile(heifParts{})
	for name, in := range map[string][]byte{
		"ftyp only":                          avifBytes(),
		"no meta box":                        heifFile(heifParts{dropMeta: true}),
		"cut short":                          valid[:len(valid)-5],
		"not a box":                          []byte("\x00\x00\x00\x1cftypavif"),
		"primary item is the Exif":           heifFile(heifParts{primary: 2}),
		"Exif shares the image's bytes":      heifFile(heifParts{exifLen: 40}),
		"the image is derived from the Exif": heifFile(heifParts{refs: []heifBox{{typ: "dimg", body: cat(u16(1), u16(1), u16(2))}}}),
	} {
		var out bytes.Buffer
		if _, err := StripAVIF(&out, bytes.NewReader(in)); err != errMalformed {
			t.Errorf("%s: err = %v, want errMalformed", name, err)
		}
	}
}

// TestUploadStripsAVIFMetadata is the regression of AVIF uploads keeping their GPS position and
// camera make: the stored file is parsed back and has no Exif or XMP item left.
func TestUploadStripsAVIFMetadata(t *testing.T) {
	t.Parallel()
	for _, name := range avifFiles {
		t.Run(name, func(t *testing.T) {
			u, store := mustUploader(t)
			in := readTestdata(t, name)
			obj, err := u.FromMultipart(t.Context(), multipartRequest(part{name: "file", filename: name, body: in}))
			if err != nil {
				t.Fatal(err)
			}
			stored := store.objs[obj.Key]
			if obj.ContentType != "image/avif" || obj.Size != int64(len(stored)) || obj.Size >= int64(len(in)) ||
				!strings.HasSuffix(obj.Key, ".avif") || store.meta[obj.Key].ContentType != "image/avif" {
				t.Fatalf("stored %+v (%d bytes, uploaded %d)", obj, len(stored), len(in))
			}
			checkStripped(t, in, stored)
		})
	}
	u, _ := mustUploader(t)
	_, err := u.FromReader(t.Context(), bytes.NewReader(avifBytes()), "broken.avif", folio.BlobMeta{})
	wantError(t, err, "UNSUPPORTED_MEDIA_TYPE", 415, "")
}

func FuzzStripAVIF(f *testing.F) {
	for _, name := range avifFiles {
		f.Add(readTestdata(f, name))
	}
	f.Add(heifFile(heifParts{}))
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		if _, err := StripAVIF(&out, bytes.NewReader(in)); err != nil {
			return
		}
		if out.Len() > len(in) {
			t.Fatalf("output %d bytes, input %d", out.Len(), len(in))
		}
		// What comes out is a file the stripper reads again, with nothing left to remove.
		var again bytes.Buffer
		if _, err := StripAVIF(&again, bytes.NewReader(out.Bytes())); err != nil {
			t.Fatalf("the output does not parse: %v", err)
		}
		if !bytes.Equal(again.Bytes(), out.Bytes()) {
			t.Fatal("stripping the output changed it")
		}
		s := &isoStripper{r: bytes.NewReader(out.Bytes())}
		if err := s.parseFile(int64(out.Len())); err != nil || len(s.deleted)+len(s.itemData) != 0 {
			t.Fatalf("the output still has metadata to remove (%v)", err)
		}
	})
}
