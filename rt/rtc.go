//go:build cgo

package rt

// #include "rtc_shim.h"
import "C"

import (
	"fmt"
	"strings"
	"unsafe"
)

// rtc is a runtime compiler of C++ device code, opened with dlopen like
// the drivers: hiprtc, which compiles HIP modules for the AMD GPU at hand,
// or NVRTC, which test builds use to run the same source on NVIDIA GPUs.
type rtc struct {
	c       *C.struct_qd_rtc
	name    string // "hiprtc" or "nvrtc"
	version string // the compiler's version, such as "6.2"
}

// openRTC loads a runtime compiler from the first of the libraries that
// opens and has its functions.
func openRTC(nvrtc bool, libraries []string) (*rtc, error) {
	name := "hiprtc"
	if nvrtc {
		name = "nvrtc"
	}
	var msgs []string
	for _, lib := range libraries {
		clib := C.CString(lib)
		var msg *C.char
		c := C.qd_open_rtc(C.int(boolInt(nvrtc)), clib, &msg)
		C.free(unsafe.Pointer(clib))
		if c == nil {
			msgs = append(msgs, C.GoString(msg))
			continue
		}
		var major, minor C.int
		C.qd_rtc_version(c, &major, &minor)
		return &rtc{c: c, name: name, version: fmt.Sprintf("%d.%d", int(major), int(minor))}, nil
	}
	return nil, fmt.Errorf("cannot load %s: %s", name, strings.Join(msgs, "; "))
}

// compile compiles a module's source with the options. A failure is a
// *DriverError naming the call and carrying the compiler's log.
func (c *rtc) compile(source, name string, options []string) ([]byte, error) {
	csrc, cname := C.CString(source), C.CString(name)
	defer C.free(unsafe.Pointer(csrc))
	defer C.free(unsafe.Pointer(cname))
	copts := make([]*C.char, len(options)+1)
	for i, o := range options {
		copts[i] = C.CString(o)
		defer C.free(unsafe.Pointer(copts[i]))
	}
	var code, log *C.char
	var size C.size_t
	var call C.int
	r := C.qd_rtc_compile(c.c, csrc, cname, &copts[0], C.int(len(options)), &code, &size, &log, &call)
	defer C.free(unsafe.Pointer(code))
	defer C.free(unsafe.Pointer(log))
	if r != 0 {
		return nil, &DriverError{
			Call: C.GoString(C.qd_rtc_call_name(c.c, call)),
			Code: int(r),
			Name: C.GoString(C.qd_rtc_error(c.c, r)),
			Log:  strings.TrimSpace(C.GoString(log)),
		}
	}
	return C.GoBytes(unsafe.Pointer(code), C.int(size)), nil
}
