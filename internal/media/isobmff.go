package media

// AVIF (and any HEIF image: the ISO base media file format, ISO/IEC 14496-12 and 23008-12) keeps
// its metadata as items of the meta box: an item of type "Exif" and a "mime" item of type
// application/rdf+xml (XMP), each described in iinf, located by iloc (its bytes usually in
// mdat), tied to the image by an iref "cdsc" reference. StripAVIF removes those items — their
// entries and their bytes — and rewrites every size, count and file offset the removal changes,
// so that the image data is copied unchanged and the file stays valid.

import "io"

// Limits on the boxes read into memory to be rewritten (the image data is only copied).
const (
	maxMetaBox = 16 << 20
	maxMoovBox = 64 << 20
)

// xmpMIME is the content type of an XMP item.
const xmpMIME = "application/rdf+xml"

// StripAVIF copies an AVIF without its metadata: the Exif and XMP items of every meta box (the
// file's, and the tracks' of an image sequence) with their iinf, iloc, iref and ipma entries
// and their bytes in mdat or idat; XML boxes in meta; user data (udta) of the movie and its
// tracks; and every top-level box other than ftyp, meta, moov and mdat (free space, uuid boxes
// such as XMP's). Sizes, entry counts, and the file offsets in iloc and in the tracks' chunk
// offset tables (stco, co64) are rewritten; everything else is copied byte for byte. A structure
// it cannot follow — or an image item that refers to a metadata item or shares its bytes — is
// errMalformed. r must be seekable.
func StripAVIF(w io.Writer, r io.ReadSeeker) (stripped, error) {
	out := stripped{Orientation: 1} // AVIF turns with its irot/imir properties, which stay
	end, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return out, err
	}
	s := &isoStripper{r: r}
	if err := s.parseFile(end); err != nil {
		return out, err
	}
	edits, err := s.edits()
	if err != nil {
		return out, err
	}
	return out, s.write(w, edits, end)
}

// span is the bytes [start, end) of the input file.
type span struct{ start, end int64 }

// isoBox is a box of the input: its bytes, the size of its header, and whether its size field
// says "to the end of the file" (0).
type isoBox struct {
	typ        string
	start, end int64
	payload    int64 // where the payload starts
	toEOF      bool
}

// uintField is a big-endian unsigned field of the input (width 0, 2, 4 or 8 bytes).
type uintField struct {
	pos   int64
	width int
	v     uint64
}

// ilocItem is one item's entry in an iloc box.
type ilocItem struct {
	id           uint32
	construction int
	dataRef      uint16
	base         uintField
	extents      [][2]uintField // offset, length
}

// isoMeta is one meta box: its items and where its idat's data starts (-1: none).
type isoMeta struct {
	locs      []ilocItem
	idatStart int64
	idatEnd   int64
}

// isoStripper collects the edits of one file: bytes deleted, boxes whose sizes change, fields
// rewritten.
type isoStripper struct {
	r        io.ReadSeeker
	deleted  []span
	itemData []span      // bytes of removed items in the file, deleted once they are known to lie in an mdat
	kept     []isoBox    // boxes parsed and kept: their sizes follow what is deleted inside them
	fixed    []isoEdit   // fields whose new value is known now (entry counts)
	metas    []*isoMeta  // every meta box's items, to rewrite their offsets
	chunks   []uintField // stco/co64 chunk offsets (file positions)
	mdats    []span      // payloads of the top-level mdat boxes
}

// isoEdit replaces the input bytes [pos, pos+n) with data (nil: deletes them).
type isoEdit struct {
	pos, n int64
	data   []byte
}

func (s *isoStripper) readAt(pos, n int64) ([]byte, error) {
	if _, err := s.r.Seek(pos, io.SeekStart); err != nil {
		return nil, err
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(s.r, b); err != nil {
		return nil, errMalformed
	}
	return b, nil
}

// parseFile walks the top-level boxes.
func (s *isoStripper) parseFile(end int64) error {
	var metas int
	for pos, first := int64(0), true; pos < end; first = false {
		hb, err := s.readAt(pos, min(16, end-pos))
		if err != nil {
			return err
		}
		box, err := parseBoxHeader(hb, pos, end)
		if err != nil {
			return err
		}
		switch {
		case first && box.typ != "ftyp":
			return errMalformed
		case box.typ == "ftyp":
			// copied as is
		case box.typ == "meta" || box.typ == "moov":
			limit := int64(maxMetaBox)
			if box.typ == "moov" {
				limit = maxMoovBox
			}
			if box.end-box.start > limit {
				return errMalformed
			}
			b, err := s.readAt(box.start, box.end-box.start)
			if err != nil {
				return err
			}
			s.kept = append(s.kept, box)
			if box.typ == "meta" {
				metas++
				err = s.parseMeta(b, box)
			} else {
				err = s.parseMoov(b, box)
			}
			if err != nil {
				return err
			}
		case box.typ == "mdat":
			s.kept = append(s.kept, box)
			s.mdats = append(s.mdats, span{box.payload, box.end})
		default: // free space, uuid (XMP), anything else a reader may skip
			s.deleted = append(s.deleted, span{box.start, box.end})
		}
		pos = box.end
	}
	if metas != 1 {
		return errMalformed // an image file has exactly one meta box at its top level
	}
	return nil
}

// parseMoov walks an image sequence's movie box: the meta boxes of the movie and its tracks
// are stripped like the file's, user data is deleted, chunk offsets are kept to be rewritten.
func (s *isoStripper) parseMoov(b []byte, moov isoBox) error {
	base := moov.start
	var walk func(box isoBox, at int64, depth int) error
	walk = func(box isoBox, at int64, depth int) error {
		kids, err := children(b, base, at, box.end)
		if err != nil {
			return err
		}
		for _, k := range kids {
			switch k.typ {
			case "udta", "uuid":
				s.deleted = append(s.deleted, span{k.start, k.end})
			case "meta":
				s.kept = append(s.kept, k)
				if err := s.parseMeta(b[k.start-base:k.end-base], k); err != nil {
					return err
				}
			case "trak", "mdia", "minf", "stbl":
				if depth > 4 {
					return errMalformed
				}
				s.kept = append(s.kept, k)
				if err := walk(k, k.payload, depth+1); err != nil {
					return err
				}
			case "stco", "co64":
				if err := s.chunkOffsets(b, base, k); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(moov, moov.payload, 0)
}

// chunkOffsets keeps the file offsets of a stco (32-bit) or co64 (64-bit) table.
func (s *isoStripper) chunkOffsets(b []byte, base int64, box isoBox) error {
	_, _, at, err := fullBox(b, base, box)
	if err != nil {
		return err
	}
	f := &fieldReader{b: b, base: base, pos: at, end: box.end}
	n := f.uint(4).v
	width := 4
	if box.typ == "co64" {
		width = 8
	}
	if f.err != nil || n*uint64(width) != uint64(box.end-f.pos) {
		return errMalformed
	}
	for range n {
		s.chunks = append(s.chunks, f.uint(width))
	}
	return f.err
}
