package rt

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// MergeTraces puts the traces of several devices, taken over the same
// time, into one: each event keeps its stream and gets its trace's device,
// and times are moved to count from the earliest trace's start, by the
// host's clock. A device that appears twice (traced, closed and opened
// again) is named with its turn, "cuda device 0 (…) #2".
func MergeTraces(traces ...*Trace) *Trace {
	m := &Trace{}
	for _, t := range traces {
		if m.Start.IsZero() || t.Start.Before(m.Start) {
			m.Start = t.Start
		}
	}
	var names []string
	seen := map[string]int{}
	for _, t := range traces {
		name := t.Device
		if seen[name]++; seen[name] > 1 {
			name = fmt.Sprintf("%s #%d", name, seen[name])
		}
		names = append(names, name)
		shift := t.Start.Sub(m.Start)
		for _, e := range t.Events {
			if e.Device == "" {
				e.Device = name
			}
			e.Start += shift
			e.End += shift
			m.Events = append(m.Events, e)
		}
	}
	m.Device = fmt.Sprintf("%d devices: %s", len(traces), strings.Join(names, "; "))
	if len(traces) == 1 {
		m.Device = traces[0].Device
	}
	slices.SortStableFunc(m.Events, func(a, b TraceEvent) int { return cmp.Compare(a.Start, b.Start) })
	return m
}

// processTraces are the traces that devices of this process wrote to each
// QD_TRACE file: the file holds them all, merged, so that the devices of a
// program that drives several do not overwrite each other's.
var processTraces struct {
	mu     sync.Mutex
	byPath map[string][]*Trace
}

// writeProcessTrace adds tr, the trace of a device that is closing, to
// those of the file path and writes them there: as it is when it is the
// only one, else merged with MergeTraces.
func writeProcessTrace(path string, tr *Trace) error {
	processTraces.mu.Lock()
	defer processTraces.mu.Unlock()
	if processTraces.byPath == nil {
		processTraces.byPath = map[string][]*Trace{}
	}
	list := append(processTraces.byPath[path], tr)
	processTraces.byPath[path] = list
	if len(list) == 1 {
		return tr.WriteFile(path)
	}
	return MergeTraces(list...).WriteFile(path)
}
