//go:build !tfsupervisor_wrap

package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

const installLong = `Copy this executable into DIR as DIR/tfsupervisor, mode 0555. The copy
is written to a temporary file in DIR and renamed into place, so a reader
never sees half a binary. This is the init container's command:

  tfsupervisor install /tfgen/bin`

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

// install copies the running executable into dir atomically.
func install(dir string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("install: find own executable: %w", err)
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
