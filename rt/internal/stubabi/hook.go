package stubabi

// ArgBuffer is a buffer argument of a launch, as generated code passes it:
// an *rt.Buffer of any element type. rt checks that it is one.
type ArgBuffer interface {
	Len() int
	DevicePointer() uintptr
}

// Load loads the module of spec on a device, an *rt.Device, and returns
// rt's module, whose exported methods rtimpl.Module lists. rt sets it when
// it is initialized; its arguments and result are untyped because this
// package cannot name rt's types without an import cycle.
var Load func(dev any, spec *ModuleSpec) (any, error)
