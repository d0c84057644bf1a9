package supervise

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/tfgen/tfgen/pkg/kube"
	"github.com/tfgen/tfgen/pkg/record"
)

// logKeeping gathers the log tails on the replicas' records and saves
// them (Keeper.Logs) in the background, one save at a time, no more often
// than the keeper writes the status: a slow or refusing API server never
// holds up the keeper, except for a bounded wait before a teardown.
type logKeeping struct {
	store    LogStore // nil: none kept
	clock    Clock
	interval time.Duration
	logf     func(string, ...any)

	tails    map[string]keptTail // by replica
	version  int                 // of tails, raised by each change
	saved    int                 // the version the last save that landed had
	lastSave time.Time
	at       time.Time        // when a save put off, or tried again, is due
	inflight <-chan savedLogs // the save under way, if any
	broken   bool             // the store refused for good: saving stopped
}

type keptTail struct {
	text   string
	failed bool
}

// savedLogs is how a save of version ended.
type savedLogs struct {
	version int
	err     error
}

// keeping reports whether tails are being kept: there is a store, and it
// has not refused for good.
func (l *logKeeping) keeping() bool { return l.store != nil && !l.broken }

// observe takes the tails on the replicas' records.
func (l *logKeeping) observe(obs []Observed) {
	for _, o := range obs {
		ref := o.Ref.String()
		if o.LogTail != "" && l.tails[ref].text != o.LogTail {
			l.tails[ref] = keptTail{text: o.LogTail, failed: o.State == record.StateFailed}
			l.version++
		}
	}
}

// save starts a save of the tails if they changed since the last that
// landed, no sooner than interval after the last one started (else it
// puts it off, till next). With force (the job's pods are about to go) it
// starts one at once and waits for it, flushTimeout at most: the tails
// matter less than stopping the job's replicas on time.
func (l *logKeeping) save(ctx context.Context, force bool) {
	if !l.keeping() {
		return
	}
	if !l.clock.Now().Before(l.at) {
		l.at = time.Time{} // due: this is the look it asked for
	}
	var wait <-chan time.Time
	if force {
		t := time.NewTimer(flushTimeout)
		defer t.Stop()
		wait = t.C
		if !l.await(wait) {
			return
		}
	}
	if l.version == l.saved || l.inflight != nil {
		return // landed() starts the next
	}
	now := l.clock.Now()
	if !force && l.interval > 0 && now.Before(l.lastSave.Add(l.interval)) {
		l.at = later(l.at, l.lastSave.Add(l.interval)) // a retry asked for stands
		return
	}
	data, version := l.snapshot(), l.version
	done := make(chan savedLogs, 1)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	go func() {
		defer cancel()
		done <- savedLogs{version: version, err: l.store.Save(sctx, data)}
	}()
	l.inflight, l.lastSave, l.at = done, now, time.Time{}
	if force {
		l.await(wait)
	}
}

// await waits for the save under way, if any, until wait fires; it
// reports whether none is under way any more.
func (l *logKeeping) await(wait <-chan time.Time) bool {
	if l.inflight == nil {
		return true
	}
	select {
	case r := <-l.inflight:
		l.finished(r)
		return true
	case <-wait:
		l.logf("keeping logs: the save did not land within %v; going on", flushTimeout)
		return false
	}
}

// landed takes the end of a save and starts the next if the tails changed
// meanwhile.
func (l *logKeeping) landed(r savedLogs) {
	l.finished(r)
	l.save(context.Background(), false)
}

func (l *logKeeping) finished(r savedLogs) {
	l.inflight = nil
	switch {
	case r.err == nil:
		l.saved = max(l.saved, r.version)
	case kube.IsPermanent(r.err):
		l.logf("%v; the replicas' logs are not kept", r.err)
		l.broken = true
	default:
		l.logf("%v; trying again", r.err)
		if l.at.IsZero() {
			l.at = l.clock.Now().Add(max(l.interval, time.Second))
		}
	}
}

// next returns when the saving asks to be looked at again though nothing
// else changes (a save put off, or tried again); zero if never.
func (l *logKeeping) next() time.Time {
	if !l.keeping() {
		return time.Time{}
	}
	return l.at
}

// snapshot is what a save writes: the tails of at most MaxLogTails
// replicas, failed ones first, then by name.
func (l *logKeeping) snapshot() map[string]string {
	refs := slices.Collect(maps.Keys(l.tails))
	slices.SortFunc(refs, func(a, b string) int {
		if fa, fb := l.tails[a].failed, l.tails[b].failed; fa != fb {
			if fa {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	data := make(map[string]string, min(len(refs), record.MaxLogTails))
	for _, ref := range refs[:min(len(refs), record.MaxLogTails)] {
		data[ref] = l.tails[ref].text
	}
	return data
}
