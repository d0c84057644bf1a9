package controlplane

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Image is a container image the node's containerd gets: a single layer
// of local files, in the docker-archive form `ctr images import` reads.
type Image struct {
	// Ref is the image reference pods use, e.g. tfgen.test/workload:1.
	Ref string
	// Files maps a path in the image to a local file, copied with mode
	// 0555 and owned by UID:GID.
	Files map[string]string
	// UID and GID own the files.
	UID, GID int
	// Entrypoint and Cmd are the image config's.
	Entrypoint, Cmd []string
	// User is the image config's user ("" is root).
	User string
}

// PauseImage is the node's sandbox image, built from ./pause; a pod
// may run it too (it waits for a signal).
const PauseImage = "tfgen.test/pause:1"

// importImages imports opts.Archives, and builds the pause image and
// opts.Images into dir and imports them, into containerd.
func (n *node) importImages(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	pause := filepath.Join(dir, "pause")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", pause, "github.com/tfgen/tfgen/test/controlplane/pause")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build the pause image: %w\n%s", err, out)
	}
	images := append([]Image{{Ref: PauseImage, Files: map[string]string{"/pause": pause}, Entrypoint: []string{"/pause"}}}, n.opts.Images...)
	for _, a := range n.opts.Archives {
		if _, err := n.ctr(ctx, "images", "import", "--base-name", a.BaseName, a.Path); err != nil {
			return fmt.Errorf("import image archive %s: %w", a.Path, err)
		}
	}
	for i, img := range images {
		path := filepath.Join(dir, fmt.Sprintf("image-%d.tar", i))
		if err := writeDockerArchive(path, img); err != nil {
			return fmt.Errorf("image %s: %w", img.Ref, err)
		}
		if _, err := n.ctr(ctx, "images", "import", path); err != nil {
			return fmt.Errorf("import image %s: %w", img.Ref, err)
		}
	}
	return nil
}

// writeDockerArchive writes img as `docker save` would: manifest.json,
// the config and one uncompressed layer.
func writeDockerArchive(path string, img Image) error {
	layer, err := layerTar(img)
	if err != nil {
		return err
	}
	diffID := sha256.Sum256(layer)
	epoch := time.Unix(0, 0).UTC()
	config := map[string]any{
		"architecture": runtime.GOARCH,
		"os":           "linux",
		"created":      epoch,
		"config": map[string]any{
			"Entrypoint": img.Entrypoint,
			"Cmd":        img.Cmd,
			"User":       img.User,
			"Env":        []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
		},
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{"sha256:" + hex.EncodeToString(diffID[:])}},
	}
	cfg, err := json.Marshal(config)
	if err != nil {
		return err
	}
	cfgSum := sha256.Sum256(cfg)
	cfgName := hex.EncodeToString(cfgSum[:]) + ".json"
	layerName := hex.EncodeToString(diffID[:]) + "/layer.tar"
	manifest, err := json.Marshal([]map[string]any{{"Config": cfgName, "RepoTags": []string{img.Ref}, "Layers": []string{layerName}}})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range []struct {
		name string
		data []byte
	}{{"manifest.json", manifest}, {cfgName, cfg}, {layerName, layer}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), ModTime: epoch}); err != nil {
			return err
		}
		if _, err := tw.Write(f.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// layerTar is the image's one layer: its files, with their parent
// directories.
func layerTar(img Image) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	epoch := time.Unix(0, 0).UTC()
	dirs := map[string]bool{}
	paths := make([]string, 0, len(img.Files))
	for p := range img.Files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		name := strings.TrimPrefix(p, "/")
		for d := filepath.Dir(name); d != "." && !dirs[d]; d = filepath.Dir(d) {
			dirs[d] = true
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: epoch}); err != nil {
				return nil, err
			}
		}
		data, err := os.ReadFile(img.Files[p])
		if err != nil {
			return nil, err
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o555, Uid: img.UID, Gid: img.GID, Size: int64(len(data)), ModTime: epoch}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
