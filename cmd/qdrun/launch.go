package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// launch starts the processes of this host and waits for them; the first
// failure stops the others and is returned.
func launch(c config, program []string, out io.Writer) error {
	if c.master == "" {
		addr, err := freeLoopback()
		if err != nil {
			return err
		}
		c.master = addr
	}
	host, port, err := net.SplitHostPort(c.master)
	if err != nil {
		return fmt.Errorf("--master %q: %w", c.master, err)
	}
	bin, cleanup, err := build(program[0])
	if err != nil {
		return err
	}
	defer cleanup()
	var mu sync.Mutex // orders the lines of the processes' output
	procs := make([]*exec.Cmd, c.perNode)
	for local := range c.perNode {
		rank := c.nodeRank*c.perNode + local
		cmd := exec.Command(bin, program[1:]...)
		cmd.Env = append(os.Environ(),
			fmt.Sprintf("RANK=%d", rank), fmt.Sprintf("LOCAL_RANK=%d", local),
			fmt.Sprintf("WORLD_SIZE=%d", c.nodes*c.perNode), fmt.Sprintf("LOCAL_WORLD_SIZE=%d", c.perNode),
			"MASTER_ADDR="+host, "MASTER_PORT="+port)
		if os.Getenv("NCCL_NVLS_ENABLE") == "" {
			cmd.Env = append(cmd.Env, "NCCL_NVLS_ENABLE=0")
		}
		w := &prefixWriter{prefix: fmt.Sprintf("[%d] ", rank), out: out, mu: &mu}
		cmd.Stdout, cmd.Stderr = w, w
		if err := cmd.Start(); err != nil {
			stop(procs)
			return fmt.Errorf("starting rank %d: %w", rank, err)
		}
		procs[local] = cmd
	}
	return wait(procs, c.nodeRank*c.perNode)
}

// wait waits for every process; the first to fail stops the others.
func wait(procs []*exec.Cmd, firstRank int) error {
	type result struct {
		rank int
		err  error
	}
	done := make(chan result, len(procs))
	for i, p := range procs {
		go func() { done <- result{firstRank + i, p.Wait()} }()
	}
	var first error
	for range procs {
		r := <-done
		if r.err != nil && first == nil {
			first = fmt.Errorf("rank %d: %w", r.rank, r.err)
			stop(procs)
		}
	}
	return first
}

// stop kills the processes this launcher started; killing one that has
// ended does nothing.
func stop(procs []*exec.Cmd) {
	for _, p := range procs {
		if p != nil && p.Process != nil {
			p.Process.Kill()
		}
	}
}

// build returns the program to run: a Go package is built once into a
// temporary directory; anything else is run as it is.
func build(program string) (string, func(), error) {
	if !isPackage(program) {
		return program, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "qdrun")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	bin := filepath.Join(dir, filepath.Base(program))
	cmd := exec.Command("go", "build", "-o", bin, program)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("building %s: %w", program, err)
	}
	return bin, cleanup, nil
}

// isPackage reports whether program names a Go package rather than a
// file to run: a directory, or a module path that is not a file.
func isPackage(program string) bool {
	if st, err := os.Stat(program); err == nil {
		return st.IsDir()
	}
	return strings.Contains(program, "/") && !strings.HasPrefix(program, "/")
}

func freeLoopback() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// prefixWriter writes whole lines, each with a prefix.
type prefixWriter struct {
	prefix string
	out    io.Writer
	mu     *sync.Mutex
	buf    []byte
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			return len(p), nil
		}
		w.mu.Lock()
		bw := bufio.NewWriter(w.out)
		bw.WriteString(w.prefix)
		bw.Write(w.buf[:i+1])
		bw.Flush()
		w.mu.Unlock()
		w.buf = w.buf[i+1:]
	}
}
