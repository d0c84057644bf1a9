package relay

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/tfgen/tfgen/pkg/kube"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// Client is the training container's end: a supervise.Reporter whose
// reports go to the server, and a record.Source of the job's status as the
// server sends it (read-only). Report never waits; when the server goes
// away (its container restarted), the client connects again, sends the
// replica's latest record first, then what was queued.
type Client struct {
	path string
	logf func(format string, args ...any)

	mu        sync.Mutex
	conn      net.Conn
	queue     []message         // to send, in order
	lastState *supervise.Report // the latest report with a state, as sent
	flushes   map[uint64]chan struct{}
	nextFlush uint64
	wake      chan struct{} // the writer has something to do
	status    *record.Status
	version   int
	changed   chan struct{} // closed and replaced when status changes
	closed    bool
}

var (
	_ supervise.Reporter = (*Client)(nil)
	_ record.Source      = (*Client)(nil)
)

// Dial connects to the server at path, retrying until ctx ends (the
// sidecar may not listen yet), and returns the client and the replica's
// record as the server knows it.
func Dial(ctx context.Context, path string, logf func(string, ...any)) (*Client, *record.Replica, error) {
	c := &Client{path: path, logf: logf, flushes: map[uint64]chan struct{}{}, wake: make(chan struct{}, 1), changed: make(chan struct{})}
	conn, h, err := c.connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	c.conn = conn
	go c.read(conn)
	go c.write()
	return c, h.Previous, nil
}

// dialRetry paces the dials of a sidecar that does not listen yet.
var dialRetry = kube.Retry{Initial: 10 * time.Millisecond, Max: time.Second}

// connect dials until it is answered with a hello.
func (c *Client) connect(ctx context.Context) (conn net.Conn, h *hello, err error) {
	err = dialRetry.Do(ctx, func(ctx context.Context) (err error) {
		conn, h, err = c.dialOnce(ctx)
		return err
	}, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("relay %s: %w", c.path, err)
	}
	return conn, h, nil
}

func (c *Client) dialOnce(ctx context.Context) (net.Conn, *hello, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", c.path)
	if err != nil {
		return nil, nil, err
	}
	r := bufio.NewReaderSize(conn, lineBuffer)
	line, err := r.ReadBytes('\n')
	var m message
	if err == nil {
		err = json.Unmarshal(line, &m)
	}
	if err == nil && m.Hello == nil {
		err = errors.New("the server did not say hello")
	}
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	return &bufferedConn{Conn: conn, r: r}, m.Hello, nil
}

// bufferedConn reads what the hello left in its buffer first.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }

// read takes the server's messages from conn until it breaks, then
// connects again.
func (c *Client) read(conn net.Conn) {
	sc := bufio.NewScanner(conn)
	sc.Buffer(make([]byte, 0, lineBuffer), maxLine)
	for sc.Scan() {
		var m message
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			break
		}
		c.mu.Lock()
		if m.Status != nil {
			c.status = m.Status
			c.version++
			close(c.changed)
			c.changed = make(chan struct{})
		}
		if ch, ok := c.flushes[m.Flushed]; ok {
			delete(c.flushes, m.Flushed)
			close(ch)
		}
		c.mu.Unlock()
	}
	conn.Close()
	c.reconnect(conn)
}

// reconnect replaces a broken conn (once, whoever notices first) and
// resends what the old one may have lost: the latest state and every
// flush not yet answered.
func (c *Client) reconnect(broken net.Conn) {
	c.mu.Lock()
	if c.closed || c.conn != broken {
		c.mu.Unlock()
		return
	}
	c.conn = nil
	c.mu.Unlock()
	c.logf("relay: the connection to the supervisor's sidecar broke; connecting again")
	conn, _, err := c.connect(context.Background())
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		conn.Close()
		return
	}
	var resend []message
	if c.lastState != nil {
		resend = append(resend, message{Report: &supervise.Report{Replica: c.lastState.Replica}})
	}
	for id := range c.flushes {
		resend = append(resend, message{Flush: id})
	}
	c.queue = append(resend, c.queue...)
	c.conn = conn
	go c.read(conn)
	c.poke()
}

// write sends the queue in order, from a goroutine of its own.
func (c *Client) write() {
	for range c.wake {
		for {
			c.mu.Lock()
			conn := c.conn
			if c.closed || conn == nil || len(c.queue) == 0 {
				c.mu.Unlock()
				break
			}
			m := c.queue[0]
			c.mu.Unlock()
			b, _ := json.Marshal(m)
			if _, err := conn.Write(append(b, '\n')); err != nil {
				conn.Close() // read notices and reconnects
				break
			}
			c.mu.Lock()
			if len(c.queue) > 0 {
				c.queue = c.queue[1:]
			}
			if m.Report != nil && m.Report.State != "" {
				r := *m.Report
				c.lastState = &r
			}
			c.mu.Unlock()
		}
	}
}

// poke wakes the writer; c.mu is held.
func (c *Client) poke() {
	if c.closed {
		return
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Report implements supervise.Reporter.
func (c *Client) Report(r supervise.Report) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.queue = append(c.queue, message{Report: &r})
	c.poke()
}

// Flush implements supervise.Reporter: it returns once the server has
// delivered every report sent before it.
func (c *Client) Flush(ctx context.Context) error {
	c.mu.Lock()
	c.nextFlush++
	id := c.nextFlush
	done := make(chan struct{})
	c.flushes[id] = done
	c.queue = append(c.queue, message{Flush: id})
	c.poke()
	c.mu.Unlock()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.flushes, id)
		c.mu.Unlock()
		return ctx.Err()
	}
}

// Get implements record.Source: the status as last received, waiting for
// the first.
func (c *Client) Get(ctx context.Context) (*record.Status, error) {
	for {
		c.mu.Lock()
		s, changed := c.status, c.changed
		c.mu.Unlock()
		if s != nil {
			return s.DeepCopy(), nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Watch implements record.Source: from the first status received.
func (c *Client) Watch(ctx context.Context) <-chan *record.Status {
	return record.Follow(ctx, func(since int) (*record.Status, int, <-chan struct{}) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.status == nil || c.version == since {
			return nil, since, c.changed
		}
		return c.status.DeepCopy(), c.version, c.changed
	})
}

// Close hangs up.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	close(c.wake)
	if c.conn != nil {
		return c.conn.Close()
	}
	return nil
}
