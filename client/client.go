// Package client is the Go client of `vouch serve`: verify requests (one,
// the plain task shape, or batches), read the log, label verifications
// (overrides and outcomes), read the quality metrics and alerts, and
// follow the event stream.
//
//	c, err := client.New("http://127.0.0.1:8080", client.WithAPIKey(os.Getenv("VOUCH_API_KEY")))
//	rep, err := c.Verify(ctx, req)
//
// Calls that the server answers 429 (too many requests in flight) or 503
// (the store failed, nothing recorded) are retried after the server's
// Retry-After, a few times; that is safe because verifications are
// idempotent by key. Any other failure is an *[Error] with the server's
// code and message.
package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
)

// Client talks to one vouch server. It is safe for concurrent use.
type Client struct {
	base    *url.URL
	key     string
	http    *http.Client
	retries int
	maxWait time.Duration
}

// Option configures a [Client].
type Option func(*Client)

// WithAPIKey authenticates every call with key (Authorization: Bearer).
func WithAPIKey(key string) Option { return func(c *Client) { c.key = key } }

// WithHTTPClient makes calls with hc instead of a client with a 5-minute
// timeout.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.http = hc } }

// WithRetries sets how many times a call answered 429 or 503 is retried
// (default 3; 0 never retries), waiting at most maxWait each time.
func WithRetries(n int, maxWait time.Duration) Option {
	return func(c *Client) { c.retries, c.maxWait = n, maxWait }
}

// New returns a client of the server at baseURL (http://host:port).
func New(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: %q is not an http(s) URL of a server", baseURL)
	}
	c := &Client{base: u, http: &http.Client{Timeout: 5 * time.Minute}, retries: 3, maxWait: 10 * time.Second}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// Error is an answer of the server other than success.
type Error struct {
	// Status is the HTTP status.
	Status int
	// Code is the error's code (syntax, unknown_field, unauthorized,
	// idempotency_conflict, overloaded, ...), Message what it says.
	Code    string
	Message string
	// Problems lists every problem of a bad input, each with its path.
	Problems []*vouch.Error
	// RetryAfter is the server's Retry-After, when it gave one.
	RetryAfter time.Duration
}

// Error implements error: the status, the code and the message.
func (e *Error) Error() string {
	msg := fmt.Sprintf("vouch server: %d %s: %s", e.Status, e.Code, e.Message)
	if len(e.Problems) > 1 {
		msg += fmt.Sprintf(" (and %d more problems)", len(e.Problems)-1)
	}
	return msg
}

// IsConflict reports whether err is a 409: the idempotency key (or the
// request's id and attempt) is stored for another body.
func IsConflict(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == http.StatusConflict
}

// IsNotFound reports whether err is a 404.
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}

// Verify verifies one request and returns its report, stored in the
// server's log. idempotencyKey may be "" (the request's id and attempt
// are the key).
func (c *Client) Verify(ctx context.Context, req *vouch.Request, idempotencyKey string) (*vouch.Report, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("client: encoding the request: %w", err)
	}
	raw, _, err := c.VerifyRaw(ctx, body, idempotencyKey)
	if err != nil {
		return nil, err
	}
	rep := new(vouch.Report)
	if err := json.Unmarshal(raw, rep); err != nil {
		return nil, fmt.Errorf("client: decoding the report: %w", err)
	}
	return rep, nil
}

// VerifyRaw sends a request as it is (JSON or YAML) and returns the
// report's JSON, and whether the server replayed a stored report.
func (c *Client) VerifyRaw(ctx context.Context, body []byte, idempotencyKey string) (report []byte, replayed bool, err error) {
	h := http.Header{"Content-Type": {"application/json"}}
	if idempotencyKey != "" {
		h.Set("Idempotency-Key", idempotencyKey)
	}
	res, b, err := c.do(ctx, http.MethodPost, "/v1/verify", nil, h, body)
	if err != nil {
		return nil, false, err
	}
	return b, res.Header.Get("Idempotent-Replayed") == "true", nil
}

