//go:build !linux

package output

// swap puts directory tmp in place of dir with two renames.
func swap(tmp, dir string) error { return swapByRenames(tmp, dir) }
