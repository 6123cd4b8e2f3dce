package rt

import "syscall"

// hostRAM is the host's memory and swap in bytes, 0 if unknown.
func hostRAM() uint64 {
	var info syscall.Sysinfo_t
	if syscall.Sysinfo(&info) != nil {
		return 0
	}
	return (uint64(info.Totalram) + uint64(info.Totalswap)) * uint64(info.Unit)
}