// VerifyTask verifies the plain task shape.
func (c *Client) VerifyTask(ctx context.Context, in api.TaskInput) (*api.TaskResult, error) {
	out := new(api.TaskResult)
	return out, c.json(ctx, http.MethodPost, "/verify-task", nil, in, out)
}

// CreateBatch sends requests (each a JSON document) as a batch and
// returns its status; the server verifies them in the background.
func (c *Client) CreateBatch(ctx context.Context, requests [][]byte) (*api.BatchStatus, error) {
	var buf bytes.Buffer
	for _, r := range requests {
		buf.Write(bytes.TrimSpace(r))
		buf.WriteByte('\n')
	}
	_, b, err := c.do(ctx, http.MethodPost, "/v1/batches", nil, http.Header{"Content-Type": {"application/jsonl"}}, buf.Bytes())
	if err != nil {
		return nil, err
	}
	out := new(api.BatchStatus)
	return out, decode(b, out)
}

// Batch returns a batch's status.
func (c *Client) Batch(ctx context.Context, id string) (*api.BatchStatus, error) {
	out := new(api.BatchStatus)
	return out, c.json(ctx, http.MethodGet, "/v1/batches/"+url.PathEscape(id), nil, nil, out)
}

// BatchResults calls fn with each line of a batch's results, in input
// order: a report, {"line": N, "error": {...}}, or {"line": N,
// "pending": true}.
func (c *Client) BatchResults(ctx context.Context, id string, fn func(line []byte) error) error {
	res, err := c.stream(ctx, "/v1/batches/"+url.PathEscape(id)+"/results", nil, nil)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if err := fn(sc.Bytes()); err != nil {
			return err
		}
	}
	return sc.Err()
}

// Stored is a report from the log, with the overrides people added.
type Stored struct {
	vouch.Report
	Overrides []api.Override `json:"overrides,omitempty"`
}

// Verification returns a stored report; attempt 0 means the latest.
func (c *Client) Verification(ctx context.Context, id string, attempt int) (*Stored, error) {
	q := url.Values{}
	if attempt > 0 {
		q.Set("attempt", strconv.Itoa(attempt))
	}
	out := new(Stored)
	return out, c.json(ctx, http.MethodGet, "/v1/verifications/"+url.PathEscape(id), q, nil, out)
}

// Query filters a list of verifications; zero fields do not filter.
type Query struct {
	Kind, Verdict, Action string
	TaskID, InteractionID string
	ExecutorModel         string
	NeedsReview           *bool
	Since, Until          time.Time
	Limit                 int
	// Cursor is the previous page's Next.
	Cursor string
}

