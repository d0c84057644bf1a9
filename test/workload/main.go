// Command workload stands in for a TensorFlow (or MXNet) training process
// in tfgen's end-to-end tests. It reads the environment a replica gets
// (TF_CONFIG, or MX_CONFIG and DMLC_*), checks it against the job its flags
// describe, written out independently of tfgen's own code, reports what it
// got as one JSON line on stdout and in REPORT_DIR/TYPE-INDEX.jsonl (one
// line per run, so the line count is the run number), and exits with the
// code the test chose for this replica and run.
//
//	workload --job mnist --namespace ns --roles chief:1:2222,ps:1:2222,worker:2:2222 \
//	    --report-dir /tmp/r --exit chief-0=137,0 --exit ps=block --wait-for worker-0,worker-1
//
// --exit REPLICA=CODES (repeatable): REPLICA is TYPE-INDEX, TYPE or *; the
// most specific entry wins. CODES is a comma-separated list, one per run
// (the last repeats); "block" waits for SIGTERM, "deaf" ignores it and
// waits to be killed. Default 0. A replica whose
// environment is wrong exits 2 whatever the plan; one whose --wait-for
// replicas have not all reported within --wait-timeout exits 3.
//
// --connect (TensorFlow) listens on the replica's own TF_CONFIG address and
// dials every other replica's, by its Service DNS name, until each answers
// or --wait-timeout passes; a name that does not resolve or connect is a
// problem of the report. The listener stays open while the replica runs
// only: each replica must name every other in its --wait-for, so that none
// stops listening before the others, which report once they have dialed
// it, are done with it.
package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Report is what one run of a replica saw.
type Report struct {
	Pod      string            `json:"pod"`
	Replica  string            `json:"replica"`
	Run      int               `json:"run"`
	OK       bool              `json:"ok"`
	Problems []string          `json:"problems,omitempty"`
	Exit     string            `json:"exit"`
	TFConfig string            `json:"tfConfig,omitempty"`
	MXConfig string            `json:"mxConfig,omitempty"`
	DMLC     map[string]string `json:"dmlc,omitempty"`
	PID      int               `json:"pid"`
	// Credentials the process could use against the API server: a
	// KUBECONFIG file (the node agent's form of a token) or the token file.
	Credentials []string  `json:"credentials,omitempty"`
	Time        time.Time `json:"time"`
}

type role struct {
	typ      string
	replicas int
	port     int
	label    string
}

type options struct {
	job, namespace, framework, roles, clusterDomain, reportDir string
	excludeEvaluator                                           bool
	exits                                                      map[string][]string
	waitFor                                                    string
	waitTimeout                                                time.Duration
	connect                                                    bool
}

func main() {
	o := options{exits: map[string][]string{}}
	flag.StringVar(&o.job, "job", "", "job name")
	flag.StringVar(&o.namespace, "namespace", os.Getenv("POD_NAMESPACE"), "job namespace")
	flag.StringVar(&o.framework, "framework", "tensorflow", "tensorflow or mxnet")
	flag.StringVar(&o.roles, "roles", "", "expected layout TYPE:REPLICAS:PORT[:LABEL],...")
	flag.StringVar(&o.clusterDomain, "cluster-domain", "", "expected cluster domain")
	flag.BoolVar(&o.excludeEvaluator, "exclude-evaluator", false, "the evaluator is not in TF_CONFIG's cluster")
	flag.StringVar(&o.reportDir, "report-dir", os.Getenv("WORKLOAD_REPORT_DIR"), "where to append reports")
	flag.Func("exit", "REPLICA=CODE[,CODE...] (repeatable)", func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		if !ok || v == "" {
			return errors.New("want REPLICA=CODES")
		}
		o.exits[k] = strings.Split(v, ",")
		return nil
	})
	flag.StringVar(&o.waitFor, "wait-for", "", "replicas (TYPE-INDEX,...) that must have reported before this one exits; REPLICA:NAME waits for NAME in REPLICA only")
	flag.DurationVar(&o.waitTimeout, "wait-timeout", 2*time.Minute, "how long to wait for --wait-for (and --connect)")
	flag.BoolVar(&o.connect, "connect", false, "listen on this replica's TF_CONFIG address and dial every other replica's")
	flag.Parse()
	os.Exit(run(o))
}

