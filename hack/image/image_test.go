package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestBuiltImage checks the image `make image` built. `make image-test` sets:
//
//	TFGEN_IMAGE_LAYOUT    the OCI layout directory
//	TFGEN_IMAGE_VERSION   the VERSION it was built with
//	TFGEN_IMAGE_REVISION  the COMMIT it was built with
//	TFGEN_BIN             the directory holding bin/tfgen of the same build
func TestBuiltImage(t *testing.T) {
	dir := os.Getenv("TFGEN_IMAGE_LAYOUT")
	if dir == "" {
		t.Skip("TFGEN_IMAGE_LAYOUT not set: run `make image-test`")
	}
	version, revision := os.Getenv("TFGEN_IMAGE_VERSION"), os.Getenv("TFGEN_IMAGE_REVISION")
	if version == "" || revision == "" {
		t.Fatal("TFGEN_IMAGE_VERSION and TFGEN_IMAGE_REVISION must be set with TFGEN_IMAGE_LAYOUT")
	}
	idx, err := loadIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	bins := checkIndex(t, idx, Labels(DefaultSource, version, revision))

	// Run the amd64 binary (or whichever platform this machine is) straight
	// out of the image.
	plat := runtime.GOOS + "/" + runtime.GOARCH
	bin, ok := bins[plat]
	if !ok {
		t.Skipf("the image has no %s binary to run here", plat)
	}
	exe := filepath.Join(t.TempDir(), "tfsupervisor")
	if err := os.WriteFile(exe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	got := runVersion(t, exe)
	if !hasToken(got, version) {
		t.Errorf("%s binary from the image: `version` printed %q, want version %q", plat, got, version)
	}
	if wrap, ok := bins[plat+WrapBinaryPath]; ok {
		exe := filepath.Join(t.TempDir(), "tfsupervisor-wrap")
		if err := os.WriteFile(exe, wrap, 0o755); err != nil {
			t.Fatal(err)
		}
		if got := runVersion(t, exe); !hasToken(got, version) {
			t.Errorf("%s wrap-only build from the image: `version` printed %q, want version %q", plat, got, version)
		}
	}

	tfgenDir := os.Getenv("TFGEN_BIN")
	if tfgenDir == "" {
		t.Skip("TFGEN_BIN not set: not comparing with tfgen version")
	}
	tfgen := runVersion(t, filepath.Join(tfgenDir, "tfgen"))
	if !hasToken(tfgen, version) {
		t.Errorf("tfgen version printed %q, want version %q like the image's tfsupervisor (%q)", tfgen, version, got)
	}
}

// runVersion runs `exe version` and returns its standard output.
func runVersion(t *testing.T, exe string) string {
	t.Helper()
	out, err := exec.Command(exe, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", exe, err)
	}
	return strings.TrimSpace(string(out))
}

// hasToken reports whether s contains tok as a whole word, so version "v1.2"
// is not found in "v1.2.3".
func hasToken(s, tok string) bool {
	words := strings.FieldsFunc(s, func(r rune) bool {
		return strings.ContainsRune(" \t\n,;=:()[]{}\"'", r)
	})
	return slices.Contains(words, tok)
}
