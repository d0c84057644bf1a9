package harness

import (
	"archive/tar"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tfgen/tfgen/test/controlplane"
)

// The test workload's image (test/workload), which a real node gets.
const (
	WorkloadImage = "tfgen.test/workload:1"
	WorkloadPath  = "/workload"
)

// supervisorRepo is the repository `make image`'s archive is imported as.
const supervisorRepo = "ghcr.io/tfgen/tfsupervisor"

// NodeImages are the images a real node (controlplane.NodeOptions) gets
// for tfgen's jobs.
type NodeImages struct {
	// Supervisor is the tfsupervisor image to render jobs with: `make
	// image`'s OCI archive, $TFGEN_IMAGE_TAR (make e2e), imported as
	// ghcr.io/tfgen/tfsupervisor:VERSION; without it (a focused run), an
	// image built here from the tfsupervisor binary with the shape
	// hack/image gives its own (spec.go there): /tfsupervisor owned by
	// 65532, mode 0555, installing itself into /tfgen/bin.
	Supervisor string
	// Node imports them, and the workload's image.
	Node *controlplane.NodeOptions
}

// BuildNodeImages builds the workload into dir and takes tfsupervisor
// from $TFGEN_BIN (or builds it into dir): the images of a node for
// tfgen's jobs.
func BuildNodeImages(dir string) (NodeImages, error) {
	sup, err := Binary("tfsupervisor", dir)
	if err != nil {
		return NodeImages{}, err
	}
	workload := filepath.Join(dir, "workload")
	if err := Build(workload, module+"/test/workload"); err != nil {
		return NodeImages{}, err
	}
	img := NodeImages{Supervisor: "tfgen.test/tfsupervisor:1", Node: &controlplane.NodeOptions{Images: []controlplane.Image{
		{Ref: WorkloadImage, Files: map[string]string{WorkloadPath: workload}, Entrypoint: []string{WorkloadPath}},
	}}}
	if tar := os.Getenv("TFGEN_IMAGE_TAR"); tar != "" {
		ref, err := archiveRef(tar)
		if err != nil {
			return NodeImages{}, fmt.Errorf("TFGEN_IMAGE_TAR: %w", err)
		}
		img.Supervisor = supervisorRepo + ":" + ref
		img.Node.Archives = append(img.Node.Archives, controlplane.Archive{Path: tar, BaseName: supervisorRepo})
		return img, nil
	}
	img.Node.Images = append(img.Node.Images, controlplane.Image{Ref: img.Supervisor,
		Files: map[string]string{"/tfsupervisor": sup, "/tfsupervisor-wrap": sup}, UID: 65532, GID: 65532,
		User: "65532:65532", Entrypoint: []string{"/tfsupervisor", "install", "/tfgen/bin"}})
	return img, nil
}

// archiveRef reads the ref name (the version) of the image in an OCI
// archive: index.json's org.opencontainers.image.ref.name.
func archiveRef(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if err != nil {
			return "", fmt.Errorf("%s: no index.json: %w", path, err)
		}
		if hdr.Name != "index.json" {
			continue
		}
		var idx struct {
			Manifests []struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"manifests"`
		}
		if err := json.NewDecoder(tr).Decode(&idx); err != nil {
			return "", fmt.Errorf("%s: index.json: %w", path, err)
		}
		if len(idx.Manifests) != 1 || idx.Manifests[0].Annotations["org.opencontainers.image.ref.name"] == "" {
			return "", fmt.Errorf("%s: want one image with a ref name in index.json", path)
		}
		return idx.Manifests[0].Annotations["org.opencontainers.image.ref.name"], nil
	}
}
