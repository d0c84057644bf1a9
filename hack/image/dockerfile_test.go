package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	cmd  string // upper case: FROM, COPY, ...
	args string
}

// parseDockerfile splits a Dockerfile into instructions: enough for the
// simple file at the repository root, not a general parser.
func parseDockerfile(t *testing.T, file string) []instruction {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []instruction
	var cur string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") || (line == "" && cur == "") {
			continue
		}
		if rest, ok := strings.CutSuffix(line, "\\"); ok {
			cur += rest + " "
			continue
		}
		cur += line
		cmd, args, _ := strings.Cut(cur, " ")
		out = append(out, instruction{cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)})
		cur = ""
	}
	return out
}

// finalStage returns the instructions after the last FROM, and that FROM's
// arguments.
func finalStage(ins []instruction) (from string, stage []instruction) {
	for i, in := range ins {
		if in.cmd == "FROM" {
			from, stage = in.args, ins[i+1:]
		}
	}
	return from, stage
}

var labelRE = regexp.MustCompile(`([^\s=]+)=("[^"]*"|\S+)`)

func TestDockerfileAgrees(t *testing.T) {
	ins := parseDockerfile(t, "../../Dockerfile")
	from, stage := finalStage(ins)
	if from != "scratch" {
		t.Errorf("final stage FROM %q, want scratch (the binary only)", from)
	}
	copies := map[string]int{}
	labels := map[string]string{}
	for _, in := range stage {
		switch in.cmd {
		case "COPY", "ADD":
			fields := strings.Fields(in.args)
			flags := map[string]string{}
			for _, f := range fields {
				if k, v, ok := strings.Cut(f, "="); ok && strings.HasPrefix(k, "--") {
					flags[k] = v
				}
			}
			dst := fields[len(fields)-1]
			if dst != BinaryPath && dst != WrapBinaryPath {
				t.Errorf("%s to %q, want %s or %s", in.cmd, dst, BinaryPath, WrapBinaryPath)
			}
			copies[dst]++
			if mode, err := strconv.ParseUint(flags["--chmod"], 8, 32); err != nil || mode != BinaryMode {
				t.Errorf("%s --chmod=%q, want %o", in.cmd, flags["--chmod"], BinaryMode)
			}
			if flags["--chown"] != User {
				t.Errorf("%s --chown=%q, want %s", in.cmd, flags["--chown"], User)
			}
		case "USER":
			if in.args != User {
				t.Errorf("USER %q, want %q", in.args, User)
			}
		case "ENTRYPOINT":
			var got []string
			if err := json.Unmarshal([]byte(in.args), &got); err != nil {
				t.Errorf("ENTRYPOINT %s: want exec (JSON) form: %v", in.args, err)
			}
			if diff := cmp.Diff(Entrypoint, got); diff != "" {
				t.Errorf("ENTRYPOINT (-want +got):\n%s", diff)
			}
		case "LABEL":
			for _, m := range labelRE.FindAllStringSubmatch(in.args, -1) {
				labels[m[1]] = strings.Trim(m[2], `"`)
			}
		case "ARG":
		default:
			t.Errorf("unexpected %s in the final stage: the image holds the binary only", in.cmd)
		}
	}
	if diff := cmp.Diff(map[string]int{BinaryPath: 1, WrapBinaryPath: 1}, copies); diff != "" {
		t.Errorf("final stage's COPY/ADD per destination (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Labels(DefaultSource, "${VERSION}", "${COMMIT}"), labels); diff != "" {
		t.Errorf("LABEL (-want +got):\n%s", diff)
	}
}

// TestDockerfileBuildsLikeMakefile checks that the Dockerfile's go build
// stamps the version the same way the Makefile does.
func TestDockerfileBuildsLikeMakefile(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	xflags := regexp.MustCompile(`-X (\S+)=\$\((\w+)\)`).FindAllStringSubmatch(string(mk), -1)
	if len(xflags) == 0 {
		t.Fatal("no -X flags in the Makefile")
	}
	var build string
	for _, in := range parseDockerfile(t, "../../Dockerfile") {
		if in.cmd == "RUN" && strings.Contains(in.args, "go build") {
			build = in.args
		}
	}
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-s -w", "./cmd/tfsupervisor", "tfsupervisor_wrap"} {
		if !strings.Contains(build, want) {
			t.Errorf("Dockerfile go build lacks %q: %s", want, build)
		}
	}
	for _, x := range xflags {
		if want := "-X " + x[1] + "=${" + x[2] + "}"; !strings.Contains(build, want) {
			t.Errorf("Dockerfile go build lacks %q (Makefile stamps it)", want)
		}
	}
}
