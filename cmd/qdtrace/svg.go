package main

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/qdgo/qd/rt"
)

// Layout of the picture, in pixels.
const (
	labelWidth = 150 // the lanes' names
	laneHeight = 26
	barHeight  = 18
	titleLine  = 16 // a line of the title
	axisHeight = 24 // the time axis under the title
	legendLine = 18
	letter     = 7 // about the width of a letter, for fitting text
)

// palette holds colours that stay apart on white, for kernels; copies and
// memsets are grey, graph launches outlined.
var palette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#2f4b7c"}

// timeline is a trace laid out for drawing.
type timeline struct {
	tr       *rt.Trace
	events   []rt.TraceEvent // those in the window
	lanes    []string        // by TraceEvent.Lane
	devices  []string        // each lane's device, in a trace of several
	from, to time.Duration
	width    int      // of the time area
	title    []string // lines of the title, wrapped to the picture's width
	top      int      // where the lanes start, under the title and the axis
	colours  map[string]string
	names    []string // kernels, in order of first appearance
}

// layout places tr's events in the window o asks for, by default the
// span from the first event's start to the last one's end: a process
// records its first launch only after opening the device and loading its
// module, and a time axis from zero would leave most of the picture empty.
func layout(tr *rt.Trace, o options) *timeline {
	t := &timeline{tr: tr, width: max(o.width-labelWidth-20, 100), colours: map[string]string{}, from: o.from, to: o.to}
	title := o.title
	if title == "" {
		title = tr.Device
	}
	t.title = wrap(title, (t.width+labelWidth)/(letter+1)) // 13-pixel letters
	t.top = len(t.title)*titleLine + axisHeight
	t.from, t.to = window(tr.Events, o.from, o.to)
	for _, e := range tr.Events {
		if e.End < t.from || e.Start > t.to {
			continue
		}
		t.events = append(t.events, e)
		if !slices.Contains(t.lanes, e.Lane()) {
			t.lanes = append(t.lanes, e.Lane())
			t.devices = append(t.devices, e.Device)
		}
		if e.Kind == "kernel" {
			if _, ok := t.colours[e.Name]; !ok {
				t.names = append(t.names, e.Name)
				t.colours[e.Name] = colourOf(e.Name, len(t.names)-1)
			}
		}
	}
	// Each device's lanes together, in the order of the devices' names;
	// of each, the default stream first, then the others as they appeared.
	order := make([]int, len(t.lanes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		if c := strings.Compare(t.devices[i], t.devices[j]); c != 0 {
			return c
		}
		return boolInt(isDefault(t.lanes[j])) - boolInt(isDefault(t.lanes[i]))
	})
	lanes, devices := t.lanes, t.devices
	t.lanes, t.devices = nil, nil
	for _, i := range order {
		t.lanes, t.devices = append(t.lanes, lanes[i]), append(t.devices, devices[i])
	}
	if t.to <= t.from {
		t.to = t.from + time.Microsecond
	}
	return t
}

// window returns the span to draw: from and to where given (non-zero),
// else the events' first start and last end, with a margin of a
// fiftieth of their span.
func window(events []rt.TraceEvent, from, to time.Duration) (time.Duration, time.Duration) {
	if len(events) == 0 {
		return from, to
	}
	first, last := events[0].Start, events[0].End
	for _, e := range events {
		first, last = min(first, e.Start), max(last, e.End)
	}
	margin := (last - first) / 50
	if from == 0 {
		from = max(first-margin, 0)
	}
	if to == 0 {
		to = last + margin
	}
	return from, to
}

// wrap breaks s into lines of at most n letters at spaces, and a word
// longer than a line wherever it must be.
func wrap(s string, n int) []string {
	n = max(n, 10)
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		for len([]rune(word)) > n {
			if line != "" {
				lines = append(lines, line)
				line = ""
			}
			r := []rune(word)
			lines = append(lines, string(r[:n]))
			word = string(r[n:])
		}
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) <= n:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// colourOf gives the i-th kernel a colour of the palette, and kernels
// past its end one drawn from their name.
func colourOf(name string, i int) string {
	if i < len(palette) {
		return palette[i]
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return fmt.Sprintf("hsl(%d,55%%,55%%)", h.Sum32()%360)
}

func (t *timeline) x(d time.Duration) float64 {
	return labelWidth + float64(d-t.from)/float64(t.to-t.from)*float64(t.width)
}

func (t *timeline) y(lane string) float64 {
	return float64(t.top + slices.Index(t.lanes, lane)*laneHeight)
}

// render writes the SVG picture of tr.
func render(w io.Writer, tr *rt.Trace, o options) error {
	t := layout(tr, o)
	b := bufio.NewWriter(w)
	height := t.top + len(t.lanes)*laneHeight + 20 + legendLine*((len(t.names)+3)/4+1)
	total := t.width + labelWidth + 20
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", total, height)
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="white"/>`+"\n", total, height)
	for i, line := range t.title {
		fmt.Fprintf(b, `<text class="title" x="4" y="%d" font-size="13">%s</text>`+"\n", 14+i*titleLine, esc(line))
	}
	t.axis(b)
	for i, lane := range t.lanes {
		y := t.y(lane)
		if i%2 == 1 {
			fmt.Fprintf(b, `<rect class="lane" x="0" y="%.1f" width="%d" height="%d" fill="#f4f4f4"/>`+"\n", y, total, laneHeight)
		}
		fmt.Fprintf(b, `<text class="lane-name" x="4" y="%.1f">%s</text>`+"\n", y+laneHeight/2+4, esc(laneLabel(lane, t.devices[i])))
	}
	for _, e := range t.events {
		if !e.Instant() {
			t.bar(b, e)
		}
	}
	t.flows(b)
	for _, e := range t.events {
		if e.Instant() {
			x, y := t.x(e.Start), t.y(e.Lane())
			fmt.Fprintf(b, `<line class="%s" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black" stroke-width="1.5"><title>%s</title></line>`+"\n",
				e.Kind, x, y+2, x, y+laneHeight-2, esc(fmt.Sprintf("%s %s at %v", e.Kind, e.Name, e.Start)))
		}
	}
	t.legend(b, float64(t.top+len(t.lanes)*laneHeight+20))
	fmt.Fprintln(b, "</svg>")
	return b.Flush()
}

