// Command qdrun starts the processes of a group that communicate through
// package nccl, as torchrun does:
//
//	go run github.com/qdgo/qd/cmd/qdrun -n 4 ./cmd/prog [args]
//
// starts 4 processes of the program, each with RANK, LOCAL_RANK,
// WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR and MASTER_PORT set, and
// NCCL_NVLS_ENABLE=0 unless set. A program given as a Go package (a path
// beginning with "." or a module path) is built once first. Each line a
// process prints is prefixed with its rank. When one process fails, the
// others are stopped and qdrun exits with the failure's status.
//
// To span hosts, start qdrun on each, with the same --nnodes and --master
// (the address of the host of rank 0) and each host's --node-rank:
//
//	qdrun -n 8 --nnodes 2 --node-rank 0 --master host0:29500 ./cmd/prog
//	qdrun -n 8 --nnodes 2 --node-rank 1 --master host0:29500 ./cmd/prog
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
)

func main() {
	cfg, program, err := parse(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "qdrun:", err)
		os.Exit(2)
	}
	err = launch(cfg, program, os.Stdout)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "qdrun:", err)
		os.Exit(exit.ExitCode())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "qdrun:", err)
		os.Exit(1)
	}
}

// config is how many processes to start where.
type config struct {
	perNode, nodes, nodeRank int
	master                   string // host:port of rank 0; chosen when ""
}

func parse(args []string) (config, []string, error) {
	var c config
	fs := flag.NewFlagSet("qdrun", flag.ContinueOnError)
	fs.IntVar(&c.perNode, "n", 1, "processes to start on this host (one per GPU)")
	fs.IntVar(&c.nodes, "nnodes", 1, "hosts taking part")
	fs.IntVar(&c.nodeRank, "node-rank", 0, "this host's number, from 0")
	fs.StringVar(&c.master, "master", "", "host:port where rank 0 listens (default: a free port of 127.0.0.1)")
	if err := fs.Parse(args); err != nil {
		return c, nil, err
	}
	switch {
	case fs.NArg() == 0:
		return c, nil, errors.New("no program given; usage: qdrun -n N ./cmd/prog [args]")
	case c.perNode < 1 || c.nodes < 1:
		return c, nil, fmt.Errorf("-n %d and --nnodes %d must be at least 1", c.perNode, c.nodes)
	case c.nodeRank < 0 || c.nodeRank >= c.nodes:
		return c, nil, fmt.Errorf("--node-rank %d is not a host of --nnodes %d", c.nodeRank, c.nodes)
	case c.nodes > 1 && c.master == "":
		return c, nil, errors.New("--nnodes above 1 needs --master host:port, the address of the host of --node-rank 0")
	}
	return c, fs.Args(), nil
}
