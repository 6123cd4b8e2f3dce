//go:build !linux

package rt

// hostRAM is the host's memory in bytes, 0 if unknown.
func hostRAM() uint64 { return 0 }
