package localrun

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// ANSI styles.
const (
	reset = "\x1b[0m"
	bold  = "\x1b[1m"
	red   = "\x1b[31m"
	green = "\x1b[32m"
)

// palette colours the replicas' prefixes in turn.
// (not green or red, which say how an exit went).
var palette = []string{"\x1b[36m", "\x1b[33m", "\x1b[35m", "\x1b[34m", "\x1b[96m", "\x1b[93m", "\x1b[95m", "\x1b[94m"}

// printer writes whole lines to one writer: each replica's output and
// tfgen's lines about it under the replica's prefix, the job's lines under
// "tfgen: ". Once a write fails (stdout was a pipe whose reader is gone),
// failed is closed and nothing more is written.
type printer struct {
	mu       sync.Mutex
	w        io.Writer
	color    bool
	job      string
	prefixes []string
	plan     *Plan
	failed   chan struct{}
	err      error
}

func newPrinter(w io.Writer, color bool, p *Plan) *printer {
	pr := &printer{w: w, color: color, job: p.Job, plan: p, failed: make(chan struct{})}
	for i, r := range p.Replicas {
		prefix := "[" + r.Ref.String() + "] "
		if color {
			prefix = palette[i%len(palette)] + prefix + reset
		}
		pr.prefixes = append(pr.prefixes, prefix)
	}
	return pr
}

func (p *printer) style(s, text string) string {
	if !p.color || s == "" {
		return text
	}
	return s + text + reset
}

// write writes line (which may lack its newline) under replica i's prefix.
func (p *printer) write(i int, line []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := make([]byte, 0, len(p.prefixes[i])+len(line)+1)
	b = append(append(b, p.prefixes[i]...), line...)
	if len(line) == 0 || line[len(line)-1] != '\n' {
		b = append(b, '\n')
	}
	p.out(b)
}

// out writes b; p.mu is held.
func (p *printer) out(b []byte) {
	if p.err != nil {
		return
	}
	if _, p.err = p.w.Write(b); p.err != nil {
		close(p.failed)
	}
}

// note writes tfgen's line about replica i.
func (p *printer) note(i int, style, format string, args ...any) {
	p.write(i, []byte(p.style(style, "tfgen: "+fmt.Sprintf(format, args...))))
}

// jobLine writes a line about the whole job.
func (p *printer) jobLine(style, format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.out([]byte(p.style(style, "tfgen: "+fmt.Sprintf(format, args...)) + "\n"))
}

// copy writes what r delivers, line by line, under replica i's prefix,
// until r ends. A line longer than the buffer is cut into several.
func (p *printer) copy(i int, r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			p.write(i, line)
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

// starting says where replica i listens and what it runs.
func (p *printer) starting(i int) {
	r := &p.plan.Replicas[i]
	p.note(i, "", "on %s: %s", r.Address, quoteArgs(r.Command.Args))
}

// logf is replica i's supervisor's log.
func (p *printer) logf(i int) func(string, ...any) {
	return func(format string, args ...any) { p.note(i, "", format, args...) }
}

// reporter shows replica i's supervision reports: each exit with what
// follows it, each restart, and a restart that will not come.
type reporter struct {
	p *printer
	i int
}

var _ supervise.Reporter = reporter{}

// Report implements supervise.Reporter.
func (r reporter) Report(rep supervise.Report) {
	p, rp := r.p, &r.p.plan.Replicas[r.i]
	trim := func(note string) string { return strings.TrimPrefix(note, "replica "+rp.Ref.String()+" ") }
	switch {
	case rep.Exit != nil:
		what := strings.ToLower(string(rep.State))
		switch {
		case rep.Reason == supervise.ReasonJobRestart:
			p.note(r.i, "", "%s", trim(rep.Message))
			return
		case rep.State == record.StateRestarting:
			what = "restarting (restart " + strconv.Itoa(int(rep.Restarts)+1) + ")"
		case rep.State == record.StateFailed:
			what = "failed (" + rep.Reason + ")"
		case rep.State == record.StateStopped:
			p.note(r.i, "", "%s", trim(rep.Message))
			return
		}
		style := green
		if rep.Exit.Code != 0 {
			style = red
		}
		p.note(r.i, style, "exited with code %d (%s): %s", rep.Exit.Code, rep.Exit.Reason, what)
	case rep.State == record.StateRunning && rep.Reason == "Restarted" && rep.Generation > 0:
		p.note(r.i, "", "started again (restart %d; job restart %d)", rep.Restarts, rep.Generation)
	case rep.State == record.StateRunning && rep.Reason == "Restarted":
		p.note(r.i, "", "started again (restart %d)", rep.Restarts)
	default:
		for _, e := range rep.Events {
			if e.Reason == supervise.ReasonReplicaStopped || e.Reason == supervise.ReasonReplicaFailed {
				p.note(r.i, "", "%s", trim(e.Note))
			}
		}
	}
}

// Flush implements supervise.Reporter: lines are written as reported.
func (reporter) Flush(context.Context) error { return nil }

// jobReporter shows the keeper's reports: the job's end.
type jobReporter struct {
	p *printer
}

var _ supervise.Reporter = jobReporter{}

// Report implements supervise.Reporter.
func (r jobReporter) Report(rep supervise.Report) {
	p := r.p
	for _, e := range rep.Events {
		switch e.Reason {
		case supervise.ReasonJobSucceeded:
			p.jobLine(bold+green, "job %s succeeded: %s", p.job, strings.TrimPrefix(e.Note, "the job succeeded: "))
			r.leftRunning()
		case supervise.ReasonJobFailed:
			p.jobLine(bold+red, "job %s failed: %s", p.job, e.Note)
			r.leftRunning()
		}
	}
}

// leftRunning says, when the clean-pod policy stops nothing, that what
// still runs keeps running, as in a cluster.
func (r jobReporter) leftRunning() {
	if r.p.plan.Policy.CleanPodPolicy == supervise.CleanNone {
		r.p.jobLine(bold, "cleanPodPolicy None: replicas still running are left running, as in a cluster; Ctrl-C stops them")
	}
}

// Flush implements supervise.Reporter: lines are written as reported.
func (jobReporter) Flush(context.Context) error { return nil }

// quoteArgs shows a command on one line, shortened: each argument up to
// its first line break, quoted when it holds blanks or shell syntax.
func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		a = strings.TrimSuffix(a, "\n")
		if first, _, more := strings.Cut(a, "\n"); more {
			a = first + " …"
		}
		q[i] = a
		if a == "" || strings.ContainsAny(a, " \t'\"\\$`;&|<>()*?[]#~") {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	s := strings.Join(q, " ")
	if r := []rune(s); len(r) > 72 {
		s = string(r[:71]) + "…"
	}
	return s
}
