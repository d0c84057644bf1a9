package kube

import (
	"errors"
	"fmt"
	"time"
)

// APIError is an answer of the API server other than 2xx.
type APIError struct {
	// Code is the HTTP status code.
	Code int
	// Reason is the Status reason (Conflict, NotFound, ...).
	Reason string
	// Message is the Status message.
	Message string
	// RetryAfter is how long the server asked to wait before trying
	// again (429 Too Many Requests and some 5xx), 0 if it did not say.
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	if e.Message != "" {
		return fmt.Sprintf("%s (%d %s)", e.Message, e.Code, e.Reason)
	}
	return fmt.Sprintf("%d %s", e.Code, e.Reason)
}

func code(err error) int {
	var e *APIError
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// RetryAfter returns how long the server that answered err asked to wait
// before trying again; 0 if it did not say.
func RetryAfter(err error) time.Duration {
	var e *APIError
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}

// IsConflict reports whether err (possibly wrapped) is a 409 Conflict.
func IsConflict(err error) bool { return code(err) == 409 }

// IsAlreadyExists reports whether err (possibly wrapped) is a 409 for a
// create of an object that exists.
func IsAlreadyExists(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.Code == 409 && e.Reason == "AlreadyExists"
}

// IsForbidden reports whether err (possibly wrapped) is a 403 Forbidden.
func IsForbidden(err error) bool { return code(err) == 403 }

// IsNotFound reports whether err (possibly wrapped) is a 404 Not Found.
func IsNotFound(err error) bool { return code(err) == 404 }

// IsPermanent reports whether retrying the request that failed with err
// cannot help: the API server answered that it is invalid or about
// something that does not exist. 401 and 403 are not: an API server under
// load fails to authenticate valid tokens (its authentication_attempts
// count errors; 982 of 23,000 at 1,000 replicas here), and a RoleBinding
// applied with the pods may reach the authorizer after them.
func IsPermanent(err error) bool {
	switch code(err) {
	case 400, 404, 405, 406, 413, 415, 422:
		return true
	}
	return false
}
