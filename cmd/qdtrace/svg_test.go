package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qdgo/qd/rt"
)

// sample is a fork and join of two blocks of ComputeAB, then Combine, with
// a copy on another stream ordered by an event.
var sample = &rt.Trace{Device: "test device", Events: []rt.TraceEvent{
	{Kind: "fork", Name: "ComputeAB", Stream: "default stream", Start: 1 * us, End: 1 * us, Flow: 1},
	{Kind: "fork", Name: "ComputeAB", Stream: "pool stream 1", Start: 2 * us, End: 2 * us, Flow: 1, FlowEnd: true},
	{Kind: "fork", Name: "ComputeAB", Stream: "pool stream 2", Start: 2 * us, End: 2 * us, Flow: 1, FlowEnd: true},
	{Kind: "kernel", Name: "ComputeAB", Stream: "pool stream 1", Start: 3 * us, End: 40 * us, Task: "ComputeAB_0", Block: 1, Grid: 528, Threads: 256},
	{Kind: "kernel", Name: "ComputeAB", Stream: "pool stream 2", Start: 4 * us, End: 45 * us, Task: "ComputeAB_1", Block: 2, Grid: 528, Threads: 256},
	{Kind: "join", Name: "ComputeAB", Stream: "pool stream 1", Start: 40 * us, End: 40 * us, Flow: 2},
	{Kind: "join", Name: "ComputeAB", Stream: "pool stream 2", Start: 45 * us, End: 45 * us, Flow: 2},
	{Kind: "join", Name: "ComputeAB", Stream: "default stream", Start: 46 * us, End: 46 * us, Flow: 2, FlowEnd: true},
	{Kind: "kernel", Name: "Combine", Stream: "default stream", Start: 47 * us, End: 60 * us, Task: "Combine_0", Grid: 528, Threads: 256},
	{Kind: "record", Name: "event", Stream: "default stream", Start: 60 * us, End: 60 * us, Flow: 3},
	{Kind: "wait", Name: "event", Stream: "stream 1", Start: 61 * us, End: 61 * us, Flow: 3, FlowEnd: true},
	{Kind: "copy", Name: "copy from device", Stream: "stream 1", Start: 61 * us, End: 90 * us, Bytes: 1 << 20},
}}

const us = time.Microsecond

// element is what the tests need of an SVG element.
type element struct {
	name  string
	attrs map[string]string
	text  string
}

func parse(t *testing.T, svg []byte) []element {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var out []element
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("not XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			e := element{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			out = append(out, e)
		case xml.CharData:
			if len(out) > 0 {
				out[len(out)-1].text += string(tok)
			}
		}
	}
}

func byClass(els []element, name, class string) []element {
	var out []element
	for _, e := range els {
		if e.name == name && e.attrs["class"] == class {
			out = append(out, e)
		}
	}
	return out
}

// TestRender checks the picture: one lane per stream with the default
// stream first, a bar per operation coloured by kernel, a tick per
// instant, and an arrow from each flow's start to each of its ends.
func TestRender(t *testing.T) {
	var buf bytes.Buffer
	if err := render(&buf, sample, options{width: 800}); err != nil {
		t.Fatal(err)
	}
	els := parse(t, buf.Bytes())
	var lanes []string
	for _, e := range byClass(els, "text", "lane-name") {
		lanes = append(lanes, strings.TrimSpace(e.text))
	}
	if got, want := strings.Join(lanes, ", "), "default stream, pool stream 1, pool stream 2, stream 1"; got != want {
		t.Errorf("lanes %s, want %s", got, want)
	}
	kernels := byClass(els, "rect", "kernel")
	if len(kernels) != 3 {
		t.Fatalf("%d kernel bars, want 3", len(kernels))
	}
	if kernels[0].attrs["fill"] != kernels[1].attrs["fill"] || kernels[0].attrs["fill"] == kernels[2].attrs["fill"] {
		t.Errorf("fills %s %s %s: the same kernel must have one colour, others another", kernels[0].attrs["fill"], kernels[1].attrs["fill"], kernels[2].attrs["fill"])
	}
	if y0, y1 := kernels[0].attrs["y"], kernels[1].attrs["y"]; y0 == y1 {
		t.Errorf("the two blocks share a lane at y=%s", y0)
	}
	if n := len(byClass(els, "rect", "copy")); n != 1 {
		t.Errorf("%d copy bars, want 1", n)
	}
	// fork: 1 to 2; join: 2 to 1; event: 1 to 1.
	if n := len(byClass(els, "line", "flow")); n != 4 {
		t.Errorf("%d arrows, want 4", n)
	}
	ticks := len(byClass(els, "line", "fork")) + len(byClass(els, "line", "join")) + len(byClass(els, "line", "record")) + len(byClass(els, "line", "wait"))
	if ticks != 8 {
		t.Errorf("%d instants, want 8", ticks)
	}
	if n := len(byClass(els, "line", "tick")); n < 4 || n > 13 {
		t.Errorf("%d ticks on the time axis", n)
	}
	// A window shows only what overlaps it.
	buf.Reset()
	render(&buf, sample, options{width: 800, from: 50 * us, to: 100 * us})
	els = parse(t, buf.Bytes())
	if n := len(byClass(els, "rect", "kernel")); n != 1 {
		t.Errorf("window from 50µs: %d kernel bars, want 1", n)
	}
}

