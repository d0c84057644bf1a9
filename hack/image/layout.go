package main

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// refNameAnnotation names an entry of an OCI layout's index.json (what
// `skopeo copy oci:DIR:NAME` selects).
const refNameAnnotation = "org.opencontainers.image.ref.name"

// WriteLayout writes idx as an OCI image layout at dir, replacing an earlier
// layout there. The layout's index.json holds a single entry: idx itself, so
// its digest is the one a registry reports after a push, and `crane push DIR
// REF` pushes the whole multi-platform index.
func WriteLayout(dir string, idx v1.ImageIndex, refName string) error {
	if err := removeLayout(dir); err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("write layout %s: %w", dir, err)
	}
	var opts []layout.Option
	if refName != "" {
		opts = append(opts, layout.WithAnnotations(map[string]string{refNameAnnotation: refName}))
	}
	if err := p.AppendIndex(idx, opts...); err != nil {
		return fmt.Errorf("write layout %s: %w", dir, err)
	}
	return nil
}

// removeLayout removes dir if it is an OCI layout, so stale blobs of earlier
// builds do not linger; any other existing directory is refused.
func removeLayout(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "oci-layout")); err != nil {
		return fmt.Errorf("%s exists and is not an OCI layout; not replacing it", dir)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove old layout: %w", err)
	}
	return nil
}

// WriteArchive writes the layout at dir as a tar file: an OCI archive, what
// `skopeo copy oci-archive:FILE:TAG` reads.
// Entries are in lexical order with a fixed time and owner, so the archive
// is as reproducible as the layout.
func WriteArchive(dir, file string, mtime time.Time) (err error) {
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("write archive: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("write archive: %w", cerr)
		}
	}()
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: filepath.ToSlash(rel), ModTime: mtime, Mode: 0o644, Typeflag: tar.TypeReg}
		if d.IsDir() {
			hdr.Name += "/"
			hdr.Mode = 0o755
			hdr.Typeflag = tar.TypeDir
			return tw.WriteHeader(hdr)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		hdr.Size = info.Size()
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		return copyFile(tw, path)
	})
	if err != nil {
		return fmt.Errorf("write archive %s: %w", file, err)
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("write archive %s: %w", file, err)
	}
	return nil
}

// copyFile copies the file at path to w.
func copyFile(w io.Writer, path string) error {
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	_, err = io.Copy(w, src)
	return err
}
