package ir

// SlotPart says which part of a parameter an argument slot holds.
type SlotPart uint8

const (
	SlotValue SlotPart = iota // a scalar parameter's value
	SlotBase                  // a slice parameter's device address
	SlotLen                   // a slice parameter's length
	// The runtime's own arguments, after the parameters' (Param is -1):
	// the address of the launch's scratch memory, in kernels with
	// reductions, then that of the record of the module's first fault, in
	// kernels with fault sites. The runtime writes them into the last
	// words of the packed buffer.
	SlotScratch
	SlotFault
)

// ArgSlot is one entry point parameter. Every task of a kernel takes the
// same slots, so the host packs the arguments once per launch and every
// emitter declares its parameters in this order.
type ArgSlot struct {
	Param  int
	Part   SlotPart
	Type   Type // Bool is passed as one byte
	Offset int  // in the packed argument buffer, naturally aligned
}

// MaxArgBytes is the most bytes of arguments a launch may pass: CUDA's
// limit for the PTX ISA versions that CUDA 11's tools accept.
const MaxArgBytes = 4096

// ArgSlots lays out the kernel's arguments and returns the slots and the
// size of the packed buffer.
func (k *Kernel) ArgSlots() ([]ArgSlot, int) {
	var slots []ArgSlot
	off := 0
	add := func(param int, part SlotPart, t Type) {
		size := t.Size()
		off = (off + size - 1) &^ (size - 1)
		slots = append(slots, ArgSlot{Param: param, Part: part, Type: t, Offset: off})
		off += size
	}
	for i, p := range k.Params {
		if p.Slice {
			add(i, SlotBase, Ptr)
			add(i, SlotLen, Int64)
		} else {
			add(i, SlotValue, p.Type)
		}
	}
	if k.Reductions > 0 {
		add(-1, SlotScratch, Ptr)
	}
	if len(k.Sites) > 0 {
		add(-1, SlotFault, Ptr)
	}
	// The size is where the last slot ends: the driver checks it against
	// the entry point's parameter space exactly.
	return slots, off
}

// GoPath writes the name of a parameter as a Go expression: a struct or
// array parameter is passed flattened, one parameter per number it holds,
// named by its path with element indices as numbers ("p.Taps.2"), which
// Go writes "p.Taps[2]".
func GoPath(name string) string {
	var b []byte
	for i := 0; i < len(name); i++ {
		if name[i] != '.' || i+1 >= len(name) || !isDigit(name[i+1]) {
			b = append(b, name[i])
			continue
		}
		b = append(b, '[')
		for i++; i < len(name) && isDigit(name[i]); i++ {
			b = append(b, name[i])
		}
		b = append(b, ']')
		i--
	}
	return string(b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