func (q Query) values() url.Values {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	set("kind", q.Kind)
	set("verdict", q.Verdict)
	set("action", q.Action)
	set("taskId", q.TaskID)
	set("interactionId", q.InteractionID)
	set("executorModel", q.ExecutorModel)
	set("cursor", q.Cursor)
	if q.NeedsReview != nil {
		v.Set("needsReview", strconv.FormatBool(*q.NeedsReview))
	}
	if !q.Since.IsZero() {
		v.Set("since", q.Since.UTC().Format(time.RFC3339Nano))
	}
	if !q.Until.IsZero() {
		v.Set("until", q.Until.UTC().Format(time.RFC3339Nano))
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	return v
}

// List returns a page of the log, newest first.
func (c *Client) List(ctx context.Context, q Query) (*api.List, error) {
	out := new(api.List)
	return out, c.json(ctx, http.MethodGet, "/v1/verifications", q.values(), nil, out)
}

// Override records a person's verdict (pass, retry or fail) beside the
// stored verification id, in.Attempt of it (0: its latest), and returns
// the override as recorded; the report itself never changes. It needs a
// key with the review scope. An unknown verification is a 404
// ([IsNotFound]), a bad verdict a 400.
func (c *Client) Override(ctx context.Context, id string, in api.OverrideInput) (*api.Override, error) {
	out := new(api.Override)
	return out, c.json(ctx, http.MethodPost, "/v1/verifications/"+url.PathEscape(id)+"/override", nil, in, out)
}

// Outcome records what happened downstream of a verification: one named
// by in.VerificationID (and Attempt), or the latest of a task named by
// in.TaskID (and InteractionID). in.Good is required. It returns the
// outcome with the verification it labelled, and needs a key with the
// review scope. No matching verification is a 404 ([IsNotFound]).
func (c *Client) Outcome(ctx context.Context, in api.OutcomeInput) (*api.Outcome, error) {
	out := new(api.Outcome)
	return out, c.json(ctx, http.MethodPost, "/v1/outcomes", nil, in, out)
}

// MetricsQuery selects the window of [Client.Metrics]; zero fields take
// the server's defaults.
type MetricsQuery struct {
	// Since and Until bound the window [Since, Until); a zero Until is
	// now.
	Since, Until time.Time
	// Window is the span back from Until when Since is zero (the server's
	// default: 30 days). Give Since or Window, not both.
	Window time.Duration
	// Kind, ExecutorModel and Criticality filter the verifications.
	Kind, ExecutorModel, Criticality string
}

func (q MetricsQuery) values() url.Values {
	v := url.Values{}
	if !q.Since.IsZero() {
		v.Set("since", q.Since.UTC().Format(time.RFC3339Nano))
	}
	if !q.Until.IsZero() {
		v.Set("until", q.Until.UTC().Format(time.RFC3339Nano))
	}
	if q.Window != 0 {
		v.Set("window", q.Window.String())
	}
	for k, s := range map[string]string{"kind": q.Kind, "executorModel": q.ExecutorModel, "criticality": q.Criticality} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v
}

// Metrics returns the quality metrics of the caller's tenant over a
// window: rates with their counts, distributions, failure patterns,
// cost and self-assessment bias. It needs the read scope.
func (c *Client) Metrics(ctx context.Context, q MetricsQuery) (*api.Metrics, error) {
	out := new(api.Metrics)
	return out, c.json(ctx, http.MethodGet, "/v1/metrics", q.values(), nil, out)
}

// Alerts evaluates the caller's tenant's alerts on the window they watch
// and returns every one that is configured, firing or not. It needs the
// read scope.
func (c *Client) Alerts(ctx context.Context) (*api.AlertReport, error) {
	out := new(api.AlertReport)
	return out, c.json(ctx, http.MethodGet, "/v1/alerts", nil, nil, out)
}

// Calibration fits the server's policy to the labels of a window (only
// its span and kind filter calibration) and returns the calibration as
// JSON (the shape of package quality's Calibration); minLabels 0 means the
// server's default. With patch, it returns the suggestion as a policy
// file instead, and a 409 error when nothing is suggested. It needs the
// read scope.
func (c *Client) Calibration(ctx context.Context, q MetricsQuery, minLabels int, patch bool) ([]byte, error) {
	v := q.values()
	if minLabels > 0 {
		v.Set("minLabels", strconv.Itoa(minLabels))
	}
	if patch {
		v.Set("format", "patch")
	}
	_, b, err := c.do(ctx, http.MethodGet, "/v1/calibration", v, nil, nil)
	return b, err
}

// Examples returns few-shot judge examples made from the window's
// overrides, perClass of each class (0: the server's default), as JSON
// {"examples": [...]} or, with patch, as a policy file setting
// judge.examples (a 409 error when no override gives a reason). It needs
// the read scope.
func (c *Client) Examples(ctx context.Context, q MetricsQuery, perClass int, patch bool) ([]byte, error) {
	v := q.values()
	if perClass > 0 {
		v.Set("perClass", strconv.Itoa(perClass))
	}
	if patch {
		v.Set("format", "patch")
	}
	_, b, err := c.do(ctx, http.MethodGet, "/v1/examples", v, nil, nil)
	return b, err
}

// Event is one event of the stream.
type Event struct {
	// ID is the event's sequence number: give it as lastEventID to
	// resume after it.
	ID string
	// Type is the event's type (verification:complete, ...).
	Type string
	// Data is the event JSON {type, id, time, tenant, interactionId,
	// taskId, attempt, data}.
	Data json.RawMessage
}

// Events follows the event stream, calling fn for each event, until ctx
// is done, fn returns an error, or the stream ends. lastEventID resumes
// after that event ("" starts with the events stored from now on). It
// returns the id of the last event given to fn, to resume from.
func (c *Client) Events(ctx context.Context, lastEventID string, fn func(Event) error) (string, error) {
	h := http.Header{"Accept": {"text/event-stream"}}
	if lastEventID != "" {
		h.Set("Last-Event-ID", lastEventID)
	}
	res, err := c.stream(ctx, "/v1/events", nil, h)
	if err != nil {
		return lastEventID, err
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 64<<20)
	var ev Event
	var data bytes.Buffer
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data.Len() > 0 {
				ev.Data = bytes.Clone(data.Bytes())
				if err := fn(ev); err != nil {
					return ev.ID, err
				}
				lastEventID = ev.ID
			}
			ev, data = Event{}, bytes.Buffer{}
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "id:"):
			ev.ID = strings.TrimSpace(line[3:])
		case strings.HasPrefix(line, "event:"):
			ev.Type = strings.TrimSpace(line[6:])
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(line[5:], " "))
		}
	}
	if ctx.Err() != nil {
		return lastEventID, ctx.Err()
	}
	return lastEventID, sc.Err()
}

