package output

import (
	"errors"
	"io/fs"
	"os"
)

// swapByRenames moves dir aside to tmp+".old", tmp to dir, and the old
// contents to tmp for the caller to remove; dir is briefly absent but never
// half-written. It restores dir when the second rename fails.
func swapByRenames(tmp, dir string) error {
	old := tmp + ".old"
	if err := os.Rename(dir, old); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return os.Rename(tmp, dir)
		}
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if rerr := os.Rename(old, dir); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
	return os.Rename(old, tmp)
}
