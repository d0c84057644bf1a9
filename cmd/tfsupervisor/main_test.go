package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// bin is the tfsupervisor binary built for these tests, static as shipped.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tfsupervisor-test")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "tfsupervisor")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build tfsupervisor: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// supervisor returns tfsupervisor with args, standalone (no cluster), with
// extra environment variables.
func supervisor(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBECONFIG=") && !strings.HasPrefix(kv, "KUBERNETES_SERVICE_HOST=") && !strings.HasPrefix(kv, "TFSUPERVISOR_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("run tfsupervisor: %v", err)
	}
	return ee.ExitCode()
}

func TestExitCodeFidelity(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "train")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"true"}, 0},
		{[]string{"sh", "-c", "exit 3"}, 3},
		{[]string{"tfgen-no-such-command"}, 127},
		{[]string{notExec}, 126},
		{[]string{"sh", "-c", "kill -KILL $$"}, 128 + int(syscall.SIGKILL)},
	} {
		err := supervisor(nil, append([]string{"run", "--"}, tc.args...)...).Run()
		if got := exitCode(t, err); got != tc.want {
			t.Errorf("%v: exit code %d, want %d", tc.args, got, tc.want)
		}
	}
}

func TestTerminationMessage(t *testing.T) {
	log := filepath.Join(t.TempDir(), "termination-log")
	count := filepath.Join(t.TempDir(), "count")
	script := `n=$(cat "$COUNT" 2>/dev/null || echo 0); echo $((n+1)) > "$COUNT"; [ $n -ge 2 ] || exit 7`
	err := supervisor([]string{"COUNT=" + count, "TFSUPERVISOR_RESTART_POLICY=OnFailure", "TFSUPERVISOR_RESTART_BACKOFF=0s"},
		"run", "--termination-log", log, "--", "sh", "-c", script).Run()
	if code := exitCode(t, err); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"exitCode":0,"state":"Succeeded","reason":"Completed","restarts":2}` + "\n"; string(b) != want {
		t.Errorf("termination message %q, want %q", b, want)
	}
}

func TestTFConfigReachesChild(t *testing.T) {
	out, err := supervisor([]string{"POD_NAME=mnist-worker-1", "POD_NAMESPACE=ml"},
		"run", "--job", "mnist", "--roles", "chief:1:2222,ps:1:2222,worker:2:2222", "--", "sh", "-c", `printf %s "$TF_CONFIG"`).Output()
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Cluster map[string][]string
		Task    struct {
			Type  string
			Index int
		}
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatalf("TF_CONFIG %q: %v", out, err)
	}
	if cfg.Task.Type != "worker" || cfg.Task.Index != 1 || cfg.Cluster["ps"][0] != "mnist-ps-0.mnist-ps.ml.svc:2222" {
		t.Errorf("TF_CONFIG %s", out)
	}
	out, err = supervisor([]string{"POD_NAME=m-server-1"}, "run", "--job", "m", "--framework", "mxnet",
		"--roles", "scheduler:1:9091,server:2:9091,worker:2:9091", "--", "sh", "-c", `echo $DMLC_ROLE $DMLC_NUM_SERVER $DMLC_PS_ROOT_URI`).Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "server 2 m-scheduler-0.m-scheduler.default.svc\n"; string(out) != want {
		t.Errorf("DMLC_* %q, want %q", out, want)
	}
}

func TestTFConfigTooLarge(t *testing.T) {
	var stderr bytes.Buffer
	cmd := supervisor([]string{"POD_NAME=big-worker-0"}, "run", "--job", "big", "--roles", "worker:20000:2222", "--", "true")
	cmd.Stderr = &stderr
	if code := exitCode(t, cmd.Run()); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if !strings.Contains(stderr.String(), "over the kernel's") || !strings.Contains(stderr.String(), "enableDynamicWorker") {
		t.Errorf("stderr does not explain the limit:\n%s", stderr.String())
	}
}

func TestInstall(t *testing.T) {
	dir := t.TempDir()
	if out, err := supervisor(nil, "install", dir).CombinedOutput(); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	dst := filepath.Join(dir, "tfsupervisor")
	fi, err := os.Stat(dst)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o555 {
		t.Errorf("mode %v, want 0555", fi.Mode().Perm())
	}
	want, _ := os.ReadFile(bin)
	if got, _ := os.ReadFile(dst); !bytes.Equal(got, want) {
		t.Error("installed copy differs from the binary")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("install left %d files, want 1", len(entries))
	}
	if out, err := exec.Command(dst, "version").Output(); err != nil || !strings.HasPrefix(string(out), "tfsupervisor ") {
		t.Errorf("installed copy: version = %q, %v", out, err)
	}
}

// TestInstallWrapBuild installs the wrap-only build (tag
// tfsupervisor_wrap) where the image has it beside the full binary, and
// checks what that build does and refuses.
func TestInstallWrapBuild(t *testing.T) {
	image := t.TempDir()
	full, wrap := filepath.Join(image, "tfsupervisor"), filepath.Join(image, "tfsupervisor-wrap")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, data, 0o555); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-trimpath", "-tags", "tfsupervisor_wrap", "-o", wrap, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the wrap-only tfsupervisor: %v\n%s", err, out)
	}
	dir := t.TempDir()
	cmd := supervisor(nil, "install", dir)
	cmd.Path = full
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	dst := filepath.Join(dir, "tfsupervisor")
	want, _ := os.ReadFile(wrap)
	if got, _ := os.ReadFile(dst); !bytes.Equal(got, want) {
		t.Fatal("install did not copy tfsupervisor-wrap")
	}
	if fi, err := os.Stat(dst); err != nil || fi.Mode().Perm() != 0o555 {
		t.Errorf("installed copy: %v, %v; want mode 0555", fi, err)
	}

	// It supervises standalone, the exit code passing through, ...
	run := supervisor(nil, "run", "--", "sh", "-c", "exit 3")
	run.Path = dst
	if out, err := run.CombinedOutput(); exitCode(t, err) != 3 || !strings.Contains(string(out), "standalone") {
		t.Errorf("run: exit %d, want 3, standalone:\n%s", exitCode(t, err), out)
	}
	// ... prints its version, ...
	ver := supervisor(nil, "version")
	ver.Path = dst
	if out, err := ver.Output(); err != nil || !strings.HasPrefix(string(out), "tfsupervisor ") {
		t.Errorf("version = %q, %v", out, err)
	}
	// ... and leaves the rest to the full build.
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"watch", "--socket", "s"}, "run and version"},
		{[]string{"KUBECONFIG=" + filepath.Join(dir, "none")}, []string{"run", "--", "true"}, "--socket"},
		{nil, []string{"run"}, "the command to supervise"},
	} {
		cmd := supervisor(tc.env, tc.args...)
		cmd.Path = dst
		out, err := cmd.CombinedOutput()
		if exitCode(t, err) != 1 || !strings.Contains(string(out), tc.want) {
			t.Errorf("%q: exit %d, want 1 saying %q:\n%s", tc.args, exitCode(t, err), tc.want, out)
		}
	}
}

// supervisorAt is supervisor run through a wrapper command (unshare).
func supervisorAt(wrapper []string, args ...string) *exec.Cmd {
	cmd := supervisor(nil, args...)
	cmd.Path, _ = exec.LookPath(wrapper[0])
	cmd.Args = append(append([]string{}, wrapper...), args...)
	return cmd
}

// TestWrapBuildLinksLittle: the wrap-only build stays small, which is its
// point (each page of the binary a process touches is resident memory):
// no API client, TLS, cobra or YAML parser.
func TestWrapBuildLinksLittle(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-tags", "tfsupervisor_wrap", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch pkg {
		case "net/http", "crypto/tls", "crypto/x509", "github.com/spf13/cobra", "sigs.k8s.io/yaml", "text/template",
			"github.com/tfgen/tfgen/pkg/kube/rest", "github.com/tfgen/tfgen/pkg/supervise/podwatch":
			t.Errorf("the wrap-only build links %s", pkg)
		}
	}
}