// credentials lists the API credentials the process can read: a
// KUBECONFIG file (the node agent's form of a token) by its path, the
// token file by its path and the account it is for (its JWT's subject,
// read without checking the signature).
func credentials() []string {
	var out []string
	if p := os.Getenv("KUBECONFIG"); p != "" {
		if _, err := os.ReadFile(p); err == nil {
			out = append(out, "KUBECONFIG="+p)
		}
	}
	const path = "/var/run/secrets/kubernetes.io/serviceaccount/token"
	if token, err := os.ReadFile(path); err == nil {
		out = append(out, path+" "+tokenSubject(string(token)))
	}
	return out
}

// tokenSubject is the sub claim of a JWT, or "?" if it has none.
func tokenSubject(token string) string {
	parts := strings.Split(strings.TrimSpace(token), ".")
	if len(parts) != 3 {
		return "?"
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct {
		Sub string `json:"sub"`
	}
	if err != nil || json.Unmarshal(payload, &claims) != nil || claims.Sub == "" {
		return "?"
	}
	return claims.Sub
}

func run(o options) int {
	rep := Report{Pod: os.Getenv("POD_NAME"), PID: os.Getpid(), Time: time.Now().UTC(),
		TFConfig: os.Getenv("TF_CONFIG"), MXConfig: os.Getenv("MX_CONFIG"), Credentials: credentials()}
	problem := func(format string, args ...any) { rep.Problems = append(rep.Problems, fmt.Sprintf(format, args...)) }
	typ, index, err := identity(o.job, rep.Pod)
	if err != nil {
		problem("%v", err)
	}
	rep.Replica = typ + "-" + strconv.Itoa(index)
	roles, err := parseRoles(o.roles)
	if err != nil {
		problem("%v", err)
	}
	if o.job == "" || o.namespace == "" {
		problem("--job and --namespace (or POD_NAMESPACE) are required")
	}
	if len(rep.Problems) == 0 {
		if o.framework == "mxnet" {
			rep.DMLC = dmlcEnv()
			rep.Problems = append(rep.Problems, checkMX(o, roles, typ, index, rep.MXConfig, rep.DMLC)...)
		} else {
			rep.Problems = append(rep.Problems, checkTF(o, roles, typ, index, rep.TFConfig)...)
		}
	}
	if o.connect && len(rep.Problems) == 0 {
		rep.Problems = append(rep.Problems, connectAll(rep.TFConfig, o.waitTimeout)...)
	}
	rep.OK = len(rep.Problems) == 0
	rep.Exit = plan(o.exits, typ, index)
	path := ""
	if o.reportDir != "" {
		path = filepath.Join(o.reportDir, rep.Replica+".jsonl")
		if b, err := os.ReadFile(path); err == nil {
			rep.Run = strings.Count(string(b), "\n")
		}
	}
	rep.Run++
	rep.Exit = pick(rep.Exit, rep.Run)
	line, _ := json.Marshal(rep)
	fmt.Printf("%s\n", line)
	if path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err == nil {
			_, err = f.Write(append(line, '\n'))
			f.Close()
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "workload: report: %v\n", err)
			return 4
		}
	}
	if !rep.OK {
		fmt.Fprintf(os.Stderr, "workload: wrong environment: %s\n", strings.Join(rep.Problems, "; "))
		return 2
	}
	if names := waitList(o.waitFor, rep.Replica); len(names) > 0 && !waitFor(o.reportDir, names, o.waitTimeout) {
		fmt.Fprintf(os.Stderr, "workload: %s did not all report within %v\n", o.waitFor, o.waitTimeout)
		return 3
	}
	if rep.Exit == "deaf" {
		signal.Ignore(syscall.SIGTERM)
		for { // (a bare select{} is a deadlock to the runtime)
			time.Sleep(time.Hour)
		}
	}
	if rep.Exit == "block" {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
		s := <-sig
		fmt.Fprintf(os.Stderr, "workload: got %v\n", s)
		return 128 + int(s.(syscall.Signal))
	}
	code, err := strconv.Atoi(rep.Exit)
	if err != nil {
		fmt.Fprintf(os.Stderr, "workload: exit code %q: %v\n", rep.Exit, err)
		return 5
	}
	return code
}

