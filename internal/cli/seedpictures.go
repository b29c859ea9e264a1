package cli

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/media"
)

// The demo projects' pictures are drawn here and stored through the upload pipeline, so a
// seeded site shows real images from its own media library (with variants and blurhash) and
// its pages load nothing from hosts that do not exist.

// demoPicture is one picture of a demo project: its file name, what it shows and how it is drawn.
type demoPicture struct {
	name, alt, kind string
	w, h            int
	draw            func(img *image.RGBA)
}

var demoPictures = map[string]demoPicture{
	"tidewater":  {"tidewater-map.png", "Survey map with synced sightings", "screenshot", 1440, 900, drawSurveyMap},
	"ledgerline": {"ledgerline-logo.png", "Ledgerline logo", "logo", 512, 512, drawLedgerLogo},
	"gridwatch":  {"gridwatch-pipeline.png", "Ingestion pipeline", "diagram", 1200, 675, drawPipeline},
}

// storeDemoPictures draws and uploads the demo pictures, keyed like demoPictures. With no
// uploader (tests of the content alone) the projects get no images.
func storeDemoPictures(ctx context.Context, up *media.Uploader) (map[string]folio.ProjectImage, error) {
	out := map[string]folio.ProjectImage{}
	if up == nil {
		return out, nil
	}
	for key, pic := range demoPictures {
		img := image.NewRGBA(image.Rect(0, 0, pic.w, pic.h))
		pic.draw(img)
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return nil, err
		}
		obj, err := up.FromReader(ctx, &buf, pic.name, folio.BlobMeta{})
		if err != nil {
			return nil, fmt.Errorf("demo picture %s: %w", pic.name, err)
		}
		out[key] = folio.ProjectImage{URL: obj.URL, Alt: pic.alt, Type: pic.kind, Width: obj.Width, Height: obj.Height}
	}
	return out, nil
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

func disc(img *image.RGBA, cx, cy, radius int, c color.RGBA) {
	for y := cy - radius; y <= cy+radius; y++ {
		for x := cx - radius; x <= cx+radius; x++ {
			if (x-cx)*(x-cx)+(y-cy)*(y-cy) <= radius*radius && image.Pt(x, y).In(img.Bounds()) {
				img.SetRGBA(x, y, c)
			}
		}
	}
}

// drawSurveyMap draws a sea with contour lines, a coast and sighting markers.
func drawSurveyMap(img *image.RGBA) {
	b := img.Bounds()
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			depth := math.Sin(float64(x)/180) + math.Cos(float64(y)/130) + float64(x)/float64(b.Dx())
			c := color.RGBA{uint8(30 + 20*depth), uint8(90 + 25*depth), uint8(150 + 30*depth), 255}
			if int(depth*6)%2 == 0 && int(depth*60)%10 == 0 {
				c = color.RGBA{200, 225, 240, 255} // a contour line
			}
			if float64(x) > float64(b.Dx())*0.78+60*math.Sin(float64(y)/90) {
				c = color.RGBA{214, 196, 150, 255} // the coast
			}
			img.SetRGBA(x, y, c)
		}
	}
	for i := 0; i < 14; i++ {
		x := 120 + (i*397)%(b.Dx()*3/4-160)
		y := 100 + (i*233)%(b.Dy()-200)
		disc(img, x, y, 14, color.RGBA{255, 255, 255, 255})
		disc(img, x, y, 9, color.RGBA{232, 93, 4, 255})
	}
}

// drawLedgerLogo draws a rounded badge with two ledger columns.
func drawLedgerLogo(img *image.RGBA) {
	fill(img, img.Bounds(), color.RGBA{248, 250, 252, 255})
	disc(img, 256, 256, 220, color.RGBA{15, 118, 110, 255})
	fill(img, image.Rect(150, 150, 240, 362), color.RGBA{240, 253, 250, 255})
	fill(img, image.Rect(272, 150, 362, 362), color.RGBA{240, 253, 250, 255})
	for y := 180; y < 350; y += 34 {
		fill(img, image.Rect(162, y, 228, y+8), color.RGBA{15, 118, 110, 255})
		fill(img, image.Rect(284, y, 350, y+8), color.RGBA{15, 118, 110, 255})
	}
}

// drawPipeline draws four stages joined by arrows: poll, queue, store, chart.
func drawPipeline(img *image.RGBA) {
	fill(img, img.Bounds(), color.RGBA{250, 250, 249, 255})
	colours := []color.RGBA{{37, 99, 235, 255}, {124, 58, 237, 255}, {220, 38, 38, 255}, {22, 163, 74, 255}}
	for i, c := range colours {
		x := 70 + i*280
		fill(img, image.Rect(x, 250, x+190, 425), c)
		fill(img, image.Rect(x+20, 280, x+170, 300), color.RGBA{255, 255, 255, 200})
		if i < len(colours)-1 {
			fill(img, image.Rect(x+195, 332, x+270, 343), color.RGBA{87, 83, 78, 255})
			for d := 0; d < 16; d++ {
				fill(img, image.Rect(x+254+d, 322+d, x+256+d, 353-d), color.RGBA{87, 83, 78, 255})
			}
		}
	}
}