// TestCommand runs the command on a trace file.
func TestCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "t.json"), filepath.Join(dir, "t.svg")
	if err := sample.WriteFile(in); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", ".", "-o", out, "-title", "a test", in)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("qdtrace: %v\n%s", err, msg)
	}
	svg, err := os.ReadFile(out)
	if err != nil || !bytes.HasPrefix(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("a test")) {
		t.Errorf("qdtrace wrote %.100q, %v", svg, err)
	}
}

// TestTitleWraps checks that a title longer than the picture is wide, as
// the CPU backend's device (its reason for not using a GPU) often is,
// comes out whole on several lines inside the picture, and that the lanes
// move down to make room.
func TestTitleWraps(t *testing.T) {
	long := "cpu (no GPU: CUDA: dlopen libcuda.so.1: libcuda.so.1: cannot open shared object file: No such file or directory; HIP: dlopen libamdhip64.so: libamdhip64.so: cannot open shared object file: No such file or directory)"
	tr := &rt.Trace{Device: long, Events: sample.Events}
	var short, wrapped bytes.Buffer
	render(&short, sample, options{width: 800})
	render(&wrapped, tr, options{width: 800})
	els := parse(t, wrapped.Bytes())
	var lines []string
	for _, e := range byClass(els, "text", "title") {
		line := strings.TrimSpace(e.text)
		if n := len([]rune(line)) * 8; n > 800 {
			t.Errorf("title line %q is about %d pixels wide, the picture 800", line, n)
		}
		lines = append(lines, line)
	}
	if len(lines) < 2 || strings.Join(lines, " ") != long {
		t.Errorf("title lines %q, want %q wrapped", lines, long)
	}
	y := func(b []byte) string { return byClass(parse(t, b), "rect", "kernel")[0].attrs["y"] }
	if y(short.Bytes()) == y(wrapped.Bytes()) {
		t.Errorf("the lanes start at y=%s under a title of %d lines as under one of one line", y(short.Bytes()), len(lines))
	}
}

// TestWindowSpansEvents checks that the time axis spans the events, not
// the time from the trace's start, which on a real run holds opening the
// device and loading modules before the first launch.
func TestWindowSpansEvents(t *testing.T) {
	late := &rt.Trace{Device: "test device"}
	for _, e := range sample.Events {
		e.Start += 300 * time.Millisecond
		e.End += 300 * time.Millisecond
		late.Events = append(late.Events, e)
	}
	var buf bytes.Buffer
	if err := render(&buf, late, options{width: 800}); err != nil {
		t.Fatal(err)
	}
	els := parse(t, buf.Bytes())
	width := 800 - labelWidth - 20
	lo, hi := float64(labelWidth+width), 0.0
	for _, class := range []string{"kernel", "copy"} {
		for _, e := range byClass(els, "rect", class) {
			x, w := attr(t, e, "x"), attr(t, e, "width")
			lo, hi = min(lo, x), max(hi, x+w)
		}
	}
	// The bars run from 3µs to 90µs of the events' 1µs to 90µs.
	if span := (hi - lo) / float64(width); span < 0.9 {
		t.Errorf("the bars fill %.0f%% of the time axis, want at least 90%%", 100*span)
	}
	ticks := byClass(els, "text", "time")
	if len(ticks) == 0 || !strings.HasPrefix(strings.TrimSpace(ticks[0].text), "300") {
		t.Errorf("the first tick reads %v, want the time from the trace's start (300…ms)", ticks)
	}
}

func attr(t *testing.T, e element, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(e.attrs[name], 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, e.attrs[name], err)
	}
	return v
}

// TestRenderDevices draws a trace of two devices: each device's lanes
// together, named by the device's short name, and the arrow of an event
// of one waited for on the other between them.
func TestRenderDevices(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	a := &rt.Trace{Device: "cuda device 0 (H100, sm_90, 132 SMs)", Start: t0, Events: []rt.TraceEvent{
		{Kind: "kernel", Name: "Step", Stream: "stream 1", Start: 1 * us, End: 9 * us},
		{Kind: "kernel", Name: "Step", Stream: "default stream", Start: 1 * us, End: 9 * us},
		{Kind: "record", Name: "event", Stream: "default stream", Start: 9 * us, End: 9 * us, Flow: 7},
	}}
	b := &rt.Trace{Device: "cuda device 1 (H100, sm_90, 132 SMs)", Start: t0.Add(2 * us), Events: []rt.TraceEvent{
		{Kind: "kernel", Name: "Step", Stream: "default stream", Start: 1 * us, End: 9 * us},
		{Kind: "wait", Name: "event", Stream: "stream 1", Start: 10 * us, End: 10 * us, Flow: 7, FlowEnd: true},
	}}
	var buf bytes.Buffer
	if err := render(&buf, rt.MergeTraces(b, a), options{width: 800}); err != nil {
		t.Fatal(err)
	}
	els := parse(t, buf.Bytes())
	var lanes []string
	for _, e := range byClass(els, "text", "lane-name") {
		lanes = append(lanes, strings.TrimSpace(e.text))
	}
	if got, want := strings.Join(lanes, ", "), "cuda 0: default stream, cuda 0: stream 1, cuda 1: default stream, cuda 1: stream 1"; got != want {
		t.Errorf("lanes %s, want %s", got, want)
	}
	ys := map[string]bool{}
	for _, k := range byClass(els, "rect", "kernel") {
		ys[k.attrs["y"]] = true
	}
	if len(ys) != 3 {
		t.Errorf("3 kernels on %d lanes, want 3", len(ys))
	}
	if n := len(byClass(els, "line", "flow")); n != 1 {
		t.Errorf("%d arrows, want 1 from device 0 to device 1", n)
	}
}
