package prometheus

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Target is one scrape target as /api/v1/targets reports it.
type Target struct {
	// Instance is its address, host:port, as given to Start.
	Instance string
	// Health is "up", "down", or "unknown" before its first scrape.
	Health string
	// LastScrape is when its last scrape began.
	LastScrape time.Time
	// LastError is why its last scrape failed, if it did.
	LastError string
}

// Targets returns the targets being scraped. To wait for a scrape, use
// WaitScrape or WaitUp: a target's LastScrape and Health change before the
// scrape's samples are stored.
func (s *Server) Targets(ctx context.Context) ([]Target, error) {
	var data struct {
		ActiveTargets []struct {
			Labels     map[string]string `json:"labels"`
			Health     string            `json:"health"`
			LastScrape time.Time         `json:"lastScrape"`
			LastError  string            `json:"lastError"`
		} `json:"activeTargets"`
	}
	if err := s.api(ctx, "/api/v1/targets", url.Values{"state": {"active"}}, &data); err != nil {
		return nil, err
	}
	out := make([]Target, 0, len(data.ActiveTargets))
	for _, t := range data.ActiveTargets {
		out = append(out, Target{Instance: t.Labels["instance"], Health: t.Health, LastScrape: t.LastScrape, LastError: t.LastError})
	}
	return out, nil
}

// alignSlack covers Prometheus moving a scrape's timestamp onto its
// schedule (--scrape.timestamp-tolerance, 2ms; its clock's jitter is
// smaller): a sample stamped this long after a time was scraped after it.
const alignSlack = 10 * time.Millisecond

// lastUp returns each target's latest sample of up: its timestamp is when
// the scrape began, its value 1 if the scrape succeeded. Prometheus stores
// up in the same commit as the scraped samples, so once it is seen they
// can be queried too.
func (s *Server) lastUp(ctx context.Context) (map[string]sample, error) {
	_, res, err := s.query(ctx, fmt.Sprintf("up{job=%q}[1m]", Job))
	if err != nil {
		return nil, err
	}
	out := make(map[string]sample, len(res))
	for _, r := range res {
		if n := len(r.Values); n > 0 {
			out[r.Metric["instance"]] = r.Values[n-1]
		}
	}
	return out, nil
}

// WaitScrape waits until every target has been scraped (successfully or
// not) in a scrape that began after the call, and its samples are stored:
// what a target served before WaitScrape was called can then be queried.
func (s *Server) WaitScrape(t testing.TB) {
	t.Helper()
	since := time.Now().Add(alignSlack)
	poller.Poll(t, "a scrape of every target", func(ctx context.Context) (bool, string, error) {
		up, err := s.lastUp(ctx)
		if err != nil {
			return false, "", err
		}
		var stale []string
		for _, target := range s.targets {
			if last, ok := up[target]; !ok || !last.T.After(since) {
				stale = append(stale, target)
			}
		}
		return len(stale) == 0, "not scraped since the call: " + strings.Join(stale, ", "), nil
	})
}

// WaitUp waits until target (host:port, as given to Start) has been
// scraped successfully in a scrape that began after the call, and its
// samples are stored.
func (s *Server) WaitUp(t testing.TB, target string) {
	t.Helper()
	since := time.Now().Add(alignSlack)
	poller.Poll(t, "a successful scrape of "+target, func(ctx context.Context) (bool, string, error) {
		up, err := s.lastUp(ctx)
		if err != nil {
			return false, "", err
		}
		last, ok := up[target]
		switch {
		case !ok:
			return false, "never scraped", nil
		case !last.T.After(since):
			return false, "not scraped since the call", nil
		case last.V != 1:
			return false, "down: " + s.lastError(ctx, target), nil
		}
		return true, "", nil
	})
}

// lastError is why target's last scrape failed, for a message.
func (s *Server) lastError(ctx context.Context, target string) string {
	targets, err := s.Targets(ctx)
	if err != nil {
		return err.Error()
	}
	for _, t := range targets {
		if t.Instance == target {
			return t.LastError
		}
	}
	return "not a target"
}
