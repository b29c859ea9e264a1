package media

import "encoding/binary"

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
