package nodeagent

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxTerminationMessage is what the kubelet keeps of a termination message.
const MaxTerminationMessage = 4096

// waitReason says why a container cannot start.
type waitReason struct{ reason, message string }

// runOnce runs the container once and returns how it ended; nil and the
// reason when it could not be set up at all.
func (r *podRun) runOnce(c *ctr) (*corev1.ContainerStateTerminated, waitReason) {
	img, ok := r.a.image(c.spec.Image)
	if !ok {
		return nil, waitReason{"ErrImagePull", fmt.Sprintf("nodeagent: no image %q in the agent's table", c.spec.Image)}
	}
	r.mu.Lock()
	pod, kubeconfig, n := r.latest, r.kubeconfigs[c.spec.Name], c.status.RestartCount
	r.mu.Unlock()
	id := fmt.Sprintf("nodeagent://%s-%s-%d", r.pod.UID, c.spec.Name, n)
	termLog := filepath.Join(r.dir, "termination", fmt.Sprintf("%s-%d", c.spec.Name, n))
	if err := os.WriteFile(termLog, nil, 0o666); err != nil {
		return nil, waitReason{"CreateContainerError", err.Error()}
	}
	paths := r.paths(c.spec, img, termLog)
	base := append(append([]string{}, r.a.cfg.Env...), "HOSTNAME="+r.pod.Name, "TFSUPERVISOR_TERMINATION_LOG="+termLog)
	if kubeconfig != "" {
		base = append(base, "KUBECONFIG="+kubeconfig)
	}
	env, vars, err := containerEnv(c.spec, pod, r.ip, base, paths)
	if err != nil {
		return nil, waitReason{"CreateContainerConfigError", err.Error()}
	}
	argv := commandLine(c.spec, img, vars, paths)
	logPath := filepath.Join(r.logDir, c.spec.Name+".log")
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, waitReason{"CreateContainerError", err.Error()}
	}
	defer log.Close()
	fmt.Fprintf(log, "=== nodeagent: start %d: %q\n", n, argv)

	started := metav1.Now()
	ended := func(code int32, reason, message string) *corev1.ContainerStateTerminated {
		return &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason, Message: message,
			StartedAt: started, FinishedAt: metav1.Now(), ContainerID: id}
	}
	if len(argv) == 0 {
		return ended(128, "StartError", "no command specified"), waitReason{}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = paths.resolve(c.spec.WorkingDir)
	if cmd.Dir == c.spec.WorkingDir { // not under a mount: the pod's directory
		cmd.Dir = r.dir
	}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := r.start(cmd); err != nil {
		fmt.Fprintf(log, "=== nodeagent: %v\n", err)
		return ended(128, "StartError", err.Error()), waitReason{}
	}
	r.mu.Lock()
	c.status.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}
	c.status.ContainerID, c.status.ImageID = id, "nodeagent://"+c.spec.Image
	c.status.Ready, c.status.Started = true, new(true)
	r.mu.Unlock()
	r.changed()

	sid := cmd.Process.Pid
	r.a.usage.started(sid, r.pod.UID, !slices.Contains(r.initCtrs, c))
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stopping, killNow := r.stopOf(c), r.killNow
wait:
	for {
		select {
		case <-exited:
			break wait
		case <-stopping:
			stopping = nil
			_ = cmd.Process.Signal(syscall.SIGTERM)
		case <-killNow:
			killNow = nil
			killSession(sid)
		}
	}
	code := int32(cmd.ProcessState.ExitCode())
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int32(ws.Signal())
	}
	if slices.Contains(r.ctrs, c) {
		// The runtime knows at once that the process ended: a sidecar that
		// ends right after it is not started again (mainsDone).
		r.mu.Lock()
		c.done = isClosed(r.stopOf(c)) || !shouldRestart(r.pod, c.spec, code, false)
		r.mu.Unlock()
	}
	// What the main process leaves behind dies with the container.
	killSession(sid)
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	r.a.usage.ended(sid, c.spec.Name, ru)

	reason := "Completed"
	if code != 0 {
		reason = "Error"
	}
	fmt.Fprintf(log, "=== nodeagent: exit %d\n", code)
	msg := terminationMessage(termLog, logPath, c.spec.TerminationMessagePolicy, code)
	return ended(code, reason, msg), waitReason{}
}

