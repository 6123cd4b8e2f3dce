// Package rt stands in for qd's runtime in the analyzer's tests: the
// generic functions and types whose element types the analyzer checks,
// with the real signatures and no bodies that matter.
package rt

type Device struct{}

type Element interface{ comparable }

type Buffer[T Element] struct{ host []T }

type HostBuffer[T Element] struct{ data []T }

func Alloc[T Element](d *Device, n int) (*Buffer[T], error) { return nil, nil }

func FromSlice[T Element](d *Device, src []T) (*Buffer[T], error) { return nil, nil }

func AllocHost[T Element](d *Device, n int) (*HostBuffer[T], error) { return nil, nil }

type Stream struct{}

func AllocOn[T Element](d *Device, n int, s *Stream) (*Buffer[T], error) { return nil, nil }
