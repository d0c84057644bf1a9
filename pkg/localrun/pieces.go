package localrun

import (
	"bytes"
	"io"
)

// pieceKind says how a piece of a replica's output ends.
type pieceKind int

const (
	// line ends in \n (or \r\n), or is cut: at the end of the output, or
	// at maxPiece bytes.
	line pieceKind = iota
	// carriage ends in \r: a progress bar returns to the start of its line
	// to draw it again (Keras, tqdm).
	carriage
	// partial is the start of a line drawn in place (one that had a \r),
	// written as it comes so that progress shows live.
	partial
)

// maxPiece is the longest piece: a longer line is cut into several.
const maxPiece = 64 << 10

// pieces cuts a stream into the pieces a printer labels: lines, and the
// \r-segments of progress bars. A line without \r is held until its end,
// so that replicas' lines never interleave; once a line has had a \r it is
// drawn in place, and what follows is passed on as it comes.
type pieces struct {
	r    io.Reader
	buf  []byte
	pend []byte // read, not yet passed on
	// inPlace: the current line has had a \r.
	inPlace bool
	eof     bool
}

func newPieces(r io.Reader) *pieces {
	buf := make([]byte, maxPiece)
	return &pieces{r: r, buf: buf, pend: buf[:0]}
}

// each calls f with every piece of the stream, in order, until it ends.
func (s *pieces) each(f func(text []byte, kind pieceKind)) {
	for !s.eof {
		if len(s.pend) == len(s.buf) {
			s.emit(f, len(s.pend), line) // a line longer than the buffer
		}
		n, err := s.r.Read(s.buf[len(s.pend):])
		s.pend = s.buf[:len(s.pend)+n]
		s.eof = err != nil
		s.cut(f)
	}
}

// cut passes on the pieces complete in pend, then (a line drawn in place,
// or the stream's end) what is left; it keeps the rest for the next read.
func (s *pieces) cut(f func([]byte, pieceKind)) {
	for {
		k := bytes.IndexAny(s.pend, "\r\n")
		switch {
		case k < 0:
			if len(s.pend) > 0 && (s.eof || s.inPlace) {
				kind := partial
				if s.eof {
					kind = line
				}
				s.emit(f, len(s.pend), kind)
			}
			s.pend = append(s.buf[:0], s.pend...)
			return
		case s.pend[k] == '\n':
			s.emit(f, k+1, line)
		case k+1 < len(s.pend) && s.pend[k+1] == '\n':
			s.emit(f, k+2, line) // \r\n
		case k+1 < len(s.pend) || s.eof:
			s.emit(f, k+1, carriage)
		default:
			// A \r last: a \n may follow in the next read.
			if k > 0 && s.inPlace {
				s.emit(f, k, partial)
			}
			s.pend = append(s.buf[:0], s.pend...)
			return
		}
	}
}

// emit passes on the first n bytes of pend as a piece of kind.
func (s *pieces) emit(f func([]byte, pieceKind), n int, kind pieceKind) {
	f(s.pend[:n], kind)
	s.pend = s.pend[n:]
	switch kind {
	case line:
		s.inPlace = false
	case carriage:
		s.inPlace = true
	}
}
