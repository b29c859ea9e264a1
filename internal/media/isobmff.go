package media

// AVIF (and any HEIF image: the ISO base media file format, ISO/IEC 14496-12 and 23008-12) keeps
// its metadata as items of the meta box: an item of type "Exif" and a "mime" item of type
// application/rdf+xml (XMP), each described in iinf, located by iloc (its bytes usually in
// mdat), tied to the image by an iref "cdsc" reference. StripAVIF removes those items — their
// entries and their bytes — and rewrites every size, count and file offset the removal changes,
// so that the image data is copied unchanged and the file stays valid.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"sort"
)

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

// parseBoxHeader reads the header in b of the box at pos, which must end by end.
func parseBoxHeader(b []byte, pos, end int64) (isoBox, error) {
	if len(b) < 8 {
		return isoBox{}, errMalformed
	}
	box := isoBox{typ: string(b[4:8]), start: pos, payload: pos + 8}
	size := int64(binary.BigEndian.Uint32(b))
	switch size {
	case 0:
		box.toEOF, size = true, end-pos
	case 1:
		if len(b) < 16 {
			return isoBox{}, errMalformed
		}
		u := binary.BigEndian.Uint64(b[8:])
		if u > uint64(end-pos) {
			return isoBox{}, errMalformed
		}
		size, box.payload = int64(u), pos+16
	}
	if size < box.payload-pos || size > end-pos {
		return isoBox{}, errMalformed
	}
	box.end = pos + size
	return box, nil
}

// children parses the boxes filling b[from:to] (b holds the bytes of the input from base).
func children(b []byte, base, from, to int64) ([]isoBox, error) {
	var out []isoBox
	for pos := from; pos < to; {
		box, err := parseBoxHeader(b[pos-base:min(pos-base+16, to-base)], pos, to)
		if err != nil {
			return nil, err
		}
		if box.toEOF {
			return nil, errMalformed // only a top-level box may run to the end of the file
		}
		out = append(out, box)
		pos = box.end
	}
	return out, nil
}

// fullBox returns the version and flags of a full box and where its fields start.
func fullBox(b []byte, base int64, box isoBox) (version byte, flags uint32, at int64, err error) {
	if box.end-box.payload < 4 {
		return 0, 0, 0, errMalformed
	}
	p := b[box.payload-base:]
	return p[0], uint32(p[1])<<16 | uint32(p[2])<<8 | uint32(p[3]), box.payload + 4, nil
}

// fieldReader reads big-endian fields of b (the input bytes from base) up to end.
type fieldReader struct {
	b        []byte
	base     int64
	pos, end int64
	err      error
}

func (f *fieldReader) uint(width int) uintField {
	u := uintField{pos: f.pos, width: width}
	if f.err != nil || f.pos+int64(width) > f.end {
		f.err = errMalformed
		return u
	}
	for _, c := range f.b[f.pos-f.base : f.pos-f.base+int64(width)] {
		u.v = u.v<<8 | uint64(c)
	}
	f.pos += int64(width)
	return u
}

// id reads an item ID of 2 bytes, or 4 when wide.
func (f *fieldReader) id(wide bool) uint32 { return uint32(f.uint(idWidth(wide)).v) }

// idWidth is the width of an item ID or count field: 4 bytes in the box versions that widen it.
func idWidth(wide bool) int {
	if wide {
		return 4
	}
	return 2
}

// cstring reads a NUL-terminated string.
func (f *fieldReader) cstring() string {
	if f.err != nil {
		return ""
	}
	rest := f.b[f.pos-f.base : f.end-f.base]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		f.err = errMalformed
		return ""
	}
	f.pos += int64(i) + 1
	return string(rest[:i])
}

