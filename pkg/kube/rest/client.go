package rest

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tfgen/tfgen/pkg/kube"
)

// UserAgent identifies tfsupervisor's requests.
const UserAgent = "tfsupervisor"

// Content types of requests.
const (
	ContentJSON       = "application/json"
	ContentMergePatch = "application/merge-patch+json"
	// ContentStrategicMergePatch patches a built-in kind: for a map
	// (labels, annotations) it means what a merge patch does, and the API
	// server applies it to the object itself, where a merge patch costs it
	// a JSON encoding and decoding of the whole object.
	ContentStrategicMergePatch = "application/strategic-merge-patch+json"
)

// Client makes tfsupervisor's API calls, JSON over HTTPS. It has no
// client-side rate limit: a supervisor makes a few calls per exit, and the
// API server's priority and fairness applies.
type Client struct {
	host  string
	http  *http.Client
	token func() (string, error)
}

// New returns a Client for cfg.
func New(cfg *Config) (*Client, error) {
	tc := &tls.Config{InsecureSkipVerify: cfg.Insecure, MinVersion: tls.VersionTLS12}
	if len(cfg.CAData) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(cfg.CAData) {
			return nil, errors.New("API client: no certificate in the CA data")
		}
		tc.RootCAs = pool
	}
	if len(cfg.CertData) > 0 {
		cert, err := tls.X509KeyPair(cfg.CertData, cfg.KeyData)
		if err != nil {
			return nil, fmt.Errorf("API client: client certificate: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	// No compression: the API server gzips a watch's events for each
	// watcher that accepts it (Kubernetes 1.37), and a job's thousand
	// supervisors watch the one status ConfigMap; its few hundred bytes
	// are cheaper sent than compressed a thousand times and inflated.
	tr := &http.Transport{TLSClientConfig: tc, ForceAttemptHTTP2: true, Proxy: http.ProxyFromEnvironment,
		IdleConnTimeout: 90 * time.Second, TLSHandshakeTimeout: 10 * time.Second, DisableCompression: true}
	c := &Client{host: strings.TrimSuffix(cfg.Host, "/"), http: &http.Client{Transport: tr}}
	switch {
	case cfg.TokenFile != "":
		c.token = (&tokenFile{path: cfg.TokenFile}).get
	case cfg.Token != "":
		c.token = func() (string, error) { return cfg.Token, nil }
	}
	return c, nil
}

// tokenFile reads a token file, again once a minute: the kubelet rotates
// bound ServiceAccount tokens in place.
type tokenFile struct {
	path string
	mu   sync.Mutex
	tok  string
	read time.Time
}

func (t *tokenFile) get() (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tok != "" && time.Since(t.read) < time.Minute {
		return t.tok, nil
	}
	b, err := os.ReadFile(t.path)
	if err != nil {
		if t.tok != "" {
			return t.tok, nil
		}
		return "", fmt.Errorf("read token: %w", err)
	}
	t.tok, t.read = strings.TrimSpace(string(b)), time.Now()
	return t.tok, nil
}

// requestAccept sends a GET-like request with an Accept header of its
// own; a non-2xx answer is an *APIError.
func (c *Client) requestAccept(ctx context.Context, method, path string, query url.Values, accept string) (*http.Response, error) {
	return c.send(ctx, method, path, query, "", nil, accept)
}

// request sends one request; a non-2xx answer is an *APIError.
func (c *Client) request(ctx context.Context, method, path string, query url.Values, contentType string, body []byte) (*http.Response, error) {
	return c.send(ctx, method, path, query, contentType, body, ContentJSON)
}

func (c *Client) send(ctx context.Context, method, path string, query url.Values, contentType string, body []byte, accept string) (*http.Response, error) {
	u := c.host + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", UserAgent)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.token != nil {
		tok, err := c.token()
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		e := &kube.APIError{Code: resp.StatusCode}
		var st struct{ Reason, Message string }
		if json.Unmarshal(b, &st) == nil {
			e.Reason, e.Message = st.Reason, st.Message
		}
		if e.Reason == "" {
			e.Reason = http.StatusText(resp.StatusCode)
		}
		if n, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && n > 0 {
			e.RetryAfter = time.Duration(min(n, 60)) * time.Second
		}
		return nil, e
	}
	return resp, nil
}

// do sends a request and decodes the answer into out (unless nil).
func (c *Client) do(ctx context.Context, what, method, path, contentType string, body []byte, out any) error {
	resp, err := c.request(ctx, method, path, nil, contentType, body)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s: decode the answer: %w", what, err)
	}
	return nil
}
