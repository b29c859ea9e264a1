package media

import (
	"bytes"
	"encoding/binary"
)

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