// terminationMessage reads the container's termination message (at most
// MaxTerminationMessage bytes); with FallbackToLogsOnError an empty one
// after a failure is the tail of the log.
func terminationMessage(path, logPath string, policy corev1.TerminationMessagePolicy, code int32) string {
	b, _ := os.ReadFile(path)
	if len(b) == 0 && code != 0 && policy == corev1.TerminationMessageFallbackToLogsOnError {
		b, _ = os.ReadFile(logPath)
		b = b[max(0, len(b)-2048):]
	}
	return string(b[:min(len(b), MaxTerminationMessage)])
}

// image finds ref in the table: exactly, else by its repository.
func (a *Agent) image(ref string) (Image, bool) {
	if img, ok := a.cfg.Images[ref]; ok {
		return img, true
	}
	repo, _, _ := strings.Cut(ref, "@")
	if i := strings.LastIndexByte(repo, ':'); i > strings.LastIndexByte(repo, '/') {
		repo = repo[:i]
	}
	img, ok := a.cfg.Images[repo]
	return img, ok
}

// pathMap maps container paths to local ones: mount points (longest
// first) to volume directories, and files of the image.
type pathMap struct {
	mounts [][2]string // container path, local path
	files  map[string]string
}

func (r *podRun) paths(c *corev1.Container, img Image, termLog string) pathMap {
	m := pathMap{files: map[string]string{}}
	for k, v := range img.Files {
		m.files[k] = v
	}
	if c.TerminationMessagePath != "" {
		m.files[c.TerminationMessagePath] = termLog
	}
	for _, vm := range c.VolumeMounts {
		m.mounts = append(m.mounts, [2]string{filepath.Clean(vm.MountPath), filepath.Join(r.volDir, vm.Name, vm.SubPath)})
	}
	sort.Slice(m.mounts, func(i, j int) bool { return len(m.mounts[i][0]) > len(m.mounts[j][0]) })
	return m
}

// resolve maps s when it is a container path under a mount or a file of
// the image; anything else is returned as it is.
func (m pathMap) resolve(s string) string {
	if local, ok := m.files[s]; ok {
		return local
	}
	if !strings.HasPrefix(s, "/") {
		return s
	}
	for _, mt := range m.mounts {
		if s == mt[0] {
			return mt[1]
		}
		if rest, ok := strings.CutPrefix(s, mt[0]+"/"); ok {
			return filepath.Join(mt[1], rest)
		}
	}
	return s
}

// commandLine joins command and args as Kubernetes does with the image's
// entrypoint and cmd, expands $(VAR) references and maps paths.
func commandLine(c *corev1.Container, img Image, vars map[string]string, paths pathMap) []string {
	command, args := c.Command, c.Args
	if len(command) == 0 {
		command = img.Entrypoint
		if len(args) == 0 {
			args = img.Cmd
		}
	}
	var argv []string
	for _, s := range append(append([]string{}, command...), args...) {
		argv = append(argv, paths.resolve(Expand(s, vars)))
	}
	return argv
}

// containerEnv returns the process environment (base, then the
// container's env in order) and the variables $(VAR) may refer to.
func containerEnv(c *corev1.Container, pod *corev1.Pod, ip string, base []string, paths pathMap) ([]string, map[string]string, error) {
	if len(c.EnvFrom) > 0 {
		return nil, nil, errors.New("nodeagent: envFrom is not supported")
	}
	vars := map[string]string{}
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	env := append([]string{}, base...)
	for _, e := range c.Env {
		v := Expand(e.Value, vars)
		if e.ValueFrom != nil {
			var err error
			if v, err = fieldValue(e.ValueFrom, pod, ip); err != nil {
				return nil, nil, fmt.Errorf("env %s: %w", e.Name, err)
			}
		}
		v = paths.resolve(v)
		vars[e.Name] = v
		env = append(env, e.Name+"="+v)
	}
	return env, vars, nil
}

// fieldValue reads an env var's value from the downward API.
func fieldValue(from *corev1.EnvVarSource, pod *corev1.Pod, ip string) (string, error) {
	if from.FieldRef == nil {
		return "", errors.New("nodeagent: only fieldRef is supported in valueFrom")
	}
	path := from.FieldRef.FieldPath
	if rest, ok := strings.CutPrefix(path, "metadata.labels["); ok {
		return pod.Labels[unquote(strings.TrimSuffix(rest, "]"))], nil
	}
	if rest, ok := strings.CutPrefix(path, "metadata.annotations["); ok {
		return pod.Annotations[unquote(strings.TrimSuffix(rest, "]"))], nil
	}
	switch path {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.podIP", "status.podIPs":
		return ip, nil
	case "status.hostIP", "status.hostIPs":
		return NodeIP, nil
	}
	return "", fmt.Errorf("nodeagent: unsupported fieldPath %q", path)
}

func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return strings.Trim(s, "'")
}