// parseMeta finds the metadata items of the meta box (bytes b) and removes them from it.
func (s *isoStripper) parseMeta(b []byte, box isoBox) error {
	base := box.start
	_, _, at, err := fullBox(b, base, box)
	if err != nil {
		return err
	}
	kids, err := children(b, base, at, box.end)
	if err != nil {
		return err
	}
	m := &isoMeta{idatStart: -1}
	s.metas = append(s.metas, m)
	byType := map[string]isoBox{}
	for _, k := range kids {
		if _, dup := byType[k.typ]; dup && (k.typ == "iinf" || k.typ == "iloc" || k.typ == "iref" || k.typ == "pitm" || k.typ == "idat" || k.typ == "iprp") {
			return errMalformed
		}
		byType[k.typ] = k
		if k.typ == "xml " || k.typ == "bxml" {
			s.deleted = append(s.deleted, span{k.start, k.end}) // XML metadata of the meta box itself
		}
	}
	if idat, ok := byType["idat"]; ok {
		m.idatStart, m.idatEnd = idat.payload, idat.end
		s.kept = append(s.kept, idat)
	}
	drop := map[uint32]bool{}
	if iinf, ok := byType["iinf"]; ok {
		if drop, err = s.parseIinf(b, base, iinf); err != nil {
			return err
		}
	}
	if pitm, ok := byType["pitm"]; ok {
		v, _, at, err := fullBox(b, base, pitm)
		if err != nil {
			return err
		}
		f := &fieldReader{b: b, base: base, pos: at, end: pitm.end}
		if primary := f.id(v > 0); f.err != nil || drop[primary] {
			return errMalformed
		}
	}
	if iloc, ok := byType["iloc"]; ok {
		// Parsed even when nothing is removed here: the offsets move with what is removed
		// elsewhere (another meta box, a top-level box before the mdat).
		if err := s.parseIloc(b, base, iloc, m, drop); err != nil {
			return err
		}
	}
	if len(drop) > 0 {
		if iref, ok := byType["iref"]; ok {
			if err := s.parseIref(b, base, iref, drop); err != nil {
				return err
			}
		}
		if iprp, ok := byType["iprp"]; ok {
			if err := s.parseIprp(b, base, iprp, drop); err != nil {
				return err
			}
		}
		if grpl, ok := byType["grpl"]; ok {
			if err := checkGroups(b, base, grpl, drop); err != nil {
				return err
			}
		}
	}
	for _, k := range []string{"iinf", "iloc", "iref", "iprp"} {
		if box, ok := byType[k]; ok {
			s.kept = append(s.kept, box)
		}
	}
	return nil
}

// parseIinf reads the item infos and deletes those of metadata items, returning their IDs.
func (s *isoStripper) parseIinf(b []byte, base int64, iinf isoBox) (map[uint32]bool, error) {
	v, _, at, err := fullBox(b, base, iinf)
	if err != nil {
		return nil, err
	}
	f := &fieldReader{b: b, base: base, pos: at, end: iinf.end}
	count := f.uint(idWidth(v > 0))
	if f.err != nil {
		return nil, f.err
	}
	entries, err := children(b, base, f.pos, iinf.end)
	if err != nil || uint64(len(entries)) != count.v {
		return nil, errMalformed
	}
	drop := map[uint32]bool{}
	for _, e := range entries {
		if e.typ != "infe" {
			return nil, errMalformed
		}
		id, meta, err := readInfe(b, base, e)
		if err != nil {
			return nil, err
		}
		if meta {
			drop[id] = true
			s.deleted = append(s.deleted, span{e.start, e.end})
		}
	}
	if len(drop) > 0 {
		s.fixed = append(s.fixed, countEdit(count, count.v-uint64(len(drop))))
	}
	return drop, nil
}

