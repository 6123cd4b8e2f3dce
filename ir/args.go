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
