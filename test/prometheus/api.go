package prometheus

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Query evaluates the PromQL expression expr now (/api/v1/query) and
// returns the value of each series keyed by its labels, sorted, without
// __name__, instance and job, in PromQL's notation:
// {framework="tensorflow",job_namespace="x"}; a series with no other label
// and a scalar result are "{}". Series whose keys would be the same (two
// targets, or two metric names) are an error: aggregate them in expr. A
// result that is neither a vector nor a scalar is an error too.
func (s *Server) Query(ctx context.Context, expr string) (map[string]float64, error) {
	typ, res, err := s.query(ctx, expr)
	if err != nil {
		return nil, err
	}
	if typ == "matrix" {
		return nil, fmt.Errorf("query %s: a range vector, not an instant vector", expr)
	}
	out := make(map[string]float64, len(res))
	for _, r := range res {
		key := labelKey(r.Metric)
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("query %s: two series are %s once __name__, instance and job are dropped", expr, key)
		}
		out[key] = r.Value.V
	}
	return out, nil
}

// series is one element of a query's result: a vector's has Value, a
// matrix's Values.
type series struct {
	Metric map[string]string `json:"metric"`
	Value  sample            `json:"value"`
	Values []sample          `json:"values"`
}

// sample is a timestamp and a value, [1712345678.123, "42"] in JSON.
type sample struct {
	T time.Time
	V float64
}

func (p *sample) UnmarshalJSON(b []byte) error {
	var raw [2]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	ts, err := strconv.ParseFloat(string(raw[0]), 64)
	if err != nil {
		return fmt.Errorf("sample timestamp: %w", err)
	}
	var v string
	if err := json.Unmarshal(raw[1], &v); err != nil {
		return fmt.Errorf("sample value: %w", err)
	}
	if p.V, err = strconv.ParseFloat(v, 64); err != nil {
		return fmt.Errorf("sample value: %w", err)
	}
	p.T = time.UnixMilli(int64(math.Round(ts * 1000)))
	return nil
}

// query evaluates expr now and returns the type of its result ("vector",
// "matrix" or "scalar") and its series; a scalar is one series without
// labels.
func (s *Server) query(ctx context.Context, expr string) (string, []series, error) {
	var data struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	}
	if err := s.api(ctx, "/api/v1/query", url.Values{"query": {expr}}, &data); err != nil {
		return "", nil, fmt.Errorf("query %s: %w", expr, err)
	}
	var res []series
	var err error
	switch data.ResultType {
	case "vector", "matrix":
		err = json.Unmarshal(data.Result, &res)
	case "scalar":
		res = make([]series, 1)
		err = json.Unmarshal(data.Result, &res[0].Value)
	default:
		return "", nil, fmt.Errorf("query %s: a %s result", expr, data.ResultType)
	}
	if err != nil {
		return "", nil, fmt.Errorf("query %s: %w", expr, err)
	}
	return data.ResultType, res, nil
}

// api calls the HTTP API at path with params and decodes the data of its
// answer into data.
func (s *Server) api(ctx context.Context, path string, params url.Values, data any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path+"?"+params.Encode(), nil)
	if err != nil {
		return err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var answer struct {
		Status    string          `json:"status"`
		Data      json.RawMessage `json:"data"`
		ErrorType string          `json:"errorType"`
		Error     string          `json:"error"`
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return fmt.Errorf("%s: %s: %.200s", path, resp.Status, body)
	}
	if answer.Status != "success" {
		return fmt.Errorf("%s: %s: %s", path, answer.ErrorType, answer.Error)
	}
	if err := json.Unmarshal(answer.Data, data); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// labelKey renders labels as Query's keys: sorted, quoted, without
// __name__, instance and job.
func labelKey(labels map[string]string) string {
	names := make([]string, 0, len(labels))
	for n := range labels {
		if n != "__name__" && n != "instance" && n != "job" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(n + "=" + strconv.Quote(labels[n]))
	}
	b.WriteByte('}')
	return b.String()
}