// readInfe reads an item info entry: its item ID and whether it is Exif or XMP.
func readInfe(b []byte, base int64, e isoBox) (id uint32, meta bool, err error) {
	v, _, at, err := fullBox(b, base, e)
	if err != nil {
		return 0, false, err
	}
	f := &fieldReader{b: b, base: base, pos: at, end: e.end}
	if v < 2 { // item_ID, protection index, name, content type
		id = f.id(false)
		f.uint(2)
		f.cstring()
		ct := f.cstring()
		return id, ct == xmpMIME, f.err
	}
	id = f.id(v > 2)
	f.uint(2)
	typ := f.uint(4)
	f.cstring() // item_name
	if f.err != nil {
		return 0, false, f.err
	}
	switch itemType := string(binary.BigEndian.AppendUint32(nil, uint32(typ.v))); itemType {
	case "Exif":
		return id, true, nil
	case "mime":
		ct := f.cstring()
		return id, ct == xmpMIME, f.err
	}
	return id, false, nil
}

// countEdit rewrites the count field c to n.
func countEdit(c uintField, n uint64) isoEdit {
	return isoEdit{pos: c.pos, n: int64(c.width), data: putUint(c.width, n)}
}

func putUint(width int, v uint64) []byte {
	out := make([]byte, width)
	for i := width - 1; i >= 0; i-- {
		out[i] = byte(v)
		v >>= 8
	}
	return out
}

// parseIloc reads the item locations: the entries of dropped items are deleted with their
// bytes, the others are kept for their offsets to be rewritten.
func (s *isoStripper) parseIloc(b []byte, base int64, iloc isoBox, m *isoMeta, drop map[uint32]bool) error {
	v, _, at, err := fullBox(b, base, iloc)
	if err != nil {
		return err
	}
	if v > 2 {
		return errMalformed
	}
	f := &fieldReader{b: b, base: base, pos: at, end: iloc.end}
	sizes := f.uint(2).v
	offsetSize, lengthSize, baseSize, indexSize := int(sizes>>12), int(sizes>>8&15), int(sizes>>4&15), int(sizes&15)
	if v == 0 {
		indexSize = 0
	}
	for _, n := range []int{offsetSize, lengthSize, baseSize, indexSize} {
		if n != 0 && n != 4 && n != 8 {
			return errMalformed
		}
	}
	count := f.uint(idWidth(v == 2))
	dropped := uint64(0)
	for range count.v {
		start := f.pos
		it := ilocItem{id: f.id(v == 2)}
		if v > 0 {
			it.construction = int(f.uint(2).v & 15)
		}
		it.dataRef = uint16(f.uint(2).v)
		it.base = f.uint(baseSize)
		extents := f.uint(2).v
		if extents > 1 && offsetSize+lengthSize+indexSize == 0 {
			return errMalformed // extents of no bytes: nothing to tell them apart, nor to bound their count
		}
		for range extents {
			f.uint(indexSize)
			it.extents = append(it.extents, [2]uintField{f.uint(offsetSize), f.uint(lengthSize)})
		}
		if f.err != nil {
			return f.err
		}
		if drop[it.id] {
			dropped++
			s.deleted = append(s.deleted, span{start, f.pos})
			if err := s.dropItemData(it, m); err != nil {
				return err
			}
			continue
		}
		m.locs = append(m.locs, it)
	}
	if f.err != nil || f.pos != iloc.end {
		return errMalformed
	}
	if dropped > 0 {
		s.fixed = append(s.fixed, countEdit(count, count.v-dropped))
	}
	return nil
}

// dropItemData deletes the bytes of a metadata item, each extent of a known length: in the
// meta's idat, or in an mdat (checked by edits, once every mdat is known).
func (s *isoStripper) dropItemData(it ilocItem, m *isoMeta) error {
	if it.dataRef != 0 || it.construction == 2 {
		return nil // in another file, or made of other items' bytes: nothing of its own here
	}
	for _, e := range it.extents {
		if it.base.v > 1<<62 || e[0].v > 1<<62 || e[1].v == 0 || e[1].v > 1<<62 {
			return errMalformed
		}
		start := int64(it.base.v + e[0].v)
		if it.construction == 0 {
			s.itemData = append(s.itemData, span{start, start + int64(e[1].v)})
			continue
		}
		if m.idatStart < 0 || start > m.idatEnd-m.idatStart || int64(e[1].v) > m.idatEnd-m.idatStart-start {
			return errMalformed
		}
		s.deleted = append(s.deleted, span{m.idatStart + start, m.idatStart + start + int64(e[1].v)})
	}
	return nil
}

