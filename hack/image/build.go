package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Binary is a tfsupervisor binary built for one platform, with its
// wrap-only build (WrapPath, optional).
type Binary struct {
	Platform v1.Platform
	Path     string
	WrapPath string
}

// Options say what goes into the image besides the binaries.
type Options struct {
	// Source, Version and Revision become the OCI labels.
	Source, Version, Revision string
	// Created is the only timestamp in the image (layer entry, config,
	// history), so the same inputs give the same digests.
	Created time.Time
}

// Build assembles the multi-platform image index: one image per binary, each
// with a single layer holding only that binary (and its wrap-only build).
func Build(bins []Binary, opts Options) (v1.ImageIndex, error) {
	if len(bins) == 0 {
		return nil, fmt.Errorf("build: no binaries")
	}
	labels := Labels(opts.Source, opts.Version, opts.Revision)
	adds := make([]mutate.IndexAddendum, 0, len(bins))
	for _, b := range bins {
		img, err := buildImage(b, labels, opts.Created)
		if err != nil {
			return nil, fmt.Errorf("build %s: %w", b.Platform, err)
		}
		p := b.Platform
		adds = append(adds, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &p},
		})
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	idx = mutate.AppendManifests(idx, adds...)
	return mutate.Annotations(idx, labels).(v1.ImageIndex), nil
}

// buildImage makes the image for one platform.
func buildImage(b Binary, labels map[string]string, created time.Time) (v1.Image, error) {
	files := []layerFile{{BinaryPath, b.Path}}
	createdBy := fmt.Sprintf("COPY --chmod=%o --chown=%s tfsupervisor %s", BinaryMode, User, BinaryPath)
	if b.WrapPath != "" {
		files = append(files, layerFile{WrapBinaryPath, b.WrapPath})
		createdBy += fmt.Sprintf("; COPY --chmod=%o --chown=%s tfsupervisor-wrap %s", BinaryMode, User, WrapBinaryPath)
	}
	layer, err := binaryLayer(files, created)
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History: v1.History{
			Created:   v1.Time{Time: created},
			CreatedBy: createdBy,
			Comment:   "hack/image",
		},
	})
	if err != nil {
		return nil, fmt.Errorf("append layer: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	cf = cf.DeepCopy()
	cf.OS = b.Platform.OS
	cf.Architecture = b.Platform.Architecture
	cf.Variant = b.Platform.Variant
	cf.Created = v1.Time{Time: created}
	cf.Config.User = User
	cf.Config.Entrypoint = append([]string(nil), Entrypoint...)
	cf.Config.Labels = labels
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("set config: %w", err)
	}
	return img, nil
}

// layerFile is a file of the layer: where the image has it, and where
// it is read from.
type layerFile struct {
	name, path string
}

// binaryLayer makes a gzipped layer whose only entries are the binaries
// files name: no parent directory, no other file.
func binaryLayer(files []layerFile, created time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		data, err := os.ReadFile(f.path)
		if err != nil {
			return nil, fmt.Errorf("read binary: %w", err)
		}
		hdr := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     strings.TrimPrefix(f.name, "/"),
			Mode:     BinaryMode,
			Uid:      UID,
			Gid:      GID,
			Size:     int64(len(data)),
			ModTime:  created,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("layer: %w", err)
		}
		if _, err := tw.Write(data); err != nil {
			return nil, fmt.Errorf("layer: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	raw := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(raw)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
}
