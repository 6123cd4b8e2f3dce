//go:build cgo

package nccl

/*
#cgo LDFLAGS: -ldl
#include <stdint.h>
#include "nccl_shim.h"
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"

	"github.com/qdgo/qd/rt"
)

// The library is loaded when the first GPU communicator is made: NCCL's
// libnccl.so.2 for CUDA devices, RCCL's librccl.so for HIP devices.
// QD_NCCL_LIB names another file.

type library struct{ api *C.struct_qd_nccl }

var (
	libMu   sync.Mutex
	libs    = map[string]*library{} // by the names tried
	libErrs = map[string]error{}
)

func libraryNames(b rt.Backend) []string {
	if p := os.Getenv("QD_NCCL_LIB"); p != "" {
		return []string{p}
	}
	if b == rt.HIP {
		return []string{"librccl.so", "librccl.so.1", "/opt/rocm/lib/librccl.so"}
	}
	return []string{"libnccl.so.2"}
}

// loadLibrary loads the collective library of backend b once.
func loadLibrary(b rt.Backend) (*library, error) {
	libMu.Lock()
	defer libMu.Unlock()
	names := libraryNames(b)
	key := strings.Join(names, ":")
	if l := libs[key]; l != nil {
		return l, nil
	}
	if err := libErrs[key]; err != nil {
		return nil, err
	}
	var msgs []string
	for _, name := range names {
		cname := C.CString(name)
		var msg *C.char
		api := C.qd_nccl_open(cname, &msg)
		C.free(unsafe.Pointer(cname))
		if api != nil {
			libs[key] = &library{api: api}
			return libs[key], nil
		}
		msgs = append(msgs, C.GoString(msg))
	}
	how := "install the distribution's libnccl2 package, or `pip install nvidia-nccl-cu13` and add its nvidia/nccl/lib folder to LD_LIBRARY_PATH, or set QD_NCCL_LIB to the file"
	if b == rt.HIP {
		how = "install ROCm's rccl package, or set QD_NCCL_LIB to the file"
	}
	libErrs[key] = fmt.Errorf("cannot load %s (%s): %s", names[0], strings.Join(msgs, "; "), how)
	return nil, libErrs[key]
}

// check turns a result of NCCL into an error naming the call and NCCL's
// error string.
func (l *library) check(call string, r C.int) error {
	if r == 0 {
		return nil
	}
	return fmt.Errorf("%s: %s (%d)", call, C.GoString(C.qd_nccl_error(l.api, r)), int(r))
}
