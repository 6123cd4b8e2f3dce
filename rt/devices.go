package rt

import (
	"errors"
	"fmt"
	"os"
	"strconv"
)

// A program that scales past one GPU opens each device and orders work
// across them: OpenAll opens every device of a backend, CopyPeer copies
// between buffers of two devices, and an Event of one device may be waited
// for on a stream of another. The CPU backend has QD_CPU_DEVICES pretend
// devices (1 unless set), each running its kernels as Go functions, so
// that the code that splits work across devices runs and is tested on a
// machine without GPUs.

// CPUDevices is the number of pretend devices of the CPU backend:
// QD_CPU_DEVICES, or 1.
func CPUDevices() int {
	if n, err := strconv.Atoi(os.Getenv("QD_CPU_DEVICES")); err == nil && n > 0 {
		return n
	}
	return 1
}

// openCPUDevice opens the CPU backend's pretend device of the given index.
func openCPUDevice(index int) (*Device, error) {
	if n := CPUDevices(); index < 0 || index >= n {
		return nil, opError("open cpu device", fmt.Errorf("%w: device %d of %d cpu devices (set QD_CPU_DEVICES for more)", ErrNoDevice, index, n))
	}
	d := openCPU()
	d.index = index
	return d, nil
}

// DeviceCount returns how many devices of backend b there are; for Auto
// and GPU, those of the backend Open would choose (for Auto, the CPU's
// pretend devices when there is no GPU).
func DeviceCount(b Backend) (int, error) {
	switch b {
	case CPU:
		return CPUDevices(), nil
	case CUDA, HIP:
		n, err := gpuDeviceCount(b)
		return n, opError("count "+b.String()+" devices", err)
	}
	gpu, err := chooseGPUBackend()
	if err == nil {
		return DeviceCount(gpu)
	}
	if b == GPU {
		return 0, opError("count gpu devices", err)
	}
	return CPUDevices(), nil
}

// chooseGPUBackend is the GPU backend Auto uses: CUDA if it has a device,
// else HIP.
func chooseGPUBackend() (Backend, error) {
	var errs []error
	for _, b := range []Backend{CUDA, HIP} {
		n, err := gpuDeviceCount(b)
		if err == nil && n > 0 {
			return b, nil
		}
		if err == nil {
			err = fmt.Errorf("%w: no %s devices", ErrNoDevice, b)
		}
		errs = append(errs, err)
	}
	return Auto, errors.Join(errs...)
}

// OpenAll opens every device of one backend, in the order of their
// indices: the backend WithBackend or QD_BACKEND names, else the GPUs
// Auto would choose, else the CPU's pretend devices. WithDevice is
// ignored. If any device fails to open, those opened are closed.
func OpenAll(opts ...Option) ([]*Device, error) {
	backend, err := ParseBackend(os.Getenv("QD_BACKEND"))
	if err != nil {
		return nil, err
	}
	for _, o := range opts {
		if o.setBackend {
			backend = o.backend
		}
	}
	if backend == Auto || backend == GPU {
		gpu, err := chooseGPUBackend()
		switch {
		case err == nil:
			backend = gpu
		case backend == GPU:
			return nil, opError("open all gpu devices", err)
		default:
			backend = CPU
		}
	}
	n, err := DeviceCount(backend)
	if err != nil {
		return nil, err
	}
	devs := make([]*Device, 0, n)
	for i := range n {
		d, err := Open(append(opts[:len(opts):len(opts)], WithBackend(backend), WithDevice(i))...)
		if err != nil {
			CloseAll(devs)
			return nil, err
		}
		devs = append(devs, d)
	}
	return devs, nil
}

// CloseAll closes every device and returns the first error.
func CloseAll(devs []*Device) error {
	var first error
	for _, d := range devs {
		if err := d.Close(); first == nil {
			first = err
		}
	}
	return first
}

// Index returns the device's index among the devices of its backend.
func (d *Device) Index() int { return d.index }

// MakeCurrent makes d the current device of the calling thread, for
// libraries that act on the current device, such as NCCL's
// ncclCommInitRank. The caller must hold its goroutine on its thread
// (runtime.LockOSThread) until the library's call returns. It does
// nothing on the CPU.
func (d *Device) MakeCurrent() error {
	if err := d.check(); err != nil {
		return opError("make device current", err)
	}
	if c, ok := d.drv.(interface{ makeCurrent() error }); ok {
		return opError("make device current", c.makeCurrent())
	}
	return nil
}