// parseIref deletes the references from metadata items (cdsc: "describes"); a reference to a
// metadata item from a kept one means that item needs it, so the file is refused.
func (s *isoStripper) parseIref(b []byte, base int64, iref isoBox, drop map[uint32]bool) error {
	v, _, at, err := fullBox(b, base, iref)
	if err != nil {
		return err
	}
	refs, err := children(b, base, at, iref.end)
	if err != nil {
		return err
	}
	for _, ref := range refs {
		f := &fieldReader{b: b, base: base, pos: ref.payload, end: ref.end}
		from := f.id(v > 0)
		n := f.uint(2).v
		var to []uint32
		for range n {
			to = append(to, f.id(v > 0))
		}
		if f.err != nil || f.pos != ref.end {
			return errMalformed
		}
		if drop[from] {
			s.deleted = append(s.deleted, span{ref.start, ref.end})
			continue
		}
		for _, id := range to {
			if drop[id] {
				return errMalformed
			}
		}
	}
	return nil
}

// parseIprp deletes the property associations of metadata items (they seldom have any).
func (s *isoStripper) parseIprp(b []byte, base int64, iprp isoBox, drop map[uint32]bool) error {
	kids, err := children(b, base, iprp.payload, iprp.end)
	if err != nil {
		return err
	}
	for _, ipma := range kids {
		if ipma.typ != "ipma" {
			continue
		}
		v, flags, at, err := fullBox(b, base, ipma)
		if err != nil {
			return err
		}
		f := &fieldReader{b: b, base: base, pos: at, end: ipma.end}
		count := f.uint(4)
		dropped := uint64(0)
		for range count.v {
			start := f.pos
			id := f.id(v > 0)
			n := int64(f.uint(1).v)
			if flags&1 != 0 {
				n *= 2
			}
			if f.err != nil || f.pos+n > ipma.end {
				return errMalformed
			}
			f.pos += n
			if drop[id] {
				dropped++
				s.deleted = append(s.deleted, span{start, f.pos})
			}
		}
		if f.err != nil || f.pos != ipma.end {
			return errMalformed
		}
		if dropped > 0 {
			s.fixed = append(s.fixed, countEdit(count, count.v-dropped))
		}
		s.kept = append(s.kept, ipma)
	}
	return nil
}

