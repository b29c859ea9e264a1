package media

import (
	"image"
	"image/draw"

	"github.com/buckket/go-blurhash"
	xdraw "golang.org/x/image/draw"
)

// VariantWidths are the widths of the responsive variants made of an uploaded image; only those
// smaller than the original are made (never upscaled).
var VariantWidths = []int{320, 640, 1280, 1920}

// DefaultMaxPixels is the default MEDIA_MAX_PIXELS: 50 megapixels.
const DefaultMaxPixels = 50_000_000

// kernelTempBudget bounds the temporary buffer of x/image/draw's kernel scalers (width of the
// destination × height of the source × 32 bytes). Above it the scaler falls back to bilinear
// sampling after a box reduction, which needs no temporary buffer.
const kernelTempBudget = 64 << 20

// orient returns img turned upright for EXIF orientation o (2–8), as a new image; 1 returns
// img. The copy keeps the decoder's pixel format, so it takes no more memory than the original
// (decodeCost counts on it): YCbCr keeps its planes (a turn by 90° swaps 4:2:2 and 4:4:0);
// only the YCbCr subsamplings without a turned counterpart (4:1:1, 4:1:0) become NRGBA, in
// one pass.
func orient(img image.Image, o int) image.Image {
	if o < 2 || o > 8 {
		return img
	}
	if y, ok := img.(*image.YCbCr); ok {
		if ratio, ok := turnedRatio(y.SubsampleRatio, o); ok {
			b := y.Bounds()
			w, h := b.Dx(), b.Dy()
			dst := image.NewYCbCr(orientedRect(b, o), ratio)
			transformPixels(dst.Y, dst.YStride, y.Y[y.YOffset(b.Min.X, b.Min.Y):], y.YStride, w, h, 1, o)
			cw, ch := chromaSize(y.SubsampleRatio, w, h)
			co := y.COffset(b.Min.X, b.Min.Y)
			transformPixels(dst.Cb, dst.CStride, y.Cb[co:], y.CStride, cw, ch, 1, o)
			transformPixels(dst.Cr, dst.CStride, y.Cr[co:], y.CStride, cw, ch, 1, o)
			return dst
		}
	}
	// Pixel formats the decoders return are turned in place of a copy: a 50-megapixel PNG is
	// 200 MB as NRGBA, and a conversion first would double that.
	b := img.Bounds()
	if d := newPacked(img, orientedRect(b, o)); d != nil {
		src, srcStride, bpp := packedPixels(img)
		dst, dstStride, _ := packedPixels(d)
		transformPixels(dst, dstStride, src, srcStride, b.Dx(), b.Dy(), bpp, o)
		return d
	}
	d := image.NewNRGBA(orientedRect(b, o))
	for y := range d.Rect.Dy() {
		for x := range d.Rect.Dx() {
			sx, sy := orientSource(x, y, b.Dx(), b.Dy(), o)
			d.Set(x, y, img.At(b.Min.X+sx, b.Min.Y+sy))
		}
	}
	return d
}

// packedPixels is the pixel buffer of an image whose pixels are bpp bytes each, rows stride
// apart (the formats newPacked makes), from its first pixel; nil for any other image.
func packedPixels(img image.Image) (pix []byte, stride, bpp int) {
	switch m := img.(type) {
	case *image.NRGBA:
		return m.Pix[m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y):], m.Stride, 4
	case *image.RGBA:
		return m.Pix[m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y):], m.Stride, 4
	case *image.NRGBA64:
		return m.Pix[m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y):], m.Stride, 8
	case *image.RGBA64:
		return m.Pix[m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y):], m.Stride, 8
	case *image.Gray:
		return m.Pix[m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y):], m.Stride, 1
	case *image.Gray16:
		return m.Pix[m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y):], m.Stride, 2
	case *image.CMYK:
		return m.Pix[m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y):], m.Stride, 4
	case *image.Paletted:
		return m.Pix[m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y):], m.Stride, 1
	}
	return nil, 0, 0
}

