// Command mandelbrot renders the Mandelbrot set on the GPU (or the CPU
// without one), checks every pixel against the Go function and prints the
// picture in characters.
package main

import (
	"flag"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/qdgo/qd/rt"
)

func main() {
	width := flag.Int("width", 1920, "image width")
	height := flag.Int("height", 1080, "image height")
	maxIter := flag.Int("iter", 1000, "maximum iterations per pixel")
	flag.Parse()
	log.SetFlags(0)

	dev, err := rt.Open()
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()
	start := time.Now()
	ks, err := Load(dev)
	if err != nil {
		log.Fatal(err)
	}
	loaded := time.Since(start)

	n := *width * *height
	counts, err := rt.Alloc[int32](dev, n)
	if err != nil {
		log.Fatal(err)
	}
	defer counts.Free()
	x0, y0, x1, y1 := -2.2, -1.2, 1.0, 1.2
	start = time.Now()
	if err := ks.Mandelbrot(counts, *width, *height, x0, y0, x1, y1, int32(*maxIter)); err != nil {
		log.Fatal(err)
	}
	got, err := counts.Read()
	if err != nil {
		log.Fatal(err)
	}
	elapsed := time.Since(start)

	want := make([]int32, n)
	start = time.Now()
	Mandelbrot(want, *width, *height, x0, y0, x1, y1, int32(*maxIter))
	onHost := time.Since(start)
	bad := 0
	for i := range want {
		if got[i] != want[i] {
			bad++
		}
	}
	fmt.Print(picture(got, *width, *height, int32(*maxIter)))
	fmt.Printf("mandelbrot on %s: %dx%d, %d iterations max, module load %v, kernel and copy %v (Go on one core: %v), %d mismatches\n",
		dev, *width, *height, *maxIter, loaded.Round(time.Microsecond), elapsed.Round(time.Microsecond), onHost.Round(time.Millisecond), bad)
	if bad > 0 {
		log.Fatal("FAIL")
	}
	fmt.Println("ok")
}

// picture draws the counts as 72×24 characters.
func picture(counts []int32, width, height int, maxIter int32) string {
	const cols, rows = 72, 24
	shades := " .:-=+*#%@"
	var b strings.Builder
	for r := range rows {
		for c := range cols {
			v := counts[(r*height/rows)*width+c*width/cols]
			if v == maxIter {
				b.WriteByte('@')
			} else {
				b.WriteByte(shades[min(int(v)/4, len(shades)-2)])
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}
