package localrun

import (
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

// printer writes to one writer each replica's output and tfgen's lines
// about it under the replica's prefix, and the job's lines under
// "tfgen: ": whole lines, and progress bars drawn with \r piece by piece,
// each piece labelled (see pieces). A line drawn in place is ended with
// \n before anything else is written, so that it stays on the screen.
// Once a write fails (stdout was a pipe whose reader is gone), failed is
// closed and nothing more is written.
type printer struct {
	mu       sync.Mutex
	w        io.Writer
	color    bool
	job      string
	prefixes []string
	plan     *Plan
	failed   chan struct{}
	err      error
	// open is the replica whose line is drawn in place and not ended,
	// -1 for none; mid says the cursor is in that line, not at its start.
	open int
	mid  bool
}

func newPrinter(w io.Writer, color bool, p *Plan) *printer {
	pr := &printer{w: w, color: color, job: p.Job, plan: p, failed: make(chan struct{}), open: -1}
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
	b := append(p.endOpen(nil), p.prefixes[i]...)
	b = append(b, line...)
	if len(line) == 0 || line[len(line)-1] != '\n' {
		b = append(b, '\n')
	}
	p.out(b)
}

// piece writes a piece of replica i's output: under its prefix, unless it
// goes on with the line the replica's last piece left its cursor in.
func (p *printer) piece(i int, text []byte, kind pieceKind) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b []byte
	if p.open != i {
		b = p.endOpen(b)
	}
	if p.open != i || !p.mid {
		b = append(b, p.prefixes[i]...)
	}
	b = append(b, text...)
	switch kind {
	case line:
		if len(text) == 0 || text[len(text)-1] != '\n' {
			b = append(b, '\n')
		}
		p.open, p.mid = -1, false
	case carriage:
		p.open, p.mid = i, false
	case partial:
		p.open, p.mid = i, true
	}
	p.out(b)
}

// endOpen appends to b the \n that ends a line drawn in place; p.mu is
// held.
func (p *printer) endOpen(b []byte) []byte {
	if p.open >= 0 {
		b = append(b, '\n')
		p.open, p.mid = -1, false
	}
	return b
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
	p.out(append(p.endOpen(nil), p.style(style, "tfgen: "+fmt.Sprintf(format, args...))+"\n"...))
}

// copy writes what r delivers under replica i's prefix, piece by piece
// (see pieces), until r ends.
func (p *printer) copy(i int, r io.Reader) {
	newPieces(r).each(func(text []byte, kind pieceKind) { p.piece(i, text, kind) })
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