// identity reads the replica's type and index from its pod name J-TYPE-INDEX.
func identity(job, pod string) (string, int, error) {
	rest, ok := strings.CutPrefix(pod, job+"-")
	i := strings.LastIndexByte(rest, '-')
	if !ok || i <= 0 {
		return "", 0, fmt.Errorf("POD_NAME %q is not %s-TYPE-INDEX", pod, job)
	}
	n, err := strconv.Atoi(rest[i+1:])
	if err != nil {
		return "", 0, fmt.Errorf("POD_NAME %q: index: %w", pod, err)
	}
	return rest[:i], n, nil
}

func parseRoles(s string) ([]role, error) {
	var out []role
	for _, part := range strings.Split(s, ",") {
		f := strings.Split(part, ":")
		if len(f) < 3 || len(f) > 4 {
			return nil, fmt.Errorf("--roles: %q is not TYPE:REPLICAS:PORT[:LABEL]", part)
		}
		n, err1 := strconv.Atoi(f[1])
		port, err2 := strconv.Atoi(f[2])
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("--roles %q: %w", part, err)
		}
		r := role{typ: f[0], replicas: n, port: port}
		if len(f) == 4 {
			r.label = f[3]
		}
		out = append(out, r)
	}
	return out, nil
}

// host is replica i of type t's DNS name: J-t-i.J-t.NS.svc[.DOMAIN].
func (o options) host(t string, i int) string {
	svc := o.job + "-" + t
	h := fmt.Sprintf("%s-%d.%s.%s.svc", svc, i, svc, o.namespace)
	if o.clusterDomain != "" {
		h += "." + o.clusterDomain
	}
	return h
}

func checkTF(o options, roles []role, typ string, index int, raw string) []string {
	total := 0
	cluster := map[string]any{}
	for _, r := range roles {
		total += r.replicas
		if r.typ == "evaluator" && o.excludeEvaluator {
			continue
		}
		addrs := []any{}
		for i := range r.replicas {
			addrs = append(addrs, fmt.Sprintf("%s:%d", o.host(r.typ, i), r.port))
		}
		cluster[r.typ] = addrs
	}
	if total <= 1 {
		if raw != "" {
			return []string{"TF_CONFIG is set for a job of one replica: " + raw}
		}
		return nil
	}
	want := map[string]any{"cluster": cluster, "task": map[string]any{"type": typ, "index": float64(index)}, "environment": "cloud"}
	var got any
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		return []string{fmt.Sprintf("TF_CONFIG %q: %v", raw, err)}
	}
	if !reflect.DeepEqual(got, want) {
		w, _ := json.Marshal(want)
		return []string{fmt.Sprintf("TF_CONFIG is %s, want %s", raw, w)}
	}
	return nil
}

func dmlcEnv() map[string]string {
	out := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "DMLC_") {
			out[k] = v
		}
	}
	return out
}