// checkGroups refuses entity groups that hold a metadata item.
func checkGroups(b []byte, base int64, grpl isoBox, drop map[uint32]bool) error {
	groups, err := children(b, base, grpl.payload, grpl.end)
	if err != nil {
		return err
	}
	for _, g := range groups {
		_, _, at, err := fullBox(b, base, g)
		if err != nil {
			return err
		}
		f := &fieldReader{b: b, base: base, pos: at, end: g.end}
		f.uint(4) // group_id
		n := f.uint(4).v
		for i := uint64(0); i < n && f.err == nil; i++ {
			if drop[uint32(f.uint(4).v)] {
				return errMalformed
			}
		}
		if f.err != nil {
			return f.err
		}
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

// edits turns what parsing found into the edits of the input, in order: the deleted bytes, and
// the new values of every size, count and offset that changes.
func (s *isoStripper) edits() ([]isoEdit, error) {
	for _, d := range s.itemData {
		inside := false
		for _, m := range s.mdats {
			inside = inside || (d.start >= m.start && d.end <= m.end)
		}
		if !inside {
			return nil, errMalformed
		}
	}
	dels := mergeSpans(append(s.deleted, s.itemData...))
	prefix := make([]int64, len(dels)+1) // bytes deleted before dels[i]
	for i, d := range dels {
		prefix[i+1] = prefix[i] + d.end - d.start
	}
	deletedBefore := func(x int64) int64 {
		i := sort.Search(len(dels), func(i int) bool { return dels[i].end > x })
		if i < len(dels) && dels[i].start < x {
			return prefix[i] + x - dels[i].start
		}
		return prefix[i]
	}
	// deletedIn counts the deleted bytes of sp: an offset x of the input is x - deletedIn({0, x})
	// in the output, a distance from a to b is b - a - deletedIn({a, b}).
	deletedIn := func(sp span) int64 { return deletedBefore(sp.end) - deletedBefore(sp.start) }
	var out []isoEdit
	for _, d := range dels {
		out = append(out, isoEdit{pos: d.start, n: d.end - d.start})
	}
	out = append(out, s.fixed...)
	set := func(f uintField, v int64) {
		if uint64(v) != f.v {
			out = append(out, isoEdit{pos: f.pos, n: int64(f.width), data: putUint(f.width, uint64(v))})
		}
	}
	for _, b := range s.kept {
		if n := deletedIn(span{b.start, b.end}); n > 0 && !b.toEOF {
			if b.payload-b.start == 16 {
				set(uintField{pos: b.start + 8, width: 8}, b.end-b.start-n)
			} else {
				set(uintField{pos: b.start, width: 4}, b.end-b.start-n)
			}
		}
	}
	for _, m := range s.metas {
		for _, it := range m.locs {
			if it.dataRef != 0 || it.construction == 2 {
				continue // offsets into another file or into other items
			}
			origin := int64(0)
			if it.construction == 1 {
				if m.idatStart < 0 {
					return nil, errMalformed
				}
				origin = m.idatStart
			}
			if it.base.v > 1<<62 {
				return nil, errMalformed
			}
			from := origin + int64(it.base.v)
			set(it.base, from-origin-deletedIn(span{origin, from}))
			for _, e := range it.extents {
				if e[0].v > 1<<62 || e[1].v > 1<<62 {
					return nil, errMalformed
				}
				start := from + int64(e[0].v)
				if deletedIn(span{start, start + max(int64(e[1].v), 1)}) > 0 {
					return nil, errMalformed // a kept item's bytes would be cut
				}
				set(e[0], start-from-deletedIn(span{from, start}))
			}
		}
	}
	for _, c := range s.chunks {
		if c.v > 1<<62 || deletedIn(span{int64(c.v), int64(c.v) + 1}) > 0 {
			return nil, errMalformed
		}
		set(c, int64(c.v)-deletedIn(span{0, int64(c.v)}))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pos < out[j].pos })
	for i := 1; i < len(out); i++ {
		if out[i].pos < out[i-1].pos+out[i-1].n {
			return nil, errMalformed // a rewritten field inside deleted bytes: overlapping structures
		}
	}
	return out, nil
}

// mergeSpans sorts spans and joins those that overlap or touch.
func mergeSpans(in []span) []span {
	sort.Slice(in, func(i, j int) bool { return in[i].start < in[j].start })
	var out []span
	for _, sp := range in {
		if n := len(out); n > 0 && sp.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, sp.end)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// write copies the input to w with the edits applied.
func (s *isoStripper) write(w io.Writer, edits []isoEdit, end int64) error {
	if _, err := s.r.Seek(0, io.SeekStart); err != nil {
		return err
	}
	var pos int64
	for _, e := range edits {
		if _, err := io.CopyN(w, s.r, e.pos-pos); err != nil {
			return errors.Join(errMalformed, err)
		}
		if _, err := w.Write(e.data); err != nil {
			return err
		}
		if _, err := s.r.Seek(e.pos+e.n, io.SeekStart); err != nil {
			return err
		}
		pos = e.pos + e.n
	}
	_, err := io.CopyN(w, s.r, end-pos)
	return err
}
