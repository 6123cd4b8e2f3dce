package nccl

import (
	"fmt"
	"time"
)

// transport carries messages between the ranks of a group: hub between
// goroutines of one process, tcpTransport between processes. send never
// waits for the receiver; recv waits up to timeout and names the rank that
// did not arrive.
type transport interface {
	size() int
	send(from, to int, m message) error
	recv(to, from int, timeout time.Duration, what string) (message, error)
	close() error
}

// hub connects the ranks of a group in one process: a mailbox for each
// ordered pair of ranks, into which the sender puts messages without
// waiting, so that a rank may send to its neighbours before it receives.
type hub struct {
	ranks int
	boxes [][]chan message // boxes[to][from]
}

// message is what one rank sends another: a description of the call it
// was sent by, which the receiver checks against its own, and the data.
type message struct {
	call call
	data any
	err  error
}

// call describes a collective or point-to-point call as ranks must agree
// on it.
type call struct {
	name string
	elem string
	n    int
	root int
	op   Op
}

func (c call) String() string {
	return fmt.Sprintf("%s of %d×%s (root %d, %v)", c.name, c.n, c.elem, c.root, c.op)
}

// mailboxDepth bounds the messages in flight from one rank to another.
const mailboxDepth = 64

func newHub(size int) *hub {
	h := &hub{ranks: size, boxes: make([][]chan message, size)}
	for to := range h.boxes {
		h.boxes[to] = make([]chan message, size)
		for from := range h.boxes[to] {
			h.boxes[to][from] = make(chan message, mailboxDepth)
		}
	}
	return h
}

func (h *hub) size() int    { return h.ranks }
func (h *hub) close() error { return nil }

func (h *hub) send(from, to int, m message) error {
	h.boxes[to][from] <- m
	return nil
}

// recv waits up to timeout for a message from rank from; the error names
// the rank that did not arrive.
func (h *hub) recv(to, from int, timeout time.Duration, what string) (message, error) {
	return receive(h.boxes[to][from], from, timeout, what)
}

// receive waits up to timeout for a message from rank from on box.
func receive(box chan message, from int, timeout time.Duration, what string) (message, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case m := <-box:
		return m, nil
	case <-t.C:
		return message{}, fmt.Errorf("rank %d did not take part in %s within %v", from, what, timeout)
	}
}
