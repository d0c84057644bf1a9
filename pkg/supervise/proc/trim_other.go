//go:build !linux

package proc

import "time"

// ReleaseText does nothing here: see trim_linux.go.
func ReleaseText(minInterval time.Duration) {}
