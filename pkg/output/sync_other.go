//go:build !linux

package output

import (
	"os"
	"path/filepath"
)

// syncTree makes directory d and its files durable, one fsync each
// (there is no syncfs here).
func syncTree(d *os.File, files []string) error {
	for _, n := range files {
		f, err := os.Open(filepath.Join(d.Name(), n))
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	return d.Sync()
}
