package controlplane

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cleanNode removes everything a node of this harness adds to the machine,
// whether it stopped cleanly or its test binary was killed: the processes
// it started (the kubelet, containerd, its shims, CoreDNS and the pods'
// containers), the pods' cgroups, mounts under its directories, the bridge,
// the iptables rules and the state directories. It only touches what carries
// this harness's names and paths, and is safe to call when nothing is left.
func cleanNode() {
	// Processes first: the node's daemons (by the paths in their command
	// lines), then every process in the pods' cgroups.
	killMatching(func(cmdline string) bool {
		return strings.Contains(cmdline, nodeState) || strings.Contains(cmdline, nodeRun)
	})
	for _, cg := range podCgroups() {
		killCgroup(cg)
	}
	for _, cg := range podCgroups() {
		removeCgroup(cg)
	}
	unmountUnder(nodeState, nodeRun)
	_ = exec.Command("ip", "link", "del", nodeBridge).Run()
	for _, ipt := range []string{"iptables", "ip6tables"} {
		cleanIPTables(ipt)
	}
	// The kubelet links each container's log into /var/log/containers.
	if links, _ := filepath.Glob("/var/log/containers/*.log"); links != nil {
		for _, l := range links {
			if dst, err := os.Readlink(l); err == nil && strings.HasPrefix(dst, nodeState+"/") {
				_ = os.Remove(l)
			}
		}
	}
	// What containerd 1.6 and the kubelet keep at fixed paths: the shims'
	// sockets, libcni's cache of results (per network name), the kubelet's
	// device-plugin socket. The directories go only if nothing else is in
	// them.
	for _, pattern := range []string{"/var/lib/cni/results/tfgen-*", "/var/lib/cni/results/cni-loopback-*"} {
		results, _ := filepath.Glob(pattern)
		for _, r := range results {
			_ = os.Remove(r)
		}
	}
	removeStaleSockets("/run/containerd/s")
	_ = os.Remove("/var/lib/kubelet/device-plugins/kubelet.sock")
	for _, d := range []string{"/var/log/containers", "/var/lib/cni/results", "/var/lib/cni",
		"/var/lib/kubelet/device-plugins", "/var/lib/kubelet", "/run/containerd/s", "/run/containerd"} {
		_ = syscall.Rmdir(d)
	}
	_ = os.RemoveAll(nodeRun)
	_ = os.RemoveAll(nodeState)
}

// killMatching SIGKILLs every process whose command line (NUL-separated
// arguments joined by spaces) match says to, and waits until they are gone.
func killMatching(match func(cmdline string) bool) {
	self := os.Getpid()
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(b) == 0 {
			continue
		}
		if match(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))) {
			pids = append(pids, pid)
		}
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	waitGone(pids)
}

// waitGone waits up to 10 s for pids to exit (or become zombies of a
// parent that will reap them).
func waitGone(pids []int) {
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for time.Now().Before(deadline) {
			b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
			if err != nil {
				break
			}
			if i := bytes.LastIndexByte(b, ')'); i > 0 && len(b) > i+2 && b[i+2] == 'Z' {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// podCgroups lists the kubelet's pod cgroup trees (/kubepods in each
// cgroup v1 hierarchy, or in the unified one), deepest first.
func podCgroups() []string {
	var roots []string
	if ms, _ := filepath.Glob("/sys/fs/cgroup/*/kubepods"); ms != nil {
		roots = append(roots, ms...)
	}
	if _, err := os.Stat("/sys/fs/cgroup/kubepods"); err == nil {
		roots = append(roots, "/sys/fs/cgroup/kubepods")
	}
	var out []string
	for _, r := range roots {
		_ = filepath.WalkDir(r, func(path string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				out = append(out, path)
			}
			return nil
		})
	}
	// Deepest first, so that each directory is empty when it is removed.
	slices.SortFunc(out, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	return out
}

func killCgroup(dir string) {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	waitGone(pids)
}

// removeCgroup removes an empty cgroup directory, retrying briefly while
// its last processes are being reaped.
func removeCgroup(dir string) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := syscall.Rmdir(dir)
		if err == nil || os.IsNotExist(err) || time.Now().After(deadline) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// unmountUnder lazily unmounts every mount point under the directories,
// deepest first.
func unmountUnder(dirs ...string) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return
	}
	defer f.Close()
	var points []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		p := unescapeMount(fields[4])
		for _, d := range dirs {
			if p == d || strings.HasPrefix(p, d+"/") {
				points = append(points, p)
			}
		}
	}
	slices.SortFunc(points, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	for _, p := range points {
		_ = syscall.Unmount(p, syscall.MNT_DETACH)
	}
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// kubeletChains are the iptables chains the kubelet makes even with
// makeIPTablesUtilChains off (its canary, for noticing a flush).
var kubeletChains = []string{"KUBE-KUBELET-CANARY", "KUBE-FIREWALL", "KUBE-MARK-DROP", "KUBE-MARK-MASQ", "KUBE-POSTROUTING", "KUBE-IPTABLES-HINT"}

// cleanIPTables removes the harness's DNAT chain and its jump, and the
// kubelet's chains (with every rule that jumps to them).
func cleanIPTables(ipt string) {
	if _, err := exec.LookPath(ipt); err != nil {
		return
	}
	for _, table := range []string{"nat", "filter", "mangle"} {
		out, err := exec.Command(ipt+"-save", "-t", table).Output()
		if err != nil {
			continue
		}
		ours := map[string]bool{}
		if table == "nat" {
			ours[natChain] = true
		}
		for _, c := range kubeletChains {
			ours[c] = true
		}
		var rules [][]string
		present := map[string]bool{}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, ":") {
				present[strings.Fields(line[1:])[0]] = true
			}
			f := strings.Fields(line)
			if len(f) > 3 && f[0] == "-A" && !ours[f[1]] {
				for i := range f[:len(f)-1] {
					if f[i] == "-j" && ours[f[i+1]] {
						rules = append(rules, f[1:])
					}
				}
			}
		}
		for _, r := range rules {
			_ = exec.Command(ipt, append([]string{"-t", table, "-D"}, unquote(r)...)...).Run()
		}
		for c := range ours {
			if present[c] {
				_ = exec.Command(ipt, "-t", table, "-F", c).Run()
			}
		}
		for c := range ours {
			if present[c] {
				_ = exec.Command(ipt, "-t", table, "-X", c).Run()
			}
		}
	}
}

// unquote turns iptables-save's `--comment "a b"` back into arguments.
func unquote(f []string) []string {
	var out []string
	for i := 0; i < len(f); i++ {
		s := f[i]
		if strings.HasPrefix(s, `"`) {
			for !strings.HasSuffix(s, `"`) || s == `"` {
				if i+1 >= len(f) {
					break
				}
				i++
				s += " " + f[i]
			}
			s = strings.Trim(s, `"`)
		}
		out = append(out, s)
	}
	return out
}

// removeStaleSockets removes the sockets in dir that no process listens
// on (shims killed with the node leave theirs).
func removeStaleSockets(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	bound := map[string]bool{}
	if b, err := os.ReadFile("/proc/net/unix"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) == 8 {
				bound[f[7]] = true
			}
		}
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.Type()&os.ModeSocket != 0 && !bound[p] {
			_ = os.Remove(p)
		}
	}
}
