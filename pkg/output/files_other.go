//go:build !linux

package output

import (
	"os"
	"path/filepath"
)

// writeFileAt creates file name in directory d, holding data.
func writeFileAt(d *os.File, name string, data []byte) error {
	f, err := os.OpenFile(filepath.Join(d.Name(), name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// renameAt renames file old to new within directory d.
func renameAt(d *os.File, old, new string) error {
	return os.Rename(filepath.Join(d.Name(), old), filepath.Join(d.Name(), new))
}
