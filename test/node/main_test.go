package node

import (
	"archive/tar"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// The images the node gets besides the supervisor's.
const (
	workloadImage = "tfgen.test/workload:1"
	workloadPath  = "/workload"
)

// supervisorImage is the tfsupervisor image the jobs are rendered with:
// `make image`'s OCI archive, $TFGEN_IMAGE_TAR (make e2e), imported as
// ghcr.io/tfgen/tfsupervisor:VERSION; without it (a focused run), an image
// built here from the tfsupervisor binary with the shape hack/image gives
// its own (spec.go there): /tfsupervisor owned by 65532, mode 0555,
// installing itself into /tfgen/bin.
var supervisorImage = "tfgen.test/tfsupervisor:1"

// supervisorRepo is the repository `make image`'s archive is imported as.
const supervisorRepo = "ghcr.io/tfgen/tfsupervisor"

// bins are the binaries under test.
var bins struct {
	tfgen                  harness.Command
	tfsupervisor, workload string
	kubectl                harness.Kubectl
}

// scratch is the suite's temporary directory.
var scratch string

func TestMain(m *testing.M) {
	os.Exit(harness.Suite("node", func(dir string) int {
		scratch = dir
		return runSuite(m)
	}))
}

func runSuite(m *testing.M) int {
	// The pods (any user) write their reports into it through a hostPath.
	if err := os.Chmod(scratch, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := findBinaries(); err != nil {
		fmt.Fprintln(os.Stderr, "node:", err)
		return 1
	}
	node := &controlplane.NodeOptions{Images: []controlplane.Image{
		{Ref: workloadImage, Files: map[string]string{workloadPath: bins.workload}, Entrypoint: []string{workloadPath}},
	}}
	if tar := os.Getenv("TFGEN_IMAGE_TAR"); tar != "" {
		ref, err := archiveRef(tar)
		if err != nil {
			fmt.Fprintln(os.Stderr, "node: TFGEN_IMAGE_TAR:", err)
			return 1
		}
		supervisorImage = supervisorRepo + ":" + ref
		node.Archives = append(node.Archives, controlplane.Archive{Path: tar, BaseName: supervisorRepo})
	} else {
		node.Images = append(node.Images, controlplane.Image{Ref: supervisorImage,
			Files: map[string]string{"/tfsupervisor": bins.tfsupervisor, "/tfsupervisor-wrap": bins.tfsupervisor}, UID: 65532, GID: 65532,
			User: "65532:65532", Entrypoint: []string{"/tfsupervisor", "install", "/tfgen/bin"}})
	}
	fmt.Printf("node: tfsupervisor image %s\n", supervisorImage)
	return controlplane.Main(m, controlplane.Options{Node: node, Kueue: true, KueueWaitForPodsReady: kueueReadiness, FeatureGates: controlplane.WorkloadAPI.FeatureGates, RuntimeConfig: controlplane.WorkloadAPI.RuntimeConfig})
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

// findBinaries takes tfgen and tfsupervisor from $TFGEN_BIN when they are
// there, else builds them, builds the workload and finds kubectl on PATH.
func findBinaries() error {
	dir := filepath.Join(scratch, "bin")
	tfgen, err := harness.Binary("tfgen", dir)
	if err != nil {
		return err
	}
	bins.tfgen = harness.Command{Path: tfgen}
	if bins.tfsupervisor, err = harness.Binary("tfsupervisor", dir); err != nil {
		return err
	}
	bins.workload = filepath.Join(dir, "workload")
	if err := harness.Build(bins.workload, "github.com/tfgen/tfgen/test/workload"); err != nil {
		return err
	}
	bins.kubectl, err = harness.FindKubectl(filepath.Join(scratch, "kube-cache"))
	return err
}
