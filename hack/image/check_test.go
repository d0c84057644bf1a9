package main

import (
	"archive/tar"
	"errors"
	"io"
	"path"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// checkIndex checks everything the image promises (spec.go) and returns each
// platform's binary, keyed by "os/arch", and its wrap-only build if the
// image has one, keyed by "os/arch" + WrapBinaryPath.
func checkIndex(t *testing.T, idx v1.ImageIndex, wantLabels map[string]string) map[string][]byte {
	t.Helper()
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if im.MediaType != types.OCIImageIndex {
		t.Errorf("index media type = %q, want %q", im.MediaType, types.OCIImageIndex)
	}
	if diff := cmp.Diff(wantLabels, im.Annotations); diff != "" {
		t.Errorf("index annotations (-want +got):\n%s", diff)
	}
	var want, got []string
	for _, p := range Platforms {
		want = append(want, p.String())
	}
	bins := map[string][]byte{}
	for _, desc := range im.Manifests {
		if desc.Platform == nil {
			t.Fatalf("index entry %s has no platform", desc.Digest)
		}
		plat := desc.Platform.String()
		got = append(got, plat)
		img, err := idx.Image(desc.Digest)
		if err != nil {
			t.Fatalf("%s: %v", plat, err)
		}
		files := checkImage(t, plat, img, *desc.Platform, wantLabels)
		bins[plat] = files[BinaryPath]
		if w, ok := files[WrapBinaryPath]; ok {
			bins[plat+WrapBinaryPath] = w
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("platforms (-want +got):\n%s", diff)
	}
	return bins
}

// checkImage checks one platform's image and returns its layer's files.
func checkImage(t *testing.T, plat string, img v1.Image, p v1.Platform, wantLabels map[string]string) map[string][]byte {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatalf("%s: config: %v", plat, err)
	}
	if cf.OS != p.OS || cf.Architecture != p.Architecture {
		t.Errorf("%s: config platform = %s/%s", plat, cf.OS, cf.Architecture)
	}
	if cf.Config.User != User || !nonRoot(cf.Config.User) {
		t.Errorf("%s: user = %q, want non-root %q", plat, cf.Config.User, User)
	}
	if diff := cmp.Diff(Entrypoint, cf.Config.Entrypoint); diff != "" {
		t.Errorf("%s: entrypoint (-want +got):\n%s", plat, diff)
	}
	if len(cf.Config.Cmd) != 0 {
		t.Errorf("%s: cmd = %q, want none", plat, cf.Config.Cmd)
	}
	if diff := cmp.Diff(wantLabels, cf.Config.Labels); diff != "" {
		t.Errorf("%s: labels (-want +got):\n%s", plat, diff)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatalf("%s: layers: %v", plat, err)
	}
	if len(layers) != 1 {
		t.Fatalf("%s: %d layers, want 1", plat, len(layers))
	}
	return checkLayer(t, plat, layers[0])
}

// checkLayer checks that the layer holds the binary, then optionally its
// wrap-only build, and nothing else, and returns them by path.
func checkLayer(t *testing.T, plat string, l v1.Layer) map[string][]byte {
	t.Helper()
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatalf("%s: layer: %v", plat, err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	files := map[string][]byte{}
	want := []string{BinaryPath, WrapBinaryPath}
	for n := 0; ; n++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: layer: %v", plat, err)
		}
		name := path.Clean("/" + hdr.Name)
		if n >= len(want) || name != want[n] {
			t.Errorf("%s: layer entry %q: want only %s, then optionally %s", plat, name, BinaryPath, WrapBinaryPath)
			continue
		}
		if hdr.Typeflag != tar.TypeReg || hdr.Mode&0o7777 != BinaryMode {
			t.Errorf("%s: %s type %c mode %o, want regular file mode %o", plat, name, hdr.Typeflag, hdr.Mode, BinaryMode)
		}
		if hdr.Uid != UID || hdr.Gid != GID {
			t.Errorf("%s: %s owner %d:%d, want %d:%d", plat, name, hdr.Uid, hdr.Gid, UID, GID)
		}
		if files[name], err = io.ReadAll(tr); err != nil {
			t.Fatalf("%s: read %s: %v", plat, name, err)
		}
	}
	if files[BinaryPath] == nil {
		t.Errorf("%s: layer has no %s", plat, BinaryPath)
	}
	return files
}

// nonRoot reports whether user names a numeric non-zero UID (what
// runAsNonRoot can verify).
func nonRoot(user string) bool {
	uid, _, _ := strings.Cut(user, ":")
	n, err := strconv.Atoi(uid)
	return err == nil && n != 0
}
