package output

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

// spoolMemory is how much output a spool keeps in memory before it moves
// to a temporary file.
const spoolMemory = 4 << 20

// spool keeps output aside until it may be written: in memory up to
// spoolMemory, then in a temporary file, unlinked at once where the system
// allows, so that nothing is left behind whatever happens to the process.
type spool struct {
	mem  bytes.Buffer
	file *os.File
	buf  *bufio.Writer // to file, in few large writes
}

func (s *spool) write(p []byte) error {
	if s.file == nil && s.mem.Len()+len(p) <= spoolMemory {
		s.mem.Write(p)
		return nil
	}
	if s.file == nil {
		f, err := os.CreateTemp("", "tfgen-output-*")
		if err != nil {
			return fmt.Errorf("keep the output aside until every document is rendered: %w", err)
		}
		s.file, s.buf = f, bufio.NewWriterSize(f, 1<<20)
		_ = os.Remove(f.Name()) // unlinked now on Unix; elsewhere close removes it
		if _, err := s.mem.WriteTo(s.buf); err != nil {
			return fmt.Errorf("keep the output aside: %w", err)
		}
		s.mem = bytes.Buffer{}
	}
	if _, err := s.buf.Write(p); err != nil {
		return fmt.Errorf("keep the output aside: %w", err)
	}
	return nil
}

// copyTo writes everything written to s to w.
func (s *spool) copyTo(w io.Writer) error {
	if s.file == nil {
		_, err := s.mem.WriteTo(w)
		return err
	}
	if err := s.buf.Flush(); err != nil {
		return fmt.Errorf("keep the output aside: %w", err)
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("read the output kept aside: %w", err)
	}
	_, err := io.Copy(w, s.file)
	return err
}

// close drops what s holds.
func (s *spool) close() {
	s.mem = bytes.Buffer{}
	if s.file != nil {
		name := s.file.Name()
		s.file.Close()
		os.Remove(name) // where it could not be unlinked while open
		s.file, s.buf = nil, nil
	}
}
