// Command qdtrace draws a trace that qd recorded (QD_TRACE=trace.json, or
// Device.StartTrace and Trace.WriteJSON) as an SVG timeline: one lane per
// stream, each kernel, copy and graph launch a bar coloured by its name,
// event records and waits, forks and joins as ticks joined by arrows.
//
//	QD_TRACE=/tmp/computeab.json go run ./example/computeab
//	go run ./cmd/qdtrace -o computeab.svg /tmp/computeab.json
//
// The same JSON opens in Perfetto (ui.perfetto.dev) and chrome://tracing.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/qdgo/qd/rt"
)

func main() {
	out := flag.String("o", "", "the SVG file to write (default: standard output)")
	width := flag.Int("width", 1200, "width of the timeline in pixels")
	from := flag.Duration("from", 0, "start of the window to draw, from the trace's start (0: the first event's start)")
	to := flag.Duration("to", 0, "end of the window to draw (0: the last event's end)")
	title := flag.String("title", "", "a title above the timeline, wrapped to its width (default: the device)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: qdtrace [-o out.svg] [-width px] [-from d] [-to d] [-title s] trace.json")
		flag.PrintDefaults()
	}
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("qdtrace: ")
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	tr, err := rt.ReadTrace(f)
	f.Close()
	if err != nil {
		log.Fatal(err)
	}
	var w io.Writer = os.Stdout
	if *out != "" {
		file, err := os.Create(*out)
		if err != nil {
			log.Fatal(err)
		}
		defer func() {
			if err := file.Close(); err != nil {
				log.Fatal(err)
			}
		}()
		w = file
	}
	opts := options{width: *width, from: *from, to: *to, title: *title}
	if err := render(w, tr, opts); err != nil {
		log.Fatal(err)
	}
}

type options struct {
	width    int
	from, to time.Duration
	title    string
}
