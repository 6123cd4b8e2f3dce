package rt

import "fmt"

// fakePeer sets how the fake driver answers for copies between two fake
// devices, and counts what it was asked.
type fakePeer struct {
	// noPeer makes canAccessPeer say no; failEnable makes
	// enablePeerAccess fail.
	noPeer, failEnable bool
	enabled            int // calls of enablePeerAccess
}

func (f *fakeDriver) canAccessPeer(peer driver) (bool, error) {
	f.calls.Add(1)
	_, ok := peer.(*fakeDriver)
	f.mu.Lock()
	defer f.mu.Unlock()
	return ok && !f.peer.noPeer, nil
}

func (f *fakeDriver) enablePeerAccess(peer driver) error {
	f.calls.Add(1)
	f.mu.Lock()
	fail := f.peer.failEnable
	f.peer.enabled++
	f.mu.Unlock()
	if fail {
		return &DriverError{Call: "cuCtxEnablePeerAccess", Code: 711, Name: "CUDA_ERROR_TOO_MANY_PEERS"}
	}
	f.logf("enable peer access")
	return nil
}

func (f *fakeDriver) copyPeerAsync(dst, src uintptr, srcDrv driver, bytes, s uintptr) error {
	f.calls.Add(1)
	if _, ok := srcDrv.(*fakeDriver); !ok {
		return fmt.Errorf("copy from a %T", srcDrv)
	}
	f.logf("copy from peer %d on %s", bytes, f.name(s))
	return nil
}
