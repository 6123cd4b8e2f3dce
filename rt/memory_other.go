//go:build !linux

package rt

// hostMemory is the host's memory in bytes, 0 if unknown.
func hostMemory() uint64 { return 0 }
