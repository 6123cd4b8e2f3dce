package nccl

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/qdgo/qd/rt"
)

// A group of processes finds itself as torchrun's do: each process reads
// its rank, the number of ranks and the address of rank 0 from the
// environment, rank 0 listens there, and the others connect to it. Every
// step has the communicator's timeout: a rank that never arrives is an
// error naming it.

// Env is what a process of a group reads from its environment.
type Env struct {
	Rank, WorldSize, LocalRank int
	Master                     string // host:port of rank 0
}

// ReadEnv reads RANK, WORLD_SIZE, LOCAL_RANK (0 unless set), MASTER_ADDR
// (127.0.0.1 unless set) and MASTER_PORT, the variables torchrun and
// cmd/qdrun set.
func ReadEnv() (Env, error) {
	var e Env
	var err error
	get := func(name string, v *int, def string) {
		s := os.Getenv(name)
		if s == "" {
			s = def
		}
		n, perr := strconv.Atoi(s)
		if perr != nil && err == nil {
			err = fmt.Errorf("nccl: %s=%q is not a number; start the program with qdrun or torchrun, which set it", name, s)
		}
		*v = n
	}
	get("RANK", &e.Rank, "")
	get("WORLD_SIZE", &e.WorldSize, "")
	get("LOCAL_RANK", &e.LocalRank, "0")
	if err != nil {
		return e, err
	}
	port := os.Getenv("MASTER_PORT")
	if port == "" {
		return e, errors.New("nccl: MASTER_PORT is not set; start the program with qdrun or torchrun, which set it")
	}
	addr := os.Getenv("MASTER_ADDR")
	if addr == "" {
		addr = "127.0.0.1"
	}
	e.Master = net.JoinHostPort(addr, port)
	if e.WorldSize < 1 || e.Rank < 0 || e.Rank >= e.WorldSize {
		return e, fmt.Errorf("nccl: RANK=%d is not a rank of WORLD_SIZE=%d", e.Rank, e.WorldSize)
	}
	return e, nil
}

// InitFromEnv makes this process's communicator of a group of processes
// described by the environment (ReadEnv), on device dev.
func InitFromEnv(dev *rt.Device, opts ...Option) (*Comm, error) {
	e, err := ReadEnv()
	if err != nil {
		return nil, err
	}
	return InitRank(dev, e.Rank, e.WorldSize, e.Master, opts...)
}

// InitRank makes the communicator of rank rank of size ranks, one per
// process, whose rank 0 listens at master (host:port).
func InitRank(dev *rt.Device, rank, size int, master string, opts ...Option) (*Comm, error) {
	timeout := timeoutOf(opts)
	if !dev.IsCPU() {
		g, err := initRankOnGPU(dev, rank, size, master, timeout)
		if err != nil {
			return nil, fmt.Errorf("nccl: init rank %d of %d: %w", rank, size, err)
		}
		return &Comm{dev: dev, rank: rank, size: size, gpu: g, timeout: timeout}, nil
	}
	var conns []*peerConn
	var err error
	if rank == 0 {
		conns, err = serve(master, size, timeout)
	} else {
		conns, err = join(master, rank, size, timeout)
	}
	if err != nil {
		return nil, fmt.Errorf("nccl: init rank %d of %d: %w", rank, size, err)
	}
	return &Comm{dev: dev, rank: rank, size: size, net: newTCPTransport(rank, size, conns), timeout: timeout}, nil
}

func timeoutOf(opts []Option) time.Duration {
	t := DefaultTimeout
	for _, o := range opts {
		if o.timeout > 0 {
			t = o.timeout
		}
	}
	return t
}

// hello is what a rank says when it connects to rank 0.
type hello struct{ Rank, Size int }

// serve is rank 0's side: it waits for every other rank to connect.
func serve(master string, size int, timeout time.Duration) ([]*peerConn, error) {
	l, err := net.Listen("tcp", master)
	if err != nil {
		return nil, fmt.Errorf("listening at %s: %w", master, err)
	}
	defer l.Close()
	deadline := time.Now().Add(timeout)
	l.(*net.TCPListener).SetDeadline(deadline)
	conns := make([]*peerConn, size)
	for arrived := 1; arrived < size; {
		c, err := l.Accept()
		if err != nil {
			var missing []string
			for r := 1; r < size; r++ {
				if conns[r] == nil {
					missing = append(missing, strconv.Itoa(r))
				}
			}
			closeAll(conns)
			return nil, fmt.Errorf("rank %s of %d did not arrive at %s within %v", strings.Join(missing, ", "), size, master, timeout)
		}
		p := newPeerConn(c)
		c.SetDeadline(deadline)
		var h hello
		if err := p.dec.Decode(&h); err != nil || h.Size != size || h.Rank <= 0 || h.Rank >= size || conns[h.Rank] != nil {
			c.Close()
			if err == nil {
				err = fmt.Errorf("a process says it is rank %d of %d", h.Rank, h.Size)
			}
			closeAll(conns)
			return nil, fmt.Errorf("at %s: %w; each process needs its own RANK and the same WORLD_SIZE", master, err)
		}
		c.SetDeadline(time.Time{})
		conns[h.Rank] = p
		arrived++
	}
	return conns, nil
}

// join is the side of the other ranks: they connect to rank 0, trying
// again until it listens or the timeout passes.
func join(master string, rank, size int, timeout time.Duration) ([]*peerConn, error) {
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", master, time.Until(deadline))
		if err == nil {
			p := newPeerConn(c)
			if err := p.enc.Encode(hello{Rank: rank, Size: size}); err != nil {
				c.Close()
				return nil, err
			}
			return []*peerConn{p}, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("rank 0 did not listen at %s within %v: %w", master, timeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func closeAll(conns []*peerConn) {
	for _, p := range slices.DeleteFunc(slices.Clone(conns), func(p *peerConn) bool { return p == nil }) {
		p.c.Close()
	}
}

// initRankOnGPU makes an NCCL communicator: rank 0 makes NCCL's unique id
// and hands it to the other ranks over the bootstrap's connections.
func initRankOnGPU(dev *rt.Device, rank, size int, master string, timeout time.Duration) (*gpuComm, error) {
	lib, err := loadLibrary(dev.Backend())
	if err != nil {
		return nil, err
	}
	var id uniqueID
	if rank == 0 {
		if id, err = newUniqueID(lib); err != nil {
			return nil, err
		}
		conns, err := serve(master, size, timeout)
		if err != nil {
			return nil, err
		}
		defer closeAll(conns)
		for r, p := range conns {
			if p == nil {
				continue
			}
			if err := p.write(id); err != nil {
				return nil, fmt.Errorf("sending NCCL's id to rank %d: %w", r, err)
			}
		}
	} else {
		conns, err := join(master, rank, size, timeout)
		if err != nil {
			return nil, err
		}
		defer closeAll(conns)
		conns[0].c.SetDeadline(time.Now().Add(timeout))
		if err := conns[0].dec.Decode(&id); err != nil {
			return nil, fmt.Errorf("receiving NCCL's id from rank 0 within %v: %w", timeout, err)
		}
	}
	return initRankGPU(lib, dev, id, rank, size)
}
