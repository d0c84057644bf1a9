package output

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// writeFileAt creates file name in directory d, holding data, with plain
// system calls: os.WriteFile's registration with the poller and its flag
// changes cost more than the write for the thousands of small files of a
// directory output.
func writeFileAt(d *os.File, name string, data []byte) error {
	fd, err := unix.Openat(int(d.Fd()), name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return &os.PathError{Op: "create", Path: name, Err: err}
	}
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			unix.Close(fd)
			return &os.PathError{Op: "write", Path: name, Err: err}
		}
		data = data[n:]
	}
	if err := unix.Close(fd); err != nil {
		return &os.PathError{Op: "close", Path: name, Err: err}
	}
	return nil
}

// renameAt renames file old to new within directory d.
func renameAt(d *os.File, old, new string) error {
	if err := unix.Renameat(int(d.Fd()), old, int(d.Fd()), new); err != nil {
		return &os.LinkError{Op: "rename", Old: old, New: new, Err: err}
	}
	return nil
}
