//go:build unix && !linux

package proc

// becomeSubreaper does nothing: only Linux has child subreapers, so orphans
// are reaped only when tfsupervisor is PID 1.
func becomeSubreaper() error { return nil }
