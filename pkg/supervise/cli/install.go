//go:build !tfsupervisor_wrap

package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

const installLong = `Copy this executable into DIR as DIR/tfsupervisor, mode 0555; where
tfsupervisor-wrap lies beside it (the image's wrap-only build, which runs
tfsupervisor run alone and holds less memory), copy that instead. The copy
is written to a temporary file in DIR and renamed into place, so a reader
never sees half a binary. This is the init container's command:

  tfsupervisor install /tfgen/bin`

// WrapBinary is the name of the wrap-only build (tag tfsupervisor_wrap)
// beside the full binary in the image: what install copies for the
// training container, whose supervisor runs only tfsupervisor run.
const WrapBinary = "tfsupervisor-wrap"

func newInstallCmd(out io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "install DIR",
		Short: "Copy tfsupervisor into DIR (mode 0555)",
		Long:  installLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			dst, err := install(args[0])
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(out, dst)
			return err
		},
	}
}

// install copies the running executable, or the wrap-only build beside
// it, into dir atomically.
func install(dir string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("install: find own executable: %w", err)
	}
	if wrap := filepath.Join(filepath.Dir(self), WrapBinary); regularFile(wrap) {
		self = wrap
	}
	src, err := os.Open(self)
	if err != nil {
		return "", fmt.Errorf("install: %w", err)
	}
	defer src.Close()
	tmp, err := os.CreateTemp(dir, ".tfsupervisor-*")
	if err != nil {
		return "", fmt.Errorf("install: %w", err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if _, err := io.Copy(tmp, src); err != nil {
		tmp.Close()
		return "", fmt.Errorf("install: copy to %s: %w", dir, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", fmt.Errorf("install: %w", err)
	}
	if err := tmp.Chmod(0o555); err != nil {
		tmp.Close()
		return "", fmt.Errorf("install: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("install: %w", err)
	}
	dst := filepath.Join(dir, "tfsupervisor")
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", fmt.Errorf("install: %w", err)
	}
	return dst, nil
}

// regularFile reports whether path names a regular file.
func regularFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