// newPacked is a blank image of img's pixel format (and palette) with bounds r, for the formats
// whose pixels are bpp bytes each, rows stride apart (NRGBA, RGBA, Gray, CMYK, Paletted and their
// 16-bit forms); nil for any other image.
func newPacked(img image.Image, r image.Rectangle) image.Image {
	switch m := img.(type) {
	case *image.NRGBA:
		return image.NewNRGBA(r)
	case *image.RGBA:
		return image.NewRGBA(r)
	case *image.NRGBA64:
		return image.NewNRGBA64(r)
	case *image.RGBA64:
		return image.NewRGBA64(r)
	case *image.Gray:
		return image.NewGray(r)
	case *image.Gray16:
		return image.NewGray16(r)
	case *image.CMYK:
		return image.NewCMYK(r)
	case *image.Paletted:
		return image.NewPaletted(r, m.Palette)
	}
	return nil
}

// turnedRatio is the subsampling of a YCbCr image with ratio r once turned by orientation o;
// ok is false when no YCbCr subsampling holds it.
func turnedRatio(r image.YCbCrSubsampleRatio, o int) (image.YCbCrSubsampleRatio, bool) {
	switch r {
	case image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio420:
		return r, true
	case image.YCbCrSubsampleRatio422:
		if o >= 5 { // transposed: the halved direction turns with the image
			return image.YCbCrSubsampleRatio440, true
		}
		return r, true
	case image.YCbCrSubsampleRatio440:
		if o >= 5 {
			return image.YCbCrSubsampleRatio422, true
		}
		return r, true
	}
	return r, false
}

// chromaSize is the size of the chroma planes of a w×h YCbCr image with ratio r (one of those
// turnedRatio keeps).
func chromaSize(r image.YCbCrSubsampleRatio, w, h int) (int, int) {
	switch r {
	case image.YCbCrSubsampleRatio422:
		return (w + 1) / 2, h
	case image.YCbCrSubsampleRatio420:
		return (w + 1) / 2, (h + 1) / 2
	case image.YCbCrSubsampleRatio440:
		return w, (h + 1) / 2
	}
	return w, h
}

// orientedRect is the bounds of r's image turned by orientation o, at the origin.
func orientedRect(r image.Rectangle, o int) image.Rectangle {
	if o >= 5 {
		return image.Rect(0, 0, r.Dy(), r.Dx())
	}
	return image.Rect(0, 0, r.Dx(), r.Dy())
}

// transformPixels turns a w×h image of bpp-byte pixels by orientation o into dst.
func transformPixels(dst []byte, dstStride int, src []byte, srcStride, w, h, bpp, o int) {
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	for y := 0; y < dh; y++ {
		row := dst[y*dstStride:]
		for x := 0; x < dw; x++ {
			sx, sy := orientSource(x, y, w, h, o)
			copy(row[x*bpp:x*bpp+bpp], src[sy*srcStride+sx*bpp:])
		}
	}
}

// orientSource maps a pixel of the upright image to the stored one (w×h) for orientation o.
func orientSource(x, y, w, h, o int) (int, int) {
	switch o {
	case 2: // mirrored
		return w - 1 - x, y
	case 3: // upside down
		return w - 1 - x, h - 1 - y
	case 4: // mirrored upside down
		return x, h - 1 - y
	case 5: // transpose
		return y, x
	case 6: // stored turned 90° counter-clockwise: turn clockwise
		return y, h - 1 - x
	case 7: // transverse
		return w - 1 - y, h - 1 - x
	case 8: // stored turned 90° clockwise: turn counter-clockwise
		return w - 1 - y, x
	}
	return x, y
}

// boxReduce shrinks img by the integer factor k (averaging k×k blocks, premultiplied alpha),
// reading the source in bands of k rows so no full-size copy of it is made.
func boxReduce(img image.Image, k int) *image.RGBA {
	b := img.Bounds()
	w, h := b.Dx()/k, b.Dy()/k
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	band := image.NewRGBA(image.Rect(0, 0, w*k, k))
	sums := make([]uint32, w*4)
	n := uint32(k * k)
	for y := 0; y < h; y++ {
		draw.Draw(band, band.Rect, img, image.Pt(b.Min.X, b.Min.Y+y*k), draw.Src)
		clear(sums)
		for r := 0; r < k; r++ {
			row := band.Pix[r*band.Stride:]
			for x := 0; x < w*k; x++ {
				s := sums[(x/k)*4:]
				p := row[x*4:]
				s[0] += uint32(p[0])
				s[1] += uint32(p[1])
				s[2] += uint32(p[2])
				s[3] += uint32(p[3])
			}
		}
		out := dst.Pix[y*dst.Stride:]
		for i, v := range sums {
			out[i] = uint8((v + n/2) / n)
		}
	}
	return dst
}

