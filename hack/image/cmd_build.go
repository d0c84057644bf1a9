package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// buildFlags are the build subcommand's flags.
type buildFlags struct {
	out, tar                  string
	source, version, revision string
	epoch                     int64
	binaries, wrapBinaries    binaryList
}

// binaryList collects repeated --binary OS/ARCH=PATH flags.
type binaryList []Binary

func (l *binaryList) String() string {
	parts := make([]string, len(*l))
	for i, b := range *l {
		parts[i] = b.Platform.String() + "=" + b.Path
	}
	return strings.Join(parts, ",")
}

func (l *binaryList) Set(s string) error {
	plat, path, ok := strings.Cut(s, "=")
	if !ok || path == "" {
		return fmt.Errorf("%q: want OS/ARCH=PATH", s)
	}
	p, err := parsePlatform(plat)
	if err != nil {
		return err
	}
	*l = append(*l, Binary{Platform: p, Path: path})
	return nil
}

// sourceDateEpoch reads SOURCE_DATE_EPOCH (reproducible-builds.org), 0 when
// unset.
func sourceDateEpoch() (int64, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("SOURCE_DATE_EPOCH: %w", err)
	}
	return n, nil
}

// runBuild builds the image from the given binaries and writes the layout.
func runBuild(args []string, out io.Writer) error {
	epoch, err := sourceDateEpoch()
	if err != nil {
		return err
	}
	var f buildFlags
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	fs.StringVar(&f.out, "out", "", "OCI image layout directory to write (replaced)")
	fs.StringVar(&f.tar, "tar", "", "also write the layout as an OCI archive to this file")
	fs.StringVar(&f.source, "source", DefaultSource, "org.opencontainers.image.source label")
	fs.StringVar(&f.version, "version", "", "org.opencontainers.image.version label and layout ref name")
	fs.StringVar(&f.revision, "revision", "", "org.opencontainers.image.revision label")
	fs.Int64Var(&f.epoch, "epoch", epoch, "timestamp of every file and config, in Unix seconds (default $SOURCE_DATE_EPOCH or 0)")
	fs.Var(&f.binaries, "binary", "OS/ARCH=PATH of a tfsupervisor binary (repeat per platform)")
	fs.Var(&f.wrapBinaries, "wrap-binary", "OS/ARCH=PATH of tfsupervisor's wrap-only build (optional; repeat per platform)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 0:
		return fmt.Errorf("build: unexpected arguments %q", fs.Args())
	case f.out == "":
		return fmt.Errorf("build: --out is required")
	case f.version == "" || f.revision == "":
		return fmt.Errorf("build: --version and --revision are required")
	}

	bins, err := withWrap(f.binaries, f.wrapBinaries)
	if err != nil {
		return err
	}
	created := time.Unix(f.epoch, 0).UTC()
	idx, err := Build(bins, Options{Source: f.source, Version: f.version, Revision: f.revision, Created: created})
	if err != nil {
		return err
	}
	if err := WriteLayout(f.out, idx, f.version); err != nil {
		return err
	}
	if f.tar != "" {
		if err := WriteArchive(f.out, f.tar, created); err != nil {
			return err
		}
	}
	return describe(out, idx)
}

// withWrap gives each binary the wrap-only build of its platform; a
// wrap-only build without its binary is an error.
func withWrap(bins, wraps binaryList) ([]Binary, error) {
	out := append([]Binary(nil), bins...)
	for _, w := range wraps {
		found := false
		for i := range out {
			if out[i].Platform.String() == w.Platform.String() {
				out[i].WrapPath, found = w.Path, true
			}
		}
		if !found {
			return nil, fmt.Errorf("build: --wrap-binary %s has no --binary of its platform", w.Platform)
		}
	}
	return out, nil
}

// describe prints, per platform, the image digest and its compressed size
// (manifest, config and layer), then the index digest.
func describe(out io.Writer, idx v1.ImageIndex) error {
	im, err := idx.IndexManifest()
	if err != nil {
		return err
	}
	for _, m := range im.Manifests {
		img, err := idx.Image(m.Digest)
		if err != nil {
			return err
		}
		size, err := imageSize(img)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%s\t%s\t%d bytes\n", m.Platform, m.Digest, size+m.Size)
	}
	d, err := idx.Digest()
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "index\t%s\n", d)
	return err
}

// imageSize is the size of an image's config and compressed layers.
func imageSize(img v1.Image) (int64, error) {
	m, err := img.Manifest()
	if err != nil {
		return 0, err
	}
	size := m.Config.Size
	for _, l := range m.Layers {
		size += l.Size
	}
	return size, nil
}
