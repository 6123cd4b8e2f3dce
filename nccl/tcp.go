package nccl

import (
	"encoding/gob"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// tcpTransport connects one rank of a group of processes to the others
// through rank 0, over TCP: every rank holds one connection to rank 0,
// which relays messages between the others. A star suits collectives,
// which rank 0 computes, and keeps the bootstrap to one listening address.
type tcpTransport struct {
	rank, ranks int
	boxes       []chan message // messages to this rank, by sender
	// Rank 0: a connection to each other rank (conns[0] is nil). Other
	// ranks: conns[0], the connection to rank 0.
	conns []*peerConn
	once  sync.Once
}

// peerConn is one connection, written by many goroutines.
type peerConn struct {
	mu  sync.Mutex
	c   net.Conn
	enc *gob.Encoder
	dec *gob.Decoder
}

func newPeerConn(c net.Conn) *peerConn {
	return &peerConn{c: c, enc: gob.NewEncoder(c), dec: gob.NewDecoder(c)}
}

func (p *peerConn) write(v any) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.enc.Encode(v)
}

// envelope is a message on the wire.
type envelope struct {
	From, To int
	Name     string
	Elem     string
	N, Root  int
	Op       Op
	Data     any
	Err      string
}

func wrap(from, to int, m message) envelope {
	e := envelope{From: from, To: to, Name: m.call.name, Elem: m.call.elem, N: m.call.n, Root: m.call.root, Op: m.call.op, Data: m.data}
	if m.err != nil {
		e.Err = m.err.Error()
	}
	return e
}

func (e envelope) message() message {
	m := message{call: call{name: e.Name, elem: e.Elem, n: e.N, root: e.Root, op: e.Op}, data: e.Data}
	if e.Err != "" {
		m.err = errors.New(e.Err)
	}
	return m
}

func newTCPTransport(rank, ranks int, conns []*peerConn) *tcpTransport {
	t := &tcpTransport{rank: rank, ranks: ranks, boxes: make([]chan message, ranks), conns: conns}
	for i := range t.boxes {
		t.boxes[i] = make(chan message, mailboxDepth)
	}
	for _, p := range conns {
		if p != nil {
			go t.read(p)
		}
	}
	return t
}

// read delivers what arrives on p, and on rank 0 relays what is meant for
// another rank.
func (t *tcpTransport) read(p *peerConn) {
	for {
		var e envelope
		if err := p.dec.Decode(&e); err != nil {
			return
		}
		if e.To != t.rank && t.rank == 0 && e.To > 0 && e.To < t.ranks {
			t.conns[e.To].write(e) // a lost relay shows as a timeout
			continue
		}
		if e.From >= 0 && e.From < t.ranks {
			t.boxes[e.From] <- e.message()
		}
	}
}

func (t *tcpTransport) size() int { return t.ranks }

func (t *tcpTransport) send(from, to int, m message) error {
	if to == t.rank {
		t.boxes[from] <- m
		return nil
	}
	p := t.conns[0]
	if t.rank == 0 {
		p = t.conns[to]
	}
	if err := p.write(wrap(from, to, m)); err != nil {
		return fmt.Errorf("sending to rank %d: %w", to, err)
	}
	return nil
}

func (t *tcpTransport) recv(to, from int, timeout time.Duration, what string) (message, error) {
	return receive(t.boxes[from], from, timeout, what)
}

func (t *tcpTransport) close() error {
	t.once.Do(func() {
		for _, p := range t.conns {
			if p != nil {
				p.c.Close()
			}
		}
	})
	return nil
}

var registered sync.Map // reflect types of []T registered with gob

// registerWire lets []T travel in an envelope's Data.
func registerWire[T any]() {
	var zero []T
	if _, done := registered.LoadOrStore(fmt.Sprintf("%T", zero), true); !done {
		gob.Register(zero)
	}
}
