package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeBinaries writes one small file per platform and returns them.
func fakeBinaries(t *testing.T) []Binary {
	t.Helper()
	dir := t.TempDir()
	var bins []Binary
	for _, p := range Platforms {
		file := filepath.Join(dir, p.OS+"_"+p.Architecture)
		if err := os.WriteFile(file, []byte("binary for "+p.String()), 0o755); err != nil {
			t.Fatal(err)
		}
		bins = append(bins, Binary{Platform: p, Path: file})
	}
	return bins
}

var testOpts = Options{Source: DefaultSource, Version: "v1.2.3", Revision: "abc1234", Created: time.Unix(0, 0)}

func TestBuildLayout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "image")
	idx, err := Build(fakeBinaries(t), testOpts)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteLayout(dir, idx, testOpts.Version); err != nil {
		t.Fatal(err)
	}
	got, err := loadIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	bins := checkIndex(t, got, Labels(DefaultSource, "v1.2.3", "abc1234"))
	for _, p := range Platforms {
		if want := "binary for " + p.String(); string(bins[p.String()]) != want {
			t.Errorf("%s: binary = %q, want %q", p, bins[p.String()], want)
		}
	}
}

// TestBuildWithWrap puts each platform's wrap-only build beside its
// binary.
func TestBuildWithWrap(t *testing.T) {
	dir := t.TempDir()
	var wraps binaryList
	for _, p := range Platforms {
		file := filepath.Join(dir, p.OS+"_"+p.Architecture+"-wrap")
		if err := os.WriteFile(file, []byte("wrap for "+p.String()), 0o755); err != nil {
			t.Fatal(err)
		}
		wraps = append(wraps, Binary{Platform: p, Path: file})
	}
	bins, err := withWrap(fakeBinaries(t), wraps)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := Build(bins, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	got := checkIndex(t, idx, Labels(DefaultSource, "v1.2.3", "abc1234"))
	for _, p := range Platforms {
		if want := "binary for " + p.String(); string(got[p.String()]) != want {
			t.Errorf("%s: binary = %q, want %q", p, got[p.String()], want)
		}
		if want := "wrap for " + p.String(); string(got[p.String()+WrapBinaryPath]) != want {
			t.Errorf("%s: wrap-only build = %q, want %q", p, got[p.String()+WrapBinaryPath], want)
		}
	}
	if _, err := withWrap(fakeBinaries(t)[:1], wraps); err == nil {
		t.Error("a wrap-only build without its platform's binary was taken")
	}
}

func TestBuildIsReproducible(t *testing.T) {
	bins := fakeBinaries(t)
	var digests []string
	for range 2 {
		idx, err := Build(bins, testOpts)
		if err != nil {
			t.Fatal(err)
		}
		d, err := idx.Digest()
		if err != nil {
			t.Fatal(err)
		}
		digests = append(digests, d.String())
	}
	if digests[0] != digests[1] {
		t.Errorf("two builds of the same input: %s != %s", digests[0], digests[1])
	}
	later := testOpts
	later.Created = time.Unix(1700000000, 0)
	idx, err := Build(bins, later)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := idx.Digest(); d.String() == digests[0] {
		t.Errorf("a different timestamp gave the same digest %s", d)
	}
}

func TestWriteLayoutRefusesOtherDir(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "keep")
	if err := os.WriteFile(keep, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	idx, err := Build(fakeBinaries(t), testOpts)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteLayout(dir, idx, ""); err == nil || !strings.Contains(err.Error(), "not an OCI layout") {
		t.Errorf("WriteLayout over a non-layout dir: err = %v", err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("the existing file was removed: %v", err)
	}
}

func TestWriteArchive(t *testing.T) {
	tmp := t.TempDir()
	dir, file := filepath.Join(tmp, "image"), filepath.Join(tmp, "image.tar")
	idx, err := Build(fakeBinaries(t), testOpts)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteLayout(dir, idx, ""); err != nil {
		t.Fatal(err)
	}
	if err := WriteArchive(dir, file, testOpts.Created); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(bytes.NewReader(data))
	var names []string
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !hdr.ModTime.Equal(testOpts.Created) {
			t.Errorf("%s: mtime %v, want %v", hdr.Name, hdr.ModTime, testOpts.Created)
		}
		if !strings.HasPrefix(hdr.Name, "blobs/sha256/") || hdr.Name == "blobs/sha256/" {
			names = append(names, hdr.Name)
		}
	}
	want := []string{"blobs/", "blobs/sha256/", "index.json", "oci-layout"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("archive entries besides blobs (-want +got):\n%s", diff)
	}
}
