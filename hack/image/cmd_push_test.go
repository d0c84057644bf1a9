package main

import (
	"bytes"
	"context"
	"io"
	"log"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// TestPush pushes a built layout to an in-process registry and reads the
// index back by the digest push printed.
func TestPush(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "image")
	idx, err := Build(fakeBinaries(t), testOpts)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteLayout(dir, idx, testOpts.Version); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	repo := strings.TrimPrefix(srv.URL, "http://") + "/tfsupervisor"

	var out bytes.Buffer
	if err := run(context.Background(), []string{"push", "--layout", dir, repo + ":v1.2.3"}, &out); err != nil {
		t.Fatal(err)
	}
	want, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out.String()); got != repo+"@"+want.String() {
		t.Errorf("push printed %q, want %q", got, repo+"@"+want.String())
	}
	ref, err := name.ParseReference(repo + ":v1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	pushed, err := remote.Index(ref)
	if err != nil {
		t.Fatal(err)
	}
	checkIndex(t, pushed, Labels(DefaultSource, "v1.2.3", "abc1234"))
}
