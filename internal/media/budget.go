package media

// The memory of image decoding (docs/api.md, "Media and AI images"): each decode reserves its
// estimated peak, in bytes, from one budget per Uploader before a pixel is decoded, and an image
// whose estimate alone exceeds the budget is refused. After a large decode the freed heap is
// given back to the operating system, so one big upload does not leave the process large.

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"runtime/debug"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/foliohq/folio"
)

// decodeBytesPerLimitPixel sets the default budget from MEDIA_MAX_PIXELS (300 MB for the
// default 50 megapixels): an 8-bit RGBA image at the pixel limit (4 bytes a pixel) and its
// variants fit; a 16-bit one (8 bytes a pixel) of the same size does not.
const decodeBytesPerLimitPixel = 6

// largeDecode is the estimate above which a finished decode gives memory back to the OS, and
// returnInterval how often that may happen (a forced collection costs a few milliseconds of CPU
// per 100 MB of heap).
const (
	largeDecode    = 32 << 20
	returnInterval = 10 * time.Second
)

// decodeCost estimates the most memory, in bytes, that decoding and processing an image holds:
// the pixels as Go's decoder returns them, with what the decoder keeps while it works; the
// upright copy when the orientation is applied (turn); the variants and their working buffers.
// cfg and format come from image.DecodeConfig, st from the stripper. It errs on the high side.
func decodeCost(cfg image.Config, format string, st stripped, turn bool) int64 {
	px := float64(cfg.Width) * float64(cfg.Height)
	var decoded, upright float64
	switch f := st.JPEG; {
	case format == "jpeg" && f.Components > 0:
		// One byte a sample, in planes rounded up to whole MCUs.
		planes := f.Samples * float64(roundUp(cfg.Width, f.MCUWidth)) * float64(roundUp(cfg.Height, f.MCUHeight))
		decoded, upright = planes, planes
		if f.Progressive {
			decoded += 4 * planes // every coefficient (an int32 a sample) is kept until the last scan
		}
		switch {
		case f.RGB: // converted to RGBA or CMYK at the end, beside the planes
			decoded += 4 * px
			upright = 4 * px
		case f.Components == 3 && !keepsRatio(f.Ratio):
			upright = 4 * px // orient's NRGBA
		}
	case format == "webp":
		decoded = 2.5 // lossy: YCbCr 4:2:0 and an alpha plane
		if st.Lossless {
			decoded = 8 // 4 bytes a pixel, and a second buffer while the colour-index transform runs
		}
		decoded *= px // WebP is not turned
	default:
		model := cfg.ColorModel
		if st.Transparency && model == color.GrayModel {
			model = color.NRGBAModel // image/png's grey with a transparent value
		} else if st.Transparency && model == color.Gray16Model {
			model = color.NRGBA64Model
		}
		decoded = px * bytesPerPixel(model)
		upright = decoded
		if st.Interlaced {
			decoded *= 1.5 // each Adam7 pass is decoded into an image of its own, then merged
		}
	}
	w, h := cfg.Width, cfg.Height
	if !turn {
		upright = 0
	} else if st.Orientation >= 5 {
		w, h = h, w
	}
	return int64(decoded+upright) + variantBytes(w, h)
}

// bytesPerPixel is the size of a pixel in the image a decoder returns for model.
func bytesPerPixel(model color.Model) float64 {
	if _, ok := model.(color.Palette); ok {
		return 1
	}
	switch model {
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.Gray16Model, color.Alpha16Model:
		return 2
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel:
		return 4
	case color.YCbCrModel:
		return 3
	}
	return 8 // 16-bit colour (RGBA64, NRGBA64), and the largest for anything else
}

// keepsRatio reports whether orient turns a YCbCr image of ratio r without a format change.
func keepsRatio(r image.YCbCrSubsampleRatio) bool {
	_, ok := turnedRatio(r, 6)
	return ok
}

func roundUp(n, m int) int { return (n + m - 1) / m * m }

// decodeBudget is the Uploader's semaphore weighted in bytes.
type decodeBudget struct {
	total int64
	sem   *semaphore.Weighted
}

func (u *Uploader) decodeBudget() *decodeBudget {
	u.budgetOnce.Do(func() {
		total := u.DecodeBudget
		if total <= 0 {
			total = decodeBytesPerLimitPixel * u.maxPixels()
		}
		u.budget = &decodeBudget{total: total, sem: semaphore.NewWeighted(total)}
	})
	return u.budget
}

// decodeReserved, when set (tests), is called with the bytes a decode reserved, once it holds
// them, and with the negative amount as it gives them back.
var decodeReserved func(n int64)

// reserve waits until cost bytes of the budget are free and takes them; the caller runs the
// returned release when the decode's memory is garbage. An image whose cost alone exceeds the
// budget is refused at once: 422, like the pixel limit.
func (b *decodeBudget) reserve(ctx context.Context, cost int64, cfg image.Config) (release func(), err error) {
	if cost > b.total {
		mib := func(n int64) int64 { return (n + 1<<20 - 1) >> 20 }
		msg := fmt.Sprintf("The image is %d×%d pixels; decoding it needs about %d MiB, more than the %d MiB one image may use.",
			cfg.Width, cfg.Height, mib(cost), mib(b.total))
		return nil, &folio.Error{Code: folio.EINVALID, RuleBroken: true, Message: msg,
			Details: []folio.FieldError{{Field: "file", Message: fmt.Sprintf("needs more than %d MiB to decode", mib(b.total))}}}
	}
	if err := b.sem.Acquire(ctx, cost); err != nil {
		return nil, err
	}
	if decodeReserved != nil {
		decodeReserved(cost)
	}
	return func() {
		if decodeReserved != nil {
			decodeReserved(-cost)
		}
		b.sem.Release(cost)
		if cost >= largeDecode {
			osMemory.giveBack()
		}
	}, nil
}

// memoryReturner hands the heap's free pages back to the OS (debug.FreeOSMemory) at most once
// per interval: a call while one is due only makes sure one runs at the end of the interval.
type memoryReturner struct {
	free     func()
	interval time.Duration

	mu      sync.Mutex
	last    time.Time
	pending bool
}

var osMemory = &memoryReturner{free: debug.FreeOSMemory, interval: returnInterval}

func (m *memoryReturner) giveBack() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pending {
		return
	}
	m.pending = true
	// In the background: the request that decoded does not wait for the collection.
	time.AfterFunc(max(time.Until(m.last.Add(m.interval)), 0), func() {
		m.free()
		m.mu.Lock()
		m.last, m.pending = time.Now(), false
		m.mu.Unlock()
	})
}
