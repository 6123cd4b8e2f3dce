package rt

import (
	"errors"
	"fmt"
)

var (
	// ErrNoDevice is returned when no GPU of the requested backend can be
	// used: no driver library, no device, or a device index out of range.
	ErrNoDevice = errors.New("no GPU device")
	// ErrClosed is returned when a closed device, freed buffer, closed
	// stream or closed event is used.
	ErrClosed = errors.New("use of a closed object")
	// ErrWrongDevice is returned when a buffer, stream or event of one
	// device is used with another.
	ErrWrongDevice = errors.New("object belongs to another device")
	// ErrNoImage is returned when a module holds no device code in a form
	// the device's driver loads: qdgen emitted none for that backend.
	ErrNoImage = errors.New("no device code this device can load")
	// ErrOutOfMemory is returned when an allocation is larger than the
	// memory it asks for can be, or than the device or host has.
	ErrOutOfMemory = errors.New("out of memory")
	// ErrRecording is returned by operations that cannot be part of a
	// recording (Device.Record), such as synchronizing, while one is
	// under way.
	ErrRecording = errors.New("not allowed while a graph is being recorded")
	// ErrInUse is returned when freeing a buffer that a graph still
	// refers to.
	ErrInUse = errors.New("in use by a graph")
)

// DriverError is a failed call into the CUDA or HIP driver.
type DriverError struct {
	Call string // the driver function, e.g. "cuLaunchKernel"
	Code int    // the driver's result code
	Name string // the result code's name, e.g. "CUDA_ERROR_ILLEGAL_ADDRESS"
	Log  string // extra detail, such as a JIT compiler's error log
}

func (e *DriverError) Error() string {
	msg := fmt.Sprintf("%s: %s (%d)", e.Call, e.Name, e.Code)
	if e.Log != "" {
		msg += "\n" + e.Log
	}
	return msg
}

// OpError describes a failed operation of the runtime: which operation, on
// what, and why. Err is often a *DriverError or one of the Err values.
type OpError struct {
	Op  string // e.g. "launch Saxpy", "copy to device"
	Err error
}

func (e *OpError) Error() string { return "qd: " + e.Op + ": " + e.Err.Error() }
func (e *OpError) Unwrap() error { return e.Err }

func opError(op string, err error) error {
	if err == nil {
		return nil
	}
	return &OpError{Op: op, Err: err}
}

// KernelPanic is the error of a kernel that panicked on the CPU backend,
// where kernels run as the Go functions they are.
type KernelPanic struct {
	Value any
}

func (p *KernelPanic) Error() string { return fmt.Sprintf("panic: %v", p.Value) }
