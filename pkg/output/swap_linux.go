package output

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// swap puts directory tmp in place of dir: when dir exists, both are
// exchanged in one atomic rename (RENAME_EXCHANGE) and the old contents,
// now at tmp, are removed by the caller.
func swap(tmp, dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(tmp, dir)
	}
	err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, dir, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return swapByRenames(tmp, dir)
	}
	return err
}