// bar draws one operation.
func (t *timeline) bar(b io.Writer, e rt.TraceEvent) {
	x0, x1 := t.x(max(e.Start, t.from)), t.x(min(e.End, t.to))
	y := t.y(e.Lane()) + (laneHeight-barHeight)/2
	fill, stroke := "#bbbbbb", "none"
	switch e.Kind {
	case "kernel":
		fill = t.colours[e.Name]
	case "graph":
		fill, stroke = "#ffffff", "#333333"
	}
	tip := fmt.Sprintf("%s %s: %v", e.Kind, e.Name, e.End-e.Start)
	if e.Task != "" {
		tip += fmt.Sprintf(", task %s, %d×%d threads", e.Task, e.Grid, e.Threads)
	}
	if e.Block > 0 {
		tip += fmt.Sprintf(", block %d", e.Block)
	}
	if e.Bytes > 0 {
		tip += fmt.Sprintf(", %d bytes", e.Bytes)
	}
	fmt.Fprintf(b, `<rect class="%s" x="%.1f" y="%.1f" width="%.1f" height="%d" fill="%s" stroke="%s"><title>%s</title></rect>`+"\n",
		e.Kind, x0, y, math.Max(x1-x0, 1), barHeight, fill, stroke, esc(tip))
	label := e.Name
	if e.Block > 0 {
		label += fmt.Sprintf(" block %d", e.Block)
	}
	if x1-x0 > letter*float64(len(label))+8 { // the label fits
		colour := "white"
		if e.Kind != "kernel" {
			colour = "black"
		}
		fmt.Fprintf(b, `<text class="label" x="%.1f" y="%.1f" fill="%s">%s</text>`+"\n", x0+4, y+barHeight-5, colour, esc(label))
	}
}

// flows draws an arrow from each instant that starts a flow to each that
// ends it.
func (t *timeline) flows(b io.Writer) {
	starts := map[uint64]rt.TraceEvent{}
	for _, e := range t.events {
		if e.Flow != 0 && !e.FlowEnd {
			starts[e.Flow] = e
		}
	}
	fmt.Fprintln(b, `<defs><marker id="arrow" viewBox="0 0 6 6" refX="6" refY="3" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L6,3 L0,6 z" fill="#555"/></marker></defs>`)
	for _, e := range t.events {
		s, ok := starts[e.Flow]
		if !ok || !e.FlowEnd {
			continue
		}
		fmt.Fprintf(b, `<line class="flow" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#555" stroke-width="1" marker-end="url(#arrow)"/>`+"\n",
			t.x(s.Start), t.y(s.Lane())+laneHeight/2, t.x(e.Start), t.y(e.Lane())+laneHeight/2)
	}
}

// axis draws the time axis with about ten ticks at round intervals,
// labelled with the time from the trace's start, as -from and -to take it.
func (t *timeline) axis(b io.Writer) {
	raw := float64(t.to-t.from) / 10
	mag := time.Duration(math.Pow(10, math.Floor(math.Log10(raw))))
	step := 10 * mag
	for _, m := range []time.Duration{1, 2, 5} {
		if float64(mag*m) >= raw {
			step = mag * m
			break
		}
	}
	step = max(step, 1)
	y := float64(t.top - 4)
	for d := (t.from + step - 1) / step * step; d <= t.to; d += step {
		x := t.x(d)
		fmt.Fprintf(b, `<line class="tick" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999"/>`+"\n", x, y, x, y+4)
		fmt.Fprintf(b, `<text class="time" x="%.1f" y="%.1f" text-anchor="middle" fill="#555">%v</text>`+"\n", x, y-3, d)
	}
}

// legend names the kernels' colours.
func (t *timeline) legend(b io.Writer, y float64) {
	entries := append(slices.Clone(t.names), "copy or memset", "graph launch")
	for i, name := range entries {
		x := 4 + float64(i%4)*float64(t.width+labelWidth)/4
		row := y + float64(i/4)*legendLine
		fill, stroke := "#bbbbbb", "none"
		switch {
		case i < len(t.names):
			fill = t.colours[name]
		case name == "graph launch":
			fill, stroke = "#ffffff", "#333333"
		}
		fmt.Fprintf(b, `<rect class="legend" x="%.1f" y="%.1f" width="12" height="12" fill="%s" stroke="%s"/><text x="%.1f" y="%.1f">%s</text>`+"\n",
			x, row, fill, stroke, x+16, row+10, esc(name))
	}
}

func esc(s string) string {
	var sb strings.Builder
	xml.EscapeText(&sb, []byte(s))
	return sb.String()
}

// isDefault reports whether a lane is a device's default stream.
func isDefault(lane string) bool { return strings.HasSuffix(lane, "default stream") }

// laneLabel is a lane's name beside it: the stream, after its device's
// short name ("cuda 1" for "cuda device 1 (NVIDIA H100 …)") in a trace of
// several.
func laneLabel(lane, device string) string {
	if device == "" {
		return lane
	}
	short, _, _ := strings.Cut(device, " (")
	short = strings.Replace(short, " device ", " ", 1)
	return short + ": " + strings.TrimPrefix(lane, device+": ")
}
