//go:build cgo

package nccl

// #include <stdint.h>
// #include "nccl_shim.h"
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/qdgo/qd/rt"
)

// gpuComm is an NCCL communicator of one device.
type gpuComm struct {
	lib    *library
	handle C.uintptr_t
}

// uniqueID is NCCL's ncclUniqueId, which rank 0 makes and every rank
// passes to ncclCommInitRank.
type uniqueID [128]byte

func newUniqueID(lib *library) (uniqueID, error) {
	var id uniqueID
	return id, lib.check("ncclGetUniqueId", C.qd_nccl_unique_id(lib.api, unsafe.Pointer(&id[0])))
}

// initAllGPU makes one communicator per device with ncclCommInitAll.
func initAllGPU(devs []*rt.Device) ([]*gpuComm, error) {
	lib, err := loadLibrary(devs[0].Backend())
	if err != nil {
		return nil, err
	}
	idx := make([]C.int, len(devs))
	for i, d := range devs {
		idx[i] = C.int(d.Index())
	}
	handles := make([]C.uintptr_t, len(devs))
	if err := lib.check("ncclCommInitAll", C.qd_nccl_init_all(lib.api, &handles[0], C.int(len(devs)), &idx[0])); err != nil {
		return nil, err
	}
	comms := make([]*gpuComm, len(devs))
	for i, h := range handles {
		comms[i] = &gpuComm{lib: lib, handle: h}
	}
	return comms, nil
}

// initRankGPU makes rank's communicator of size ranks with
// ncclCommInitRank, on dev's device, which must be current.
func initRankGPU(lib *library, dev *rt.Device, id uniqueID, rank, size int) (*gpuComm, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := dev.MakeCurrent(); err != nil {
		return nil, err
	}
	var h C.uintptr_t
	r := C.qd_nccl_init_rank(lib.api, &h, C.int(size), unsafe.Pointer(&id[0]), C.int(rank))
	if err := lib.check("ncclCommInitRank", r); err != nil {
		return nil, err
	}
	return &gpuComm{lib: lib, handle: h}, nil
}

func (g *gpuComm) close() error {
	return g.lib.check("ncclCommDestroy", C.qd_nccl_destroy(g.lib.api, g.handle))
}

// gpuCall is one collective's arguments: device addresses, a count of
// elements, NCCL's data type and reduction, a root or peer rank.
type gpuCall struct {
	send, recv uintptr
	n          int
	dtype, op  int
	root       int
}

func (g *gpuComm) run(name string, a gpuCall, stream uintptr) error {
	l, s, r, n, t := g.lib.api, C.uintptr_t(a.send), C.uintptr_t(a.recv), C.size_t(a.n), C.int(a.dtype)
	st := C.uintptr_t(stream)
	var res C.int
	call := "nccl" + name
	switch name {
	case "AllReduce":
		res = C.qd_nccl_all_reduce(l, s, r, n, t, C.int(a.op), g.handle, st)
	case "Broadcast":
		res = C.qd_nccl_broadcast(l, s, r, n, t, C.int(a.root), g.handle, st)
	case "Reduce":
		res = C.qd_nccl_reduce(l, s, r, n, t, C.int(a.op), C.int(a.root), g.handle, st)
	case "AllGather":
		res = C.qd_nccl_all_gather(l, s, r, n, t, g.handle, st)
	case "ReduceScatter":
		res = C.qd_nccl_reduce_scatter(l, s, r, n, t, C.int(a.op), g.handle, st)
	case "Send":
		res = C.qd_nccl_send(l, s, n, t, C.int(a.root), g.handle, st)
	case "Recv":
		res = C.qd_nccl_recv(l, r, n, t, C.int(a.root), g.handle, st)
	default:
		return fmt.Errorf("no NCCL call %s", name)
	}
	return g.lib.check(call, res)
}

// groupStart and groupEnd bracket calls NCCL runs as one.
func (g *gpuComm) groupStart() error {
	return g.lib.check("ncclGroupStart", C.qd_nccl_group_start(g.lib.api))
}

func (g *gpuComm) groupEnd() error {
	return g.lib.check("ncclGroupEnd", C.qd_nccl_group_end(g.lib.api))
}
