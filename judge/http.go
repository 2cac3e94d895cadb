package judge

import (
	"net/http"
	"sync"
	"time"
)

// maxIdlePerHost is how many idle connections to one API the shared client
// keeps: a judge serves many verifications at once, and the standard
// library's default of two would open and close a connection for most of
// them.
const maxIdlePerHost = 64

var (
	httpOnce   sync.Once
	httpClient *http.Client
)

// HTTPClient returns the HTTP client the providers use when given none: no
// timeout of its own (the context bounds each call), and a transport that
// keeps up to 64 idle connections to each API, shared by every provider of
// the process.
func HTTPClient() *http.Client {
	httpOnce.Do(func() {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConns = 4 * maxIdlePerHost
		t.MaxIdleConnsPerHost = maxIdlePerHost
		t.IdleConnTimeout = 90 * time.Second
		httpClient = &http.Client{Transport: t}
	})
	return httpClient
}
