package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// runPush pushes the image index of a layout written by build to a registry,
// with the credentials of `docker login` / `crane auth login`, and prints
// the pushed reference pinned by digest.
func runPush(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("push", flag.ContinueOnError)
	dir := fs.String("layout", "../../_output/image", "OCI image layout written by build")
	insecure := fs.Bool("insecure", false, "allow a registry over plain HTTP")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("push: want one image reference (REGISTRY/REPO:TAG), got %q", fs.Args())
	}
	var opts []name.Option
	if *insecure {
		opts = append(opts, name.Insecure)
	}
	ref, err := name.ParseReference(fs.Arg(0), opts...)
	if err != nil {
		return fmt.Errorf("push: %w", err)
	}
	idx, err := loadIndex(*dir)
	if err != nil {
		return fmt.Errorf("push: %w", err)
	}
	if err := remote.WriteIndex(ref, idx, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return fmt.Errorf("push %s: %w", ref, err)
	}
	d, err := idx.Digest()
	if err != nil {
		return fmt.Errorf("push: %w", err)
	}
	_, err = fmt.Fprintf(out, "%s@%s\n", ref.Context(), d)
	return err
}

// loadIndex opens the multi-platform index that WriteLayout put in dir.
func loadIndex(dir string) (v1.ImageIndex, error) {
	root, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("open layout %s: %w", dir, err)
	}
	im, err := root.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("open layout %s: %w", dir, err)
	}
	if len(im.Manifests) != 1 || !im.Manifests[0].MediaType.IsIndex() {
		return nil, fmt.Errorf("layout %s: want one image index entry in index.json, got %d entries", dir, len(im.Manifests))
	}
	return root.ImageIndex(im.Manifests[0].Digest)
}
