package rt

import (
	"errors"
	"testing"
)

func TestQueueForeignTracedAndRefusedWhileRecording(t *testing.T) {
	d := openCPU()
	defer d.Close()
	if err := d.StartTrace(); err != nil {
		t.Fatal(err)
	}
	ran := false
	if err := d.QueueForeign(nil, "collective", "all-reduce", 64, func(uintptr) error { ran = true; return nil }); err != nil || !ran {
		t.Fatalf("QueueForeign: ran %v, %v", ran, err)
	}
	tr, err := d.StopTrace()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range tr.Events {
		found = found || e.Kind == "collective" && e.Name == "all-reduce" && e.Bytes == 64
	}
	if !found {
		t.Errorf("the trace has no all-reduce: %+v", tr.Events)
	}
	d.Close()
	if err := d.QueueForeign(nil, "collective", "all-reduce", 0, func(uintptr) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
}
