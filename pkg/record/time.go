package record

import (
	"encoding/json"
	"time"
)

// Time is a point in time written the way Kubernetes writes one in JSON
// (metav1.Time): RFC 3339 in UTC, to the second; the zero Time is null.
// The record keeps its own type so that tfsupervisor does not link
// apimachinery.
type Time struct {
	time.Time
}

// NewTime returns t as a Time.
func NewTime(t time.Time) Time { return Time{t} }

// Equal reports whether t and u are the same instant.
func (t Time) Equal(u Time) bool { return t.Time.Equal(u.Time) }

// MarshalJSON implements json.Marshaler.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.UTC().Format(time.RFC3339))
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*t = Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	p, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	*t = Time{p.UTC()}
	return nil
}