// json sends in (when not nil) as JSON and decodes the answer into out.
func (c *Client) json(ctx context.Context, method, path string, q url.Values, in, out any) error {
	var body []byte
	h := http.Header{}
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return fmt.Errorf("client: encoding: %w", err)
		}
		h.Set("Content-Type", "application/json")
	}
	_, b, err := c.do(ctx, method, path, q, h, body)
	if err != nil {
		return err
	}
	return decode(b, out)
}

func decode(b []byte, out any) error {
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("client: decoding the answer: %w", err)
	}
	return nil
}

// maxAnswer bounds an answer read into memory.
const maxAnswer = 256 << 20

// do makes a call, retrying 429 and 503 after Retry-After, and returns the
// answer's body; an answer other than 2xx is an *Error.
func (c *Client) do(ctx context.Context, method, path string, q url.Values, h http.Header, body []byte) (*http.Response, []byte, error) {
	for attempt := 0; ; attempt++ {
		res, err := c.send(ctx, method, path, q, h, body)
		if err != nil {
			return nil, nil, err
		}
		b, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
		res.Body.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("client: reading the answer: %w", err)
		}
		if res.StatusCode/100 == 2 {
			return res, b, nil
		}
		e := answerError(res, b)
		if (res.StatusCode != http.StatusTooManyRequests && res.StatusCode != http.StatusServiceUnavailable) || attempt >= c.retries {
			return nil, nil, e
		}
		wait := min(max(e.RetryAfter, 100*time.Millisecond), c.maxWait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, nil, ctx.Err()
		case <-t.C:
		}
	}
}

// stream makes a GET whose body the caller reads.
func (c *Client) stream(ctx context.Context, path string, q url.Values, h http.Header) (*http.Response, error) {
	res, err := c.send(ctx, http.MethodGet, path, q, h, nil)
	if err != nil {
		return nil, err
	}
	if res.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		res.Body.Close()
		return nil, answerError(res, b)
	}
	return res, nil
}

func (c *Client) send(ctx context.Context, method, path string, q url.Values, h http.Header, body []byte) (*http.Response, error) {
	u := *c.base
	u.Path += path
	u.RawQuery = q.Encode()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), r)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("client: %s %s: %w", method, path, err)
	}
	return res, nil
}

// answerError reads the server's error body.
func answerError(res *http.Response, b []byte) *Error {
	e := &Error{Status: res.StatusCode, Code: http.StatusText(res.StatusCode), Message: strings.TrimSpace(string(b))}
	var body struct {
		Error  *vouch.Error   `json:"error"`
		Errors []*vouch.Error `json:"errors"`
	}
	if json.Unmarshal(b, &body) == nil && body.Error != nil {
		e.Code, e.Message = string(body.Error.Code), body.Error.Message
		e.Problems = body.Errors
		if len(e.Problems) == 0 {
			e.Problems = []*vouch.Error{body.Error}
		}
	}
	if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s >= 0 {
		e.RetryAfter = time.Duration(s) * time.Second
	}
	return e
}