// resizePlan is how resizeWidth scales an image to a width: big reductions first box-reduce by
// an integer factor (anti-aliasing and memory), then CatmullRom finishes; when CatmullRom's
// temporary buffer would exceed kernelTempBudget, bilinear sampling of the box-reduced image
// (less than 2× larger than the target) finishes instead.
type resizePlan struct {
	sw, sh, w, h int  // from sw×sh to w×h
	box          int  // box-reduction factor, 1 for none
	kernel       bool // CatmullRom, else bilinear
}

func planResize(sw, sh, w int) resizePlan {
	p := resizePlan{sw: sw, sh: sh, w: w, h: max(1, int((int64(sh)*int64(w)+int64(sw)/2)/int64(sw))), box: 1}
	if k := sw / w; k >= 2 {
		p.box = k
	}
	p.kernel = int64(w)*int64(sh/p.box)*32 <= kernelTempBudget
	return p
}

// bytes is the memory the step holds: its result, the box-reduced copy with its band of rows,
// and the kernel's temporary buffer.
func (p resizePlan) bytes() int64 {
	n := int64(p.w) * int64(p.h) * 4
	if p.box > 1 {
		bw, bh := int64(p.sw/p.box), int64(p.sh/p.box)
		n += bw*bh*4 + bw*int64(p.box)*int64(p.box)*4
	}
	if p.kernel {
		n += int64(p.w) * int64(p.sh/p.box) * 32
	}
	return n
}

// resizeWidth returns img scaled to width w (height keeping the aspect ratio, at least 1), as
// planResize decides.
func resizeWidth(img image.Image, w int) *image.RGBA {
	b := img.Bounds()
	p := planResize(b.Dx(), b.Dy(), w)
	src := img
	if p.box > 1 {
		src = boxReduce(img, p.box)
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, p.h))
	if p.kernel {
		xdraw.CatmullRom.Scale(dst, dst.Rect, src, src.Bounds(), xdraw.Src, nil)
	} else {
		xdraw.ApproxBiLinear.Scale(dst, dst.Rect, src, src.Bounds(), xdraw.Src, nil)
	}
	return dst
}

// variantBytes is the memory makeVariants allocates for a w×h image: every step's result and
// working buffers, all counted, because the heap of a decode under way has usually not been
// collected yet (the blurhash's 32-pixel copy is left out).
func variantBytes(w, h int) int64 {
	var n int64
	for i := len(VariantWidths) - 1; i >= 0; i-- {
		if VariantWidths[i] >= w {
			continue
		}
		p := planResize(w, h, VariantWidths[i])
		n += p.bytes()
		w, h = p.w, p.h
	}
	return n
}

// makeVariants resizes img to every VariantWidths width smaller than its own, largest first,
// each from the previous one (so only the first step reads the full-size image), and computes
// the blurhash from a small copy. It returns the variants in ascending width.
func makeVariants(img image.Image) ([]*image.RGBA, string) {
	w := img.Bounds().Dx()
	var widths []int
	for _, vw := range VariantWidths {
		if vw < w {
			widths = append(widths, vw)
		}
	}
	out := make([]*image.RGBA, len(widths))
	src := img
	for i := len(widths) - 1; i >= 0; i-- {
		out[i] = resizeWidth(src, widths[i])
		src = out[i]
	}
	// The blurhash reads every pixel 4×3 times: a 32-pixel-wide copy is plenty.
	thumb := src
	if src.Bounds().Dx() > 32 {
		thumb = resizeWidth(src, 32)
	}
	hash, err := blurhash.Encode(4, 3, thumb)
	if err != nil {
		hash = ""
	}
	return out, hash
}

// isOpaque reports whether every pixel of img is opaque (variants are then JPEG, else PNG).
func isOpaque(img image.Image) bool {
	if o, ok := img.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if _, _, _, a := img.At(x, y).RGBA(); a != 0xffff {
				return false
			}
		}
	}
	return true
}