func checkMX(o options, roles []role, typ string, index int, raw string, dmlc map[string]string) []string {
	var problems []string
	cluster, labels := map[string]any{}, map[string]any{}
	count := map[string]int{}
	for _, r := range roles {
		ups := []any{}
		for i := range r.replicas {
			ups = append(ups, map[string]any{"url": o.host(r.typ, i), "port": float64(r.port)})
		}
		cluster[r.typ], labels[r.typ], count[r.typ] = ups, r.label, r.replicas
	}
	want := map[string]any{"cluster": cluster, "labels": labels, "task": map[string]any{"type": typ, "index": float64(index)}}
	var got any
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		problems = append(problems, fmt.Sprintf("MX_CONFIG %q: %v", raw, err))
	} else if !reflect.DeepEqual(got, want) {
		w, _ := json.Marshal(want)
		problems = append(problems, fmt.Sprintf("MX_CONFIG is %s, want %s", raw, w))
	}
	wantDMLC := map[string]string{}
	for _, r := range roles {
		if r.typ == "scheduler" {
			wantDMLC = map[string]string{
				"DMLC_PS_ROOT_URI": o.host("scheduler", 0), "DMLC_PS_ROOT_PORT": strconv.Itoa(r.port),
				"DMLC_NUM_SERVER": strconv.Itoa(count["server"]), "DMLC_NUM_WORKER": strconv.Itoa(count["worker"]),
				"DMLC_ROLE": typ, "DMLC_USE_KUBERNETES": "1",
			}
			if typ == "worker" {
				wantDMLC["DMLC_WORKER_ID"] = strconv.Itoa(index)
			}
		}
	}
	if !reflect.DeepEqual(dmlc, wantDMLC) {
		problems = append(problems, fmt.Sprintf("DMLC_* is %v, want %v", dmlc, wantDMLC))
	}
	return problems
}

// plan returns the replica's exit codes, comma-separated.
func plan(exits map[string][]string, typ string, index int) string {
	for _, k := range []string{typ + "-" + strconv.Itoa(index), typ, "*"} {
		if codes, ok := exits[k]; ok {
			return strings.Join(codes, ",")
		}
	}
	return "0"
}

// pick returns the code of run n (from 1) of a plan; the last repeats.
func pick(plan string, n int) string {
	codes := strings.Split(plan, ",")
	return codes[min(n, len(codes))-1]
}

// waitList is what replica waits for of --wait-for list: every name, but
// a REPLICA:NAME entry only in REPLICA.
func waitList(list, replica string) []string {
	var out []string
	for _, e := range strings.Split(list, ",") {
		if only, name, ok := strings.Cut(e, ":"); ok {
			if only != replica {
				continue
			}
			e = name
		}
		if e != "" {
			out = append(out, e)
		}
	}
	return out
}

// waitFor polls dir until each replica has a report, or timeout passes.
func waitFor(dir string, replicas []string, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		missing := false
		for _, r := range replicas {
			if _, err := os.Stat(filepath.Join(dir, r+".jsonl")); err != nil {
				missing = true
			}
		}
		if !missing {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// connectAll listens on the task's own address in TF_CONFIG (kept open)
// and dials every other address until it answers or timeout passes.
func connectAll(raw string, timeout time.Duration) []string {
	var cfg struct {
		Cluster map[string][]string `json:"cluster"`
		Task    struct {
			Type  string `json:"type"`
			Index int    `json:"index"`
		} `json:"task"`
	}
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		return []string{fmt.Sprintf("--connect: TF_CONFIG: %v", err)}
	}
	self := ""
	if addrs := cfg.Cluster[cfg.Task.Type]; cfg.Task.Index < len(addrs) {
		self = addrs[cfg.Task.Index]
	}
	_, port, err := net.SplitHostPort(self)
	if err != nil {
		return []string{fmt.Sprintf("--connect: own address %q: %v", self, err)}
	}
	l, err := net.Listen("tcp", ":"+port)
	if err != nil {
		return []string{fmt.Sprintf("--connect: listen: %v", err)}
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	var problems []string
	deadline := time.Now().Add(timeout)
	for _, addrs := range cfg.Cluster {
		for _, a := range addrs {
			if a == self {
				continue
			}
			for {
				c, err := net.DialTimeout("tcp", a, time.Second)
				if err == nil {
					c.Close()
					break
				}
				if time.Now().After(deadline) {
					problems = append(problems, fmt.Sprintf("--connect: %s: %v", a, err))
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
	return problems
}
