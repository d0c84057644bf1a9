package input

import (
	"context"
	"io"
)

// contextReader returns a reader of r whose reads end with ctx's cause once
// ctx is done, even while a read of r blocks (a terminal or a pipe whose
// writer has gone quiet). Such a read goes on in the background; its data
// is dropped. With a context that is never done, r itself is returned.
func contextReader(ctx context.Context, r io.Reader) io.Reader {
	if ctx.Done() == nil {
		return r
	}
	return &ctxReader{ctx: ctx, r: r, results: make(chan readResult, 1)}
}

type ctxReader struct {
	ctx     context.Context
	r       io.Reader
	results chan readResult
	// pending is true while a read started earlier has not been returned.
	pending bool
	buf     []byte
}

type readResult struct {
	data []byte
	err  error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := context.Cause(c.ctx); err != nil {
		return 0, err
	}
	if !c.pending {
		c.pending = true
		if cap(c.buf) < len(p) {
			c.buf = make([]byte, len(p))
		}
		// The read fills a buffer of its own: p may be gone by the time
		// a read that outlived ctx returns.
		buf := c.buf[:len(p)]
		c.buf = nil
		go func() {
			n, err := c.r.Read(buf)
			c.results <- readResult{buf[:n], err}
		}()
	}
	select {
	case res := <-c.results:
		c.pending = false
		n := copy(p, res.data)
		c.buf = res.data[:0]
		return n, res.err
	case <-c.ctx.Done():
		return 0, context.Cause(c.ctx)
	}
}
