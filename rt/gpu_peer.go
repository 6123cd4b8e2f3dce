//go:build cgo

package rt

// #include "gpu_peer.h"
import "C"

// The GPU drivers copy between two of their devices with cuMemcpyPeerAsync
// (hipMemcpyPeerAsync), once peer access lets each device reach the
// other's memory (peer.go decides when).

// gpu returns the shared part of a CUDA or HIP driver, for the calls that
// take two devices.
func (g *gpuDriver) gpu() *gpuDriver { return g }

// peerOf is the GPU driver of peer, if it is one of the same API.
func (g *gpuDriver) peerOf(peer driver) (*gpuDriver, bool) {
	p, ok := peer.(interface{ gpu() *gpuDriver })
	if !ok {
		return nil, false
	}
	o := p.gpu()
	return o, o.api == g.api
}

func (g *gpuDriver) canAccessPeer(peer driver) (bool, error) {
	p, ok := g.peerOf(peer)
	if !ok || C.qd_has_peer(g.api) == 0 {
		return false, nil
	}
	var can C.int
	r := C.qd_can_access_peer(g.api, g.dev, p.dev, &can)
	return can != 0, g.check(C.QD_CALL_DeviceCanAccessPeer, r)
}

// enablePeerAccess lets this device read and write peer's memory: that of
// cuMemAlloc through the context's peer access, that of peer's memory pool
// through the pool's access list, which peer access does not change.
func (g *gpuDriver) enablePeerAccess(peer driver) error {
	p, ok := g.peerOf(peer)
	if !ok {
		return ErrWrongDevice
	}
	if err := g.check(C.QD_CALL_CtxEnablePeerAccess, C.qd_enable_peer(g.api, g.ctx, p.ctx)); err != nil {
		return err
	}
	if p.memPool != 0 && g.api.fn[C.QD_CALL_MemPoolSetAccess] != nil {
		return g.check(C.QD_CALL_MemPoolSetAccess, C.qd_pool_grant(g.api, p.ctx, C.uintptr_t(p.memPool), g.dev))
	}
	return nil
}

// copyPeerAsync queues on stream s of this device a copy of bytes from src,
// memory of the device of srcDrv, to dst, memory of this device.
func (g *gpuDriver) copyPeerAsync(dst, src uintptr, srcDrv driver, bytes, s uintptr) error {
	p, ok := g.peerOf(srcDrv)
	if !ok {
		return ErrWrongDevice
	}
	r := C.qd_copy_peer(g.api, g.ctx, C.uintptr_t(dst), g.ctx, C.uintptr_t(src), p.ctx, C.size_t(bytes), C.uintptr_t(s))
	return g.check(C.QD_CALL_MemcpyPeerAsync, r)
}
